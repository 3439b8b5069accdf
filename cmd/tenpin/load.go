package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/tenpin/tenpin/cmd/tenpin/internal/loadgen"
	"github.com/tenpin/tenpin/protocol"
)

// loadConfig is what tenpin load was asked to do.
type loadConfig struct {
	URL        string        `json:"url"`
	Lanes      int           `json:"lanes"`
	Players    int           `json:"players"`
	Spectators int           `json:"spectators"`
	Duration   time.Duration `json:"duration_ns"`
	Games      int           `json:"games"`
	Think      time.Duration `json:"think_ns"`
	Ramp       time.Duration `json:"ramp_ns"`
	Seed       uint64        `json:"seed"`
	Sources    int           `json:"sources"`
	maxP99     time.Duration
	jsonOut    bool
	cpuProfile string
	debugURL   string
}

// runLoad drives simulated players and spectators against a server: it
// plays real games over the real protocol, checks every board and every
// total as it goes, and reports latencies and rates.
func runLoad(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tenpin load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg loadConfig
	fs.StringVar(&cfg.URL, "url", "ws://localhost:8080", "the server's base `URL`, or the nodes' of a cluster, comma-separated: each lane is created on one node in turn, and its connections spread over them all")
	fs.IntVar(&cfg.Lanes, "lanes", 10, "lanes to create")
	fs.IntVar(&cfg.Players, "players", 4, "players per lane")
	fs.IntVar(&cfg.Spectators, "spectators", 6, "spectators per lane")
	fs.DurationVar(&cfg.Duration, "duration", 30*time.Second, "how long to play")
	fs.IntVar(&cfg.Games, "games", 0, "games per lane, then stop playing (0: rematch until the duration ends)")
	fs.DurationVar(&cfg.Think, "think", 200*time.Millisecond, "a player's pause before each roll")
	fs.DurationVar(&cfg.Ramp, "ramp", 5*time.Second, "spread the lanes' starts over this long")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the random pins")
	fs.IntVar(&cfg.Sources, "sources", 0, "loopback source addresses to spread connections over (127.0.0.1, .2, …; 0: one per 25,000 connections)")
	fs.DurationVar(&cfg.maxP99, "max-p99", 0, "fail if the fan-out p99 exceeds this (0: no limit)")
	fs.BoolVar(&cfg.jsonOut, "json", false, "write the final report as JSON")
	fs.StringVar(&cfg.debugURL, "debug-url", "", "the server's operators' listener, http://host:port (its -debug-addr): the report then shows the server's memory and counters")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write the load tool's own CPU profile to this `file` (the generator shares the machine)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tenpin load [flags]\n\nPlays games on a tenpin server with simulated players and spectators, checks every board, and reports latencies.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case cfg.Lanes < 1, cfg.Players < 1, cfg.Players > 8, cfg.Spectators < 0, cfg.Duration <= 0:
		return errors.New("load: need -lanes ≥ 1, -players 1 to 8, -spectators ≥ 0 and a positive -duration")
	case cfg.Games < 0, cfg.Think < 0, cfg.Ramp < 0, cfg.Sources < 0, cfg.maxP99 < 0:
		return errors.New("load: -games, -think, -ramp, -sources and -max-p99 cannot be negative")
	case cfg.Sources > 254:
		return errors.New("load: -sources is at most 254 (127.0.0.1 to 127.0.0.254)")
	}
	for _, u := range strings.Split(cfg.URL, ",") {
		if base, err := url.Parse(strings.TrimSpace(u)); err != nil || (base.Scheme != "ws" && base.Scheme != "wss") {
			return fmt.Errorf("load: -url %q: want ws://host:port or wss://host:port, or several separated by commas", u)
		}
	}
	conns := cfg.Lanes * (cfg.Players + cfg.Spectators)
	if cfg.Sources <= 0 {
		cfg.Sources = conns/25_000 + 1
	}
	raiseFileLimit(stderr)
	if os.Getenv("GOGC") == "" {
		// The generator's garbage is its own and short-lived: collecting it
		// less often leaves more of the shared cores to the server.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return fmt.Errorf("load: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("load: cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}

	res := loadgen.Run(ctx, loadgen.Config{
		URL: cfg.URL, Lanes: cfg.Lanes, Players: cfg.Players, Spectators: cfg.Spectators,
		Duration: cfg.Duration, Ramp: cfg.Ramp, Seed: cfg.Seed, Sources: cfg.Sources,
		Strategy: randomPlayers{think: cfg.Think, games: cfg.Games},
		DebugURL: cfg.debugURL,
		Progress: progress(stderr),
	})
	report := newLoadReport(cfg, res)
	if cfg.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(report)
	} else {
		report.print(stdout)
	}
	switch {
	case report.Errors > 0:
		return exitError{1}
	case cfg.maxP99 > 0 && report.Fanout.P99 > loadgen.Ms(cfg.maxP99):
		fmt.Fprintf(stderr, "tenpin: load: fan-out p99 %.1f ms exceeds -max-p99 %v\n", report.Fanout.P99, cfg.maxP99)
		return exitError{1}
	}
	return nil
}

