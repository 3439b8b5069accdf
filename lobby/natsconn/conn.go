package natsconn

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	natsd "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Defaults of [Config].
const (
	DefaultSyncInterval = time.Second
	DefaultTimeout      = 2 * time.Second
)

// Errors of [Open], and of [Conn.Take].
var (
	// ErrLocked: another process holds the data directory's lock (or, for
	// a store at a URL, its lease).
	ErrLocked = errors.New("natsconn: data directory locked")
	// ErrFewServers: the NATS at the URL has fewer servers with JetStream
	// than the replicas asked for — a single server, not a cluster, or a
	// cluster where fewer answered within ClusterWait.
	ErrFewServers = errors.New("natsconn: fewer NATS servers than replicas")
)

// Config configures [Open].
type Config struct {
	// Dir is the data directory of the embedded server, created (0700) if
	// missing; the server stores in a subdirectory of it. Required unless
	// URL is set.
	Dir string

	// URL, if set, is the NATS server or cluster to use instead of
	// embedding one: one URL or several, separated by commas. Dir is not
	// used or locked then: the servers keep their own files.
	URL string

	// SyncAlways makes the embedded server fsync every append before it
	// acknowledges it (a few thousand appends a second at most). Otherwise
	// it fsyncs every SyncInterval (default [DefaultSyncInterval]). An
	// external server keeps its own settings.
	SyncAlways   bool
	SyncInterval time.Duration

	// MaxStore bounds in bytes what the embedded server stores, every
	// stream and bucket together (JetStream's max_file_store); 0 leaves
	// JetStream's default, three quarters of the disk space free when it
	// starts. That default counts nothing already stored: on a disk the
	// store has filled, it is below what the store holds, and JetStream
	// then refuses every write ("insufficient resources") after a
	// restart too. Set it when each stream and bucket has a bound of its
	// own (natsstore.Budgets), to at least their sum. An external server
	// keeps its own settings.
	MaxStore int64

	// Cluster, if set, is the host:port where the embedded server listens
	// for the servers of the other nodes, and Routes their cluster
	// addresses (nats://host:port): the embedded servers then form one
	// NATS cluster. List every other node in Routes on every node. Node
	// names this node's server, unique in the cluster (default "tenpin").
	Cluster string
	Routes  []string
	Node    string
	// Secret, the same on every node (see [LoadSecret]), is what makes a
	// server a node of the cluster: routes authenticate with a password
	// derived from it and, unless RouteTLS is set, are encrypted with TLS
	// by a certificate authority derived from it, so a route needs no
	// certificates of the operator's. Without a secret the cluster port
	// takes any server that connects, so Open refuses a Cluster address
	// other machines can reach ([ErrNoSecret]).
	Secret []byte
	// RouteTLS, if set, encrypts the routes with the operator's
	// certificates instead (see [LoadRouteTLS]).
	RouteTLS *tls.Config
	// Listening, if set, is told the URL at which the embedded server
	// listens for the other nodes' (nats://host:port) as soon as it does:
	// before Open waits for the cluster, which may need this node's
	// address to form (the port of a Cluster address of port 0 is the
	// OS's choice).
	Listening func(clusterURL string)

	// Replicas is how many servers hold a copy of each thing stored (the
	// store's stream and buckets): by default 3 at a URL, 3 in a cluster
	// of the embedded servers (fewer if Routes names fewer nodes), and 1
	// on the embedded server alone. More than one needs a cluster
	// (Cluster or URL). At a URL, 1 is allowed, with a warning logged: the
	// loss of the one NATS server that holds the stream stops every lane
	// until it is back.
	Replicas int

	// ClusterWait bounds how long Open waits for NATS at a URL, or for the
	// cluster of the embedded servers, to connect, and how long the store
	// waits for it to take the stream and the buckets ([Conn.Take]): a
	// cluster takes them once it has formed and elected its JetStream
	// meta leader (elections time out after 4 to 9 s), and a replicated
	// stream needs as many servers up as it has replicas (default 2
	// minutes, or the context's deadline).
	ClusterWait time.Duration

	// Timeout bounds one request to NATS: an append, or the wait for the
	// next message of a read (default [DefaultTimeout]). The caller's
	// context can end either sooner.
	Timeout time.Duration

	// Logger receives the connection's and the embedded server's
	// warnings and errors (default: discard).
	Logger *slog.Logger
}

