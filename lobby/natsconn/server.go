package natsconn

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	natsd "github.com/nats-io/nats-server/v2/server"
)

// Files and limits of the embedded server.
const (
	// lockName is the lock file in the data directory.
	lockName = "tenpin.lock"
	// storeName is the subdirectory of the data directory the server
	// stores in, so the directory can hold other things.
	storeName = "nats"
	// startTimeout bounds the server's start, which includes reading its
	// store back: about 100 ms for 300k events.
	startTimeout = 30 * time.Second
	// The lame-duck mode of a server drops its clients over 2 minutes by
	// default; the process shuts down in 10 s. A clustered node closes in
	// lame duck mode (see Conn.Close), with no client of its own left by
	// then: it hands its raft leaders over, waits a second for them, and
	// stops. A server that does not listen skips lame duck mode.
	lameDuck      = 3 * time.Second
	lameDuckGrace = time.Second
)

// maxPayload is the largest message the embedded server takes: a lane's
// largest snapshot, game.MaxEventSize, and its headers. (NATS's default
// is 1 MiB.)
const maxPayload = 8 << 20

// startServer locks the data directory and starts the embedded server on
// it. On failure it leaves j's lock and server for Close to release.
func (c *Conn) startServer(ctx context.Context) error {
	dir := c.cfg.Dir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("natsconn: create the data directory: %w", err)
	}
	lock, err := lockDir(filepath.Join(dir, lockName))
	if err != nil {
		return err
	}
	c.lock = lock

	opts := &natsd.Options{
		ServerName:          "tenpin",
		JetStream:           true,
		MaxPayload:          maxPayload,
		StoreDir:            filepath.Join(dir, storeName),
		SyncInterval:        c.cfg.SyncInterval,
		SyncAlways:          c.cfg.SyncAlways,
		JetStreamMaxStore:   c.cfg.MaxStore, // 0: JetStream's default
		DontListen:          true,           // reached in-process only
		NoSigs:              true,           // the process's signals are its own
		NoLog:               true,
		LameDuckDuration:    lameDuck,
		LameDuckGracePeriod: lameDuckGrace,
	}
	if c.cfg.Cluster != "" {
		if err := c.clusterOptions(opts); err != nil {
			return err
		}
	}
	s, err := natsd.NewServer(opts)
	if err != nil {
		return fmt.Errorf("natsconn: configure the embedded NATS server: %w", err)
	}
	c.srv, c.storeDir = s, opts.StoreDir
	log := serverLog{l: c.log.With("nats", "server"), fatal: new(atomic.Pointer[string]), limits: new(logLimits), nowhere: c.cfg.Cluster != "" && len(c.cfg.Routes) == 0}
	s.SetLoggerV2(log, false, false, false)
	s.Start() // returns once started, or early when it cannot start

	if !s.JetStreamEnabled() {
		why := "see its log"
		if msg := log.fatal.Load(); msg != nil {
			why = *msg
		}
		return fmt.Errorf("natsconn: the embedded NATS server could not start JetStream on %s: %s", opts.StoreDir, why)
	}
	wait := startTimeout
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d))
	}
	if !s.ReadyForConnections(wait) {
		return fmt.Errorf("natsconn: the embedded NATS server on %s was not ready within %v", opts.StoreDir, wait)
	}
	if c.cfg.Cluster != "" && c.cfg.Listening != nil {
		if addr := s.ClusterAddr(); addr != nil {
			c.cfg.Listening("nats://" + addr.String())
		}
	}
	return nil
}

// A route to a node whose process is paused (stopped, swapping, frozen
// by its VM) stays open: only its pings tell. Unanswered for about
// routePing × routePingsOut, it is closed, and with it go the
// subscriptions that say the node runs its lanes, so that the others take
// them over. NATS's own default is 2 minutes × 2: a lane would stall that
// long.
const (
	routePing     = 2 * time.Second
	routePingsOut = 3
)

