package natsstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/game/journaltest"
	"github.com/tenpin/tenpin/lobby/natsconn"
)

// openCluster opens n journals whose embedded servers form one cluster
// over loopback. Each listens on a port the OS picks, and routes to the
// servers opened before it; each waits for the others to take the
// replicated stream, so the next opens as soon as the one before listens.
// Each of set, if any, adjusts every node's settings.
func openCluster(t *testing.T, n int, set ...func(i int, cfg *natsconn.Config)) []*opened {
	t.Helper()
	dir := t.TempDir()
	journals := make([]*opened, n)
	errs := make([]error, n)
	var routes []string
	var wg sync.WaitGroup
	for i := range n {
		listening := make(chan string, 1)
		cfg := natsconn.Config{
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
			journals[i], errs[i] = openOn(t.Context(), cfg, Config{})
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