// Conn is a connection to NATS with JetStream: to the server embedded in
// the process, which it runs, or to an external server or cluster. It is
// safe for concurrent use.
type Conn struct {
	cfg  Config
	log  *slog.Logger
	lock *os.File      // the data directory's lock; nil with a URL
	srv  *natsd.Server // the embedded server; nil with a URL
	// storeDir is where the embedded server stores, for RestartJetStream.
	storeDir string
	token    string  // the embedded server's client password, when it listens (in a cluster)
	slow     slowLog // messages dropped for slow consumers
	nc       *nats.Conn
	js       jetstream.JetStream

	// caughtUp: the embedded server's copy of the store was current once
	// since it started (see CaughtUp); behind, why not, as last seen.
	caughtUp atomic.Bool
	behind   atomic.Pointer[string]
	stop     chan struct{} // closed by Close: ends watchCaughtUp
	watching sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
}

// Open starts the embedded NATS server on cfg.Dir, or connects to cfg.URL,
// waiting for NATS to answer. It fails with an error wrapping [ErrLocked]
// if another process uses cfg.Dir. Close the connection to stop the
// server and release the directory.
func Open(ctx context.Context, cfg Config) (*Conn, error) {
	if cfg.URL == "" && cfg.Dir == "" {
		return nil, errors.New("natsconn: no data directory (Dir) for the embedded server, and no NATS URL")
	}
	if cfg.URL != "" && cfg.Cluster != "" {
		return nil, errors.New("natsconn: a cluster address is for the embedded server; with a NATS URL the servers at that URL form the cluster")
	}
	if cfg.Cluster == "" && len(cfg.Routes) > 0 {
		return nil, errors.New("natsconn: routes to other nodes need this node's cluster address too")
	}
	if cfg.Cluster != "" && len(cfg.Secret) == 0 {
		if host, _, err := net.SplitHostPort(cfg.Cluster); err == nil && !loopback(host) {
			return nil, fmt.Errorf("%w: any server that reaches %s would join the cluster, read its lanes and write them", ErrNoSecret, cfg.Cluster)
		}
	}
	if cfg.Replicas <= 0 {
		switch {
		case cfg.URL != "":
			cfg.Replicas = 3
		case cfg.Cluster != "":
			cfg.Replicas = min(3, 1+len(cfg.Routes))
		default:
			cfg.Replicas = 1
		}
	}
	if cfg.URL == "" && cfg.Cluster == "" && cfg.Replicas > 1 {
		return nil, fmt.Errorf("natsconn: %d replicas need a NATS cluster (a cluster address and routes, or a URL): the embedded server alone is one", cfg.Replicas)
	}
	if cfg.Node == "" {
		cfg.Node = "tenpin"
	}
	if cfg.ClusterWait <= 0 {
		cfg.ClusterWait = 2 * time.Minute
	}
	if cfg.SyncInterval <= 0 {
		cfg.SyncInterval = DefaultSyncInterval
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.URL != "" && cfg.Replicas == 1 {
		cfg.Logger.Warn("natsconn: one copy of each event (replicas 1): the loss of the NATS server that holds the lanes' stream stops every lane until it is back; keep 3 on a cluster of 3", "url", RedactURLs(cfg.URL))
	}
	c := &Conn{cfg: cfg, log: cfg.Logger}
	if err := c.open(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Conn) open(ctx context.Context) error {
	opts := []nats.Option{
		nats.Name("tenpin"),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				c.log.Warn("natsconn: disconnected from NATS", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			c.log.Info("natsconn: reconnected to NATS", "url", nc.ConnectedUrlRedacted())
		}),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrSlowConsumer) {
				c.slow.dropped(c.log, sub)
				return
			}
			c.log.Warn("natsconn: NATS error", "err", err)
		}),
	}
	url := RedactURLs(c.cfg.URL)
	if url == "" {
		if err := c.startServer(ctx); err != nil {
			return err
		}
		url = "embedded server"
		// The embedded server does not come back once it is gone: fail
		// appends at once rather than buffer them for a reconnection.
		opts = append(opts, nats.InProcessServer(c.srv), nats.ReconnectBufSize(-1))
		if c.token != "" {
			opts = append(opts, nats.Token(c.token))
		}
	} else {
		// A cluster's servers restart one at a time: keep trying.
		opts = append(opts, nats.MaxReconnects(-1))
	}
	ctx, cancel := context.WithTimeout(ctx, c.TakeWait())
	defer cancel()
	var nc *nats.Conn
	err := c.Take(ctx, "connection to NATS at "+url, func(context.Context) (err error) {
		nc, err = nats.Connect(c.cfg.URL, opts...)
		return err
	})
	if err != nil {
		return fmt.Errorf("natsconn: connect to NATS (%s): %w", url, err)
	}
	c.nc = nc
	if c.js, err = jetstream.New(nc); err != nil {
		return fmt.Errorf("natsconn: JetStream on %s: %w", url, err)
	}
	c.stop = make(chan struct{})
	if c.srv != nil && c.srv.JetStreamIsClustered() {
		c.watching.Go(c.watchCaughtUp)
	} else {
		c.caughtUp.Store(true)
	}
	return nil
}

