package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/lobby/natsstore"
	"github.com/tenpin/tenpin/lobby/server"
)

// HTTP server limits. WebSockets are hijacked from the server, so these
// bound only the handshake and the plain HTTP requests.
const (
	readHeaderTimeout = 5 * time.Second  // slow-loris guard
	readTimeout       = 10 * time.Second // a whole API request, body included
	idleTimeout       = 2 * time.Minute  // keep-alive between requests
	maxHeaderBytes    = 16 << 10
	// shutdownGrace is how long a stopping server waits for requests in
	// flight and for every socket to close with "going away".
	shutdownGrace = 10 * time.Second
)

// serveGCPercent is the server's GOGC unless the environment sets one
// (see runServe).
const serveGCPercent = 50

// Open files the server keeps out of its open-file limit for other things
// than WebSockets (see connLimit).
const (
	// fileReserve is for the process itself: the standard streams, the
	// listener, the poller, log files, and the store — the embedded
	// JetStream's lock file and the block files it has open (a dozen
	// descriptors in all, measured idle; compaction and catching up open
	// a few more), or an external NATS's connection.
	fileReserve = 64

	// httpShare and minHTTPFiles keep 1/httpShare of the limit, at least
	// minHTTPFiles, for plain HTTP requests: page loads, API calls,
	// /healthz, WebSocket handshakes in flight and keep-alive connections
	// between requests (up to idleTimeout). With every WebSocket slot
	// taken these still have descriptors, so a flood of WebSockets meets
	// the connection limit (503) before accept fails for want of a file,
	// and the page, the API and /healthz keep answering.
	httpShare    = 32
	minHTTPFiles = 64
)

// serveFlags are tenpin serve's flags, as parsed.
type serveFlags struct {
	addr, debugAddr                         string
	idle, abandon, awayAfter                time.Duration
	keep                                    time.Duration // how long a closed lane's night is kept; 0: forever
	maxLanes, maxConns, maxSpectators       int
	createBurst, connsPerAddr, lanesPerAddr int
	keptPerAddr, joinsPerAddr               int
	bowlersPerAddr                          int
	connsPerLaneAddr                        int
	trustProxy                              []netip.Prefix // the reverse proxies in front
	origins, hosts                          string
	logLevel                                slog.Level
	memory                                  bool
	store                                   natsconn.Config
	shards                                  int // streams the lanes are spread over; 0: the store's, or the default
	budgets                                 natsstore.Budgets
	node                                    string // a node of a cluster: its name
}