// randomPlayers is tenpin load's strategy: a player thinks for -think,
// then knocks down a random number of the pins standing, and all of them
// one ball in four (strikes and spares, often); a lane plays -games
// games, or as many as the run lasts.
type randomPlayers struct {
	think time.Duration
	games int
}

func (s randomPlayers) Think(*rand.Rand) time.Duration { return s.think }

func (s randomPlayers) Pins(r *rand.Rand, up protocol.Up) int {
	pins := r.IntN(up.Standing + 1)
	if r.IntN(4) == 0 {
		pins = up.Standing
	}
	return pins
}

func (s randomPlayers) Rematch(games int) bool { return s.games == 0 || games < s.games }

// loadReport is the final report.
type loadReport struct {
	Config          loadConfig         `json:"config"`
	Seconds         float64            `json:"seconds"`
	Connections     int                `json:"connections"`
	ConnectFailures int64              `json:"connect_failures"`
	Connect         loadgen.Summary    `json:"connect"`
	Rolls           int64              `json:"rolls"`
	RollsPerSec     float64            `json:"rolls_per_sec"`
	Boards          int64              `json:"boards"`
	BoardsPerSec    float64            `json:"boards_per_sec"`
	BytesPerSec     float64            `json:"bytes_per_sec"`
	Games           int64              `json:"games"`
	SkippedSeqs     int64              `json:"skipped_seqs"`
	Reconnects      int64              `json:"reconnects"`
	Reconnect       loadgen.Summary    `json:"reconnect"`
	Ack             loadgen.Summary    `json:"ack"`
	Fanout          loadgen.Summary    `json:"fanout"`
	Errors          int64              `json:"errors"`
	ErrorSamples    []string           `json:"error_samples,omitempty"`
	ServerBefore    map[string]float64 `json:"server_before,omitempty"`
	ServerDuring    map[string]float64 `json:"server_during,omitempty"`
	RSSPerConnKiB   float64            `json:"rss_per_connection_kib,omitempty"`
}

// progress returns the function that prints a line a second on stderr.
func progress(w io.Writer) func(loadgen.Progress) {
	var lastRolls, lastBoards int64
	return func(p loadgen.Progress) {
		fmt.Fprintf(w, "%4.0fs conns %d rolls/s %d boards/s %d ack p99 %.1fms fan-out p99 %.1fms errors %d\n",
			p.Elapsed.Seconds(), p.Connections, p.Rolls-lastRolls, p.Boards-lastBoards,
			p.AckP99, p.FanoutP99, p.Errors+p.ConnectFailures)
		lastRolls, lastBoards = p.Rolls, p.Boards
	}
}

