package natspeers

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lane/relay"
	"github.com/tenpin/tenpin/lobby/natsconn"
)

// TestRelaysShareTheirGoroutines: a node relaying many lanes hands each
// its boards, without a goroutine parked for each (the client's async
// subscriptions keep one each: a thousand relays, a thousand stacks).
func TestRelaysShareTheirGoroutines(t *testing.T) {
	const lanes = 64
	j, err := natsconn.Open(t.Context(), natsconn.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	cfg := Config{Conn: j.NATS(), Heartbeat: 100 * time.Millisecond, NodeTimeout: time.Second}
	cfg.Node = "n1"
	n1, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Node = "n2"
	n2, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	wg.Go(func() { n1.Run(ctx, nil) })
	wg.Go(func() { n2.Run(ctx, nil) })

	ids := make([]string, lanes)
	for i := range ids {
		ids[i] = fmt.Sprintf("lane%d", i)
		cl, err := n1.Claim(ids[i])
		if err != nil {
			t.Fatal(err)
		}
		l := lane.New(ids[i], ids[i], lane.Config{})
		cl.Bind(l)
		wg.Go(func() { l.Run(ctx) })
	}
	before := settledGoroutines()
	relays := make([]*relay.Relay, lanes)
	for i, id := range ids {
		if relays[i], err = n2.Relay(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	// Every relay is handed its lane's boards, as the lane's node
	// publishes them for its relays' connections (the relays here have
	// none, so their lanes would publish nothing).
	for i, id := range ids {
		n1.nc.Publish(subjBoard+id+"."+strconv.Itoa(10+i), []byte(`{"type":"board"}`))
	}
	polltest.Until(t, 10*time.Second, "every relay to be handed its lane's board", func() (any, bool) {
		for i, r := range relays {
			if r.Seq() != uint64(10+i) {
				return fmt.Sprintf("relay of %s: newest board %d, want %d", ids[i], r.Seq(), 10+i), false
			}
		}
		return nil, true
	})
	if more := settledGoroutines() - before; more >= lanes/2 {
		t.Errorf("%d relays added %d goroutines", lanes, more)
	}
}

// settledGoroutines returns how many goroutines there are once those
// that were ending have ended: once two counts a poll apart agree, or
// the newest count after 200 ms of goroutines coming and going.
func settledGoroutines() int {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	n := -1
	polltest.Wait(ctx, "the count of goroutines to settle", func() (any, bool) {
		m := runtime.NumGoroutine()
		settled := m == n
		n = m
		return n, settled
	}) // unsettled, the newest count is what there is
	return n
}
