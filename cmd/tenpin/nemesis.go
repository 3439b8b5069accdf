package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/tenpin/tenpin/cmd/tenpin/internal/nemesis"
)

// serveCommand returns the command that runs "tenpin serve" with args:
// this program again. The tests replace it, as their binary is not tenpin
// unless told so (see TestMain).
var serveCommand = func(args []string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exec.Command(exe, append([]string{"serve"}, args...)...)
}

// runNemesis runs a three-node cluster of this program under a
// reconnecting load while it kills and pauses random nodes, and the
// server leading the bowlers' bucket on purpose, then checks
// that every acknowledged roll is stored once and nothing else is, that
// no client saw a board's seq go back, and that every remembered player's
// history holds each game they finished once: see package nemesis.
func runNemesis(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tenpin nemesis", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := nemesis.Config{Spawn: serveCommand, Log: stderr}
	fs.DurationVar(&cfg.Duration, "duration", time.Minute, "how long to play and inject faults")
	fs.IntVar(&cfg.Lanes, "lanes", 8, "lanes playing at once")
	fs.IntVar(&cfg.Players, "players", 2, "players per lane")
	fs.IntVar(&cfg.Spectators, "spectators", 1, "spectators per lane")
	fs.IntVar(&cfg.Games, "games", 20, "games per lane, then a new lane (at most 90: a lane keeps 100)")
	fs.DurationVar(&cfg.Think, "think", 50*time.Millisecond, "a player's pause before each roll, random up to this")
	fs.Uint64Var(&cfg.Seed, "seed", uint64(time.Now().UnixNano()), "seed of the faults and the pins (printed)")
	fs.DurationVar(&cfg.Gap, "gap", 6*time.Second, "the longest quiet time between faults (random, from a tenth of it)")
	fs.DurationVar(&cfg.Down, "down", 3*time.Second, "the longest a killed node stays down (random, from a tenth of it)")
	fs.DurationVar(&cfg.Pause, "pause", 10*time.Second, "the longest a paused node stays paused (random, from 1s)")
	fs.BoolVar(&cfg.NoKill, "no-kill", false, "pause nodes only")
	fs.BoolVar(&cfg.NoPause, "no-pause", false, "kill nodes only")
	fs.BoolVar(&cfg.Guests, "guests", false, "players join as guests: no bowler's history is checked")
	fs.DurationVar(&cfg.Settle, "settle", 30*time.Second, "how long the check waits for the bowlers' histories to hold every game over")
	fs.StringVar(&cfg.NATS, "nats", "", "`URLs` (comma-separated) of an external NATS cluster with JetStream: the nodes use it (-nats) instead of embedded servers; the run cannot kill its servers")
	fs.StringVar(&cfg.NATSCluster, "natscluster", "", "`path` of natscluster (go build -o /tmp/natscluster ./cmd/natscluster): the run starts three NATS servers, each a process of its own, and the nodes use them; -kill-bowlers-leader kills the one leading the bowlers' bucket")
	fs.BoolVar(&cfg.KillBowlersLeader, "kill-bowlers-leader", true, "make the first kill, and every third fault after, a kill of the server leading the bowlers' bucket (its node, or with -natscluster the NATS server); off by default with -nats or -no-kill")
	fs.StringVar(&cfg.Dir, "dir", "", "`dir`ectory for the nodes' data and logs (default: a new temporary one, removed unless the run fails)")
	jsonOut := fs.Bool("json", false, "write the report as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tenpin nemesis [flags]\n\nRuns three tenpin nodes as a cluster under a reconnecting load, kills (SIGKILL) and pauses\n(SIGSTOP/SIGCONT) one node at a time, the server leading the bowlers' bucket among them on purpose\n(-kill-bowlers-leader), then checks that every acknowledged roll is stored once,\nnothing else is, no client saw a board's seq go back, and every remembered player's history\nholds each game they finished once. Exits 1 on a violation.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("nemesis: unexpected arguments %q", fs.Args())
	}
	if !flagSet(fs, "kill-bowlers-leader") && (cfg.NATS != "" || cfg.NoKill) {
		// The operator's NATS servers are not the run's to kill, and
		// -no-kill kills nothing: the fault is left out unless asked for,
		// when Do says why it cannot be.
		cfg.KillBowlersLeader = false
	}
	if err := cfg.Check(); err != nil {
		return err
	}
	dir, keep, err := runDir(cfg.Dir, "nemesis")
	if err != nil {
		return err
	}
	cfg.Dir = dir
	fmt.Fprintf(stderr, "tenpin nemesis: seed %d, nodes' data and logs in %s\n", cfg.Seed, cfg.Dir)

	res, err := nemesis.Do(ctx, cfg)
	failed := err != nil || len(res.Violations) > 0
	if !keep && !failed {
		os.RemoveAll(cfg.Dir)
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(struct {
			Seed uint64 `json:"seed"`
			nemesis.Result
		}{cfg.Seed, res})
	} else {
		printNemesis(stdout, cfg, res)
	}
	switch {
	case err != nil:
		return fmt.Errorf("%w (the nodes' logs are in %s)", err, cfg.Dir)
	case len(res.Violations) > 0:
		fmt.Fprintf(stderr, "tenpin: nemesis: %d violations (seed %d; the nodes' logs are in %s)\n", len(res.Violations), cfg.Seed, cfg.Dir)
		return exitError{1}
	case res.Kills == 0 && !cfg.NoKill || res.Pauses == 0 && !cfg.NoPause:
		return errors.New("nemesis: the run was too short for a kill and a pause: lengthen -duration or shorten -gap")
	case res.LeaderKills == 0 && cfg.KillBowlersLeader:
		return errors.New("nemesis: the run was too short for a kill of the bowlers' bucket leader: lengthen -duration or shorten -gap")
	}
	return nil
}

