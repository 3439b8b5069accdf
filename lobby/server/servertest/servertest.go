// Package servertest runs tenpin servers for tests, as net/http/httptest
// runs HTTP servers: a node, or a cluster of nodes, built by
// lobby/server the way cmd/tenpin builds it, served by httptest on
// loopback, with every port chosen by the operating system, and its log
// written to the test's.
package servertest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/protocol/client"
)

// Cluster timing for tests: a node is taken for dead after a second of
// silence rather than three, so that failover tests take seconds.
const (
	Heartbeat   = 200 * time.Millisecond
	NodeTimeout = time.Second
)

// Logger returns a logger that writes what is at level or above to
// t.Logf, so that a server's log shows with the test that failed.
func Logger(t testing.TB, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(logWriter{t}, &slog.HandlerOptions{Level: level}))
}

type logWriter struct{ t testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// Node is a running tenpin server.
type Node struct {
	*server.Server
	Name string
	URL  string         // http://127.0.0.1:port
	API  *client.Client // the HTTP API at URL
	HTTP *httptest.Server

	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// Start starts a node with cfg: in memory unless cfg.Store.Dir or
// cfg.Store.URL says where to store, with tests' message rate (a test
// plays faster than people) unless cfg sets one, and its log at warn
// level in t's unless cfg has a logger. The node stops when the test
// ends.
func Start(t testing.TB, cfg server.Config) *Node {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = Logger(t, slog.LevelWarn)
	}
	if cfg.Store.Dir == "" && cfg.Store.URL == "" {
		cfg.Memory = true
	}
	n, err := start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Stop)
	return n
}

// StartCluster starts n nodes as one cluster, as StartNodes does, and
// stops them when the test ends.
func StartCluster(t testing.TB, n int, cfg server.Config) []*Node {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = Logger(t, slog.LevelError)
	}
	nodes, err := StartNodes(t.Context(), t.TempDir(), n, cfg)
	t.Cleanup(func() {
		for _, node := range nodes {
			node.Stop()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return nodes
}

// StartNodes starts n nodes (n1, n2, …) as one cluster, each with its
// data in a directory of its own under dir and an embedded NATS server
// routed to the others, as tenpin serve -node does; cfg gives the
// settings they share. Every port is the operating system's choice: each
// node's NATS server listens on a port of its own picking, and the next
// node routes to those of the nodes before it. It returns once every node
// has heard of every other. On error it returns the nodes it started, for
// the caller to stop.
func StartNodes(ctx context.Context, dir string, n int, cfg server.Config) ([]*Node, error) {
	if cfg.Cluster.Heartbeat == 0 {
		cfg.Cluster.Heartbeat, cfg.Cluster.NodeTimeout = Heartbeat, NodeTimeout
	}
	if cfg.Store.Replicas == 0 {
		// Known from the start: the first node has no routes yet, and
		// would take itself for a cluster of one.
		cfg.Store.Replicas = min(3, n)
	}
	nodes := make([]*Node, n)
	errs := make([]error, n)
	var routes []string
	var wg sync.WaitGroup
	for i := range n {
		c := cfg
		c.Node = fmt.Sprint("n", i+1)
		c.Store.Dir = filepath.Join(dir, c.Node)
		c.Store.Cluster = "127.0.0.1:0"
		c.Store.Routes = slices.Clone(routes)
		c.Logger = cfg.Logger.With("node", c.Node)
		listening := make(chan string, 1)
		c.Store.Listening = func(url string) { listening <- url }
		wg.Go(func() {
			// Each node's start waits for the cluster to take the
			// stream, which needs the nodes after it: they start
			// meanwhile.
			nodes[i], errs[i] = start(ctx, c)
			close(listening)
		})
		url, ok := <-listening
		if !ok {
			break // it failed before it listened
		}
		routes = append(routes, url)
	}
	wg.Wait()
	started := make([]*Node, 0, n)
	for _, node := range nodes {
		if node != nil {
			started = append(started, node)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return started, fmt.Errorf("servertest: forming a cluster of %d: %w", n, err)
	}
	for _, node := range nodes { // every node has heard of the others
		hearing, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := polltest.Wait(hearing, fmt.Sprintf("%s to hear of %d nodes", node.Name, n), func() (any, bool) {
			heard := node.Cluster.Nodes()
			return heard, len(heard) >= n
		})
		cancel()
		if err != nil {
			return started, fmt.Errorf("servertest: %w", err)
		}
	}
	return nodes, nil
}

// start starts a node: its HTTP server first, for the node to tell the
// others of a cluster its address.
func start(ctx context.Context, cfg server.Config) (*Node, error) {
	if cfg.Lobby.Socket.MessageRate == 0 {
		cfg.Lobby.Socket.MessageRate, cfg.Lobby.Socket.MessageBurst = 1e6, 1e6
	}
	var h atomic.Pointer[http.Handler]
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := h.Load(); h != nil {
			(*h).ServeHTTP(w, r)
			return
		}
		http.Error(w, "starting", http.StatusServiceUnavailable)
	}))
	if cfg.Lobby.URLs == nil {
		cfg.Lobby.URLs = []string{ts.URL}
	}
	s, err := server.New(ctx, cfg)
	if err != nil {
		ts.Close()
		return nil, err
	}
	handler := s.Handler()
	h.Store(&handler)
	runCtx, cancel := context.WithCancel(context.Background())
	n := &Node{Server: s, Name: cfg.Node, URL: ts.URL, API: &client.Client{URL: ts.URL}, HTTP: ts, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(n.done)
		s.Run(runCtx)
	}()
	return n, nil
}

// Stop stops the node at once, as a crash would for the others: its store
// (and NATS server, without lame duck mode: the groups it led elect new
// leaders) first, so that it writes nothing more and the others see it
// gone, then its connections, its lanes and its HTTP server. It may be
// called more than once.
func (n *Node) Stop() {
	n.once.Do(func() {
		if n.Journal != nil {
			n.Journal.Close()
		}
		if n.Conn != nil {
			n.Conn.Abort()
		}
		n.Close()
		n.HTTP.CloseClientConnections()
		n.cancel()
		n.HTTP.Close()
		<-n.done
	})
}

// Shutdown stops the node as a signal does: its lanes close their sockets
// (going away), then its store closes.
func (n *Node) Shutdown() {
	n.once.Do(func() {
		n.cancel()
		<-n.done
		n.HTTP.Close()
		n.Close()
	})
}
