package lobby

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/game"
)

// compaction is what the journal's compactions keep between rounds: one
// round runs at a time; each drops what the one before it replaced (its
// mark); a lobby whose lanes stored nothing since the last round skips
// the next; and a round sees every lane whose opening it may drop, the
// creations in flight included.
type compaction struct {
	mu     sync.Mutex   // held by the round running
	before uint64       // guarded by mu: what the next round may drop
	quiet  atomic.Int64 // appends counted when the last round ended

	// creating is read-held by every lane creation from before it stores
	// the lane's opening until the lane is in the registry: a round takes
	// it to see every lane whose opening it may drop.
	creating sync.RWMutex
}

// round waits for the round running, if any, and returns the function
// that ends this one.
func (c *compaction) round() (end func()) {
	c.mu.Lock()
	return c.mu.Unlock
}

// advance sets the mark of what the next round may drop to next, and
// returns what this one may: the mark the last round set, 0 if none did
// (the first round of this process drops nothing, as what it would drop
// was not yet replaced a whole round ago). Called during a round.
func (c *compaction) advance(next uint64) (before uint64) {
	before, c.before = c.before, next
	return before
}

// ended records the appends counted when a round ended.
func (c *compaction) ended(appends int64) { c.quiet.Store(appends) }

// idle reports whether appends are as many as when the last round ended:
// nothing was stored since but that round's own snapshots.
func (c *compaction) idle(appends int64) bool { return appends == c.quiet.Load() }

// creation marks a lane creation in flight, until the function it
// returns is called.
func (c *compaction) creation() (done func()) {
	c.creating.RLock()
	return c.creating.RUnlock
}

// seeCreations calls f once no creation is in flight, and none starts
// until it returns.
func (c *compaction) seeCreations(f func()) {
	c.creating.Lock()
	defer c.creating.Unlock()
	f()
}

// Compact bounds the journal: every open lane stores a snapshot of itself,
// then every event stored before the snapshots of the previous compaction
// is dropped — the earlier events of open lanes, which their snapshots
// replace, and the logs of lanes that closed. Dropping one round behind
// means that what is dropped was replaced by snapshots a whole round old,
// long since synced to disk: a power failure right after a compaction
// cannot take a lane's snapshot with it and leave its log dropped. A
// restart then replays a snapshot a lane and what came after it.
//
// A lane that cannot store its snapshot does not hold the others back:
// the next round drops nothing it still needs (what came after its last
// snapshot, or all of it if it never stored one), and the rest as usual;
// the round reports it. If a lane in the journal could not be restored
// (it is tried again first), nothing is dropped.
//
// In a cluster the journal is every node's: see compactCluster.
func (lb *Lobby) Compact(ctx context.Context) error {
	if lb.cfg.Cluster != nil {
		orphan, err := lb.compactCluster(ctx)
		if orphan != "" {
			lb.adoptOrphan(ctx, orphan)
		}
		return err
	}
	defer lb.compaction.round()()
	if err := lb.restoreAgain(ctx); err != nil {
		return err
	}
	j := lb.cfg.Lane.Journal
	last, err := j.Last(ctx)
	if err != nil || last == 0 {
		return err
	}
	// Every lane whose opening is at or before last is in lanes once the
	// creations in flight have finished.
	lanes := lb.openLanes()
	start := time.Now()
	// next is what the next round may drop: everything before this one's
	// snapshots, but not what a lane that failed to store one still needs.
	next := last + 1
	var failed []error
	for _, l := range lanes {
		// A lane that stopped has closed (or the server is stopping, and
		// then ctx has ended): its log may go.
		err := l.Snapshot(ctx)
		switch {
		case err == nil, errors.Is(err, lane.ErrStopped):
		case ctx.Err() != nil:
			return ctx.Err()
		default:
			failed = append(failed, fmt.Errorf("lane %s: %w", l.ID(), err))
			next = min(next, max(l.Keep(), 1)) // its last snapshot, or all of its log
		}
	}
	lb.compaction.ended(lb.cfg.Lane.Metrics.Appends.Load())
	before := lb.compaction.advance(next)
	var notSnapped error
	if len(failed) > 0 {
		notSnapped = fmt.Errorf("lobby: compaction: %d lanes kept their logs: %w", len(failed), errors.Join(failed...))
	}
	if before <= 1 {
		return notSnapped // the first round of this process: the next drops what this one replaced
	}
	if err := j.Compact(ctx, before); err != nil {
		return errors.Join(fmt.Errorf("lobby: compaction: %w", err), notSnapped)
	}
	lb.log.Info("journal compacted", "lanes", len(lanes), "before", before, "took", time.Since(start))
	return notSnapped
}