// runDir returns the directory of a run's processes (tenpin nemesis,
// tenpin failover): dir, made if need be, to keep; or, if dir is empty, a
// new temporary one, which the run removes unless it fails.
func runDir(dir, command string) (_ string, keep bool, err error) {
	if dir == "" {
		dir, err = os.MkdirTemp("", "tenpin-"+command+"-")
	} else {
		keep, err = true, os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", command, err)
	}
	return dir, keep, nil
}

func printNemesis(w io.Writer, cfg nemesis.Config, res nemesis.Result) {
	k := res.Counts
	store := "embedded NATS cluster"
	switch {
	case cfg.NATS != "":
		store = "external NATS at " + cfg.NATS
	case cfg.NATSCluster != "":
		store = "external NATS cluster of 3 processes (natscluster -only)"
	}
	fmt.Fprintf(w, "nemesis: 3 nodes (%s), %d lanes at once × %d players + %d spectators, %.1fs, seed %d\n",
		store, cfg.Lanes, cfg.Players, cfg.Spectators, res.Elapsed.Seconds(), cfg.Seed)
	fmt.Fprintf(w, "faults       %d kills (%d of the bowlers' bucket leader), %d pauses\n", res.Kills, res.LeaderKills, res.Pauses)
	for _, f := range res.Faults {
		leads := ""
		if f.Leads != "" {
			leads = " (leading " + f.Leads + ")"
		}
		fmt.Fprintf(w, "  %7.1fs %-5s %s%s for %v, all healthy %v after\n", f.At.Seconds(), f.Kind, f.Node, leads, f.For.Round(time.Millisecond), f.Back.Round(time.Millisecond))
	}
	fmt.Fprintf(w, "lanes        %d, games finished %d\n", k.Lanes, k.Games)
	fmt.Fprintf(w, "rolls        %d acked, %d unknown, %d refused; %d stored\n", k.Acked, k.Unknown, k.Refused, res.Stored)
	if !cfg.Guests {
		fmt.Fprintf(w, "histories    %d remembered players, %d games in their histories\n", res.Remembered, res.HistoryGames)
	}
	fmt.Fprintf(w, "connections  %d (%d reconnects, %d for want of a board), %d boards, %d notices\n", k.Connections, k.Reconnects, k.Stalls, k.Boards, k.Notices)
	fmt.Fprintf(w, "violations   %d\n", len(res.Violations))
	for _, v := range res.Violations {
		fmt.Fprintf(w, "  %v\n", v)
	}
}

// flagSet reports whether the command line set the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
