package nats

import (
	"testing"
	"time"
)

// TestAWokenNodeTakesNobodyForDead: a node that finds it was paused
// heard nobody meanwhile, and its routes may be broken for a moment (its
// pings then go unanswered at once): it gives the nodes it knew a node
// timeout from its waking to be heard, rather than take them all for
// dead and close its relays of their lanes. A node still silent after
// that is dead. The node n3 here never answers: it stands for one whose
// routes the pause broke, and then for one that did die.
func TestAWokenNodeTakesNobodyForDead(t *testing.T) {
	j, err := Open(t.Context(), StoreConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	cfg := ClusterConfig{Conn: j.Conn(), Node: "n2", Heartbeat: 100 * time.Millisecond, NodeTimeout: time.Second}
	c, err := NewCluster(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	start := time.Now()
	c.mu.Lock()
	c.seen["n3"] = start // its last heartbeat before the pause
	c.mu.Unlock()

	woke := start.Add(5 * time.Second)
	c.beat(woke, 5*time.Second) // the first heartbeat after the pause
	c.settle(t)
	c.beat(woke.Add(cfg.Heartbeat), cfg.Heartbeat)
	if c.isDead("n3") {
		t.Fatal("the woken node took n3 for dead at once")
	}
	if c.Wakes() == 0 {
		t.Error("the woken node counted no pause")
	}

	later := woke.Add(cfg.NodeTimeout + cfg.Heartbeat)
	c.beat(later, cfg.Heartbeat) // n3 is asked now, and does not answer
	c.settle(t)
	c.beat(later.Add(cfg.Heartbeat), cfg.Heartbeat)
	if !c.isDead("n3") {
		t.Error("n3, silent a node timeout after the other woke, is not taken for dead")
	}
}

// settle waits for the node's pings of silent nodes to be answered, or
// not.
func (c *Cluster) settle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		n := len(c.asking)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("pings still unanswered after 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (c *Cluster) isDead(node string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead[node]
}