// parseServe parses tenpin serve's arguments and checks them.
func parseServe(args []string, stderr io.Writer) (*serveFlags, error) {
	f := new(serveFlags)
	fs := flag.NewFlagSet("tenpin serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.addr, "addr", ":8080", "`host:port` to listen on: every interface by default, so that friends' phones on the same network can join (localhost:8080 for this machine only)")
	fs.StringVar(&f.debugAddr, "debug-addr", "", "`host:port` of a second listener for operators: /metrics (Prometheus), /debug/vars and /debug/pprof/ (off when empty; they show the command line, the memory and profiles: keep it private, e.g. localhost:6060)")
	fs.DurationVar(&f.idle, "idle", lane.IdleTimeout, "close a lane after this long with nobody connected and no game in play (a league night's lane: once its week has closed)")
	fs.DurationVar(&f.abandon, "abandon", lane.AbandonTimeout, "close a lane after this long with nobody connected and a game in play (a ball bowled)")
	f.keep = DefaultKeep
	fs.Var((*days)(&f.keep), "keep", "how long the night of a lane that closed (its games, numbers and exports, read-only) is kept: a `duration` such as 400d or 72h, or 0 for ever")
	fs.DurationVar(&f.awayAfter, "away-after", lane.AwayAfter, "how long the player up must be offline before another player may skip them")
	fs.IntVar(&f.maxLanes, "max-lanes", lobby.MaxLanes, "lanes the server keeps open at most")
	fs.IntVar(&f.maxConns, "max-conns", 0, fmt.Sprintf("WebSocket connections the server holds at most (0: as many as the open-file limit allows, up to %d; printed at startup)", lobby.MaxConnections))
	fs.IntVar(&f.maxSpectators, "max-spectators", lane.MaxSpectators, "watchers per lane at most")
	fs.IntVar(&f.createBurst, "create-burst", lobby.CreateBurst, "lanes one client address may create at once (then one every 6 s); raise it for load runs from one address")
	fs.IntVar(&f.connsPerAddr, "conns-per-addr", lobby.ConnsPerAddr, "WebSocket connections one client address may hold at once (0: no limit); raise it for load runs from one address")
	fs.IntVar(&f.connsPerLaneAddr, "conns-per-lane-addr", lobby.ConnsPerLaneAddr, "WebSocket connections one client address may hold on one lane (0: no limit): its players and friends watching, not a crowd of idle sockets; raise it for a crowd behind one address, or a load run")
	fs.IntVar(&f.lanesPerAddr, "lanes-per-addr", lobby.LanesPerAddr, "lanes created from one client address that may be open at once (0: no limit)")
	fs.IntVar(&f.keptPerAddr, "kept-per-addr", lobby.KeptPerAddr, "closed lanes' nights kept a day, of lanes created from one client address (0: no limit); a lane past it closes unkept")
	fs.IntVar(&f.joinsPerAddr, "joins-per-addr", lobby.JoinBurst, "joins of lanes one client address may make at once, then one a second (0: no limit): each is stored; raise it for load runs from one address")
	fs.IntVar(&f.bowlersPerAddr, "bowlers-per-addr", lobby.NewBowlersPerAddr, "joins asking to be remembered (each may make a bowler, kept for good) one client address may make a day (0: no limit)")
	trustProxy := fs.String("trust-proxy", "", "comma-separated `addresses` or networks of the reverse proxies in front (10.0.0.0/8,127.0.0.1): a request from one of them is counted by the last address of its X-Forwarded-For (the one the proxy appended), any other by its connection's, whatever it says")
	fs.StringVar(&f.origins, "origin", "", "comma-separated `patterns` of other origins allowed to open WebSockets (same-origin is always allowed)")
	fs.StringVar(&f.hosts, "host", "", "comma-separated `names` the server answers to besides localhost, IP addresses and this machine's hostname (*.example.com: every subdomain; '*': any name); other Host headers get 421, a guard against DNS rebinding")
	logLevel := fs.String("log-level", "info", "log `level`: debug, info, warn or error")
	dataDir := fs.String("data", defaultDataDir(), "`dir`ectory of the embedded NATS JetStream store that keeps the lanes")
	fs.BoolVar(&f.memory, "memory", false, "keep lanes in memory only: nothing is stored, a restart forgets every lane")
	natsURL := fs.String("nats", "", "`URL`s (comma-separated) of an external NATS cluster with JetStream, instead of the embedded one: it keeps 3 copies of the lanes (-replicas), on 3 servers")
	fsync := fs.String("fsync", "1s", "how often the embedded store syncs to disk: a `duration`, or always (sync every append before it is acknowledged)")
	fs.StringVar(&f.node, "node", "", "this node's `name` in a cluster of tenpin nodes that share one store: with -cluster and -routes (embedded NATS servers routed together) or with -nats (an external NATS cluster); letters, digits, - and _")
	cluster := fs.String("cluster", "", "`host:port` where this node's embedded NATS server listens for the other nodes' (needs -node; beyond localhost it needs -cluster-secret-file)")
	secretFile := fs.String("cluster-secret-file", "", "`file` holding the secret every node of the cluster shares (16 bytes at least: head -c 32 /dev/urandom | base64 > cluster.secret): routes authenticate with it and are encrypted with TLS made from it; a server without it cannot join")
	tlsCert := fs.String("cluster-tls-cert", "", "`file` of this node's certificate (PEM) for the routes' TLS, instead of the TLS made from the secret: with -cluster-tls-key and -cluster-tls-ca; both ends check each other's")
	tlsKey := fs.String("cluster-tls-key", "", "`file` of the key (PEM) of -cluster-tls-cert")
	tlsCA := fs.String("cluster-tls-ca", "", "`file` of the authority (PEM) that issued every node's -cluster-tls-cert")
	routes := fs.String("routes", "", "comma-separated cluster `URLs` (nats://host:port) of every other node's embedded NATS server")
	replicas := fs.Int("replicas", 0, "copies of each event and of every bucket a cluster keeps, each on a NATS server of its own (0: 3; with -cluster fewer when -routes names fewer other nodes); with -nats, 1 only on a single NATS server, or to lose the lanes while the one that holds them is down")
	f.budgets = natsstore.Budgets{Lanes: DefaultMaxLanesBytes, Kept: DefaultMaxKeptBytes, Bowlers: DefaultMaxBowlersBytes, Leagues: DefaultMaxLeaguesBytes}
	fs.Var((*size)(&f.budgets.Lanes), "max-lanes-bytes", "the most the store keeps of the lanes' logs, split over the -shards streams: a `size` such as 1GiB, or 0 for no bound; past it new lanes and rolls are refused storage_full")
	fs.Var((*size)(&f.budgets.Kept), "max-kept-bytes", "the most the store keeps of closed lanes' nights (-keep): a `size`, or 0 for no bound; past it a closing lane's night is not kept, and its link says so")
	fs.Var((*size)(&f.budgets.Bowlers), "max-bowlers-bytes", "the most the store keeps of bowlers, their histories, keys and codes: a `size`, or 0 for no bound; past it a join with \"remember\" is seated as a guest, told why")
	fs.Var((*size)(&f.budgets.Leagues), "max-leagues-bytes", "the most the store keeps of leagues and their records: a `size`, or 0 for no bound; past it new leagues and scores are refused storage_full")
	fs.IntVar(&f.shards, "shards", 0, fmt.Sprintf("streams the lanes' events are spread over, each led by a NATS server, so that one server's death stalls only its streams' share of the lanes (1 to %d; 0: as many as the store was made with, or for a new store 3 with several copies (-node or -nats) and 1 alone); a store keeps the count it was made with, and refuses another", natsstore.MaxShards))
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tenpin [serve] [flags]\n\nRuns the tenpin server.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	var err error
	if f.trustProxy, err = lobby.ParseProxies(*trustProxy); err != nil {
		return nil, fmt.Errorf("serve: -trust-proxy: %w", err)
	}
	if err := f.logLevel.UnmarshalText([]byte(*logLevel)); err != nil {
		return nil, fmt.Errorf("serve: -log-level %q: the levels are debug, info, warn and error", *logLevel)
	}
	switch {
	case f.createBurst < 1:
		return nil, fmt.Errorf("serve: -create-burst %d: a client must be able to create at least one lane", f.createBurst)
	case f.connsPerAddr < 0:
		return nil, fmt.Errorf("serve: -conns-per-addr %d: want 0 (no limit) or more", f.connsPerAddr)
	case f.connsPerLaneAddr < 0:
		return nil, fmt.Errorf("serve: -conns-per-lane-addr %d: want 0 (no limit) or more", f.connsPerLaneAddr)
	case f.lanesPerAddr < 0:
		return nil, fmt.Errorf("serve: -lanes-per-addr %d: want 0 (no limit) or more", f.lanesPerAddr)
	case f.keptPerAddr < 0:
		return nil, fmt.Errorf("serve: -kept-per-addr %d: want 0 (no limit) or more", f.keptPerAddr)
	case f.joinsPerAddr < 0:
		return nil, fmt.Errorf("serve: -joins-per-addr %d: want 0 (no limit) or more", f.joinsPerAddr)
	case f.bowlersPerAddr < 0:
		return nil, fmt.Errorf("serve: -bowlers-per-addr %d: want 0 (no limit) or more", f.bowlersPerAddr)
	case f.abandon <= 0:
		return nil, fmt.Errorf("serve: -abandon %v: want a positive duration, such as 1h", f.abandon)
	case f.awayAfter <= 0:
		return nil, fmt.Errorf("serve: -away-after %v: want a positive duration, such as 30s", f.awayAfter)
	}
	store, err := parseStore(*dataDir, f.memory, *natsURL, *fsync)
	if err != nil {
		return nil, err
	}
	if err := parseCluster(&store, f.node, *cluster, *routes, f.memory); err != nil {
		return nil, err
	}
	if err := parseClusterTrust(&store, *secretFile, *tlsCert, *tlsKey, *tlsCA); err != nil {
		return nil, err
	}
	switch {
	case *replicas < 0:
		return nil, fmt.Errorf("serve: -replicas %d: want 0 (the default) or more", *replicas)
	case *replicas > 0 && f.node == "" && store.URL == "":
		return nil, errors.New("serve: -replicas needs -node or -nats: the embedded server alone keeps one copy")
	}
	store.Replicas = *replicas
	switch {
	case f.shards < 0 || f.shards > natsstore.MaxShards:
		return nil, fmt.Errorf("serve: -shards %d: want 1 to %d, or 0 for the store's count", f.shards, natsstore.MaxShards)
	case f.shards > 0 && f.memory:
		return nil, errors.New("serve: -shards and -memory exclude each other: lanes kept in memory are in no stream")
	}
	f.store = store
	return f, nil
}

// parseCluster checks the cluster's flags and sets the journal's
// settings for them.
func parseCluster(store *natsconn.Config, node, cluster, routes string, memory bool) error {
	switch {
	case node == "" && (cluster != "" || routes != ""):
		return errors.New("serve: -cluster and -routes need -node, this node's name in the cluster")
	case node == "":
		return nil
	case !validNode(node):
		return fmt.Errorf("serve: -node %q: want letters, digits, - and _ only", node)
	case routes != "" && cluster == "":
		return errors.New("serve: -routes needs -cluster, the address where this node's NATS server listens for the others")
	case store.URL != "" && cluster != "":
		return errors.New("serve: -cluster and -nats exclude each other: with -nats, the NATS cluster is external")
	case memory:
		return errors.New("serve: -node and -memory exclude each other: the nodes of a cluster share a store")
	}
	store.Cluster = cluster // the node's name and the sharing are server.New's
	if routes != "" {
		store.Routes = strings.Split(routes, ",")
	}
	return nil
}

// parseClusterTrust reads the cluster's secret and the routes' TLS
// certificates.
func parseClusterTrust(store *natsconn.Config, secretFile, cert, key, ca string) error {
	tls := cert != "" || key != "" || ca != ""
	switch {
	case store.Cluster == "" && (secretFile != "" || tls):
		return errors.New("serve: -cluster-secret-file, -cluster-tls-cert, -cluster-tls-key and -cluster-tls-ca are for a cluster of embedded servers: they need -cluster")
	case tls && secretFile == "":
		return errors.New("serve: -cluster-tls-cert, -cluster-tls-key and -cluster-tls-ca need -cluster-secret-file too: routes authenticate with the secret")
	case secretFile == "":
		return nil
	}
	secret, err := natsconn.LoadSecret(secretFile)
	if err != nil {
		return fmt.Errorf("serve: -cluster-secret-file: %w", err)
	}
	store.Secret = secret
	if tls {
		if store.RouteTLS, err = natsconn.LoadRouteTLS(cert, key, ca); err != nil {
			return fmt.Errorf("serve: -cluster-tls-cert, -cluster-tls-key, -cluster-tls-ca: %w", err)
		}
	}
	return nil
}

// validNode reports whether a node name is one NATS subject token.
func validNode(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return s != ""
}

// lobbyConfig returns the lobby's settings for the flags, with maxConns
// connections at most.
func (f *serveFlags) lobbyConfig(maxConns int, logger *slog.Logger) lobby.Config {
	cfg := lobby.Config{
		MaxLanes:         f.maxLanes,
		MaxConnections:   maxConns,
		Lane:             lane.Config{IdleTimeout: f.idle, AbandonTimeout: f.abandon, AwayAfter: f.awayAfter, MaxSpectators: f.maxSpectators},
		Logger:           logger,
		CreateBurst:      f.createBurst,
		ConnsPerAddr:     noLimit(f.connsPerAddr),
		ConnsPerLaneAddr: noLimit(f.connsPerLaneAddr),
		LanesPerAddr:     noLimit(f.lanesPerAddr),
		KeptPerAddr:      noLimit(f.keptPerAddr),
		JoinsPerAddr:     noLimit(f.joinsPerAddr),
		BowlersPerAddr:   noLimit(f.bowlersPerAddr),
		TrustProxy:       f.trustProxy,
	}
	if f.origins != "" {
		cfg.OriginPatterns = strings.Split(f.origins, ",")
	}
	return cfg
}

// noLimit turns a flag's 0, no limit, into the lobby's: a negative limit
// (the lobby's 0 is its default).
func noLimit(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// runServe runs the server until ctx ends (SIGINT or SIGTERM), then shuts
// it down gracefully.
func runServe(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	f, err := parseServe(args, stderr)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: f.logLevel}))
	hostname, _ := os.Hostname()
	hosts, err := newHostPolicy(f.hosts+","+listenName(f.addr), hostname)
	if err != nil {
		return err
	}
	raiseFileLimit(stderr) // every connection is a file
	if os.Getenv("GOGC") == "" {
		// A connection's memory is mostly live (its reader's stack, its
		// WebSocket state) and the store's pools are too: the collector's
		// default headroom, as much garbage again as is live, was a
		// quarter of the server's memory. Half of it: 35 → 27 KiB a
		// connection at 500 lanes stored, for 0–5% more CPU a board,
		// when it was chosen. GOGC, if set, decides.
		debug.SetGCPercent(serveGCPercent)
	}
	nofile, known := openFileLimit()
	maxConns, lowered := f.maxConns, false
	switch {
	case known:
		maxConns, lowered = decideMaxConns(f.maxConns, nofile)
	case maxConns <= 0:
		maxConns = lobby.MaxConnections
	}
	if lowered {
		logger.Warn("-max-conns lowered to what the open-file limit allows", "asked", f.maxConns, "max_conns", maxConns, "open_files", nofile)
	}

	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer ln.Close() // once served, Shutdown closes it first
	ifaces, _ := net.InterfaceAddrs()
	urls := inviteURLs(ln.Addr(), ifaces)

	cfg := f.lobbyConfig(maxConns, logger)
	cfg.URLs = urls
	store := f.store
	if store.Cluster != "" {
		// Said as soon as it listens: a node started with -cluster host:0
		// tells the next one where to route, before the cluster forms.
		store.Listening = func(url string) { fmt.Fprintf(stdout, "tenpin cluster routes to this node: %s\n", url) }
	}
	node, err := server.New(ctx, server.Config{Lobby: cfg, Memory: f.memory, Store: store, Shards: f.shards, Keep: f.keep, Budgets: f.budgets, Node: f.node, Logger: logger})
	switch {
	case errors.Is(err, natsstore.ErrShards):
		return fmt.Errorf("serve: -shards %d: %w; start it with -shards 0 (or the store's count)", f.shards, err)
	case errors.Is(err, natsconn.ErrNoSecret):
		return fmt.Errorf("serve: -cluster %s: %w; give every node the same -cluster-secret-file (head -c 32 /dev/urandom | base64 > cluster.secret), or keep -cluster on 127.0.0.1", store.Cluster, err)
	case errors.Is(err, natsconn.ErrFewServers):
		return fmt.Errorf("serve: -nats: %w; run a NATS cluster of 3 (go run ./cmd/natscluster, for one machine), or keep fewer copies with -replicas (-replicas 1 on a single server)", err)
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer node.Close() // after every lane has stopped: see below
	if store.URL == "" && !f.memory {
		if disk, ok := diskSize(store.Dir); ok && overDisk(f.budgets, disk) {
			b := f.budgets
			total := size(b.Lanes + b.Kept + b.Bowlers + b.Leagues)
			logger.Warn("the budgets together are more than the disk of -data holds: it would fill before they do, and a full disk stops every kind of data at once; lower -max-lanes-bytes, -max-kept-bytes, -max-bowlers-bytes or -max-leagues-bytes (see OPERATING.md)", "budgets", total.String(), "disk", size(disk).String(), "data", store.Dir)
		}
	}
	lb, restored := node.Lobby, node.Restored()

	var debugLn net.Listener
	if f.debugAddr != "" {
		if debugLn, err = net.Listen("tcp", f.debugAddr); err != nil {
			return fmt.Errorf("serve: -debug-addr: %w", err)
		}
	}
	var hostRefused atomic.Int64 // requests for a name the server does not answer to
	srv := newHTTPServer(checkHost(hosts, &hostRefused, node.Handler()), logger)
	budget := newBudgetListener(ln, tcpBudget(nofile, known))
	srv.ConnState = budget.connState
	var debugSrv *http.Server
	if debugLn != nil {
		debugSrv = newHTTPServer(checkHost(hosts, &hostRefused, debugHandler(lb, &hostRefused, node.Conn)), logger)
		debugSrv.ReadTimeout, debugSrv.WriteTimeout = 0, 0 // a CPU profile or a trace takes as long as it was asked to
	}

	// The node's parts run as one: the lanes, the cluster's heartbeats and
	// relays, the HTTP servers. When one fails, or a signal comes, they
	// all stop, gracefully; the journal (and the embedded NATS server,
	// with the lease it may hold) closes after them.
	laneCtx, stopLanes := context.WithCancel(context.WithoutCancel(ctx))
	defer stopLanes()
	g, gctx := errgroup.WithContext(ctx)
	lobbyDone := make(chan struct{})
	g.Go(func() error {
		defer close(lobbyDone)
		node.Run(laneCtx)
		return nil
	})
	g.Go(func() error {
		if err := srv.Serve(budget); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	})
	if debugSrv != nil {
		g.Go(func() error {
			if err := debugSrv.Serve(debugLn); !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("serve: -debug-addr: %w", err)
			}
			return nil
		})
	}

	fmt.Fprintf(stdout, "tenpin serving on http://%s\n", displayAddr(ln.Addr()))
	fmt.Fprintf(stdout, "tenpin friends: %s\n", describeInvite(ln.Addr(), urls))
	if node.Cluster != nil {
		fmt.Fprintf(stdout, "tenpin lanes: %s%s; node %s of a cluster: lanes no node runs are taken over\n", describeStore(f.store, f.memory), describeShards(node.Journal), f.node)
	} else {
		fmt.Fprintf(stdout, "tenpin lanes: %s%s; %d restored\n", describeStore(f.store, f.memory), describeShards(node.Journal), restored)
	}
	fmt.Fprintf(stdout, "tenpin connections: %s\n", describeConns(maxConns, f.maxConns, nofile, known, lowered))
	fmt.Fprintf(stdout, "tenpin answers to: %s\n", hosts)
	fmt.Fprintf(stdout, "tenpin budgets: %s\n", describeBudgets(f.budgets, f.memory))
	if debugLn != nil {
		fmt.Fprintf(stdout, "tenpin debug on http://%s/metrics\n", displayAddr(debugLn.Addr()))
	}
	logger.Info("serving", "addr", ln.Addr().String(), "restored", restored, "max_conns", maxConns, "open_files", nofile, "node", f.node)

	g.Go(func() error {
		<-gctx.Done() // a signal, or a part failed
		logger.Info("shutting down", "grace", shutdownGrace)
		grace, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		// Stop accepting and finish plain requests, while every lane
		// closes its sockets with 1001 (going away).
		shutdownErr := make(chan error, 1)
		go func() { shutdownErr <- srv.Shutdown(grace) }()
		if debugSrv != nil {
			debugSrv.Close() // a profile in progress is cut short
		}
		stopLanes()
		select {
		case <-lobbyDone:
		case <-grace.Done():
		}
		if err := <-shutdownErr; err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("serve: shutdown: %w", err)
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}

// newHTTPServer returns a server for h with the HTTP limits.
func newHTTPServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// fileHeadroom returns the files of an open-file limit of nofile kept
// for other things than WebSockets: fileReserve for the process and its
// store, and 1/httpShare of the limit (at least minHTTPFiles) for plain
// HTTP requests.
func fileHeadroom(nofile uint64) uint64 {
	return fileReserve + max(minHTTPFiles, nofile/httpShare)
}

// connLimit returns how many WebSocket connections an open-file limit of
// nofile allows: the limit less its headroom, and at least one. At 1,024
// files that is 896 connections; at 20,000, 19,311.
func connLimit(nofile uint64) int {
	reserve := fileHeadroom(nofile)
	if nofile <= reserve {
		return 1
	}
	return int(min(nofile-reserve, math.MaxInt32)) // RLIM_INFINITY is 2^64-1
}

// tcpBudget returns how many TCP connections the server holds at once,
// of every kind (see budgetListener): the open-file limit less
// fileReserve, kept for the process and its store.
func tcpBudget(nofile uint64, known bool) int {
	if !known {
		return math.MaxInt32
	}
	if nofile <= fileReserve {
		return 1
	}
	return int(min(nofile-fileReserve, math.MaxInt32))
}

// decideMaxConns returns the connection limit for a -max-conns of asked
// (0 or less: not set) under an open-file limit of nofile, and whether
// asked was lowered to fit it. Not set, it is what the open-file limit
// allows, up to lobby.MaxConnections (the ceiling for memory: about 24 KiB
// a connection); set, anything the open-file limit allows.
func decideMaxConns(asked int, nofile uint64) (n int, lowered bool) {
	limit := connLimit(nofile)
	switch {
	case asked <= 0:
		return min(limit, lobby.MaxConnections), false
	case asked > limit:
		return limit, true
	}
	return asked, false
}

// describeConns says how many WebSocket connections the server holds, and
// why that many.
func describeConns(n, asked int, nofile uint64, known, lowered bool) string {
	reserved := fmt.Sprintf("the open-file limit is %d, less %d kept for the process, the store and HTTP requests", nofile, fileHeadroom(nofile))
	if nofile > math.MaxInt32 {
		reserved = "the open-file limit is unlimited"
	}
	switch {
	case !known:
		return fmt.Sprintf("at most %d (the open-file limit is unknown)", n)
	case lowered:
		return fmt.Sprintf("at most %d, not -max-conns %d: %s", n, asked, reserved)
	case asked > 0:
		return fmt.Sprintf("at most %d (-max-conns; %s)", n, reserved)
	case n < connLimit(nofile):
		return fmt.Sprintf("at most %d, the default ceiling (%s: -max-conns may go up to %d)", n, reserved, connLimit(nofile))
	}
	return fmt.Sprintf("at most %d: %s", n, reserved)
}

// displayAddr turns a listening address into one a browser can open.
func displayAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("localhost", fmt.Sprint(tcp.Port))
}

