// Package loadgen drives simulated players and spectators against a
// tenpin server, over the protocol client: it plays real games, checks
// every board and every total as it goes, and measures latencies and
// rates. tenpin load gives it a strategy and reports what it measured.
//
// Each lane of a run creates its lane, opens its connections, seats its
// players and starts the game. Every connection has its goroutine, which
// follows the boards (protocol/client's Conn reads the socket on one more):
// a spectator reads a board's seq and nothing else, a player its head and,
// when it is up or the game is over, its own line (protocol.BoardSeq,
// DecodeBoardHead and DecodeBoardPlayer). A player up waits its think
// time, rolls, and waits for the ack; the boards that come meanwhile wait
// for it in its Conn.
//
// What it measures: the ack latency (a roll sent to its ack received), the
// fan-out latency (a roll sent to the last of the lane's spectators seeing
// its board), connect times, rolls, boards, bytes and games a second, seqs
// skipped (boards the server dropped for a slow reader), and correctness
// errors: a board whose seq does not grow, a finished game whose total is
// not that of the rolls sent, a refusal, a connection lost.
package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// Strategy is how the simulated players play. Its methods are called from
// every player's goroutine at once, each with that player's own rand.
type Strategy interface {
	// Think returns how long a player waits before it rolls.
	Think(r *rand.Rand) time.Duration
	// Pins returns the pins a player's ball knocks down, 0 to
	// up.Standing.
	Pins(r *rand.Rand, up protocol.Up) int
	// Rematch reports whether a lane that has finished games games
	// plays another (while the run lasts).
	Rematch(games int) bool
}

// Config is what a run does.
type Config struct {
	// URL is the server's base URL, ws://host:port, or the URLs of the
	// nodes of a cluster, separated by commas: each lane is created on
	// one, and its connections are spread over all of them.
	URL        string
	Lanes      int
	Players    int // a lane's, 1 to 8
	Spectators int // a lane's
	Duration   time.Duration
	Ramp       time.Duration // the lanes' starts are spread over this long
	Seed       uint64        // of every player's rand
	// Sources is how many loopback addresses (127.0.0.1, .2, …) the
	// connections are spread over: each takes at most 28,000 or so
	// ephemeral ports to one server address.
	Sources  int
	Strategy Strategy
	// DebugURL, if set, is the server's operators' listener
	// (http://host:port, its -debug-addr), whose /debug/vars give the
	// server's memory and counters to the report.
	DebugURL string
	// Progress, if not nil, is called once a second while the run lasts.
	Progress func(Progress)
}

// Progress is a run so far.
type Progress struct {
	Elapsed                 time.Duration
	Connections             int64 // open now
	Rolls, Boards           int64 // so far
	AckP99, FanoutP99       float64
	Errors, ConnectFailures int64
}

// Result is what a run measured.
type Result struct {
	Elapsed         time.Duration
	Connections     int // made
	ConnectFailures int64
	Connect         Summary
	Rolls           int64
	Boards          int64
	Bytes           int64 // of the messages that answered no command: boards, mostly
	Games           int64
	SkippedSeqs     int64
	// Reconnects counts the connections the server closed before the
	// run's end that connected again (and resumed their seat), and
	// Reconnect the time from the close to that.
	Reconnects   int64
	Reconnect    Summary
	Ack          Summary
	Fanout       Summary
	Errors       int64
	ErrorSamples []string
	// The server's counters (its /debug/vars, with -pprof) before the
	// run and shortly before its end, while every connection is open;
	// nil if it has none.
	ServerBefore, ServerDuring map[string]float64
}

// maxErrorSamples is how many error messages a run keeps: the first ones
// say what went wrong; the count says how often.
const maxErrorSamples = 20

// run is one run: its counters, its samples and its errors.
type run struct {
	cfg     Config
	clients [][]*client.Client // by node, then by source address
	http    []*http.Client

	connected, connectFailures  atomic.Int64
	rolls, boards, bytes, games atomic.Int64
	skipped, errorCount         atomic.Int64
	reconnects                  atomic.Int64
	ack, fanout, connect        latencies
	reconnect                   latencies
	errMu                       sync.Mutex
	errSamples                  []string
	wg                          sync.WaitGroup
}

