package lobby

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/tenpin/tenpin/protocol"
)

// maxClosedLanes is how many closed lanes the lobby remembers the place
// of in its list, so that a client paging through it with one of them as
// its cursor (the lane closed between two pages) goes on where it was.
const maxClosedLanes = 10_000

// Listed is a lane as the lobby's list shows it: its summary, and its
// place in the list's order (see [Lobby.Listed]).
type Listed struct {
	Order   uint64
	Summary protocol.LaneSummary
}

// Listed returns the open lanes the lobby lists (not the private ones), in
// the list's order: their creation's on one node, their ids' in a
// cluster. Building it reads every lane's summary (and, in a cluster,
// asks the other nodes): a caller that serves it often keeps it, and
// builds it anew when [Lobby.ListVersion] changes.
func (lb *Lobby) Listed() []Listed { return lb.listed() }

// ListVersion changes whenever a lane opens or closes: a list built
// before it changed lacks that lane, or shows it still.
func (lb *Lobby) ListVersion() uint64 { return lb.listVersion.Load() }

// Position returns the place in the list's order of lane id, open or
// closed lately: a page of the list that starts after it starts there.
func (lb *Lobby) Position(id string) (uint64, bool) {
	if lb.cfg.Cluster != nil {
		return idOrder(id)
	}
	return lb.lanes.position(id)
}

// listed returns the summaries of the open lanes that are listed (not
// private: see lane.Lane.Private), oldest first.
func (lb *Lobby) listed() []Listed {
	lanes := lb.lanes.listed()
	if lb.cfg.Cluster != nil {
		return lb.listedInCluster(lanes)
	}
	out := make([]Listed, 0, len(lanes))
	slices.SortFunc(lanes, func(a, b *entry) int { return cmp.Compare(a.n, b.n) })
	for _, e := range lanes {
		out = append(out, Listed{Order: e.n, Summary: e.lane.Summary()})
	}
	return out
}

// clusterListTimeout bounds asking the other nodes of a cluster for their
// lanes: a node that does not answer in time is left out of the list.
const clusterListTimeout = 500 * time.Millisecond

// listedInCluster returns the listed lanes of every node, this one's
// among them, in the order of their ids: no node knows the order in which
// the others' lanes were created, and an id's place never changes, so
// that a page's cursor is good on every node and after its lane closed.
func (lb *Lobby) listedInCluster(local []*entry) []Listed {
	ctx, cancel := context.WithTimeout(context.Background(), clusterListTimeout)
	defer cancel()
	remote, err := lb.cfg.Cluster.Lanes(ctx)
	if err != nil {
		lb.log.Warn("the other nodes' lanes are not listed", "err", err)
	}
	out := make([]Listed, 0, len(local)+len(remote))
	seen := make(map[string]bool, len(local))
	for _, e := range local {
		n, _ := idOrder(e.lane.ID())
		out = append(out, Listed{Order: n, Summary: e.lane.Summary()})
		seen[e.lane.ID()] = true
	}
	for _, sum := range remote {
		if n, ok := idOrder(sum.ID); ok && !seen[sum.ID] { // a lane moving between nodes may be listed by two
			out = append(out, Listed{Order: n, Summary: sum})
			seen[sum.ID] = true
		}
	}
	slices.SortFunc(out, func(a, b Listed) int { return cmp.Compare(a.Order, b.Order) })
	return out
}

// idOrder returns a lane id's place in the order of ids: the number its
// characters spell in the alphabet of ids (see newID), plus one.
func idOrder(id string) (uint64, bool) {
	if len(id) != idLen {
		return 0, false
	}
	var n uint64
	for i := range len(id) {
		d := strings.IndexByte(idAlphabet, id[i])
		if d < 0 {
			return 0, false
		}
		n = n*uint64(len(idAlphabet)) + uint64(d)
	}
	return n + 1, true
}

// listChanged tells the list's readers that a lane was created or
// closed (see ListVersion).
func (lb *Lobby) listChanged() { lb.listVersion.Add(1) }

// closedLanes remembers the creation order of the last lanes that closed,
// up to a bound, the oldest forgotten first.
type closedLanes struct {
	at    map[string]uint64
	order []string // a ring of the ids in at, up to size
	next  int      // where the next id goes in order, once it is full
	size  int
}

func newClosedLanes(size int) closedLanes {
	return closedLanes{at: make(map[string]uint64), size: size}
}

func (c *closedLanes) add(id string, n uint64) {
	if len(c.order) < c.size {
		c.order = append(c.order, id)
	} else {
		delete(c.at, c.order[c.next])
		c.order[c.next] = id
		c.next = (c.next + 1) % len(c.order)
	}
	c.at[id] = n
}
