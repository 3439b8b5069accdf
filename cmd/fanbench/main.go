// Command fanbench drives a bowling-lane server with simulated players and
// spectators and measures it, the same way whatever the server: tenpin and
// peers/bare (protocol "tenpin") and peers/centrifuge (protocol
// "centrifuge").
//
// Each lane has players and spectators (4 and 6 by default). The player who
// is up rolls after the think time, never more pins than stand; the server
// answers the roller (an ack, or an RPC reply) with the seq of the board that
// shows the roll and sends that board to every client of the lane. fanbench
// reports, over the steady-state window (from the end of the ramp, once every
// lane plays, to the end of the run):
//
//   - boards delivered a second, counting every client;
//
//   - fan-out latency: from sending a roll to each client's receiving the
//     board that shows it, every client of the lane counted (p50, p99, max);
//
//   - ack latency: from sending a roll to its answer;
//
//   - seq gaps (boards a client never saw) and errors, over the whole run;
//
//   - with -pid, the server's CPU seconds per 1,000 boards delivered and its
//     RSS per connection: the window's mean RSS less the idle server's, read
//     when fanbench starts, over the connections (/proc/PID/stat, status);
//
//   - the CPU the generator and everything else used meanwhile, since they
//     share the machine.
//
// One run against a server that listens on 127.0.0.1:38080 as process PID:
//
//	fanbench -proto tenpin -url ws://127.0.0.1:38080 -pid PID -lanes 500 -duration 60s -ramp 10s
//
// bench.sh, beside it, builds the servers and fanbench, and runs them in turn.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

