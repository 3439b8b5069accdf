package natscluster

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tenpin/tenpin/lane"

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
	if _, err := nc.Request("natscluster.test.nobody", nil, time.Second); err == nil {
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
	for _, call := range []string{"adopt", "wake", "snapshot"} {
		for {
			if _, ok := lanes.in.Load(call); ok {
				break
			}
			select {
			case <-deadline:
				t.Fatalf("the cluster did not call %s in 10 s", call)
			case <-time.After(10 * time.Millisecond): // polling lanes.in; bounded by deadline
			}
		}
	}

	cancel()
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return in 10 s of its context's end")
	}
	if n := lanes.running.Load(); n != 0 {
		t.Errorf("Run returned while %d calls to its lanes still ran", n)
	}
	// The other tests' nodes run beside this one, and their goroutines
	// come and go: wait for the count to come back down rather than read
	// it once. The ping of n3, which waits a minute for its answer unless
	// Run ends it, would keep it up.
	for end := time.Now().Add(5 * time.Second); ; {
		after := settledGoroutines()
		if after <= before {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("%d goroutines 5 s after Run returned, %d before the cluster was made", after, before)
		}
	}
}
