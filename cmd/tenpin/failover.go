package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tenpin/tenpin/cmd/tenpin/internal/failover"
)

// runFailover runs a three-node cluster of this program under a steady
// load, kills one process with SIGKILL, and reports how long the lanes
// stalled, which clients the survivors disconnected, and how long a lane
// went missing from their lobby lists: see package failover.
func runFailover(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tenpin failover", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := failover.Config{Spawn: serveCommand, Log: stderr}
	fs.IntVar(&cfg.Lanes, "lanes", 12, "lanes, created on the nodes in turn, each with one player and a watcher on each other node")
	fs.DurationVar(&cfg.Every, "every", 100*time.Millisecond, "how often each player rolls (a gutter ball)")
	fs.DurationVar(&cfg.Warmup, "warmup", 10*time.Second, "how long the lanes play before the kill")
	fs.DurationVar(&cfg.Measure, "measure", 20*time.Second, "how long the lanes play after the kill (longer than a NATS election, 4–9 s)")
	kill := fs.String("kill", "node", "the `target` to kill: node (a tenpin node running lanes), nats-leader (the NATS server leading the lanes' stream TENPIN_LANES, the first shard's with -shards) or nats (a NATS server not leading it); the two last need -natscluster")
	fs.BoolVar(&cfg.Term, "term", false, "stop the process with SIGTERM, as a planned restart does, instead of SIGKILL")
	fs.BoolVar(&cfg.Rolling, "rolling", false, "instead of one kill, restart every tenpin node in turn (SIGTERM, then started again), as a rolling upgrade does; -measure counts from the last restart")
	fs.DurationVar(&cfg.Settle, "settle", 5*time.Second, "with -rolling, how long a restarted node serves before the next is stopped")
	fs.StringVar(&cfg.Node, "node", "", "the tenpin node -kill node kills, by its `name`: n1, n2 or n3 (default: the first lane's)")
	fs.StringVar(&cfg.NATS, "nats", "", "`URLs` (comma-separated) of an external NATS cluster with JetStream for the nodes; its servers are not killed")
	fs.StringVar(&cfg.NATSCluster, "natscluster", "", "`path` of natscluster (go build -o /tmp/natscluster ./cmd/natscluster): the nodes use three NATS servers of their own processes, which -kill nats and nats-leader kill")
	fs.BoolVar(&cfg.Relayed, "relayed", false, "seat each lane's player on another node than the lane's, which relays its rolls (the next node for half the lanes, the one before for the others), and its watchers on the two nodes other than the player's")
	fs.IntVar(&cfg.Shards, "shards", 0, "the nodes' -shards: the streams the lanes are spread over (0: tenpin serve's default, 3 in a cluster)")
	fs.StringVar(&cfg.Dir, "dir", "", "`dir`ectory for the processes' data and logs (default: a new temporary one, removed unless the run fails)")
	jsonOut := fs.Bool("json", false, "write the report as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tenpin failover [flags]\n\nRuns three tenpin nodes as a cluster under a steady load, kills one process with SIGKILL,\nand reports each lane's next roll after the kill, the clients the surviving nodes disconnected,\nand how long a lane went missing from their lobby lists. Exits 1 if a lane never rolled again.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("failover: unexpected arguments %q", fs.Args())
	}
	cfg.Kill = failover.Target(*kill)
	if err := cfg.Check(); err != nil {
		return err
	}
	dir, keep, err := runDir(cfg.Dir, "failover")
	if err != nil {
		return err
	}
	cfg.Dir = dir
	fmt.Fprintf(stderr, "tenpin failover: processes' data and logs in %s\n", cfg.Dir)

	res, err := failover.Do(ctx, cfg)
	if err != nil {
		return fmt.Errorf("%w (the processes' logs are in %s)", err, cfg.Dir)
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return fmt.Errorf("failover: %w", err)
		}
	} else {
		failover.Print(stdout, res)
	}
	if lost := res.Unrecovered(); len(lost) > 0 {
		fmt.Fprintf(stderr, "tenpin: failover: lanes %v acked no roll sent in the %v after the kill (the processes' logs are in %s)\n", lost, cfg.Measure, cfg.Dir)
		return exitError{1}
	}
	if !keep {
		os.RemoveAll(cfg.Dir)
	}
	return nil
}
