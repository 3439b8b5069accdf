package nats

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

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/game/journaltest"
)

// openCluster opens n journals whose embedded servers form one cluster
// over loopback. Each listens on a port the OS picks, and routes to the
// servers opened before it; each waits for the others to take the
// replicated stream, so the next opens as soon as the one before listens.
// Each of set, if any, adjusts every node's settings.
func openCluster(t *testing.T, n int, set ...func(i int, cfg *StoreConfig)) []*Journal {
	t.Helper()
	dir := t.TempDir()
	journals := make([]*Journal, n)
	errs := make([]error, n)
	var routes []string
	var wg sync.WaitGroup
	for i := range n {
		listening := make(chan string, 1)
		cfg := StoreConfig{
			Dir:       filepath.Join(dir, fmt.Sprint("n", i+1)),
			Node:      fmt.Sprint("n", i+1),
			Cluster:   "127.0.0.1:0",
			Routes:    slices.Clone(routes),
			Replicas:  min(3, n), // the first has no routes to count
			Listening: func(url string) { listening <- url },
			Timeout:   10 * time.Second, // a new leader takes seconds to elect
			Logger:    testLogger(t),
		}
		for _, f := range set {
			f(i, &cfg)
		}
		wg.Go(func() {
			journals[i], errs[i] = Open(t.Context(), cfg)
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
		for _, j := range journals {
			if j != nil {
				j.Close()
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("opening a cluster of %d: %v", n, err)
	}
	return journals
}

// TestCluster: three nodes' embedded servers form a cluster with the
// lanes' stream replicated three times. The journal behaves on it as on
// one server; an event appended through one node is read through the
// others, the fence holds across nodes (the second of two nodes that
// append after the same event is refused), and the lanes go on when one
// node stops.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("forming a cluster takes seconds")
	}
	nodes := openCluster(t, 3)
	info, err := nodes[0].stream.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if r := info.Config.Replicas; r != 3 {
		t.Fatalf("the stream has %d replicas, want 3", r)
	}
	if info.Config.AllowDirect {
		t.Fatal("the stream allows direct gets: a follower could answer a read's last message with a stale one")
	}

	t.Run("Conformance", func(t *testing.T) {
		journaltest.Run(t, func(*testing.T) game.Journal { return nodes[1] })
	})

	ctx := t.Context()
	open := game.Open("across", "across nodes", 0)
	pos, err := nodes[0].Append(ctx, "across", 0, open)
	if err != nil {
		t.Fatal(err)
	}
	log, err := nodes[2].Read(ctx, "across", 0)
	if err != nil || len(log.Events) != 1 || log.Last != pos {
		t.Fatalf("node 3 reads %+v, %v; want the opening node 1 appended, at %d", log, err, pos)
	}
	claim2 := game.Event{Kind: game.Claimed, Epoch: 1, Node: "n2"}
	pos2, err := nodes[1].Append(ctx, "across", pos, claim2)
	if err != nil {
		t.Fatalf("node 2 claims the lane: %v", err)
	}
	claim1 := game.Event{Kind: game.Claimed, Epoch: 1, Node: "n1"}
	if _, err := nodes[0].Append(ctx, "across", pos, claim1); !errors.Is(err, game.ErrConflict) {
		t.Fatalf("node 1 appends after the same event as node 2: %v, want game.ErrConflict", err)
	}

	// One node stops (the leader of the stream, perhaps): the others
	// elect another and go on, with every event.
	if err := nodes[0].Close(); err != nil {
		t.Fatal(err)
	}
	roll := game.Event{Kind: game.SeatTaken, Player: "PJS", Token: game.HashToken("t")}
	deadline := time.Now().Add(30 * time.Second)
	var pos3 uint64
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		pos3, err = nodes[1].Append(ctx, "across", pos2, roll)
		cancel()
		if err == nil || errors.Is(err, game.ErrConflict) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond) // between tries of the append while the stream elects a leader; bounded by deadline
	}
	if err != nil {
		t.Fatalf("with one node of three stopped, an append: %v", err)
	}
	for { // reads make a consumer: the cluster's meta leader may be electing too
		log, err = nodes[2].Read(ctx, "across", 0)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond) // between tries of the read; bounded by deadline
	}
	if err != nil || len(log.Events) != 3 || log.Last != pos3 {
		t.Fatalf("node 3 reads %d events to %d, %v; want 3 to %d", len(log.Events), log.Last, err, pos3)
	}
}

// TestClusterConfigRefused: settings that cannot make a cluster are
// refused before anything starts.
func TestClusterConfigRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  StoreConfig
		want error // if set, what the refusal wraps
	}{
		{"routes without a cluster address", StoreConfig{Dir: t.TempDir(), Routes: []string{"nats://127.0.0.1:6222"}}, nil},
		{"a cluster address and a URL", StoreConfig{URL: "nats://127.0.0.1:4222", Cluster: "127.0.0.1:6222"}, nil},
		{"replicas on one server", StoreConfig{Dir: t.TempDir(), Replicas: 3}, nil},
		{"a cluster address without a port", StoreConfig{Dir: t.TempDir(), Cluster: "127.0.0.1"}, nil},
		{"a route that is not nats://", StoreConfig{Dir: t.TempDir(), Cluster: "127.0.0.1:6222", Routes: []string{"127.0.0.1:6223"}}, nil},
		{"every interface without a secret", StoreConfig{Dir: t.TempDir(), Cluster: "0.0.0.0:0"}, ErrNoSecret},
		{"no host without a secret", StoreConfig{Dir: t.TempDir(), Cluster: ":0"}, ErrNoSecret},
		{"IPv6 any without a secret", StoreConfig{Dir: t.TempDir(), Cluster: "[::]:0"}, ErrNoSecret},
		{"a network address without a secret", StoreConfig{Dir: t.TempDir(), Cluster: "192.0.2.7:0"}, ErrNoSecret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := Open(t.Context(), tc.cfg)
			if err == nil {
				j.Close()
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
	openCluster(t, 2, func(i int, cfg *StoreConfig) {
		if i == 0 {
			cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		}
	})
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(logs.String(), "missing port"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server never tried its route to nowhere; it logged:\n%s", logs.String())
		}
	}
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
