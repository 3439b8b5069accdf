package lobby

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby/peers"
	"github.com/tenpin/tenpin/protocol"
)

// sharedJournal is a journal the nodes of a cluster share that can say
// which lanes it holds: what a compaction across nodes needs
// (lobby/natsstore).
type sharedJournal interface {
	LaneIDs(ctx context.Context) ([]string, error)
	LastEvent(ctx context.Context, lane string) (game.Event, error)
}

// Lane is what the HTTP API shows of a lane, wherever it runs: here (a
// *lane.Lane), on another node, or kept after it closed (see
// [Lobby.Find]).
type Lane interface {
	ID() string
	Name() string
	BoardJSON() []byte
	BoardText() string
	Games() protocol.Games
	// Game returns game n of Games alone, and false if there is none.
	Game(n int) (protocol.Game, bool)
	Stats() protocol.Stats
}

var _ Lane = (*lane.Lane)(nil)

// remoteLane adapts a peers.LaneView, whose Games is a field, to Lane.
type remoteLane struct{ *peers.LaneView }

func (v remoteLane) Games() protocol.Games { return v.LaneView.Games }

func (v remoteLane) Game(n int) (protocol.Game, bool) { return gameOf(v.LaneView.Games, n) }

func (v remoteLane) Stats() protocol.Stats { return v.LaneView.Stats }

// gameOf returns game n of a series already built.
func gameOf(games protocol.Games, n int) (protocol.Game, bool) {
	for _, g := range games.Games {
		if g.Game == n {
			return g, true
		}
	}
	return protocol.Game{}, false
}

// findTries bounds how many times a lane is looked for across the cluster
// while another node is taking it over, with a growing pause between
// tries: about 6 s in all, longer than a replicated stream's new leader
// takes to be elected (4–6 s) after its node died.
const findTries = 10

// ErrNoLane: no node runs the lane and its log holds none to take over;
// from [Lobby.Find], no night of it is kept either.
var ErrNoLane = errors.New("lobby: no such lane")

