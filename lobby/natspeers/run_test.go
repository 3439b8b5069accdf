package natspeers

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/polltest"

	"github.com/tenpin/tenpin/lobby/natsconn"
)

// stuckLanes are lanes whose every call holds on until its context ends,
// and a moment after, as lanes on their way out do: a goroutine that Run
// did not wait for is still in one when Run returns.
type stuckLanes struct {
	in      sync.Map     // the calls entered, by name
	running atomic.Int32 // calls not returned
}

func (l *stuckLanes) hold(ctx context.Context, call string) {
	l.running.Add(1)
	defer l.running.Add(-1)
	l.in.Store(call, true)
	<-ctx.Done()
	time.Sleep(20 * time.Millisecond) // the way out: long enough to be caught in
}

func (l *stuckLanes) Adopt(ctx context.Context) (int, error) {
	l.hold(ctx, "adopt")
	return 0, ctx.Err()
}

func (l *stuckLanes) Wake(ctx context.Context) { l.hold(ctx, "wake") }

func (l *stuckLanes) TakeOver(ctx context.Context, id string) (*lane.Lane, error) {
	l.hold(ctx, "take over")
	return nil, ctx.Err()
}

func (l *stuckLanes) SnapshotLanes(ctx context.Context) ([]string, uint64, error) {
	l.hold(ctx, "snapshot")
	return nil, 0, ctx.Err()
}

// TestRunLeavesNoGoroutine: Run returns only once every goroutine the
// cluster started has ended: those that adopt, verify and snapshot the
// node's lanes, caught in them as Run's context ends, the ping of a
// silent node that never answers, and the relays' board handlers; and
// the goroutines are as many as before the cluster was made.
func TestRunLeavesNoGoroutine(t *testing.T) {
	conn, err := natsconn.Open(t.Context(), natsconn.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	nc := conn.NATS()
	// n3 is heard once, then silent; a ping reaches it and is never
	// answered.
	pinged := make(chan struct{})
	var once sync.Once
	sub, err := nc.Subscribe(subjPing+"n3", func(*nats.Msg) { once.Do(func() { close(pinged) }) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Unsubscribe() })
	// The connection's first request starts the subscription that takes
	// every answer, for as long as the connection: start it before the
	// count.
	if _, err := nc.Request("natspeers.test.nobody", nil, time.Second); err == nil {
		t.Fatal("a request nobody answers was answered")
	}
	before := settledGoroutines()

	c, err := New(Config{Conn: nc, Node: "n1", Heartbeat: 20 * time.Millisecond, NodeTimeout: 100 * time.Millisecond, RequestTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	lanes := new(stuckLanes)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- c.Run(ctx, lanes) }()

	nc.Publish(subjNode+"n3", []byte(`{"name":"n3"}`))
	deadline := time.After(10 * time.Second)
	select {
	case <-pinged:
	case <-deadline:
		t.Fatal("the silent node was not pinged in 10 s")
	}
	// Another node's compaction asks this one, running now, for its
	// snapshots.
	if err := nc.PublishRequest(subjSnap+"n9", nc.NewRespInbox(), nil); err != nil {
		t.Fatal(err)
	}
	// A pause of this node's, found by a lane asking Wakes: its lanes
	// wake. (The heartbeat loop may note its beat between the two:
	// try again.)
	for c.Wakes() == 0 {
		c.lastBeat.Store(time.Now().Add(-time.Hour).UnixNano())
	}
	polltest.Until(t, 10*time.Second, "the cluster to adopt, wake and snapshot its lanes", func() (any, bool) {
		var called []string
		lanes.in.Range(func(call, _ any) bool {
			called = append(called, call.(string))
			return true
		})
		all := true
		for _, want := range []string{"adopt", "wake", "snapshot"} {
			all = all && slices.Contains(called, want)
		}
		return fmt.Sprint("called ", called), all
	})

	cancel()
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return in 10 s of its context's end")
	}
	if n := lanes.running.Load(); n != 0 {
		t.Errorf("Run returned while %d calls to its lanes still ran", n)
	}
	// The NATS client's goroutines of the connection may take a moment
	// to settle: wait for the count to come back down rather than read
	// it once. The ping of n3, which waits a minute for its answer unless
	// Run ends it, would keep it up. (No other test's nodes run beside
	// this one: the tests that form clusters are parallel, and run only
	// once this one has ended.)
	polltest.Until(t, 5*time.Second, fmt.Sprintf("the goroutines to come back to the %d before the cluster was made", before), func() (any, bool) {
		after := settledGoroutines()
		return fmt.Sprint(after, " goroutines"), after <= before
	})
}

// flakyLanes are lanes whose Adopt fails until it was called fail times,
// as when the store's stream is electing a leader.
type flakyLanes struct {
	stuckLanes
	fail    int32
	adopted atomic.Int32 // calls to Adopt
}

func (l *flakyLanes) Adopt(ctx context.Context) (int, error) {
	if l.adopted.Add(1) <= l.fail {
		return 0, fmt.Errorf("natsstore: read every lane of stream TENPIN_LANES: stream info: %w", context.DeadlineExceeded)
	}
	return 1, nil
}

// TestAdoptTriesAgain: a node whose store could not say which lanes to
// adopt tries again until it can, rather than leave a dead node's unused
// lanes unrun (and unlisted) until a client comes for them. (The CI saw
// "lanes not adopted" once a node was killed: its stream was electing a
// leader.)
func TestAdoptTriesAgain(t *testing.T) {
	conn, err := natsconn.Open(t.Context(), natsconn.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c, err := New(Config{Conn: conn.NATS(), Node: "n1", Heartbeat: 20 * time.Millisecond, NodeTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	lanes := &flakyLanes{fail: 2}
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() { ran <- c.Run(ctx, lanes) }()
	defer func() {
		cancel()
		<-ran
	}()
	polltest.Until(t, 10*time.Second, "the node's lanes adopted after two failures", func() (any, bool) {
		n := lanes.adopted.Load()
		return fmt.Sprint(n, " calls to Adopt"), n >= 3
	})
	// Adopted, it stops asking.
	n := lanes.adopted.Load()
	time.Sleep(10 * c.cfg.NodeTimeout)
	if again := lanes.adopted.Load(); again != n {
		t.Errorf("Adopt called %d times once it succeeded, want none", again-n)
	}
}