type config struct {
	Proto      string        `json:"proto"`
	Label      string        `json:"label"`
	URL        string        `json:"url"`
	Lanes      int           `json:"lanes"`
	Players    int           `json:"players"`
	Spectators int           `json:"spectators"`
	Duration   time.Duration `json:"duration_ns"`
	Ramp       time.Duration `json:"ramp_ns"`
	Think      time.Duration `json:"think_ns"`
	PID        int           `json:"pid"`
	Seed       uint64        `json:"seed"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "fanbench:", err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "fanbench:", err)
		os.Exit(1)
	}
}

// errUsage is returned for flags that do not make a run.
var errUsage = errors.New("usage")

// run parses the flags, drives the server, prints the report on stdout and
// the progress on stderr. It fails if the run counted any error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	var out string
	fs := flag.NewFlagSet("fanbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Proto, "proto", "tenpin", "the server's protocol: tenpin (tenpin, bare) or centrifuge")
	fs.StringVar(&cfg.Label, "label", "", "the server's name in the report (default: -proto)")
	fs.StringVar(&cfg.URL, "url", "ws://127.0.0.1:38080", "the server's base `URL`")
	fs.IntVar(&cfg.Lanes, "lanes", 10, "lanes")
	fs.IntVar(&cfg.Players, "players", 4, "players a lane (1 to 8)")
	fs.IntVar(&cfg.Spectators, "spectators", 6, "spectators a lane")
	fs.DurationVar(&cfg.Duration, "duration", 60*time.Second, "the whole run, ramp included")
	fs.DurationVar(&cfg.Ramp, "ramp", 10*time.Second, "spread the lanes' starts over this long")
	fs.DurationVar(&cfg.Think, "think", 200*time.Millisecond, "a player's pause before each roll")
	fs.IntVar(&cfg.PID, "pid", 0, "the server's process `id`, to read its CPU and memory (0: not read)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the pins rolled")
	fs.StringVar(&out, "out", "", "append the report to this `file` as one JSON line")
	if err := fs.Parse(args); err != nil {
		return err
	}
	proto, ok := protocols[cfg.Proto]
	switch {
	case !ok:
		return fmt.Errorf("%w: -proto must be tenpin or centrifuge", errUsage)
	case cfg.Lanes < 1 || cfg.Players < 1 || cfg.Players > 8 || cfg.Spectators < 0:
		return fmt.Errorf("%w: need -lanes ≥ 1, -players 1 to 8, -spectators ≥ 0", errUsage)
	case cfg.Duration <= cfg.Ramp || cfg.Ramp < 0 || cfg.Think < 0:
		return fmt.Errorf("%w: need 0 ≤ -ramp < -duration and -think ≥ 0", errUsage)
	case !strings.HasPrefix(cfg.URL, "ws://"):
		return fmt.Errorf("%w: -url must be ws://host:port", errUsage)
	case fs.NArg() > 0:
		return fmt.Errorf("%w: no arguments but flags, got %q", errUsage, fs.Args())
	}
	if cfg.Label == "" {
		cfg.Label = cfg.Proto
	}
	raiseFileLimit()
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400) // the generator's garbage is short-lived: collect it less often, leave the cores to the server
	}
	r := &runner{
		cfg:      cfg,
		proto:    proto,
		stderr:   stderr,
		httpBase: "http" + strings.TrimPrefix(cfg.URL, "ws"),
		http:     &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}},
	}
	rep, err := r.run(ctx)
	if err != nil {
		return err
	}
	rep.print(stdout)
	if out != "" {
		if err := appendJSON(out, rep); err != nil {
			return err
		}
	}
	if rep.Errors > 0 {
		return fmt.Errorf("%d errors", rep.Errors)
	}
	return nil
}

// appendJSON appends v to the file at path as one JSON line.
func appendJSON(path string, v any) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err := json.NewEncoder(f).Encode(v); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// runner is one run: its counters and latencies.
type runner struct {
	cfg      config
	proto    protocol
	stderr   io.Writer // progress
	http     *http.Client
	httpBase string
	wg       sync.WaitGroup // lanes and readers

	measuring atomic.Bool // in the steady-state window: rolls sent now are measured
	stopping  atomic.Bool // the window is over: no more rolls

	connected, playing         atomic.Int64
	boards, bytes, rolls, gaps atomic.Int64
	fanout, ack                hist

	errors     atomic.Int64
	errMu      sync.Mutex
	errSamples []string
}

// fail counts an error and keeps the first few.
func (r *runner) fail(format string, args ...any) {
	r.errors.Add(1)
	r.errMu.Lock()
	if len(r.errSamples) < 10 {
		r.errSamples = append(r.errSamples, fmt.Sprintf(format, args...))
	}
	r.errMu.Unlock()
}

// snapshot is the counters and CPU times at one moment.
type snapshot struct {
	at                time.Time
	boards, bytes     int64
	rolls             int64
	server, generator float64 // CPU seconds
	busy, total       float64 // the machine's CPU seconds
}

func (r *runner) snapshot() snapshot {
	s := snapshot{at: time.Now(), boards: r.boards.Load(), bytes: r.bytes.Load(), rolls: r.rolls.Load()}
	if r.cfg.PID > 0 {
		s.server, _ = procCPU(strconv.Itoa(r.cfg.PID))
	}
	s.generator, _ = procCPU("self")
	s.busy, s.total = machineCPU()
	return s
}

// run plays the lanes for the configured duration and reports on the
// steady-state window.
func (r *runner) run(ctx context.Context) (report, error) {
	cfg := r.cfg
	pid := strconv.Itoa(cfg.PID)
	rep := report{Config: cfg, LoadAvg: loadAvg()}
	var idle int64
	if cfg.PID > 0 {
		var err error
		if idle, err = procRSS(pid); err != nil {
			return rep, err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	start := time.Now()
	for i := range cfg.Lanes {
		l := &lane{r: r, n: i, clients: cfg.Players + cfg.Spectators, rolls: map[uint64]*rollTrack{}}
		at := start.Add(cfg.Ramp * time.Duration(i) / time.Duration(cfg.Lanes))
		r.wg.Go(func() {
			select {
			case <-time.After(time.Until(at)):
				l.play(ctx, cfg.Players, cfg.Spectators, cfg.Seed<<32+uint64(i))
			case <-ctx.Done():
			}
		})
	}
	go r.progress(ctx, start)

	// The window opens when the ramp is over and every lane plays (or half
	// the time left has gone by waiting for them).
	end := start.Add(cfg.Duration)
	sleepUntil(ctx, start.Add(cfg.Ramp))
	for r.playing.Load() < int64(cfg.Lanes) && time.Until(end) > (cfg.Duration-cfg.Ramp)/2 && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
	}
	rep.Connections, rep.Playing = r.connected.Load(), r.playing.Load()
	s0 := r.snapshot()
	r.measuring.Store(true)
	var rss []int64
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for time.Now().Before(end) && ctx.Err() == nil {
		if cfg.PID > 0 {
			if v, err := procRSS(pid); err == nil {
				rss = append(rss, v)
			}
		}
		select {
		case <-tick.C:
		case <-time.After(time.Until(end)):
		case <-ctx.Done():
		}
	}
	r.measuring.Store(false)
	s1 := r.snapshot()
	r.stopping.Store(true)
	sleepUntil(ctx, time.Now().Add(2*time.Second)) // the last measured boards arrive
	cancel()                                       // closes every connection
	r.wg.Wait()

	secs := s1.at.Sub(s0.at).Seconds()
	boards := float64(s1.boards - s0.boards)
	rep.WindowS = secs
	rep.BoardsPerS = boards / secs
	rep.RollsPerS = float64(s1.rolls-s0.rolls) / secs
	if boards > 0 {
		rep.BytesPerBoard = float64(s1.bytes-s0.bytes) / boards
	}
	rep.Fanout, rep.Ack = r.fanout.summary(), r.ack.summary()
	rep.Gaps, rep.Errors, rep.ErrorSamples = r.gaps.Load(), r.errors.Load(), r.errSamples
	rep.GeneratorCores = (s1.generator - s0.generator) / secs
	rep.BusyCores = (s1.busy - s0.busy) / secs
	if cfg.PID > 0 && len(rss) > 0 && boards > 0 {
		var sum int64
		for _, v := range rss {
			sum += v
		}
		mean := float64(sum) / float64(len(rss))
		rep.ServerCores = (s1.server - s0.server) / secs
		rep.ServerCPUPer1000 = (s1.server - s0.server) / boards * 1000
		rep.RSSIdleMiB, rep.RSSMiB = float64(idle)/(1<<20), mean/(1<<20)
		rep.RSSPerConnKiB = (mean - float64(idle)) / float64(rep.Connections) / 1024
	}
	rep.OtherCores = rep.BusyCores - rep.ServerCores - rep.GeneratorCores
	return rep, nil
}

func sleepUntil(ctx context.Context, t time.Time) {
	select {
	case <-time.After(time.Until(t)):
	case <-ctx.Done():
	}
}

// progress prints a line every five seconds on standard error.
func (r *runner) progress(ctx context.Context, start time.Time) {
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	last := r.boards.Load()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			b := r.boards.Load()
			fmt.Fprintf(r.stderr, "%4.0fs conns %d playing %d boards/s %.0f fan-out p99 %.1fms errors %d\n",
				now.Sub(start).Seconds(), r.connected.Load(), r.playing.Load(), float64(b-last)/5, r.fanout.quantile(0.99), r.errors.Load())
			last = b
		}
	}
}

type report struct {
	Config           config   `json:"config"`
	LoadAvg          float64  `json:"loadavg_at_start"`
	Connections      int64    `json:"connections"`
	Playing          int64    `json:"lanes_playing"`
	WindowS          float64  `json:"window_s"`
	BoardsPerS       float64  `json:"boards_per_s"`
	RollsPerS        float64  `json:"rolls_per_s"`
	BytesPerBoard    float64  `json:"bytes_per_board"`
	Fanout           latency  `json:"fanout"`
	Ack              latency  `json:"ack"`
	Gaps             int64    `json:"seq_gaps"`
	Errors           int64    `json:"errors"`
	ErrorSamples     []string `json:"error_samples,omitempty"`
	ServerCores      float64  `json:"server_cpu_cores"`
	ServerCPUPer1000 float64  `json:"server_cpu_s_per_1000_boards"`
	RSSIdleMiB       float64  `json:"server_rss_idle_mib"`
	RSSMiB           float64  `json:"server_rss_mib"`
	RSSPerConnKiB    float64  `json:"server_rss_kib_per_conn"`
	GeneratorCores   float64  `json:"generator_cpu_cores"`
	BusyCores        float64  `json:"machine_busy_cores"`
	OtherCores       float64  `json:"other_cpu_cores"`
}

func (rep report) print(w io.Writer) {
	c := rep.Config
	fmt.Fprintf(w, "fanbench: %s (%s protocol), %d lanes × (%d players + %d spectators), think %v, %v with a %v ramp; load average %.2f at start\n",
		c.Label, c.Proto, c.Lanes, c.Players, c.Spectators, c.Think, c.Duration, c.Ramp, rep.LoadAvg)
	fmt.Fprintf(w, "window      %.1fs, %d connections, %d lanes playing\n", rep.WindowS, rep.Connections, rep.Playing)
	fmt.Fprintf(w, "boards      %.0f/s (%.0f bytes each), rolls %.0f/s\n", rep.BoardsPerS, rep.BytesPerBoard, rep.RollsPerS)
	fmt.Fprintf(w, "fan-out     p50 %.2fms p99 %.2fms max %.1fms (%d)\n", rep.Fanout.P50, rep.Fanout.P99, rep.Fanout.Max, rep.Fanout.Count)
	fmt.Fprintf(w, "ack         p50 %.2fms p99 %.2fms max %.1fms (%d)\n", rep.Ack.P50, rep.Ack.P99, rep.Ack.Max, rep.Ack.Count)
	fmt.Fprintf(w, "seq gaps    %d, errors %d\n", rep.Gaps, rep.Errors)
	for _, e := range rep.ErrorSamples {
		fmt.Fprintf(w, "  %s\n", e)
	}
	if c.PID > 0 {
		fmt.Fprintf(w, "server      %.2f cores, %.4f CPU s per 1,000 boards; RSS %.1f MiB (idle %.1f), %.1f KiB per connection\n",
			rep.ServerCores, rep.ServerCPUPer1000, rep.RSSMiB, rep.RSSIdleMiB, rep.RSSPerConnKiB)
	}
	fmt.Fprintf(w, "machine     %.2f of its cores busy: generator %.2f, others %.2f\n", rep.BusyCores, rep.GeneratorCores, rep.OtherCores)
}

// raiseFileLimit lifts the soft limit on open files to the hard one: every
// connection is a file.
func raiseFileLimit() {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur < lim.Max {
		lim.Cur = lim.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
}