// defaultDataDir returns where the embedded store keeps its data unless
// -data says otherwise: $XDG_STATE_HOME/tenpin, else ~/.local/state/tenpin
// (the XDG base directories' place for state that outlives a run but is
// not a document), else ./tenpin-data.
func defaultDataDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "tenpin")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "tenpin")
	}
	return "tenpin-data"
}

// parseStore checks the store's flags and returns the journal's settings.
func parseStore(dir string, memory bool, url, fsync string) (natsconn.Config, error) {
	cfg := natsconn.Config{Dir: dir, URL: url}
	if memory && url != "" {
		return cfg, errors.New("serve: -memory and -nats exclude each other: -memory stores nothing")
	}
	if fsync == "always" {
		cfg.SyncAlways = true
		return cfg, nil
	}
	d, err := time.ParseDuration(fsync)
	if err != nil || d <= 0 {
		return cfg, fmt.Errorf("serve: -fsync %q: want a positive duration such as 1s, or always", fsync)
	}
	cfg.SyncInterval = d
	return cfg, nil
}

// describeShards says over how many streams the lanes are spread, if
// they are in streams.
func describeShards(j *natsstore.Journal) string {
	if j == nil {
		return ""
	}
	if n := j.Shards(); n > 1 {
		return fmt.Sprintf(", spread over %d streams (-shards)", n)
	}
	return ", in one stream (-shards)"
}

// describeStore says where lanes are kept and what an ack promises.
func describeStore(cfg natsconn.Config, memory bool) string {
	switch {
	case memory:
		return "in memory only (-memory): a restart forgets them"
	case cfg.URL != "":
		copies := "3 copies"
		if cfg.Replicas > 0 {
			copies = fmt.Sprintf("%d copies", cfg.Replicas)
		}
		if cfg.Replicas == 1 {
			copies = "1 copy: the lanes stop while its server is down"
		}
		return fmt.Sprintf("in NATS JetStream at %s, %s", natsconn.RedactURLs(cfg.URL), copies)
	case cfg.SyncAlways:
		return fmt.Sprintf("stored in %s, synced to disk before every ack", cfg.Dir)
	}
	return fmt.Sprintf("stored in %s, synced to disk every %s", cfg.Dir, cfg.SyncInterval)
}
