//go:build unix

package lobby_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
)

// exportBench is a lobby served over HTTP whose journal held lanes of a
// long series when it started: what the exports benchmarks ask.
type exportBench struct {
	lobby *lobby.Lobby
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
	srv := httptest.NewServer(lb.Handler())
	b.Cleanup(func() {
		cancel()
		<-done
		srv.Close()
	})
	return &exportBench{lobby: lb, srv: srv, long: long}
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
				lobby.ForgetExports(e.lobby)
				addr++ // an address each: the rate limit is not measured here
				if status := e.get(b, base+path, "10.0.0."+strconv.Itoa(addr%250+1)); status != http.StatusOK {
					b.Fatalf("GET %s: %d", path, status)
				}
			}
			b.ReportMetric(float64((processCPU()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU returns the CPU time the process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