// caughtUpEvery is how often watchCaughtUp asks the server.
const caughtUpEvery = 250 * time.Millisecond

// watchCaughtUp asks the embedded server, a member of a cluster, whether
// its copy of every stream is current (NATS's own health check) until it
// is once, or the connection closes: see CaughtUp. It asks on its own,
// not when /healthz is asked: a node nobody probed until a failover would
// otherwise be asked first while the streams elect leaders.
func (c *Conn) watchCaughtUp() {
	t := time.NewTicker(caughtUpEvery)
	defer t.Stop()
	for {
		h := c.srv.Healthz(nil)
		if h.Status == "ok" && h.Error == "" {
			c.caughtUp.Store(true)
			return
		}
		why := h.Error
		c.behind.Store(&why)
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
	}
}

// Config returns the connection's settings, defaults filled in: those of
// the store on it (Replicas, Timeout, Node, Logger) among them.
func (c *Conn) Config() Config { return c.cfg }

// NATS returns the connection to NATS itself. It closes with c.
func (c *Conn) NATS() *nats.Conn { return c.nc }

// JetStream returns the JetStream context of the connection.
func (c *Conn) JetStream() jetstream.JetStream { return c.js }

// Embedded reports whether NATS is the server embedded in the process
// (alone or in a cluster of the nodes' embedded servers), not at a URL.
func (c *Conn) Embedded() bool { return c.srv != nil }

// Clustered reports whether the embedded server is a node of a cluster
// of the nodes' embedded servers.
func (c *Conn) Clustered() bool { return c.srv != nil && c.cfg.Cluster != "" }

// Explain explains a failed request by the connection's state, if it is
// not connected: a timeout alone does not say that the server is gone.
// It returns "" while connected, otherwise a clause and a colon to put
// before the error.
func (c *Conn) Explain() string {
	if s := c.nc.Status(); s != nats.CONNECTED {
		return "the connection to NATS is " + strings.ToLower(s.String()) + ": "
	}
	return ""
}

// JetStreamEnabled reports whether the embedded server runs JetStream:
// a full disk shuts it down. It reports true for NATS at a URL, whose
// JetStream is its own.
func (c *Conn) JetStreamEnabled() bool { return c.srv == nil || c.srv.JetStreamEnabled() }

// RestartJetStream restarts the embedded server's JetStream, which reopens
// the store's files: a write error is sticky in a NATS file store (every
// later write fails with the first error, even once its cause is gone),
// and a full disk shuts JetStream down, and neither comes back on its
// own. Restarting JetStream, not the server, keeps the connection and,
// in a cluster, the routes; the streams are read back from their files.
// It fails for NATS at a URL.
func (c *Conn) RestartJetStream() error {
	s := c.srv
	if s == nil {
		return errors.New("natsconn: NATS at a URL restarts its own JetStream")
	}
	if s.JetStreamEnabled() {
		if err := s.ShutdownJetStream(); err != nil {
			return fmt.Errorf("natsconn: stop JetStream: %w", err)
		}
	}
	// The directory as the server was first given it (EnableJetStream
	// adds its own subdirectory); the rest of the settings, the sync
	// interval among them, come from the server's options.
	if err := s.EnableJetStream(&natsd.JetStreamConfig{StoreDir: c.storeDir, MaxStore: c.cfg.MaxStore}); err != nil {
		return fmt.Errorf("natsconn: start JetStream again: %w", err)
	}
	return nil
}

