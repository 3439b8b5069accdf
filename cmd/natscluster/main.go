// Command natscluster runs a NATS cluster with JetStream on this machine,
// built from the nats-server in tenpin's module (nothing to download), for
// tenpin nodes to use as an external store (tenpin serve -nats …): three
// servers routed to each other, each with its own data directory, until
// interrupted.
//
//	go run ./cmd/natscluster                  # three servers in this process
//	go run ./cmd/natscluster -only 2          # server 2 of the same layout alone
//
// By default the servers listen for clients on 127.0.0.1:4222, 4223 and
// 4224 and for each other on 6222, 6223 and 6224, and store in
// natscluster-data/s1, s2 and s3. With -only each server runs in a
// process of its own (start three, one for each of 1, 2 and 3), so that
// one can be killed on its own.
//
// It listens on the loopback interface only, with no authentication and
// no TLS: it is for development, tests and measurements on one machine.
// A NATS cluster across machines is run with nats-server's own
// configuration (accounts or users, TLS), and its URLs, credentials in
// them, given to tenpin's -nats.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Settings tenpin asks of an external NATS.
const (
	// maxPayload: a lane's largest snapshot and its headers (NATS's
	// default is 1 MiB; tenpin warns below 7 MiB).
	maxPayload = 8 << 20
	// readyTimeout bounds a server's start, its store read back included.
	readyTimeout = 30 * time.Second
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintf(os.Stderr, "natscluster: %v\n", err)
		os.Exit(1)
	}
}

// run runs the cluster, or one server of it, until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("natscluster", flag.ContinueOnError)
	fs.SetOutput(stderr)
	host := fs.String("host", "127.0.0.1", "loopback `address` every server listens on")
	clientPorts := fs.String("ports", "4222,4223,4224", "comma-separated client `ports`, one a server")
	clusterPorts := fs.String("cluster-ports", "6222,6223,6224", "comma-separated cluster (route) `ports`, one a server, in the same order")
	dir := fs.String("dir", "natscluster-data", "`dir`ectory of the servers' stores: one subdirectory a server (s1, s2, …)")
	only := fs.Int("only", 0, "run server `n` of the layout alone (1 to the number of ports), in this process; 0: all of them")
	fsync := fs.Duration("fsync", time.Second, "how often the servers sync their stores to disk (tenpin's embedded store does every 1s; NATS's default is 2m)")
	verbose := fs.Bool("v", false, "log the servers' notices to standard error")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: natscluster [flags]\n\nRuns a NATS cluster with JetStream on this machine until interrupted, for tenpin serve -nats.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if ip := net.ParseIP(*host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-host %q: natscluster listens on a loopback address only, with no authentication; across machines run nats-server with its own configuration (users, TLS)", *host)
	}
	cports, err := ports("-ports", *clientPorts)
	if err != nil {
		return err
	}
	rports, err := ports("-cluster-ports", *clusterPorts)
	if err != nil {
		return err
	}
	if len(rports) != len(cports) {
		return fmt.Errorf("-ports names %d servers and -cluster-ports %d: one of each a server", len(cports), len(rports))
	}
	seen := make(map[int]bool, 2*len(cports))
	for _, p := range append(slices.Clone(cports), rports...) {
		if seen[p] {
			return fmt.Errorf("-ports and -cluster-ports name port %d twice: every server listens on two ports of its own", p)
		}
		seen[p] = true
	}
	if *only < 0 || *only > len(cports) {
		return fmt.Errorf("-only %d: want 1 to %d, or 0 for every server", *only, len(cports))
	}
	if *fsync <= 0 {
		return fmt.Errorf("-fsync %v: want a positive duration", *fsync)
	}
	routes := make([]string, len(rports))
	urls := make([]string, len(cports))
	for i := range cports {
		routes[i] = "nats://" + net.JoinHostPort(*host, strconv.Itoa(rports[i]))
		urls[i] = "nats://" + net.JoinHostPort(*host, strconv.Itoa(cports[i]))
	}

	var servers []*server.Server
	defer func() {
		for _, s := range servers {
			s.Shutdown()
		}
		for _, s := range servers {
			s.WaitForShutdown()
		}
	}()
	for i := range cports {
		if *only != 0 && i+1 != *only {
			continue
		}
		name := fmt.Sprint("s", i+1)
		s, err := server.NewServer(&server.Options{
			ServerName:   name,
			Host:         *host,
			Port:         cports[i],
			JetStream:    true,
			StoreDir:     filepath.Join(*dir, name),
			SyncInterval: *fsync,
			MaxPayload:   maxPayload,
			Cluster:      server.ClusterOpts{Name: "tenpin-nats", Host: *host, Port: rports[i]},
			// Every route on every server: a layout where the others know
			// only a seed was seen not to form.
			Routes: server.RoutesFromStr(strings.Join(routes, ",")),
			NoSigs: true, // this process's signals are its own
			NoLog:  !*verbose,
		})
		if err != nil {
			return fmt.Errorf("server %s: %w", name, err)
		}
		if *verbose {
			s.ConfigureLogger()
		}
		s.Start()
		servers = append(servers, s)
		if !s.ReadyForConnections(readyTimeout) {
			return fmt.Errorf("server %s did not start within %v (is port %d or %d taken?)", name, readyTimeout, cports[i], rports[i])
		}
		fmt.Fprintf(stdout, "natscluster: server %s: clients at %s, routes at %s, store in %s\n", name, urls[i], routes[i], filepath.Join(*dir, name))
	}
	fmt.Fprintf(stdout, "natscluster: tenpin serve -node NAME -nats %s\n", strings.Join(urls, ","))
	fmt.Fprintln(stdout, "natscluster: JetStream takes streams once the servers have met and elected a leader (some seconds); Ctrl-C stops")
	<-ctx.Done()
	fmt.Fprintln(stdout, "natscluster: stopping")
	return nil
}

// ports parses a flag's comma-separated ports.
func ports(flagName, list string) ([]int, error) {
	var ps []int
	for f := range strings.SplitSeq(list, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || p < 1 || p > 65535 {
			return nil, fmt.Errorf("%s %q: want ports from 1 to 65535, separated by commas", flagName, list)
		}
		ps = append(ps, p)
	}
	return ps, nil
}
