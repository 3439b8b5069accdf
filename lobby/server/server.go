// Package server wires one tenpin node together: its store (the lanes'
// journal in JetStream, or in memory), its cluster when it is a node of
// one, its lobby, and the HTTP handler that serves the API, the lanes'
// WebSockets and the page. cmd/tenpin and every test that needs a
// running server build it here, the one way.
//
// The parts are made in the order they need each other — store, cluster,
// lobby — and run as one ([Server.Run]): the cluster is handed the lobby
// when it runs, so nothing is captured before it exists.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/api"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/lobby/natspeers"
	"github.com/tenpin/tenpin/lobby/natsstore"
	"github.com/tenpin/tenpin/web"
)

// Config is a node's settings.
type Config struct {
	// Lobby is the lobby's settings, its lanes' among them. New sets its
	// journal, archive, bowlers, leagues, health check and cluster
	// (Lane.Journal, Lane.Durable, Archive, Lane.Bowlers, Leagues, Health,
	// Cluster, Lane.Wakes, Lane.Node) from the fields below, and its
	// sockets' poller (Socket.Poller, the server's own); set them here and
	// they are overwritten.
	Lobby lobby.Config

	// Memory keeps the lanes in memory only: a restart forgets them.
	// Otherwise they are stored in JetStream, on the NATS that Store
	// says: embedded in a data directory, or at a URL.
	Memory bool
	Store  natsconn.Config
	// Shards is how many streams the lanes are spread over (see
	// natsstore.Config.Shards; 0: the store's, or the default).
	Shards int

	// Keep is how long the night of a lane that closed is kept, read-only
	// (0: forever), in the same store as the lanes (lobby.Archive).
	Keep time.Duration

	// Budgets bound in bytes what the store keeps of each kind of data
	// (see natsstore.Budgets; 0: no bound). With every kind bounded, the
	// embedded server is given no bound of its own (Store.MaxStore, unless
	// set): JetStream's default, taken from the disk space free when it
	// starts, would count nothing already stored, and a restart on a
	// store that had filled its disk would refuse every write.
	Budgets natsstore.Budgets

	// Node, if set, makes the server a node of a cluster of that name
	// (Store must then be shared: Store.Cluster and Store.Routes for
	// embedded servers routed together, or Store.URL for an external NATS
	// cluster). Cluster's Conn, Node, URLs, Lane and Logger are set by New.
	Node    string
	Cluster natspeers.Config

	Logger *slog.Logger // default: discard
}

// unboundStore is the embedded server's MaxStore when the budgets bound
// every kind of data: more than any disk, so that JetStream never refuses
// a write for its own bound, only a kind for its budget.
const unboundStore = 1 << 60

// Server is one node: its parts, made and run together.
type Server struct {
	Lobby   *lobby.Lobby
	Conn    *natsconn.Conn     // the store's and the cluster's NATS; nil with Config.Memory
	Journal *natsstore.Journal // nil with Config.Memory
	Cluster *natspeers.Cluster // nil but for a node of a cluster

	poller   *ws.Poller // serves the lobby's WebSockets at rest; see Run
	log      *slog.Logger
	restored int
	handler  http.Handler
	close    sync.Once
	closeErr error
}

