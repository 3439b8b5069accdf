package natspeers

import (
	"testing"
	"time"
)

// ReportCPU starts counting the process's CPU time, the client's and
// the embedded servers' together; the function it returns reports it as
// cpu-ns/op. For the benchmarks of package nats_test.
func ReportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if used := cpuTime() - start; used > 0 && b.N > 0 {
			b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}

// Unframe reads a message to a connection of another node, and the
// kinds it may be: for tests that watch what crosses between nodes.
var Unframe = unframe

const (
	KindBoard = kindBoard
	KindReply = kindReply
	KindClose = kindClose
)

// LoseBoards has this node's relay of lane id miss every board the lane
// publishes from now on, as if each were lost on its way: core NATS
// delivers at most once.
func (c *Cluster) LoseBoards(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	rl := c.relays[id]
	if rl == nil {
		return false
	}
	rl.boards.Unsubscribe()
	return true
}

// MuteLists has this node answer no other node's list of lanes until
// the returned function is called: as a node that died, or is too busy
// to answer in time.
func (c *Cluster) MuteLists(t testing.TB) (unmute func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, sub := range c.subs {
		if sub.Subject != subjLanes+"*" {
			continue
		}
		if err := sub.Unsubscribe(); err != nil {
			t.Fatal(err)
		}
		return func() {
			s, err := c.nc.Subscribe(subjLanes+"*", c.listLanes)
			if err != nil {
				t.Fatal(err)
			}
			c.mu.Lock()
			c.subs[i] = s
			c.mu.Unlock()
		}
	}
	t.Fatal("no subscription to lists of lanes")
	return nil
}

// Listed returns the ids of the lanes the node lists for the other nodes
// from their last answers, without asking them.
func (c *Cluster) Listed() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ids []string
	for _, l := range c.listed {
		for _, sum := range l.lanes {
			ids = append(ids, sum.ID)
		}
	}
	return ids
}

// ListEvery is how often a node asks the others for their lanes.
const ListEvery = listEvery

// PostponeAlive has this node's relay of lane id tell the lane's node
// its connections (alive) no more for an hour: no answer, or no node,
// to find the lane gone by.
func (c *Cluster) PostponeAlive(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	rl := c.relays[id]
	if rl == nil {
		return false
	}
	rl.aliveAt = time.Now().Add(time.Hour)
	return true
}

// CountPause counts a pause of this node, as checkPaused does when its
// heartbeats stopped for too long, without waking its lanes: each finds
// it at its next message, or when the test wakes them, and is unsure of
// its log until then (see lane.Lane.Unsure).
func (c *Cluster) CountPause() { c.wakes.Add(1) }
