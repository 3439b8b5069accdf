package natsconn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/polltest"
)

// openCluster opens n connections whose embedded servers form one
// cluster over loopback. Each listens on a port the OS picks, and routes
// to the servers opened before it; the next opens as soon as the one
// before listens, and openCluster returns once the cluster has a
// JetStream meta leader. Each of set, if any, adjusts every node's
// settings.
func openCluster(t *testing.T, n int, set ...func(i int, cfg *Config)) []*Conn {
	t.Helper()
	dir := t.TempDir()
	conns := make([]*Conn, n)
	errs := make([]error, n)
	var routes []string
	var wg sync.WaitGroup
	for i := range n {
		listening := make(chan string, 1)
		cfg := Config{
			Dir:       filepath.Join(dir, fmt.Sprint("n", i+1)),
			Node:      fmt.Sprint("n", i+1),
			Cluster:   "127.0.0.1:0",
			Routes:    slices.Clone(routes),
			Replicas:  min(3, n),
			Listening: func(url string) { listening <- url },
			Logger:    testLogger(t),
		}
		for _, f := range set {
			f(i, &cfg)
		}
		wg.Go(func() {
			conns[i], errs[i] = Open(t.Context(), cfg)
			close(listening)
		})
		url, ok := <-listening
		if !ok {
			break
		}
		routes = append(routes, url)
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("opening a cluster of %d: %v", n, err)
	}
	// Open waits for a connection, not for the cluster: wait, as the
	// store does for its stream, until the nodes have met and elected a
	// JetStream meta leader, by when their routes have settled.
	for i, c := range conns {
		err := c.Take(t.Context(), "account", func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_, err := c.JetStream().AccountInfo(ctx)
			return err
		})
		if err != nil {
			t.Fatalf("node %d: %v", i+1, err)
		}
	}
	return conns
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type tlog struct{ t testing.TB }

func (w tlog) Write(p []byte) (int, error) {
	w.t.Logf("%s", strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func TestLock(t *testing.T) {
	dir := t.TempDir()
	first, err := Open(t.Context(), Config{Dir: dir})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer first.Close()

	start := time.Now()
	second, err := Open(t.Context(), Config{Dir: dir})
	if err == nil {
		second.Close()
		t.Fatalf("a second Open(%s) while the first is open: no error, want ErrLocked", dir)
	}
	lock := filepath.Join(dir, lockName)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), lock) || !strings.Contains(err.Error(), "another tenpin process") {
		t.Errorf("second Open = %q, want an error wrapping ErrLocked that names %s and another tenpin process", err, lock)
	}
	t.Logf("second Open: %v", err)
	if d := time.Since(start); d > time.Second {
		t.Errorf("second Open took %v to fail, want at once", d)
	}

	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	third, err := Open(t.Context(), Config{Dir: dir})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	third.Close()
}

func TestOpenConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no dir and no URL", Config{}, "no data directory"},
		{"replicas without a cluster", Config{Dir: t.TempDir(), Replicas: 3}, "3 replicas need a NATS cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Open(t.Context(), tc.cfg)
			if err == nil {
				c.Close()
				t.Fatalf("Open(%+v): no error, want one saying %q", tc.cfg, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open(%+v) = %q, want it to say %q", tc.cfg, err, tc.want)
			}
		})
	}
}

// TestClusterConfigRefused: settings that cannot make a cluster are
// refused before anything starts.
func TestClusterConfigRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want error // if set, what the refusal wraps
	}{
		{"routes without a cluster address", Config{Dir: t.TempDir(), Routes: []string{"nats://127.0.0.1:6222"}}, nil},
		{"a cluster address and a URL", Config{URL: "nats://127.0.0.1:4222", Cluster: "127.0.0.1:6222"}, nil},
		{"replicas on one server", Config{Dir: t.TempDir(), Replicas: 3}, nil},
		{"a cluster address without a port", Config{Dir: t.TempDir(), Cluster: "127.0.0.1"}, nil},
		{"a route that is not nats://", Config{Dir: t.TempDir(), Cluster: "127.0.0.1:6222", Routes: []string{"127.0.0.1:6223"}}, nil},
		{"every interface without a secret", Config{Dir: t.TempDir(), Cluster: "0.0.0.0:0"}, ErrNoSecret},
		{"no host without a secret", Config{Dir: t.TempDir(), Cluster: ":0"}, ErrNoSecret},
		{"IPv6 any without a secret", Config{Dir: t.TempDir(), Cluster: "[::]:0"}, ErrNoSecret},
		{"a network address without a secret", Config{Dir: t.TempDir(), Cluster: "192.0.2.7:0"}, ErrNoSecret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Open(t.Context(), tc.cfg)
			if err == nil {
				c.Close()
				t.Fatalf("Open(%+v) succeeded", tc.cfg)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("Open: %v, want %v", err, tc.want)
			}
		})
	}
}

// TestNoRouteIsNoError: the first node of a cluster, which routes to no
// other, has its server try a route to nowhere (see clusterOptions); its
// failure is no error for the operator to worry about.
func TestNoRouteIsNoError(t *testing.T) {
	var logs lockedBuffer
	openCluster(t, 2, func(i int, cfg *Config) {
		if i == 0 {
			cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		}
	})
	polltest.Until(t, 30*time.Second, "the server to try its route to nowhere", func() (any, bool) {
		log := logs.String()
		return "a log of:\n" + log, strings.Contains(log, "missing port")
	})
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, "missing port") && !strings.Contains(line, "level=DEBUG") {
			t.Errorf("the route to nowhere was logged above debug: %s", line)
		}
	}
}

// lockedBuffer is a buffer a logger writes to from any goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestRedactURLs(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"nats://127.0.0.1:4222", "nats://127.0.0.1:4222"},
		{"nats://u:secret@h:4222,nats://tok@h2:4222", "nats://u:xxxxx@h:4222,nats://xxxxx@h2:4222"},
	} {
		if got := RedactURLs(tt.in); got != tt.want || strings.Contains(got, "secret") {
			t.Errorf("RedactURLs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
