package lobby_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
)

// claimFails is a real in-memory journal that refuses the next claim of
// one lane, as a store that timed out would.
type claimFails struct {
	*memjournal.Journal
	mu   sync.Mutex
	lane string
}

func (f *claimFails) Append(ctx context.Context, id string, last uint64, e game.Event) (uint64, error) {
	f.mu.Lock()
	fail := id == f.lane && e.Kind == game.Claimed
	if fail {
		f.lane = ""
	}
	f.mu.Unlock()
	if fail {
		return 0, errors.New("store timed out")
	}
	return f.Journal.Append(ctx, id, last, e)
}

// TestLaneNotRestoredIsNotDropped: a lane whose restore failed is not
// running, so it takes no snapshot; compactions must not drop its log.
// They restore it first, and then go on.
func TestLaneNotRestoredIsNotDropped(t *testing.T) {
	ctx := context.Background()
	mem := memjournal.New()
	pos, _ := mem.Append(ctx, "aaaa", 0, game.Open("aaaa", "A", 4))
	mem.Append(ctx, "aaaa", pos, game.Event{Kind: game.SeatTaken, Player: "PJS", Token: game.HashToken("t")})
	mem.Append(ctx, "bbbb", 0, game.Open("bbbb", "B", 4))
	j := &claimFails{Journal: mem, lane: "aaaa"}
	lb := lobby.New(lobby.Config{Lane: lane.Config{Journal: j, Durable: true}, CompactEvery: time.Hour})
	if n, err := lb.Restore(ctx); n != 1 || err != nil {
		t.Fatalf("Restore = %d, %v; want 1 (the claim of the other failed)", n, err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go lb.Run(runCtx)
	for range 3 { // dropping is one round behind: three rounds drop what the first replaced
		if err := lb.Compact(ctx); err != nil {
			t.Fatal(err)
		}
	}
	l, ok := lb.Get("aaaa")
	if !ok {
		t.Fatal("the lane whose restore failed was not restored by the compaction")
	}
	if got := l.Summary().Players; len(got) != 1 || got[0] != "PJS" {
		t.Errorf("lane aaaa after compactions: players %v, want [PJS]", got)
	}
	log, err := mem.Read(ctx, "aaaa", 0)
	if err != nil || len(log.Events) == 0 {
		t.Fatalf("lane aaaa's log after compactions: %v, %v", log, err)
	}
}

// TestCompactionKeepsNoLaneAlive: an idle lane closes on time while
// compactions run, and once nothing else is stored they stop snapshotting.
func TestCompactionKeepsNoLaneAlive(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lb := lobby.New(lobby.Config{Lane: lane.Config{Journal: memjournal.New(), IdleTimeout: 300 * time.Millisecond}, CompactEvery: 20 * time.Millisecond})
	go lb.Run(ctx)
	l, err := lb.Create(ctx, "idle")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Done():
	case <-time.After(wait):
		t.Fatalf("an idle lane with compactions every 20 ms still open after %v", wait)
	}
}

// snapshotFails is a real in-memory journal that refuses every snapshot
// of one lane while fail is set, as a store would a message too large.
type snapshotFails struct {
	*memjournal.Journal
	mu   sync.Mutex
	lane string
	fail bool
}

func (f *snapshotFails) Append(ctx context.Context, id string, last uint64, e game.Event) (uint64, error) {
	f.mu.Lock()
	fail := f.fail && id == f.lane && e.Kind == game.Snapshot
	f.mu.Unlock()
	if fail {
		return 0, errors.New("maximum payload exceeded")
	}
	return f.Journal.Append(ctx, id, last, e)
}

func (f *snapshotFails) failing(lane string, fail bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lane, f.fail = lane, fail
}

// twoLanes returns a running lobby on a snapshotFails journal, refusing
// nothing yet, with two lanes open.
func twoLanes(t *testing.T) (lb *lobby.Lobby, j *snapshotFails, good, bad *lane.Lane) {
	t.Helper()
	j = &snapshotFails{Journal: memjournal.New()}
	lb = lobby.New(lobby.Config{Lane: lane.Config{Journal: j, Durable: true}, CompactEvery: time.Hour})
	go lb.Run(t.Context())
	var err error
	if good, err = lb.Create(t.Context(), "good"); err != nil {
		t.Fatal(err)
	}
	if bad, err = lb.Create(t.Context(), "bad"); err != nil {
		t.Fatal(err)
	}
	return lb, j, good, bad
}

// TestOneLaneFailingToSnapshotHoldsNoOtherBack: a lane whose snapshots
// the store refuses keeps its whole log, and says so, while the other
// lanes' logs are compacted as usual; a restart finds both lanes whole;
// once its snapshots are taken, its log is compacted too.
func TestOneLaneFailingToSnapshotHoldsNoOtherBack(t *testing.T) {
	ctx := t.Context()
	lb, j, good, bad := twoLanes(t)
	mem := j.Journal
	j.failing(bad.ID(), true)

	first := func(id string) game.Kind {
		t.Helper()
		log, err := mem.Read(ctx, id, 0)
		if err != nil || len(log.Events) == 0 {
			t.Fatalf("lane %s's log: %v, %v", id, log, err)
		}
		return log.Events[0].Kind
	}
	for range 3 { // dropping is one round behind
		if err := lb.Compact(ctx); err == nil || !strings.Contains(err.Error(), bad.ID()) {
			t.Fatalf("a round with lane %s failing: %v, want an error naming it", bad.ID(), err)
		}
	}
	if k := first(good.ID()); k != game.Snapshot {
		t.Errorf("the good lane's log starts with %s, want its snapshot: one failing lane held it back", k)
	}
	if k := first(bad.ID()); k != game.Opened {
		t.Errorf("the failing lane's log starts with %s, want its opening: it has no snapshot", k)
	}
	for _, l := range []*lane.Lane{good, bad} { // what a restart would read
		log, err := mem.Read(ctx, l.ID(), 0)
		if st := game.Replay(log.Events); err != nil || st.ID() != l.ID() || st.Name() != l.Summary().Name {
			t.Errorf("lane %s's log rebuilds %q %q, %v", l.ID(), st.ID(), st.Name(), err)
		}
	}

	j.failing(bad.ID(), false)
	for range 3 {
		if err := lb.Compact(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if k := first(bad.ID()); k != game.Snapshot {
		t.Errorf("once it snapshots, the lane's log starts with %s, want its snapshot", k)
	}
}

// TestSnapshotLanesReportsWhatFailedNeeds: a node's part of a cluster's
// compaction lists every lane it runs, one that could not store its
// snapshot too (it runs: the leader must not take it for an orphan), and
// the first position that lane still needs, for the leader to keep.
func TestSnapshotLanesReportsWhatFailedNeeds(t *testing.T) {
	ctx := t.Context()
	lb, j, good, bad := twoLanes(t)
	ids, keep, err := lb.PeerLanes().SnapshotLanes(ctx)
	if err != nil || len(ids) != 2 || keep != 0 {
		t.Fatalf("SnapshotLanes = %v, %d, %v; want both lanes, nothing to keep", ids, keep, err)
	}
	j.failing(bad.ID(), true)
	ids, keep, err = lb.PeerLanes().SnapshotLanes(ctx)
	slices.Sort(ids)
	want := []string{good.ID(), bad.ID()}
	slices.Sort(want)
	if err != nil || !slices.Equal(ids, want) {
		t.Fatalf("SnapshotLanes with one failing = %v, %v; want both lanes and no error", ids, err)
	}
	if keep == 0 || keep != bad.Keep() || keep >= good.Keep() {
		t.Fatalf("keep = %d; want the failing lane's last snapshot %d, before the good one's %d", keep, bad.Keep(), good.Keep())
	}
}