// clusterOptions makes the embedded server a node of a cluster: it
// listens for the other nodes' servers on cfg.Cluster and connects to
// cfg.Routes. A server's routes start only once it listens for clients
// too, so it does, on a random loopback port, behind a random password
// that only this process knows.
func (c *Conn) clusterOptions(opts *natsd.Options) error {
	host, port, err := net.SplitHostPort(c.cfg.Cluster)
	if err != nil {
		return fmt.Errorf("natsconn: cluster address %q: %w", c.cfg.Cluster, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("natsconn: cluster address %q: the port must be 0 (any free port) to 65535", c.cfg.Cluster)
	}
	if p == 0 {
		p = natsd.RANDOM_PORT // the OS picks it: see Config.Listening
	}
	for _, r := range c.cfg.Routes {
		if u, err := url.Parse(r); err != nil || u.Scheme != "nats" || u.Port() == "" {
			return fmt.Errorf("natsconn: route %q: want nats://host:port", r)
		}
	}
	opts.ServerName = c.cfg.Node
	opts.Cluster = natsd.ClusterOpts{Name: "tenpin", Host: host, Port: p, PingInterval: routePing, MaxPingsOut: routePingsOut}
	// With no routes (the first node, which the others route to) this is
	// one route to nowhere, tried once: JetStream refuses to start as a
	// cluster with no route configured.
	opts.Routes = natsd.RoutesFromStr(strings.Join(c.cfg.Routes, ","))
	if len(c.cfg.Secret) > 0 {
		pass, err := routePassword(c.cfg.Secret)
		if err != nil {
			return err
		}
		// Routes found by gossip take the user and password from here,
		// the routes configured from their URLs.
		opts.Cluster.Username, opts.Cluster.Password = routeUser, pass
		for _, r := range opts.Routes {
			if r.Host == "" {
				continue
			}
			r.User = url.UserPassword(routeUser, pass)
		}
	}
	switch {
	case c.cfg.RouteTLS != nil:
		opts.Cluster.TLSConfig = c.cfg.RouteTLS
	case len(c.cfg.Secret) > 0:
		tc, err := secretTLS(c.cfg.Secret, c.cfg.Node)
		if err != nil {
			return err
		}
		opts.Cluster.TLSConfig = tc
	}
	if opts.Cluster.TLSConfig != nil {
		opts.Cluster.TLSTimeout = 5 // seconds
	}
	opts.DontListen = false
	opts.Host, opts.Port = "127.0.0.1", natsd.RANDOM_PORT
	c.token = rand.Text()
	opts.Authorization = c.token
	return nil
}

// serverLog passes the embedded server's log to slog. Its notices (a
// banner of twenty lines at start among them) are debug for tenpin. Its
// warnings and errors are rate-limited, each kind of line on its own: a
// stranger knocking at the cluster port again and again is told once a
// while, not once a knock, and does not crowd out the store's errors.
type serverLog struct {
	l      *slog.Logger
	fatal  *atomic.Pointer[string] // why the server stopped, for Open's error
	limits *logLimits
	// nowhere: the server's one route is the route to nowhere of a node
	// with no routes (see clusterOptions), whose failure is no error.
	nowhere bool
}

func (s serverLog) logf(level slog.Level, format string, v []any) {
	if !s.l.Enabled(context.Background(), level) {
		return
	}
	if level >= slog.LevelWarn {
		kind := lineKind(format)
		ok, dropped := s.limits.allow(kind, time.Now())
		if dropped > 0 {
			s.l.Warn(fmt.Sprintf("%d more lines of the NATS server like this one were not logged in the last %v", dropped, logWindow), "like", kind)
		}
		if !ok {
			return
		}
	}
	s.l.Log(context.Background(), level, fmt.Sprintf(format, v...))
}

func (s serverLog) Noticef(format string, v ...any) { s.logf(slog.LevelDebug, format, v) }
func (s serverLog) Errorf(format string, v ...any) {
	if s.nowhere && format == routeErrorFormat && len(v) == 2 && strings.Contains(fmt.Sprint(v[1]), "missing port") {
		s.logf(slog.LevelDebug, format, v)
		return
	}
	s.logf(slog.LevelError, format, v)
}

// routeErrorFormat is how the NATS server logs a failed route.
const routeErrorFormat = "Error trying to connect to route (attempt %v): %v"

func (s serverLog) Debugf(format string, v ...any) { s.logf(slog.LevelDebug, format, v) }
func (s serverLog) Tracef(format string, v ...any) { s.logf(slog.LevelDebug, format, v) }

func (s serverLog) Warnf(format string, v ...any) {
	if format == secretTLSWarning {
		// Said of the routes' TLS made from the secret, which checks the
		// chain itself: see secretTLS.
		s.logf(slog.LevelDebug, format, v)
		return
	}
	s.logf(slog.LevelWarn, format, v)
}

// secretTLSWarning is what the NATS server warns of a route TLS that does
// not check host names.
const secretTLSWarning = "TLS certificate chain and hostname of solicited routes will not be verified. DO NOT USE IN PRODUCTION!"

// Fatalf does not exit: the server calls it when it cannot go on
// (JetStream failing to start, say), and Open reports that as an error.
func (s serverLog) Fatalf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	s.fatal.Store(&msg)
	s.l.Error(msg)
}

// The server's warnings and errors logged at most: logBurst a logWindow.
const (
	logWindow = 10 * time.Second
	logBurst  = 10
)

// logLimits holds a logLimit for each kind of line, at most maxLineKinds;
// past them every other kind shares one.
type logLimits struct {
	mu    sync.Mutex
	kinds map[string]*logLimit
}

const maxLineKinds = 256

func (ls *logLimits) allow(kind string, now time.Time) (ok bool, dropped int) {
	ls.mu.Lock()
	if ls.kinds == nil {
		ls.kinds = make(map[string]*logLimit)
	}
	l := ls.kinds[kind]
	if l == nil {
		if len(ls.kinds) >= maxLineKinds {
			kind = ""
		}
		if l = ls.kinds[kind]; l == nil {
			l = new(logLimit)
			ls.kinds[kind] = l
		}
	}
	ls.mu.Unlock()
	return l.allow(now)
}

// lineKind is a server log line's format without the connection it is
// about: the server writes "127.0.0.1:50704 - rid:17 - " into the format
// of a connection's lines, and every knock comes on a connection of its
// own.
func lineKind(format string) string {
	if i := strings.Index(format, " - "); i > 0 && !strings.Contains(format[:i], " ") {
		rest := format[i+3:]
		if j := strings.Index(rest, " - "); j > 0 && strings.Contains(rest[:j], ":") && !strings.Contains(rest[:j], " ") {
			return rest[j+3:]
		}
	}
	return format
}

// logLimit counts the lines of a window.
type logLimit struct {
	mu      sync.Mutex
	start   time.Time
	n       int // lines of the window so far
	dropped int // lines of the window not logged
}

// allow reports whether a line may be logged now and, once a window
// ends, how many lines the last one dropped.
func (l *logLimit) allow(now time.Time) (ok bool, dropped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.start) >= logWindow {
		dropped, l.dropped = l.dropped, 0
		l.start, l.n = now, 0
	}
	if l.n >= logBurst {
		l.dropped++
		return false, dropped
	}
	l.n++
	return true, dropped
}
