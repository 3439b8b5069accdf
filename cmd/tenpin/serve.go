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
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/natsjournal"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/web"
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

// runServe runs the server until ctx ends (SIGINT or SIGTERM), then shuts
// it down gracefully.
func runServe(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tenpin serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "localhost:8080", "`host:port` to listen on")
	idle := fs.Duration("idle", lane.IdleTimeout, "close a lane after this long with nobody connected and no game in play")
	maxLanes := fs.Int("max-lanes", lobby.MaxLanes, "lanes the server keeps open at most")
	maxConnsFlag := fs.Int("max-conns", 0, fmt.Sprintf("WebSocket connections the server holds at most (0: as many as the open-file limit allows, up to %d; printed at startup)", lobby.MaxConnections))
	maxSpectators := fs.Int("max-spectators", lane.MaxSpectators, "watchers per lane at most")
	createBurst := fs.Int("create-burst", lobby.CreateBurst, "lanes one client address may create at once (then one every 6 s); raise it for load runs from one address")
	origins := fs.String("origin", "", "comma-separated `patterns` of other origins allowed to open WebSockets (same-origin is always allowed)")
	pprofOn := fs.Bool("pprof", false, "serve runtime profiles at /debug/pprof/ and counters at /debug/vars, with the command line and memory stats (for load runs; keep it off in public)")
	logLevel := fs.String("log-level", "info", "log `level`: debug, info, warn or error")
	dataDir := fs.String("data", defaultDataDir(), "`dir`ectory of the embedded NATS JetStream store that keeps the lanes")
	memory := fs.Bool("memory", false, "keep lanes in memory only: nothing is stored, a restart forgets every lane")
	natsURL := fs.String("nats", "", "`URL`s (comma-separated) of an external NATS server or cluster with JetStream, instead of the embedded one")
	fsync := fs.String("fsync", "1s", "how often the embedded store syncs to disk: a `duration`, or always (sync every append before it is acknowledged)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tenpin [serve] [flags]\n\nRuns the tenpin server.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("serve: -log-level %q: the levels are debug, info, warn and error", *logLevel)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if *createBurst < 1 {
		return fmt.Errorf("serve: -create-burst %d: a client must be able to create at least one lane", *createBurst)
	}
	store, err := parseStore(*dataDir, *memory, *natsURL, *fsync)
	if err != nil {
		return err
	}
	raiseFileLimit(stderr) // every connection is a file
	nofile, known := openFileLimit()
	maxConns, lowered := *maxConnsFlag, false
	switch {
	case known:
		maxConns, lowered = decideMaxConns(*maxConnsFlag, nofile)
	case maxConns <= 0:
		maxConns = lobby.MaxConnections
	}
	if lowered {
		logger.Warn("-max-conns lowered to what the open-file limit allows", "asked", *maxConnsFlag, "max_conns", maxConns, "open_files", nofile)
	}

	cfg := lobby.Config{
		MaxLanes:       *maxLanes,
		MaxConnections: maxConns,
		Lane:           lane.Config{IdleTimeout: *idle, MaxSpectators: *maxSpectators},
		Logger:         logger,
		CreateBurst:    *createBurst,
	}
	var journal *natsjournal.Journal
	if !*memory {
		store.Logger = logger
		journal, err = natsjournal.Open(ctx, store)
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		defer journal.Close() // after every lane has stopped: see below
		cfg.Lane.Journal, cfg.Lane.Durable, cfg.Health = journal, true, journal.Check
	}
	if *origins != "" {
		cfg.OriginPatterns = strings.Split(*origins, ",")
	}
	lb := lobby.New(cfg)
	restored, err := lb.Restore(ctx)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	mux := http.NewServeMux()
	api := lb.Handler()
	mux.Handle("/api/", api)
	mux.Handle("/ws/", api)
	mux.Handle("/healthz", api)
	if *pprofOn { // operators' endpoints: they tell anyone the command line and the memory
		mux.Handle("/debug/vars", metricsHandler(lb))
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	}
	mux.Handle("/", web.Handler())
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}

	laneCtx, stopLanes := context.WithCancel(context.WithoutCancel(ctx))
	defer stopLanes()
	lobbyDone := make(chan error, 1)
	go func() { lobbyDone <- lb.Run(laneCtx) }()
	serveDone := make(chan error, 1)
	go func() { serveDone <- srv.Serve(ln) }()

	fmt.Fprintf(stdout, "tenpin serving on http://%s\n", displayAddr(ln.Addr()))
	fmt.Fprintf(stdout, "tenpin lanes: %s; %d restored\n", describeStore(store, *memory), restored)
	fmt.Fprintf(stdout, "tenpin connections: %s\n", describeConns(maxConns, *maxConnsFlag, nofile, known, lowered))
	logger.Info("serving", "addr", ln.Addr().String(), "restored", restored, "max_conns", maxConns, "open_files", nofile)

	select {
	case err := <-serveDone:
		stopLanes()
		<-lobbyDone
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down", "grace", shutdownGrace)
	grace, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	// Stop accepting and finish plain requests, while every lane closes its
	// sockets with 1001 (going away).
	shutdownErr := make(chan error, 1)
	go func() { shutdownErr <- srv.Shutdown(grace) }()
	stopLanes()
	select {
	case <-lobbyDone:
	case <-grace.Done():
	}
	if err := <-shutdownErr; err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	logger.Info("stopped")
	return nil
}

// openFileLimit returns the process's open-file limit (its soft limit),
// and false if it cannot be read.
func openFileLimit() (uint64, bool) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, false
	}
	return uint64(lim.Cur), true
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
func parseStore(dir string, memory bool, url, fsync string) (natsjournal.Config, error) {
	cfg := natsjournal.Config{Dir: dir, URL: url}
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

// describeStore says where lanes are kept and what an ack promises.
func describeStore(cfg natsjournal.Config, memory bool) string {
	switch {
	case memory:
		return "in memory only (-memory): a restart forgets them"
	case cfg.URL != "":
		return "in NATS JetStream at " + cfg.URL
	case cfg.SyncAlways:
		return fmt.Sprintf("stored in %s, synced to disk before every ack", cfg.Dir)
	}
	return fmt.Sprintf("stored in %s, synced to disk every %s", cfg.Dir, cfg.SyncInterval)
}
