package lobby

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby/peers"
)

// registry is the lanes a lobby keeps: those open here, by id and in the
// order they were created, the places held for those being created, the
// lanes restored before Run for it to start, those in the journal that
// failed to restore, and where the lanes that closed lately were listed.
//
// Its mutex is never held while talking to a lane: a lane's summary is
// read from what the lane last published, so listing thousands of lanes
// never waits on any of them.
type registry struct {
	max int // lanes open and being created at once (Config.MaxLanes)

	mu         sync.RWMutex
	lanes      map[string]*entry
	next       uint64              // creation order, for listing
	opening    int                 // lanes being created: places held in max
	toStart    []*lane.Lane        // lanes restored before Run, for it to start
	unrestored map[string]struct{} // lanes in the journal that failed to restore
	gone       closedLanes         // where lanes that closed were listed
}

type entry struct {
	lane  *lane.Lane
	n     uint64      // creation order
	owner string      // the client address that created it; "" for none
	claim peers.Claim // in a cluster, this node's claim on it
}

func newRegistry(max int) *registry {
	return &registry{
		max:        max,
		lanes:      make(map[string]*entry),
		unrestored: make(map[string]struct{}),
		gone:       newClosedLanes(maxClosedLanes),
	}
}

// reserve holds a place for a lane about to be created, unless the lanes
// open and being created fill max; open or unreserve gives it back.
func (r *registry) reserve() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.lanes)+r.opening >= r.max {
		return false
	}
	r.opening++
	return true
}

// unreserve gives back a place reserve held, for a lane not created.
func (r *registry) unreserve() {
	r.mu.Lock()
	r.opening--
	r.mu.Unlock()
}

// open puts lane l, created from owner with claim cl, in the place
// reserve held for it; if its id is taken, it gives the place back and
// fails.
func (r *registry) open(l *lane.Lane, owner string, cl peers.Claim) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opening--
	if r.lanes[l.ID()] != nil {
		return fmt.Errorf("lobby: lane id %s drawn twice", l.ID()) // 32^10 ids: never in practice
	}
	r.add(l, owner, cl)
	return nil
}

// add puts a lane taken over in the registry, with its claim. r.mu is
// held by open.
func (r *registry) add(l *lane.Lane, owner string, cl peers.Claim) {
	r.next++
	r.lanes[l.ID()] = &entry{lane: l, n: r.next, owner: owner, claim: cl}
}

// takenOver puts lane l, taken over by this node with claim cl, in the
// registry.
func (r *registry) takenOver(l *lane.Lane, cl peers.Claim) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.add(l, "", cl)
}

// restored records what restoring lane id from the journal came to: l,
// for Run to start, or nil if there is nothing to start (it closed);
// failed if it could not be restored (compactions wait for it).
func (r *registry) restored(id string, l *lane.Lane, failed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if failed {
		r.unrestored[id] = struct{}{}
		return
	}
	delete(r.unrestored, id)
	if l != nil {
		r.add(l, "", nil)
		r.toStart = append(r.toStart, l)
	}
}

// failed returns the lanes in the journal that failed to restore.
func (r *registry) failed() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Collect(maps.Keys(r.unrestored))
}

// startAll returns the lanes restored for Run to start, and forgets them.
func (r *registry) startAll() []*lane.Lane {
	r.mu.Lock()
	defer r.mu.Unlock()
	ls := r.toStart
	r.toStart = nil
	return ls
}

// start returns the restored lane id, and forgets it among those Run is
// to start.
func (r *registry) start(id string) *lane.Lane {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.lanes[id]
	r.toStart = slices.DeleteFunc(r.toStart, func(l *lane.Lane) bool { return l == e.lane })
	return e.lane
}

// get returns the lane with the given id.
func (r *registry) get(id string) (*lane.Lane, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.lanes[id]
	if !ok {
		return nil, false
	}
	return e.lane, true
}

// owner returns the client address that created lane id, "" for none.
func (r *registry) owner(id string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e, ok := r.lanes[id]; ok {
		return e.owner
	}
	return ""
}

// len returns the number of open lanes.
func (r *registry) len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.lanes)
}

// all returns the open lanes.
func (r *registry) all() []*lane.Lane {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*lane.Lane, 0, len(r.lanes))
	for _, e := range r.lanes {
		out = append(out, e.lane)
	}
	return out
}

// listed returns the entries of the open lanes that are listed (not
// private), in no order.
func (r *registry) listed() []*entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*entry, 0, len(r.lanes))
	for _, e := range r.lanes {
		if !e.lane.Private() {
			out = append(out, e)
		}
	}
	return out
}

// position returns the creation order of lane id, open or closed lately.
func (r *registry) position(id string) (uint64, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e, ok := r.lanes[id]; ok {
		return e.n, true
	}
	n, ok := r.gone.at[id]
	return n, ok
}

// remove forgets lane id, which closed, and lets go of its claim (under
// the lock: whoever looks for it finds the lane or its claim let go);
// its place in the list is remembered. It returns the address that
// created it ("" for none), and false if it was not there.
func (r *registry) remove(id string) (owner string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.lanes[id]
	if !ok {
		return "", false
	}
	delete(r.lanes, id)
	if e.claim != nil {
		e.claim.Release()
	}
	r.gone.add(id, e.n)
	return e.owner, true
}
