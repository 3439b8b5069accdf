//go:build unix

package api

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	tenpin "github.com/tenpin/tenpin/protocol/client"
)

// exportBench is a lobby served over HTTP whose journal held lanes of a
// long series when it started: what the exports benchmarks ask.
type exportBench struct {
	lobby *lobby.Lobby
	api   *API
	srv   *httptest.Server
	long  []string // the ids of the lanes of a long series
}

// newExportBench serves a lobby with lanes lanes of games games each of
// four bowlers (random balls, decks named), restored as a restart
// restores them; nobody is seated on them. Every limit but the exports'
// is lifted, and a request from the loopback is counted by its
// X-Forwarded-For, so that a benchmark may ask from many addresses.
func newExportBench(b *testing.B, lanes, games int) *exportBench {
	j := memjournal.New()
	r := rand.New(rand.NewPCG(3, 4))
	var long []string
	for i := range lanes {
		id := fmt.Sprintf("hundred%03d", i+2) // the ids' alphabet has no 0 or 1
		series := make([]game.Result, games)
		for g := range series {
			series[g].Players = make([]game.Score, 4)
			for p := range series[g].Players {
				series[g].Players[p] = game.Score{Name: bowling.Name(fmt.Sprintf("Bowler %c", 'A'+p)), Game: randomGame(r)}
			}
		}
		snap := game.Event{Kind: game.Snapshot, Snapshot: &game.LaneSnapshot{ID: id, Name: "A hundred games", MaxPlayers: 8, Series: series, Played: games}}
		if _, err := j.Append(context.Background(), id, 0, snap); err != nil {
			b.Fatal(err)
		}
		long = append(long, id)
	}
	lb := lobby.New(lobby.Config{
		Lane:   lane.Config{Journal: j},
		Logger: slog.New(slog.DiscardHandler),
		// Only the exports' limit is measured.
		ConnsPerAddr: -1, ConnsPerLaneAddr: -1, LanesPerAddr: -1, MaxLanes: 10000,
		Socket:     ws.Config{MessageRate: 1e6, MessageBurst: 1e6}, // a bowler here rolls 100 balls a second
		TrustProxy: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")},
	})
	if n, err := lb.Restore(context.Background()); err != nil || n != lanes {
		b.Fatalf("Restore = %d, %v; want %d lanes", n, err, lanes)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		lb.Run(ctx)
	}()
	a, h := newAPI(services(lb), nil)
	srv := httptest.NewServer(h)
	// Connections kept for the 50 at once, as 50 clients keep theirs: the
	// process is the clients too, and dialling anew was a tenth of its CPU.
	srv.Client().Transport.(*http.Transport).MaxIdleConnsPerHost = 100
	b.Cleanup(func() {
		cancel()
		<-done
		srv.Close()
	})
	return &exportBench{lobby: lb, api: a, srv: srv, long: long}
}