func newLoadReport(cfg loadConfig, res loadgen.Result) loadReport {
	secs := res.Elapsed.Seconds()
	rep := loadReport{
		Config:          cfg,
		Seconds:         secs,
		Connections:     res.Connections,
		ConnectFailures: res.ConnectFailures,
		Connect:         res.Connect,
		Rolls:           res.Rolls,
		RollsPerSec:     float64(res.Rolls) / secs,
		Boards:          res.Boards,
		BoardsPerSec:    float64(res.Boards) / secs,
		BytesPerSec:     float64(res.Bytes) / secs,
		Games:           res.Games,
		SkippedSeqs:     res.SkippedSeqs,
		Reconnects:      res.Reconnects,
		Reconnect:       res.Reconnect,
		Ack:             res.Ack,
		Fanout:          res.Fanout,
		Errors:          res.Errors,
		ErrorSamples:    res.ErrorSamples,
		ServerBefore:    res.ServerBefore,
		ServerDuring:    res.ServerDuring,
	}
	before, during := res.ServerBefore, res.ServerDuring
	if before != nil && during != nil && during["connections"] > before["connections"] {
		rep.RSSPerConnKiB = (during["rss_bytes"] - before["rss_bytes"]) / (during["connections"] - before["connections"]) / 1024
	}
	return rep
}

func (rep loadReport) print(w io.Writer) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "load: %d lanes × (%d players + %d spectators) against %s for %.1fs\n",
		rep.Config.Lanes, rep.Config.Players, rep.Config.Spectators, rep.Config.URL, rep.Seconds)
	fmt.Fprintf(&b, "connections  %d (%d failed), connect p50 %.1fms p99 %.1fms max %.1fms\n",
		rep.Connections, rep.ConnectFailures, rep.Connect.P50, rep.Connect.P99, rep.Connect.Max)
	fmt.Fprintf(&b, "rolls        %d (%.0f/s), games %d", rep.Rolls, rep.RollsPerSec, rep.Games)
	if rep.RollsPerSec > 0 {
		// The pace a lane's players kept: -think is the pause before each
		// ball, what the server takes to answer adds to it.
		fmt.Fprintf(&b, ", a ball every %.2fs a lane (-think %v)", float64(rep.Config.Lanes)/rep.RollsPerSec, rep.Config.Think)
	}
	b.WriteByte('\n')
	fmt.Fprintf(&b, "boards       %d (%.0f/s, %.1f MB/s), seqs skipped for slow readers %d\n", rep.Boards, rep.BoardsPerSec, rep.BytesPerSec/1e6, rep.SkippedSeqs)
	fmt.Fprintf(&b, "ack          p50 %.2fms p90 %.2fms p99 %.2fms max %.2fms (%d)\n", rep.Ack.P50, rep.Ack.P90, rep.Ack.P99, rep.Ack.Max, rep.Ack.Count)
	fmt.Fprintf(&b, "fan-out      p50 %.2fms p90 %.2fms p99 %.2fms max %.2fms (%d)\n", rep.Fanout.P50, rep.Fanout.P90, rep.Fanout.P99, rep.Fanout.Max, rep.Fanout.Count)
	if rep.ServerDuring != nil {
		fmt.Fprintf(&b, "server       %.0f connections, %.0f goroutines, heap %.1f MiB, RSS %.1f MiB",
			rep.ServerDuring["connections"], rep.ServerDuring["goroutines"], rep.ServerDuring["heap_bytes"]/(1<<20), rep.ServerDuring["rss_bytes"]/(1<<20))
		if rep.RSSPerConnKiB > 0 {
			fmt.Fprintf(&b, ", %.1f KiB RSS per connection", rep.RSSPerConnKiB)
		}
		fmt.Fprintln(&b)
	}
	if rep.Reconnects > 0 {
		fmt.Fprintf(&b, "reconnects   %d, p50 %.0fms p99 %.0fms max %.0fms from the close to the seat resumed\n", rep.Reconnects, rep.Reconnect.P50, rep.Reconnect.P99, rep.Reconnect.Max)
	}
	fmt.Fprintf(&b, "errors       %d\n", rep.Errors)
	for _, e := range rep.ErrorSamples {
		fmt.Fprintf(&b, "  %s\n", e)
	}
	w.Write(b.Bytes())
}