// Run runs the load cfg describes until cfg.Duration has passed or ctx
// ends, and returns what it measured. Connections are closed and lanes
// left to the server's idle timeout when it returns.
func Run(ctx context.Context, cfg Config) Result {
	r := &run{cfg: cfg}
	for i := range max(cfg.Sources, 1) {
		d := &net.Dialer{Timeout: 10 * time.Second}
		if cfg.Sources > 1 {
			d.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(1+i))}
		}
		r.http = append(r.http, &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 64}})
	}
	for _, u := range strings.Split(cfg.URL, ",") {
		var node []*client.Client
		for _, hc := range r.http {
			node = append(node, &client.Client{URL: strings.TrimSpace(u), HTTPClient: hc})
		}
		r.clients = append(r.clients, node)
	}
	return r.run(ctx)
}

// client returns the client for the i-th connection of a run: the nodes
// in turn, and the source addresses in turn within each.
func (r *run) client(i int) *client.Client {
	node := r.clients[i%len(r.clients)]
	return node[(i/len(r.clients))%len(node)]
}

// fail counts a correctness error and keeps the first few messages.
func (r *run) fail(format string, args ...any) {
	r.errorCount.Add(1)
	r.errMu.Lock()
	if len(r.errSamples) < maxErrorSamples {
		r.errSamples = append(r.errSamples, fmt.Sprintf(format, args...))
	}
	r.errMu.Unlock()
}

func (r *run) run(ctx context.Context) Result {
	before := r.serverVars()
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Duration)
	defer cancel()
	start := time.Now()
	rng := rand.New(rand.NewPCG(r.cfg.Seed, 0x7e2))
	for i := range r.cfg.Lanes {
		l := &lane{run: r, n: i, seed: rng.Uint64(), fan: map[uint64]*fanEntry{}}
		r.wg.Go(func() { l.play(ctx, start.Add(r.cfg.Ramp*time.Duration(i)/time.Duration(r.cfg.Lanes))) })
	}
	progressDone := make(chan struct{})
	go r.progress(ctx, start, progressDone)
	// Read the server's figures shortly before the end, while every
	// connection is still open.
	var during map[string]float64
	select {
	case <-time.After(r.cfg.Duration - min(2*time.Second, r.cfg.Duration/10)):
		during = r.serverVars()
	case <-ctx.Done():
	}
	<-ctx.Done()
	elapsed := time.Since(start)
	r.wg.Wait()
	<-progressDone
	return Result{
		Elapsed:         elapsed,
		Connections:     r.connect.count(),
		ConnectFailures: r.connectFailures.Load(),
		Connect:         r.connect.summary(),
		Rolls:           r.rolls.Load(),
		Boards:          r.boards.Load(),
		Bytes:           r.bytes.Load(),
		Games:           r.games.Load(),
		SkippedSeqs:     r.skipped.Load(),
		Reconnects:      r.reconnects.Load(),
		Reconnect:       r.reconnect.summary(),
		Ack:             r.ack.summary(),
		Fanout:          r.fanout.summary(),
		Errors:          r.errorCount.Load(),
		ErrorSamples:    r.errSamples,
		ServerBefore:    before,
		ServerDuring:    during,
	}
}

// progress reports the run once a second.
func (r *run) progress(ctx context.Context, start time.Time, done chan struct{}) {
	defer close(done)
	if r.cfg.Progress == nil {
		return
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			r.cfg.Progress(Progress{
				Elapsed:     now.Sub(start),
				Connections: r.connected.Load(),
				Rolls:       r.rolls.Load(), Boards: r.boards.Load(),
				AckP99: r.ack.summary().P99, FanoutP99: r.fanout.summary().P99,
				Errors: r.errorCount.Load(), ConnectFailures: r.connectFailures.Load(),
			})
		}
	}
}

// serverVars reads the server's /debug/vars, if the run was told where
// its debug listener is.
func (r *run) serverVars() map[string]float64 {
	if r.cfg.DebugURL == "" {
		return nil
	}
	res, err := r.http[0].Get(strings.TrimRight(r.cfg.DebugURL, "/") + "/debug/vars")
	if err != nil {
		return nil
	}
	defer res.Body.Close()
	var all map[string]any
	if json.NewDecoder(res.Body).Decode(&all) != nil {
		return nil
	}
	out := map[string]float64{}
	for k, v := range all {
		if f, ok := v.(float64); ok && strings.HasPrefix(k, "tenpin_") {
			out[strings.TrimPrefix(k, "tenpin_")] = f
		}
	}
	return out
}
