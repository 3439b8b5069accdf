package natspeers

import (
	"fmt"
	"slices"
	"time"
)

// memberState is where another node stands in this node's view of the
// cluster. A node heard of is in exactly one state; the transitions are
// the methods of members.
type memberState int

const (
	// heard: its heartbeat came, or it answered a ping, or this node has
	// just met it (an attach, a relay) and gives it a node timeout for
	// its first heartbeat. Alive while that was within the node timeout.
	heard memberState = iota
	// asking: silent for the node timeout, and being pinged: on saturated
	// cores heartbeats come late, and taking a slow node for dead closes
	// its relays and detaches its clients, which reconnect and load the
	// cores more. Alive until the ping is answered or not.
	asking
	// unanswered: silent, and the ping failed (no responders, or no
	// answer in a request's time): dead at the next sweep, unless heard
	// first.
	unanswered
	// dead: taken for dead; its relays were closed, its clients detached
	// from this node's lanes, and its lanes adopted. Heard again, it is
	// back: the network between the two was cut, not the node.
	dead
)

var memberStates = [...]string{heard: "heard", asking: "asking", unanswered: "unanswered", dead: "dead"}

func (s memberState) String() string {
	if s < 0 || int(s) >= len(memberStates) {
		return fmt.Sprintf("memberState(%d)", int(s))
	}
	return memberStates[s]
}

// member is one node as this node knows it.
type member struct {
	state memberState
	seen  time.Time // its last heartbeat or answer, or when it was met or excused
	urls  []string  // where clients open it, as its heartbeats say
}

// forgetAfter is how many node timeouts a node not taken for dead (met,
// say, and never heard) is kept after it was last heard: a node that long
// silent is forgotten, and neither asked nor taken for dead.
const forgetAfter = 10

// maxDead is how many dead nodes are kept, so that one heard again is
// known to be back (its lanes and this node's then read their logs back:
// see Cluster.heartbeat), however long it was away: a cut network may
// heal after hours. Past it the dead silent longest are forgotten (one
// heard again is new: the store's fence still keeps either side from
// writing after the other's claim). Without a bound, a cluster whose
// nodes take a new name each start (a pod's) would keep one entry for
// every death.
const maxDead = 256

// members is this node's view of the other nodes: one member a node, each
// in one state (see memberState), moved by the methods below alone.
// Cluster.mu guards it.
type members struct {
	self    string        // this node, always alive
	timeout time.Duration // silent that long, a node is asked, then dead
	nodes   map[string]*member
}

func newMembers(self string, timeout time.Duration) members {
	return members{self: self, timeout: timeout, nodes: make(map[string]*member)}
}

// heard records a heartbeat of node at now, and where clients open it.
// It reports whether the node was dead: it is back.
func (ms members) heard(node string, urls []string, now time.Time) (back bool) {
	m := ms.nodes[node]
	if m == nil {
		m = new(member)
		ms.nodes[node] = m
	}
	back = m.state == dead
	m.state, m.seen, m.urls = heard, now, urls
	return back
}

// met records that node reached this one (an attach, a relay) before
// this node heard its heartbeat, so that it is not swept before its
// first. A node known already is left as it is.
func (ms members) met(node string, now time.Time) {
	if ms.nodes[node] == nil {
		ms.nodes[node] = &member{state: heard, seen: now}
	}
}

// alive reports whether node is alive at now: this node, a node heard of
// within the node timeout, or one being asked.
func (ms members) alive(node string, now time.Time) bool {
	if node == ms.self {
		return true
	}
	m := ms.nodes[node]
	return m != nil && (now.Sub(m.seen) < ms.timeout || m.state == asking)
}

// others returns the nodes other than this one alive at now, in no
// order.
func (ms members) others(now time.Time) []string {
	var out []string
	for node := range ms.nodes {
		if node != ms.self && ms.alive(node, now) {
			out = append(out, node)
		}
	}
	return out
}

// urls returns where clients open node, as its heartbeats say.
func (ms members) urls(node string) []string {
	if m := ms.nodes[node]; m != nil {
		return m.urls
	}
	return nil
}

// toAsk moves the nodes heard of that have fallen silent at now to
// asking, and returns them: the caller pings each, and reports with
// answered.
func (ms members) toAsk(now time.Time) []string {
	var out []string
	for node, m := range ms.nodes {
		silent := now.Sub(m.seen)
		if node != ms.self && m.state == heard && silent >= ms.timeout && silent < forgetAfter*ms.timeout {
			m.state = asking
			out = append(out, node)
		}
	}
	return out
}

// answered records the outcome of a ping of node: answered (ok), or not,
// or asked before a pause of this node's (excused: see excuse), whose
// silence tells nothing. A node heard meanwhile, or forgotten, is left
// as it is.
func (ms members) answered(node string, ok, excused bool, now time.Time) {
	m := ms.nodes[node]
	if m == nil || m.state != asking {
		return
	}
	switch {
	case ok:
		m.state, m.seen = heard, now
	case excused:
		m.state = heard
	default:
		m.state = unanswered
	}
}

// excuse gives every node not dead a node timeout from now to be heard
// again, after a pause of this node's: their silence was this node's.
// A ping in flight stays so; its answer is excused (see answered).
func (ms members) excuse(now time.Time) {
	for _, m := range ms.nodes {
		if m.state == dead {
			continue
		}
		m.seen = now
		if m.state == unanswered {
			m.state = heard
		}
	}
}

// sweep takes for dead the nodes no longer alive at now, and returns
// them; it forgets those silent for forgetAfter node timeouts that are
// not dead, and the dead silent longest past maxDead.
func (ms members) sweep(now time.Time) (died []string) {
	ndead := 0
	for node, m := range ms.nodes {
		switch {
		case m.state == dead:
			ndead++
		case now.Sub(m.seen) > forgetAfter*ms.timeout:
			delete(ms.nodes, node)
		case !ms.alive(node, now):
			m.state = dead
			died = append(died, node)
			ndead++
		}
	}
	if ndead > maxDead {
		ms.forgetDead(ndead - maxDead)
	}
	return died
}

// forgetDead forgets the n dead nodes silent longest.
func (ms members) forgetDead(n int) {
	var gone []string
	for node, m := range ms.nodes {
		if m.state == dead {
			gone = append(gone, node)
		}
	}
	slices.SortFunc(gone, func(a, b string) int { return ms.nodes[a].seen.Compare(ms.nodes[b].seen) })
	for _, node := range gone[:n] {
		delete(ms.nodes, node)
	}
}

// state returns node's state, and whether this node knows it.
func (ms members) state(node string) (memberState, bool) {
	if m := ms.nodes[node]; m != nil {
		return m.state, true
	}
	return 0, false
}