// get asks for path from the client address addr, and returns the
// answer's status.
func (e *exportBench) get(b *testing.B, path, addr string) int {
	req, _ := http.NewRequest("GET", e.srv.URL+path, nil)
	req.Header.Set("X-Forwarded-For", addr)
	res, err := e.srv.Client().Do(req)
	if err != nil {
		b.Error(err)
		return 0
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// BenchmarkExport asks a lane of 100 games of four bowlers for each of its
// exports over HTTP, the exports built afresh every time (what a change
// of the lane makes the next request do): cpu-ns/op is the process's
// CPU, the server's and the client's, a request.
func BenchmarkExport(b *testing.B) {
	e := newExportBench(b, 1, 100)
	base := "/api/lanes/" + e.long[0]
	for _, path := range []string{"/games", "/stats", "/games.csv", "/games/57.svg"} {
		b.Run(path[1:], func(b *testing.B) {
			addr := 0
			start := processCPU()
			for b.Loop() {
				e.api.built.forget()
				addr++ // an address each: the rate limit is not measured here
				if status := e.get(b, base+path, "10.0.0."+strconv.Itoa(addr%250+1)); status != http.StatusOK {
					b.Fatalf("GET %s: %d", path, status)
				}
			}
			b.ReportMetric(float64((processCPU()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkExportAfterRoll is BenchmarkExport as a lane goes on: before
// each request a bowler rolls on the lane, which makes every export
// stale, and the next request builds it again from what was kept of the
// lane's finished games. cpu-ns/op counts the roll too, the bowler's and
// the lane's.
func BenchmarkExportAfterRoll(b *testing.B) {
	e := newExportBench(b, 1, 100)
	base := "/api/lanes/" + e.long[0]
	r := newRoller(b.Context(), b, e.srv.URL, e.long[0], "Buster")
	for _, path := range []string{"/games", "/stats", "/games.csv", "/games/57.svg"} {
		b.Run(path[1:], func(b *testing.B) {
			addr := 0
			start := processCPU()
			for b.Loop() {
				r.roll(b.Context())
				addr++ // an address each: the rate limit is not measured here
				if status := e.get(b, base+path, "10.0.0."+strconv.Itoa(addr%250+1)); status != http.StatusOK {
					b.Fatalf("GET %s: %d", path, status)
				}
			}
			b.ReportMetric(float64((processCPU()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkRollsBesideExports measures other lanes' rolls while the
// exports of long series are asked for. TENPIN_BENCH_LANES lanes (default
// 8) have a bowler each, who rolls as soon as the last roll is
// acknowledged, all at once, every 10 ms: an op is one such round. In
// "exports", 50 requests at once (TENPIN_BENCH_EXPORTERS) ask meanwhile
// for random exports — games, stats, games.csv, games/{n}.svg in either
// language — of TENPIN_BENCH_LONG lanes (default 4) of 100 games of four
// bowlers, on each of which a bowler rolls every TENPIN_BENCH_BUST_MS
// (default 1000 ms) so that what was built goes stale (a new board, a new
// ETag), as a real attacker would ask: from TENPIN_BENCH_ADDRS addresses
// (default 1) and within the exports' rate (ExportRate a second an
// address), the 50 at once as often as that lets them. It reports the
// rolls' latency (roll-p50-ms, roll-p99-ms: from the roll sent to its
// ack), the exports answered 200 and 429 a second, and the CPU the
// server's process used a second (cpu-ms/s: the lanes' and their bowlers',
// not the asker's, which runs in a process of its own on the same cores).
//
//	go test ./lobby/api -run XXX -bench RollsBesideExports -benchtime 1000x
//	TENPIN_BENCH_ADDRS=50 go test ./lobby/api -run XXX -bench RollsBesideExports -benchtime 1000x
func BenchmarkRollsBesideExports(b *testing.B) {
	lanes := envInt(b, "TENPIN_BENCH_LANES", 8)
	exporters := envInt(b, "TENPIN_BENCH_EXPORTERS", 50)
	addrs := envInt(b, "TENPIN_BENCH_ADDRS", 1)
	long := envInt(b, "TENPIN_BENCH_LONG", 4)
	bust := time.Duration(envInt(b, "TENPIN_BENCH_BUST_MS", 1000)) * time.Millisecond
	// The 50 at once, as often as the addresses' rate lets them.
	every := time.Duration(float64(time.Second) * float64(exporters) / float64(addrs) / lobby.ExportRate)
	for _, busy := range []bool{false, true} {
		name := "quiet"
		if busy {
			name = "exports"
		}
		b.Run(name, func(b *testing.B) {
			e := newExportBench(b, long, 100)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rollers := make([]*roller, lanes)
			for i := range rollers {
				l, err := e.lobby.Create(ctx, fmt.Sprintf("Lane %d", i))
				if err != nil {
					b.Fatal(err)
				}
				rollers[i] = newRoller(ctx, b, e.srv.URL, l.ID(), "Roller")
			}
			var wg sync.WaitGroup
			var ok, limited atomic.Int64
			stopAsking := func() {}
			if busy {
				for _, id := range e.long {
					r := newRoller(ctx, b, e.srv.URL, id, "Buster")
					wg.Go(func() {
						for ctx.Err() == nil {
							r.roll(ctx)
							select {
							case <-ctx.Done():
							case <-time.After(bust):
							}
						}
					})
				}
				stopAsking = askEvery(b, e, exporters, addrs, every, &ok, &limited)
			}
			var lat []time.Duration
			var mu sync.Mutex
			start, cpu := time.Now(), processCPU()
			for b.Loop() {
				next := time.Now().Add(10 * time.Millisecond)
				var round sync.WaitGroup
				for _, r := range rollers {
					round.Go(func() {
						d := r.roll(ctx)
						mu.Lock()
						lat = append(lat, d)
						mu.Unlock()
					})
				}
				round.Wait()
				time.Sleep(time.Until(next))
			}
			took, cpu := time.Since(start), processCPU()-cpu
			stopAsking()
			cancel()
			wg.Wait()
			b.ReportMetric(quantile(lat, 0.50), "roll-p50-ms")
			b.ReportMetric(quantile(lat, 0.99), "roll-p99-ms")
			b.ReportMetric(float64(ok.Load())/took.Seconds(), "exports/s")
			b.ReportMetric(float64(limited.Load())/took.Seconds(), "429/s")
			b.ReportMetric(float64(cpu.Milliseconds())/took.Seconds(), "cpu-ms/s")
		})
	}
}

// askEvery asks for the exports of e's lanes of a long series, exporters at
// once every every, from addrs addresses, counting the answers 200 and
// 429, until the function it returns is called. It asks from a process
// of its own (this test binary again, running TestExportsAsker), as a
// client does: its goroutines are not the server's to schedule.
func askEvery(b *testing.B, e *exportBench, exporters, addrs int, every time.Duration, ok, limited *atomic.Int64) func() {
	cmd := exec.Command(os.Args[0], "-test.run=^TestExportsAsker$")
	cmd.Env = append(os.Environ(), "TENPIN_ASK_URL="+e.srv.URL, "TENPIN_ASK_LANES="+strings.Join(e.long, ","),
		"TENPIN_ASK_AT_ONCE="+strconv.Itoa(exporters), "TENPIN_ASK_ADDRS="+strconv.Itoa(addrs), "TENPIN_ASK_EVERY="+every.String())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return func() {
		stdin.Close() // the asker's cue to stop
		if err := cmd.Wait(); err != nil {
			b.Errorf("the asker: %v\n%s", err, out.String())
		}
		var n200, n429 int64
		if _, err := fmt.Sscanf(out.String()[strings.Index(out.String(), "answered"):], "answered %d %d", &n200, &n429); err != nil {
			b.Errorf("the asker said %q: %v", out.String(), err)
		}
		ok.Add(n200)
		limited.Add(n429)
	}
}

// TestExportsAsker is BenchmarkRollsBesideExports' client of the exports,
// run by askEvery in a process of its own; it does nothing otherwise.
func TestExportsAsker(t *testing.T) {
	url := os.Getenv("TENPIN_ASK_URL")
	if url == "" {
		t.Skip("run by BenchmarkRollsBesideExports")
	}
	lanes := strings.Split(os.Getenv("TENPIN_ASK_LANES"), ",")
	atOnce, _ := strconv.Atoi(os.Getenv("TENPIN_ASK_AT_ONCE"))
	addrs, _ := strconv.Atoi(os.Getenv("TENPIN_ASK_ADDRS"))
	every, _ := time.ParseDuration(os.Getenv("TENPIN_ASK_EVERY"))
	stop := make(chan struct{})
	go func() {
		io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * atOnce}}
	var ok, limited atomic.Int64
	rnd := rand.New(rand.NewPCG(5, 9))
	for {
		next := time.Now().Add(every)
		var wave sync.WaitGroup
		for w := range atOnce {
			base := "/api/lanes/" + lanes[rnd.IntN(len(lanes))]
			path := [...]string{"/games", "/stats", "/games.csv", "/games/%d.svg", "/games/%d.svg?lang=ko"}[rnd.IntN(5)]
			if strings.Contains(path, "%d") {
				path = fmt.Sprintf(path, 1+rnd.IntN(100))
			}
			addr := "10.1.0." + strconv.Itoa(w%addrs+1)
			wave.Go(func() {
				req, _ := http.NewRequest("GET", url+base+path, nil)
				req.Header.Set("X-Forwarded-For", addr)
				res, err := client.Do(req)
				if err != nil {
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				switch res.StatusCode {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusTooManyRequests:
					limited.Add(1)
				}
			})
		}
		wave.Wait()
		select {
		case <-stop:
			fmt.Printf("answered %d %d\n", ok.Load(), limited.Load())
			return
		case <-time.After(time.Until(next)):
		}
	}
}

// roller is a bowler alone on a lane, who rolls 3 then 4 and plays game
// after game.
type roller struct {
	b    *testing.B
	conn *tenpin.Conn
	game bowling.Game
}

func newRoller(ctx context.Context, b *testing.B, url, id, name string) *roller {
	conn, err := tenpin.Dial(ctx, url, id)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.CloseNow() })
	if _, err := conn.Join(ctx, name); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Start(ctx); err != nil {
		b.Fatal(err)
	}
	return &roller{b: b, conn: conn}
}

// roll rolls one ball, and returns how long its ack took; after the
// game's last, it starts the next game.
func (r *roller) roll(ctx context.Context) time.Duration {
	pins := 3 + r.game.Ball()%2
	frame, ball := r.game.CurrentFrame(), r.game.Ball()
	t0 := time.Now()
	_, err := r.conn.Roll(ctx, frame, ball, pins)
	d := time.Since(t0)
	if err != nil {
		if ctx.Err() == nil {
			r.b.Error(err)
		}
		return d
	}
	r.game.Roll(pins)
	if r.game.Over() {
		r.game = bowling.Game{}
		_, err := r.conn.Rematch(ctx)
		if err == nil {
			_, err = r.conn.Start(ctx)
		}
		if err != nil && ctx.Err() == nil {
			r.b.Error(err)
		}
	}
	return d
}

// processCPU returns the CPU time the process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// forget forgets the exports built, for the benchmark of building them.
func (c *builtCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lanes, c.bytes = nil, 0
}