// CaughtUp reports whether the embedded server, a member of a cluster,
// has caught up with the others since it started: its copy of every
// stream current once (NATS's own health check, asked from the start
// until it passes). Until then it returns why not. A node restarted
// while the others wrote has copies behind theirs, though every stream
// already answers through the others' leaders: stopped then, the next
// node of a rolling restart took the streams' quorum with it, and lanes
// stalled until it came back (5–6 s, tenpin failover -rolling). Once
// caught up it stays so: a stream electing a leader later stalls only its
// own lanes, on every node alike (see natsstore.Journal.Check). A lone
// server, or NATS at a URL (whose servers are the operator's), is caught
// up from the start.
func (c *Conn) CaughtUp() error {
	if c.caughtUp.Load() {
		return nil
	}
	why := "not asked yet"
	if p := c.behind.Load(); p != nil && *p != "" {
		why = *p
	}
	return fmt.Errorf("natsconn: this node's copy of the store is catching up with the cluster's since it started: %s", why)
}

// Close closes the connection, stops the embedded server (which writes
// what it holds to its files) and releases the data directory. Close the
// store and the cluster on the connection first.
func (c *Conn) Close() error { return c.close(true) }

// Abort closes the connection as Close does, but stops a clustered
// embedded server at once, without lame duck mode: as a crash does for
// the others, whose groups it led elect new leaders (4–9 s). For tests of
// a node's death.
func (c *Conn) Abort() error { return c.close(false) }

func (c *Conn) close(lameDuck bool) error {
	c.closeOnce.Do(func() {
		if c.stop != nil {
			close(c.stop)
			c.watching.Wait()
		}
		if c.nc != nil {
			c.nc.Close()
		}
		if c.srv != nil {
			if lameDuck && c.srv.JetStreamIsClustered() {
				// The server notices the in-process client's close a
				// moment later: wait for it (briefly), or lame duck mode
				// counts it and waits its grace period for it.
				for range 20 {
					if c.srv.NumClients() == 0 {
						break
					}
					time.Sleep(5 * time.Millisecond)
				}
				// Shutdown steps this server's raft leaders down and closes
				// its routes at once: the transfers were lost with them, and
				// every group it led waited for an election, 4–9 s (a
				// rolling restart stalled lanes 5–6 s). Lame duck mode
				// transfers them, waits a second for the new leaders, and
				// then shuts down; with no client left it does not wait
				// for clients. (It does nothing for a server that does not
				// listen: Shutdown below does it all.)
				c.srv.LameDuckShutdown()
			}
			c.srv.Shutdown()
			c.srv.WaitForShutdown()
		}
		if c.lock != nil {
			// Closing the file releases the lock. The file stays: removing
			// it could unlink a file that another process has just locked.
			if err := c.lock.Close(); err != nil {
				c.closeErr = fmt.Errorf("natsconn: release the lock on %s: %w", c.lock.Name(), err)
			}
		}
	})
	return c.closeErr
}

// slowLogEvery is how often at most the connection logs that messages
// were dropped for slow consumers.
const slowLogEvery = 10 * time.Second

// slowLog logs the messages the connection drops for slow consumers, at
// most once every slowLogEvery. The client reports a subscription's first
// drop after each delivery: the boards of every lane a node relays share
// one backlog (see the cluster's relays), and a full one would have the
// relays' subscriptions take turns to report, a line each.
type slowLog struct {
	mu     sync.Mutex
	last   time.Time // when it last logged
	events int       // reports since
}

func (l *slowLog) dropped(log *slog.Logger, sub *nats.Subscription) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events++
	if now := time.Now(); now.Sub(l.last) >= slowLogEvery {
		subject := ""
		if sub != nil {
			subject = sub.Subject
		}
		log.Warn("natsconn: messages dropped for a slow consumer", "subject", subject, "reports", l.events)
		l.last, l.events = now, 0
	}
}