// find looks for lane id: running here, it returns the lane; running on
// another node, it calls there (a relay or a remote view) and returns nil;
// running nowhere, this node takes it over from its log and returns it.
func (lb *Lobby) find(ctx context.Context, id string, there func(context.Context, string) error) (*lane.Lane, error) {
	pause := 20 * time.Millisecond
	unowned := 0
	for try := 1; ; try++ {
		if l, ok := lb.Get(id); ok {
			return l, nil
		}
		if _, ok := idOrder(id); lb.cfg.Cluster == nil || !ok {
			return nil, ErrNoLane // no lane ever had that id
		}
		err := there(ctx, id)
		if err == nil {
			return nil, nil
		}
		// A lane just created, or just taken over, may not be known on
		// this node yet: the subscription that says where it runs takes a
		// moment to cross the routes, and a claim meanwhile would take
		// the lane from a node that runs it. Nobody twice, a moment
		// apart, is nobody.
		if errors.Is(err, peers.ErrNoOwner) {
			if unowned++; unowned == 1 {
				err = peers.ErrClaiming
			} else {
				var l *lane.Lane
				if l, err = lb.claim(ctx, id); err == nil {
					return l, nil
				}
			}
		}
		// Another node claims it at the same time (its claim or ours came
		// first in the log): it will run it in a moment.
		if !errors.Is(err, peers.ErrClaiming) && !errors.Is(err, game.ErrConflict) {
			return nil, err
		}
		if try == findTries {
			return nil, fmt.Errorf("%w: lane %s is being taken over by another node: %w", ErrUnavailable, id, err)
		}
		wait := pause
		if unowned == 1 {
			wait = max(pause, unownedPause)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		pause = min(2*pause, time.Second)
	}
}

// claim takes lane id over on this node: from its log, with a claim
// fenced by the log's last event, so that if another node claimed it
// first, this one fails with an error wrapping game.ErrConflict. Claims
// of one lane on this node at once take it over once.
func (lb *Lobby) claim(ctx context.Context, id string) (*lane.Lane, error) {
	v, err, _ := lb.claims.Do(id, func() (any, error) {
		if l, ok := lb.Get(id); ok {
			return l, nil
		}
		cl, err := lb.cfg.Cluster.Claim(id)
		if err != nil {
			return nil, err
		}
		l, err := lb.takeOver(ctx, id)
		if err != nil {
			cl.Release()
			return nil, err
		}
		lb.lanes.takenOver(l, cl)
		return l, lb.startLane(l, cl, "lane taken over")
	})
	if err != nil {
		return nil, err
	}
	return v.(*lane.Lane), nil
}

// PeerLanes returns the lobby's lanes as the cluster asks of them
// (peers.Lanes): to adopt those no node runs, to take one over, to wake
// them, to snapshot them.
func (lb *Lobby) PeerLanes() peers.Lanes { return nodeLanes{lb} }

// nodeLanes is the lobby's lanes as the cluster asks of them.
type nodeLanes struct{ lb *Lobby }

// TakeOver takes lane id over on this node from its log, as find does
// for a client that finds no node running it: for the connections a
// relay of it on this node serves, once the lane's node is gone
// (lobby/natspeers), so that they move to the lane here and are not
// closed. It fails with an error wrapping peers.ErrClaiming if another node
// runs the lane, and game.ErrConflict if another claimed it first.
func (n nodeLanes) TakeOver(ctx context.Context, id string) (*lane.Lane, error) {
	if l, ok := n.lb.Get(id); ok {
		return l, nil
	}
	if n.lb.cfg.Cluster == nil {
		return nil, ErrNoLane
	}
	// Asked twice a moment apart, as find does: a survivor that took it
	// over first may not be known here yet, and a claim now would take
	// the lane, and its clients, from it.
	if !n.lb.unowned(ctx, id) {
		return nil, fmt.Errorf("%w: lane %s runs on another node", peers.ErrClaiming, id)
	}
	return n.lb.claim(ctx, id)
}

// takeOver restores lane id from its log, appending this node's claim.
func (lb *Lobby) takeOver(ctx context.Context, id string) (*lane.Lane, error) {
	log, err := lb.cfg.Lane.Journal.Read(ctx, id, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: reading lane %s: %w", ErrUnavailable, id, err)
	}
	l, err := lane.Restore(ctx, log, lb.cfg.Lane)
	switch {
	case errors.Is(err, lane.ErrNotRestorable):
		return nil, fmt.Errorf("%w: %w", ErrNoLane, err)
	case errors.Is(err, game.ErrConflict):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return l, nil
}

// Adopt takes over every lane in the journal that no node runs: at the
// start of a node, when lanes have no owner because the whole cluster
// stopped, and after a node died, for the lanes it ran that nobody uses
// now (those in use are taken over by a node that relays them to its
// clients, see TakeOver, or the node their clients reach first). It
// returns how many lanes this node took. Nodes that adopt at
// the same time share the orphans: each lane's fence lets one of them in.
func (n nodeLanes) Adopt(ctx context.Context) (int, error) {
	if n.lb.cfg.Cluster == nil {
		return 0, nil
	}
	// Nodes dying one after another ask for several rounds at once: one
	// reads the journal for them all.
	v, err, _ := n.lb.claims.Do("\x00adopt", func() (any, error) { return n.lb.adopt(ctx) })
	return v.(int), err
}

func (lb *Lobby) adopt(ctx context.Context) (int, error) {
	logs, err := lb.cfg.Lane.Journal.Lanes(ctx)
	if err != nil {
		return 0, fmt.Errorf("lobby: reading the lanes to adopt: %w", err)
	}
	n, unavailable := 0, 0
	var first error
	for _, log := range logs {
		if st := game.Replay(log.Events); log.Err != nil || st.ID() == "" || st.Closed() {
			continue
		}
		if _, ok := lb.Get(log.Lane); ok {
			continue
		}
		if !lb.unowned(ctx, log.Lane) {
			continue // running elsewhere, or being claimed
		}
		switch _, err := lb.claim(ctx, log.Lane); {
		case err == nil:
			n++
		case errors.Is(err, game.ErrConflict): // another node adopted it first
		case errors.Is(err, ErrClosed):
			return n, err
		case errors.Is(err, ErrUnavailable):
			// The store, electing a stream's leader: the caller tries
			// again, and finds the lanes taken since running.
			unavailable++
			first = cmp.Or(first, err)
		default:
			lb.log.Warn("lane not adopted", "lane", log.Lane, "err", err)
		}
	}
	if unavailable > 0 {
		return n, fmt.Errorf("lobby: %d lanes not adopted: %w", unavailable, first)
	}
	return n, nil
}

// Wake wakes every lane of this node (see lane.Lane.Wake): each reads
// its log back, for a node that was paused long enough for the others to
// take its lanes over. Those they took stop here.
func (n nodeLanes) Wake(ctx context.Context) {
	for _, l := range n.lb.openLanes() {
		l.Wake(ctx)
	}
}

// Nodes returns the nodes of the lobby's cluster (this node alone, for
// a lone server), as GET /api/nodes shows them.
func (lb *Lobby) Nodes() []protocol.Node {
	if lb.cfg.Cluster == nil {
		return []protocol.Node{{URLs: lb.cfg.URLs}}
	}
	return lb.cfg.Cluster.Peers()
}

// unowned reports whether no node runs lane id, asked twice a moment
// apart (see find).
func (lb *Lobby) unowned(ctx context.Context, id string) bool {
	for try := range 2 {
		if try > 0 {
			select {
			case <-time.After(unownedPause):
			case <-ctx.Done():
				return false
			}
		}
		if _, err := lb.cfg.Cluster.Lane(ctx, id); !errors.Is(err, peers.ErrNoOwner) {
			return false
		}
	}
	return true
}

// unownedPause is how long a node waits before it asks again whether a
// lane that no node seemed to run has an owner: longer than a
// subscription takes to cross the routes (well under a millisecond on a
// local network).
const unownedPause = 100 * time.Millisecond

// SnapshotLanes has every lane of this node store a snapshot of itself,
// and returns the ids of the lanes it runs: this node's part of a
// compaction across the cluster (see Cluster.SnapshotAll). Lanes whose
// opening is being stored are waited for. A lane that could not store its
// snapshot holds no other back: it is logged, and keep is the first
// position of the journal such lanes still need (0: none).
func (n nodeLanes) SnapshotLanes(ctx context.Context) (ids []string, keep uint64, err error) {
	lanes := n.lb.openLanes()
	// Lanes snapshot at once, a few at a time: one after another, a
	// thousand lanes of a busy node took longer than a round may.
	var mu sync.Mutex
	ids = make([]string, 0, len(lanes))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(snapshotsAtOnce)
	for _, l := range lanes {
		g.Go(func() error {
			err := l.Snapshot(gctx)
			switch {
			case errors.Is(err, lane.ErrStopped):
				// It closed, moved, failed, or this node is stopping: it
				// is not running here, and has stored no snapshot. The
				// leader looks at its log instead.
				return nil
			case gctx.Err() != nil:
				return gctx.Err()
			}
			mu.Lock()
			defer mu.Unlock()
			ids = append(ids, l.ID())
			if err != nil {
				n.lb.log.Warn("lane not snapshotted: the journal keeps its log", "lane", l.ID(), "err", err)
				// 0 would read "nothing to keep": a lane that cannot say
				// keeps everything.
				if k := max(l.Keep(), 1); keep == 0 || k < keep {
					keep = k
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	return ids, keep, nil
}

// snapshotsAtOnce is how many lanes of a node store their snapshots at
// once in a compaction round.
const snapshotsAtOnce = 16