// openLanes returns the lanes open now, once the creations in flight
// have stored their openings and joined them: a compaction must see every
// lane whose opening it may drop.
func (lb *Lobby) openLanes() []*lane.Lane {
	var lanes []*lane.Lane
	lb.compaction.seeCreations(func() { lanes = lb.lanes.all() })
	return lanes
}

// restoreAgain tries again to restore the lanes that could not be: their
// logs must not be dropped while they are not running.
func (lb *Lobby) restoreAgain(ctx context.Context) error {
	for _, id := range lb.lanes.failed() {
		log, err := lb.cfg.Lane.Journal.Read(ctx, id, 0)
		if err == nil {
			err = lb.restore(ctx, log)
		}
		if err != nil {
			return fmt.Errorf("lobby: not compacted while lane %s cannot be restored: %w", id, err)
		}
		select {
		case lb.starts <- lb.lanes.start(id):
		case <-lb.stopped:
			return errShuttingDown
		}
	}
	return nil
}

// compactCluster is Compact for the nodes of a cluster, which share the
// journal: the leader alone compacts, once every node has snapshotted the
// lanes it runs, and only if every other lane in the journal has closed.
// A lane that runs nowhere (its node died, and no node took it over yet)
// holds the compaction back: its log is all it has. compactCluster
// returns it, for Compact to take over once the round is over (a lane
// restored waits for no compaction): it runs here then, and snapshots
// next round.
func (lb *Lobby) compactCluster(ctx context.Context) (orphan string, err error) {
	j, ok := lb.cfg.Lane.Journal.(sharedJournal)
	if !ok || !lb.cfg.Cluster.Leader() {
		return "", nil
	}
	defer lb.compaction.round()()
	last, err := lb.cfg.Lane.Journal.Last(ctx)
	if err != nil || last == 0 {
		return "", err
	}
	running, keep, err := lb.cfg.Cluster.SnapshotAll(ctx)
	if err != nil {
		return "", fmt.Errorf("lobby: compaction: %w", err)
	}
	// The mark moves only once every lane in the stream is known to have
	// a snapshot after last, or to have closed: a lane that runs nowhere
	// has its log alone, and a mark past it would let the next round drop
	// its beginning.
	ids, err := j.LaneIDs(ctx)
	if err != nil {
		return "", fmt.Errorf("lobby: compaction: %w", err)
	}
	runs := make(map[string]bool, len(running))
	for _, id := range running {
		runs[id] = true
	}
	for _, id := range ids {
		if runs[id] {
			continue
		}
		e, err := j.LastEvent(ctx, id)
		if err != nil {
			return "", fmt.Errorf("lobby: compaction: %w", err)
		}
		if e.Kind != game.Closed {
			// Left to itself it would hold every later round back.
			return id, fmt.Errorf("lobby: not compacted while lane %s runs on no node", id)
		}
	}
	next := last + 1 // every lane open now has a snapshot after it
	if keep > 0 {
		next = min(next, keep) // but those that failed to store one
	}
	before := lb.compaction.advance(next)
	if before == 0 {
		return "", nil // the leader's first round: the next drops what this one replaced
	}
	if err := lb.cfg.Lane.Journal.Compact(ctx, before); err != nil {
		return "", fmt.Errorf("lobby: compaction: %w", err)
	}
	lb.log.Info("journal compacted", "lanes", len(running), "before", before)
	return "", nil
}

// adoptOrphan takes over lane id, which runs on no node, if it still does
// (see compactCluster). It is the compaction's, and ends with it: within
// a minute, or when the lobby stops.
func (lb *Lobby) adoptOrphan(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if !lb.unowned(ctx, id) {
		return
	}
	if _, err := lb.claim(ctx, id); err != nil {
		lb.log.Warn("a lane that runs on no node not taken over", "lane", id, "err", err)
	}
}
