package natspeers

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby/natsconn"
)

// TestAWokenNodeTakesNobodyForDead: a node that finds it was paused
// heard nobody meanwhile, and its routes may be broken for a moment (its
// pings then go unanswered at once): it gives the nodes it knew a node
// timeout from its waking to be heard, rather than take them all for
// dead and close its relays of their lanes. A node still silent after
// that is dead. The node n3 here never answers: it stands for one whose
// routes the pause broke, and then for one that did die.
func TestAWokenNodeTakesNobodyForDead(t *testing.T) {
	j, err := natsconn.Open(t.Context(), natsconn.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	cfg := Config{Conn: j.NATS(), Node: "n2", Heartbeat: 100 * time.Millisecond, NodeTimeout: time.Second}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.runByHand(t)
	// The node's last heartbeat and n3's were 5 s ago: since then the
	// node was paused.
	start := time.Now().Add(-5 * time.Second)
	c.mu.Lock()
	c.members.nodes["n3"] = &member{seen: start}
	c.mu.Unlock()
	c.lastBeat.Store(start.UnixNano())

	// Lanes find the pause before the heartbeat loop does: each pause
	// counts once, however many ask.
	for range 3 {
		if w := c.Wakes(); w != 1 {
			t.Fatalf("Wakes = %d after one pause, want 1", w)
		}
	}
	woke := time.Now()
	c.beat(woke) // the loop's first heartbeat after the pause
	c.settle(t)
	c.beat(woke.Add(cfg.Heartbeat))
	if c.isDead("n3") {
		t.Fatal("the woken node took n3 for dead at once")
	}
	if w := c.Wakes(); w != 1 {
		t.Errorf("Wakes = %d after one pause and the heartbeats after it, want 1", w)
	}

	later := woke.Add(cfg.NodeTimeout + cfg.Heartbeat)
	c.beat(later) // n3 is asked now, and does not answer
	c.settle(t)
	c.beat(later.Add(cfg.Heartbeat))
	if !c.isDead("n3") {
		t.Error("n3, silent a node timeout after the other woke, is not taken for dead")
	}
}

// TestAPingAcrossAPauseIsNotHeld: a node pinged a silent one, then was
// paused before the answer could come: the ping's failure says nothing of
// the other, whose silence the pause excused. The other is pinged again
// once silent for a node timeout after the waking, and is alive if it
// answers then. Here n4 answers every ping but the first.
func TestAPingAcrossAPauseIsNotHeld(t *testing.T) {
	j, err := natsconn.Open(t.Context(), natsconn.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	cfg := Config{Conn: j.NATS(), Node: "n2", Heartbeat: 100 * time.Millisecond, NodeTimeout: time.Second, RequestTimeout: 300 * time.Millisecond}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.runByHand(t)
	var pings atomic.Int32
	held := make(chan struct{})
	sub, err := j.NATS().Subscribe(subjPing+"n4", func(m *nats.Msg) {
		if pings.Add(1) == 1 {
			close(held) // the first goes unanswered
			return
		}
		m.Respond(nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Unsubscribe() })

	now := time.Now()
	c.mu.Lock()
	c.members.nodes["n4"] = &member{seen: now.Add(-cfg.NodeTimeout)} // silent: asked at the next heartbeat
	c.mu.Unlock()
	c.lastBeat.Store(now.UnixNano())
	c.beat(now.Add(cfg.Heartbeat))
	<-held
	// Then the node is paused, and a lane finds it woken.
	c.lastBeat.Store(now.Add(-5 * time.Second).UnixNano())
	c.Wakes()
	c.settle(t) // the first ping fails
	woke := time.Now()
	c.beat(woke)
	later := woke.Add(cfg.NodeTimeout + cfg.Heartbeat)
	c.beat(later) // n4 is asked again, and answers
	c.settle(t)
	c.beat(later.Add(cfg.Heartbeat))
	if c.isDead("n4") {
		t.Errorf("n4, which answered the ping after the pause, is taken for dead (pinged %d times)", pings.Load())
	}
}

// settle waits for the node's pings of silent nodes to be answered, or
// not.
func (c *Cluster) settle(t *testing.T) {
	t.Helper()
	polltest.Until(t, 10*time.Second, "every ping of a silent node to be answered or fail", func() (any, bool) {
		c.mu.Lock()
		defer c.mu.Unlock()
		var asked []string
		for name, m := range c.members.nodes {
			if m.state == asking {
				asked = append(asked, name)
			}
		}
		return fmt.Sprint("still asking ", asked), len(asked) == 0
	})
}

func (c *Cluster) isDead(node string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, _ := c.members.state(node)
	return s == dead
}

// runByHand has c take goroutines as Run does, for a test that beats by
// hand rather than run the heartbeat loop: when the test ends, c leaves
// the cluster and they are waited for, as Run would.
func (c *Cluster) runByHand(t *testing.T) {
	r := newRunning(t.Context(), nil)
	c.running.Store(r)
	t.Cleanup(func() {
		c.close()
		r.wait()
	})
}
