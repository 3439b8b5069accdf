package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
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

// runServe runs the server until ctx ends (SIGINT or SIGTERM), then shuts
// it down gracefully.
func runServe(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tenpin serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "localhost:8080", "`host:port` to listen on")
	idle := fs.Duration("idle", lane.IdleTimeout, "close a lane after this long with nobody connected and no game in play")
	maxLanes := fs.Int("max-lanes", lobby.MaxLanes, "lanes the server keeps open at most")
	maxConns := fs.Int("max-conns", lobby.MaxConnections, "WebSocket connections the server holds at most")
	maxSpectators := fs.Int("max-spectators", lane.MaxSpectators, "watchers per lane at most")
	origins := fs.String("origin", "", "comma-separated `patterns` of other origins allowed to open WebSockets (same-origin is always allowed)")
	pprofOn := fs.Bool("pprof", false, "serve runtime profiles at /debug/pprof/ (for load runs; keep it off in public)")
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
	store, err := parseStore(*dataDir, *memory, *natsURL, *fsync)
	if err != nil {
		return err
	}

	cfg := lobby.Config{
		MaxLanes:       *maxLanes,
		MaxConnections: *maxConns,
		Lane:           lane.Config{IdleTimeout: *idle, MaxSpectators: *maxSpectators},
		Logger:         logger,
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
	raiseFileLimit(stderr) // every connection is a file

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	mux := http.NewServeMux()
	api := lb.Handler()
	mux.Handle("/api/", api)
	mux.Handle("/ws/", api)
	mux.Handle("/healthz", api)
	mux.Handle("/debug/vars", metricsHandler(lb))
	if *pprofOn {
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
	logger.Info("serving", "addr", ln.Addr().String(), "restored", restored)

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