// New opens the store, joins the cluster if Config.Node says so, makes the
// lobby and, for a lone server, restores the lanes the store holds. Close
// the server once Run has returned (or if it never runs).
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	lc := cfg.Lobby
	if lc.Logger == nil {
		lc.Logger = cfg.Logger
	}
	s := &Server{log: cfg.Logger}
	switch {
	case cfg.Memory && cfg.Node != "":
		return nil, errors.New("server: a node of a cluster needs a store the nodes share, not memory")
	case cfg.Memory:
		lc.Lane.Journal, lc.Lane.Durable, lc.Health = memjournal.New(), false, nil
		lc.Archive = memjournal.NewArchive(cfg.Keep)
		lc.Lane.Bowlers = memjournal.NewBowlers()
		lc.Leagues = memjournal.NewLeagues()
	default:
		cc := cfg.Store
		if cc.Logger == nil {
			cc.Logger = cfg.Logger
		}
		sc := natsstore.Config{Shards: cfg.Shards, Budgets: cfg.Budgets}
		if b := cfg.Budgets; cc.MaxStore == 0 && b.Lanes > 0 && b.Kept > 0 && b.Bowlers > 0 && b.Leagues > 0 {
			cc.MaxStore = unboundStore
		}
		if cfg.Node != "" {
			cc.Node, sc.Shared = cfg.Node, cc.URL != ""
		}
		conn, err := natsconn.Open(ctx, cc)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		s.Conn = conn
		j, err := natsstore.Open(ctx, conn, sc)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("server: %w", err)
		}
		s.Journal = j
		lc.Lane.Journal, lc.Lane.Durable, lc.Full = j, true, j.Full
		lc.Health = func(ctx context.Context) error {
			// A node that has not caught up since it started says so: a
			// rolling restart waits for it before it stops the next.
			if err := conn.CaughtUp(); err != nil {
				return err
			}
			return j.Check(ctx)
		}
		if lc.Archive, err = j.Archive(ctx, cfg.Keep); err != nil {
			s.Close()
			return nil, fmt.Errorf("server: %w", err)
		}
		if lc.Lane.Bowlers, err = j.Bowlers(ctx); err != nil {
			s.Close()
			return nil, fmt.Errorf("server: %w", err)
		}
		if lc.Leagues, err = j.Leagues(ctx); err != nil {
			s.Close()
			return nil, fmt.Errorf("server: %w", err)
		}
	}
	if cfg.Node != "" {
		// The relays' connections count with the lanes' and log with them.
		if lc.Lane.Metrics == nil {
			lc.Lane.Metrics = new(lane.Metrics)
		}
		if lc.Lane.Logger == nil {
			lc.Lane.Logger = lc.Logger
		}
		lc.Lane.Node = cfg.Node
		cc := cfg.Cluster
		cc.Conn, cc.Node, cc.URLs, cc.Lane, cc.Logger = s.Conn.NATS(), cfg.Node, lc.URLs, lc.Lane, lc.Logger
		cl, err := natspeers.New(cc)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("server: %w", err)
		}
		s.Cluster = cl
		lc.Cluster, lc.Lane.Wakes = cl, cl.Wakes
	}
	p, err := ws.NewPoller()
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("server: %w", err)
	}
	s.poller, lc.Socket.Poller = p, p
	s.Lobby = lobby.New(lc)
	if s.Cluster == nil && !cfg.Memory {
		// A cluster's lanes are adopted by whichever node finds them
		// unowned (see natspeers.Cluster.Run), not restored by each.
		n, err := s.Lobby.Restore(ctx)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("server: %w", err)
		}
		s.restored = n
	}
	s.handler = handler(s.Lobby, lc.Logger)
	return s, nil
}

// handler is everything a node's public address serves: the API, the
// WebSockets and /healthz, and the page. Nothing operational: that is on
// cmd/tenpin's -debug-addr.
func handler(lb *lobby.Lobby, log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	api := API(lb, log)
	mux.Handle("/api/", api)
	mux.Handle("/ws/", api)
	mux.Handle("/healthz", api)
	mux.Handle("/", web.Handler())
	return mux
}

// API returns the HTTP API and WebSocket endpoint of lb's services,
// logging to log (nil: nowhere): the one place lobby/api's services are
// wired to the lobby that provides them.
func API(lb *lobby.Lobby, log *slog.Logger) http.Handler {
	set := lb.Settings()
	return api.New(api.Services{
		Lanes:          lb,
		Admission:      lb.Admission(),
		Leagues:        lb.Leagues(),
		Bowlers:        lb.Bowlers(),
		URLs:           set.URLs,
		OriginPatterns: set.OriginPatterns,
		IdleTimeout:    set.IdleTimeout,
	}, log)
}

// The lobby's services are what the API asks of them.
var (
	_ api.Lanes     = (*lobby.Lobby)(nil)
	_ api.Admission = (*lobby.Admission)(nil)
	_ api.Leagues   = (*lobby.Leagues)(nil)
)

// Handler returns what the node's public address serves.
func (s *Server) Handler() http.Handler { return s.handler }

// Restored returns how many lanes New restored from the store.
func (s *Server) Restored() int { return s.restored }

// Run runs the node's lanes, the poller of their WebSockets and, for a
// node of a cluster, its part in the cluster, until ctx ends; it returns
// once every lane has stopped (each closing its sockets with "going
// away"), and the poller after them. Run it once.
//
// If the poller fails, it closes the sockets it served (their clients
// reconnect) and Run logs why: the sockets opened afterwards are served
// without it, a goroutine waiting in a read for each, until the node
// restarts.
func (s *Server) Run(ctx context.Context) {
	var wg sync.WaitGroup
	if s.Cluster != nil {
		wg.Go(func() { s.Cluster.Run(ctx, s.Lobby.PeerLanes()) })
	}
	// The poller serves the sockets until the lanes have closed them: it
	// stops after the lobby, not with ctx.
	pollerCtx, stopPoller := context.WithCancel(context.WithoutCancel(ctx))
	wg.Go(func() {
		if err := s.poller.Run(pollerCtx); err != nil {
			s.log.Error("websockets served without a poller from now on: its sockets were closed, to reconnect", "err", err)
		}
	})
	s.Lobby.Run(ctx)
	stopPoller()
	wg.Wait()
}

// Close closes the store and then its connection to NATS, and the
// sockets' poller of a server that never ran: after Run has returned, for
// every lane to have stored what it acknowledged. It may be called more
// than once.
func (s *Server) Close() error {
	s.close.Do(func() {
		if s.poller != nil {
			s.poller.Close() // for a server that never ran
		}
		var errs []error
		if s.Journal != nil {
			errs = append(errs, s.Journal.Close())
		}
		if s.Conn != nil {
			errs = append(errs, s.Conn.Close())
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}
