// Package journaltest is the conformance suite of [game.Journal]: the
// behaviour every journal must have, run against an implementation by its
// own tests.
//
//	func TestJournal(t *testing.T) {
//		journaltest.Run(t, func(t *testing.T) game.Journal { return memjournal.New() })
//	}
//
// The suite covers fenced appends and conflicts, reads after a position,
// snapshots stored like any event, the listing of every lane, the mark
// Last returns, compaction, concurrent appends (run it with -race) and the
// exact round trip of every kind of event: field for field, except that an
// empty slice in a snapshot may come back nil or the other way round, as
// the stored form does not tell them apart. It asks nothing a journal that
// spreads its lanes over shards cannot give: the order of positions
// across lanes, which such a journal keeps only within a shard, matters
// only where the suite knows it (Lanes' order by first position, a
// compaction below a lane's position); the Compact subtests compact with
// a mark from Last, as a server does.
//
// open may return a fresh journal each time or the same one for every
// subtest: the subtests use lane ids of their own, unique to the run, and
// ignore lanes they did not write. The ids are valid NATS subject tokens
// (letters, digits and '-'). open owns what it returns; close it with
// t.Cleanup if it needs closing.
//
// Nothing else may use the journal while the suite runs, and nothing in
// it may matter: Last is checked against the suite's own appends, and the
// Compact subtests drop the events of every lane, not only their own.
package journaltest

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
)

// timeout bounds each subtest, so that a journal that hangs fails the
// test instead of stalling it until go test's own deadline.
const timeout = 30 * time.Second

// Run runs the conformance suite against the journals open returns.
func Run(t *testing.T, open func(t *testing.T) game.Journal) {
	ids := newIDs()
	for _, tc := range []struct {
		name string
		test func(t *testing.T, ctx context.Context, j game.Journal, ids *idSource)
	}{
		{"AppendToNewLane", testAppendToNewLane},
		{"PositionsGrow", testPositionsGrow},
		{"WrongLastConflicts", testWrongLastConflicts},
		{"ReadAll", testReadAll},
		{"ReadAfter", testReadAfter},
		{"SnapshotIsAnEvent", testSnapshotIsAnEvent},
		{"Lanes", testLanes},
		{"Last", testLast},
		{"ConcurrentLanes", testConcurrentLanes},
		{"ConcurrentOneLane", testConcurrentOneLane},
		{"RoundTrip", testRoundTrip},
		// These go last: they drop what the others stored.
		{"Compact", testCompact},
		{"CompactAll", testCompactAll},
		{"CompactBelowALane", testCompactBelowALane},
		{"CompactWhileAppending", testCompactWhileAppending},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), timeout)
			defer cancel()
			tc.test(t, ctx, open(t), ids)
		})
	}
}

// idSource names lanes uniquely: a random prefix per run keeps runs against
// a store that outlives them (an external NATS server) apart.
type idSource struct {
	prefix string
	n      atomic.Int64
}

func newIDs() *idSource {
	b := make([]byte, 4)
	rand.Read(b)
	return &idSource{prefix: "jt-" + hex.EncodeToString(b)}
}

func (s *idSource) lane(name string) string {
	return fmt.Sprintf("%s-%s-%d", s.prefix, name, s.n.Add(1))
}

func (s *idSource) ours(lane string) bool { return strings.HasPrefix(lane, s.prefix+"-") }

func testAppendToNewLane(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	lane := ids.lane("new")
	pos, err := j.Append(ctx, lane, 0, game.Open(lane, "New", 4))
	if err != nil {
		t.Fatalf("Append(%s, last 0) to a new lane: %v", lane, err)
	}
	if pos == 0 {
		t.Fatalf("Append(%s, last 0) = position 0, want a position above 0 (0 means no event)", lane)
	}
	wantLog(t, ctx, j, lane, 0, pos, game.Open(lane, "New", 4))
}

func testPositionsGrow(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	lane := ids.lane("grow")
	events := gameEvents(t, lane)
	var last uint64
	for i, e := range events {
		pos, err := j.Append(ctx, lane, last, e)
		if err != nil {
			t.Fatalf("Append #%d (%s, last %d): %v", i, e.Kind, last, err)
		}
		if pos <= last {
			t.Fatalf("Append #%d (%s, last %d) = %d, want a position above %d", i, e.Kind, last, pos, last)
		}
		last = pos
	}
	wantLog(t, ctx, j, lane, 0, last, events...)
}

func testWrongLastConflicts(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	lane := ids.lane("fence")
	p1 := mustAppend(t, ctx, j, lane, 0, game.Open(lane, "Fence", 2))
	p2 := mustAppend(t, ctx, j, lane, p1, game.Event{Kind: game.Claimed, Epoch: 1, Node: "a"})
	empty := ids.lane("fence-empty")

	for _, tc := range []struct {
		name string
		lane string
		last uint64
	}{
		{"empty lane, last above 0", empty, p2},
		{"lane has events, last 0", lane, 0},
		{"stale last", lane, p1},
		{"last from the future", lane, p2 + 1000},
		{"last one after the real one", lane, p2 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := game.Event{Kind: game.Claimed, Epoch: 2, Node: "b"}
			pos, err := j.Append(ctx, tc.lane, tc.last, e)
			if !errors.Is(err, game.ErrConflict) {
				t.Fatalf("Append(%s, last %d) = %d, %v; want an error wrapping game.ErrConflict", tc.lane, tc.last, pos, err)
			}
		})
	}
	// Nothing of the refused appends is stored.
	wantLog(t, ctx, j, lane, 0, p2, game.Open(lane, "Fence", 2), game.Event{Kind: game.Claimed, Epoch: 1, Node: "a"})
	wantLog(t, ctx, j, empty, 0, 0)
}

func testReadAll(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	lane := ids.lane("read")
	events := gameEvents(t, lane)
	last := appendAll(t, ctx, j, lane, events)
	wantLog(t, ctx, j, lane, 0, last[len(last)-1], events...)

	t.Run("unknown lane", func(t *testing.T) {
		wantLog(t, ctx, j, ids.lane("never"), 0, 0)
	})
}

func testReadAfter(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	lane := ids.lane("after")
	events := gameEvents(t, lane)[:6]
	pos := appendAll(t, ctx, j, lane, events)
	end := pos[len(pos)-1]

	type tc struct {
		name  string
		after uint64
		want  []game.Event
		last  uint64
	}
	tests := []tc{
		{"after 0", 0, events, end},
		{"after the last", end, nil, end},
		{"beyond the last", end + 100, nil, end + 100},
	}
	t.Run("first", func(t *testing.T) {
		for i, after := range append([]uint64{0}, pos[:len(pos)-1]...) {
			log, err := j.Read(ctx, lane, after)
			if err != nil || log.First != pos[i] {
				t.Errorf("Read after %d: First = %d, %v; want %d, the position of the first event read", after, log.First, err, pos[i])
			}
		}
		if log, err := j.Read(ctx, lane, end); err != nil || log.First != 0 {
			t.Errorf("Read after the last: First = %d, %v; want 0", log.First, err)
		}
	})
	for i, p := range pos[:len(pos)-1] {
		tests = append(tests, tc{fmt.Sprintf("after event %d", i), p, events[i+1:], end})
		// A position between two of the lane's events (another lane's,
		// say) reads like the event before it.
		if p+1 < pos[i+1] {
			tests = append(tests, tc{fmt.Sprintf("between events %d and %d", i, i+1), p + 1, events[i+1:], end})
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantLog(t, ctx, j, lane, tc.after, tc.last, tc.want...)
		})
	}
	t.Run("unknown lane after 7", func(t *testing.T) {
		wantLog(t, ctx, j, ids.lane("never"), 7, 7)
	})
}

// testSnapshotIsAnEvent checks that a snapshot replaces nothing: the
// lane's log goes on through it, as through any event.
func testSnapshotIsAnEvent(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	lane := ids.lane("snap")
	events := gameEvents(t, lane)
	pos := appendAll(t, ctx, j, lane, events)
	end := pos[len(pos)-1]

	snap := game.Replay(events).Snapshot()
	sp := mustAppend(t, ctx, j, lane, end, snap)
	all := append(slices.Clone(events), snap)
	wantLog(t, ctx, j, lane, 0, sp, all...)
	wantLog(t, ctx, j, lane, pos[2], sp, all[3:]...)
	wantLog(t, ctx, j, lane, end, sp, snap)

	// The log goes on after the snapshot, and a second one replaces
	// nothing either.
	next := game.Event{Kind: game.Claimed, Epoch: 2, Node: "b"}
	np := mustAppend(t, ctx, j, lane, sp, next)
	snap2 := game.Replay([]game.Event{snap, next}).Snapshot()
	sp2 := mustAppend(t, ctx, j, lane, np, snap2)
	all = append(all, next, snap2)
	wantLog(t, ctx, j, lane, 0, sp2, all...)
	wantLog(t, ctx, j, lane, sp, sp2, next, snap2)

	// The fence is the lane's last event, as always.
	for _, stale := range []uint64{end, sp, np} {
		if _, err := j.Append(ctx, lane, stale, next); !errors.Is(err, game.ErrConflict) {
			t.Fatalf("Append(last %d) to a lane that ends at %d: %v, want an error wrapping game.ErrConflict", stale, sp2, err)
		}
	}
	wantLog(t, ctx, j, lane, 0, sp2, all...)
}

func testLanes(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	a, b, c := ids.lane("lanes-a"), ids.lane("lanes-b"), ids.lane("lanes-c")
	want := map[string]*game.Log{}
	for _, l := range []string{a, b, c} {
		want[l] = &game.Log{Lane: l}
	}
	add := func(lane string, e game.Event) {
		t.Helper()
		w := want[lane]
		w.Last = mustAppend(t, ctx, j, lane, w.Last, e)
		w.Events = append(w.Events, e)
		if w.First == 0 {
			w.First = w.Last
		}
	}
	// Interleaved, with the lanes' first events in the order a, b, c.
	ea, eb, ec := gameEvents(t, a), gameEvents(t, b), gameEvents(t, c)
	add(a, ea[0])
	add(b, eb[0])
	add(a, ea[1])
	add(c, ec[0])
	for i := 1; i < 6; i++ {
		add(c, ec[i])
		add(b, eb[i])
		add(a, ea[i+1])
	}
	wantLanes(t, ctx, j, ids, want, a, b, c)

	// A snapshot is one more event: a keeps its place.
	add(a, game.Replay(ea[:7]).Snapshot())
	add(b, eb[6])
	wantLanes(t, ctx, j, ids, want, a, b, c)
}

// wantLanes checks that Lanes holds the logs of want, among those of
// other subtests, ordered by the positions of their first events, which
// the logs of want hold in First; and that it is well formed. A lane of
// want that is not in lanes must not be listed. lanes are in the order
// their first events were stored: the order of their positions in a
// journal of one shard, not necessarily in one of several.
func wantLanes(t *testing.T, ctx context.Context, j game.Journal, ids *idSource, want map[string]*game.Log, lanes ...string) {
	t.Helper()
	logs, err := j.Lanes(ctx)
	if err != nil {
		t.Fatalf("Lanes: %v", err)
	}
	seen := map[string]bool{}
	var order []string
	for i, l := range logs {
		if seen[l.Lane] {
			t.Errorf("Lanes lists lane %q twice", l.Lane)
		}
		seen[l.Lane] = true
		if len(l.Events) == 0 {
			t.Errorf("Lanes lists lane %q with no events", l.Lane)
		}
		if l.First == 0 || l.First > l.Last {
			t.Errorf("Lanes lists lane %q from %d to %d: want the positions of its first and last events", l.Lane, l.First, l.Last)
		}
		if i > 0 && l.First <= logs[i-1].First {
			t.Errorf("Lanes lists lane %q, first at %d, after lane %q, first at %d: want them ordered by the position of their first event", l.Lane, l.First, logs[i-1].Lane, logs[i-1].First)
		}
		if ids.ours(l.Lane) && want[l.Lane] != nil {
			order = append(order, l.Lane)
			w := want[l.Lane]
			if !equalLogs(l, *w) {
				t.Errorf("Lanes: lane %s = %s", l.Lane, diff(l, *w))
			}
			if w.First != 0 && l.First != w.First {
				t.Errorf("Lanes: lane %s's first event at %d, want %d", l.Lane, l.First, w.First)
			}
		}
	}
	byFirst := slices.Clone(lanes)
	slices.SortStableFunc(byFirst, func(a, b string) int { return cmp.Compare(want[a].First, want[b].First) })
	if !slices.Equal(order, byFirst) {
		t.Errorf("Lanes lists our lanes in the order %q, want %q (the order of their first events' positions)", order, byFirst)
	}
}

// testLast checks that Last is a mark at or above the position of every
// event appended before it, that each append moves it up, and that
// nothing else moves it.
func testLast(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	a, b := ids.lane("last-a"), ids.lane("last-b")
	mark := mustLast(t, ctx, j)
	appended := func(what string, pos uint64) {
		t.Helper()
		got := mustLast(t, ctx, j)
		if got < pos || got <= mark {
			t.Fatalf("Last after %s at %d = %d, want at least %d and above %d, the Last before it", what, pos, got, pos, mark)
		}
		mark = got
	}
	pa := mustAppend(t, ctx, j, a, 0, game.Open(a, "Last", 2))
	appended("an append to a new lane", pa)
	pb := mustAppend(t, ctx, j, b, 0, game.Open(b, "Last", 2))
	appended("an append to another new lane", pb)
	pa = mustAppend(t, ctx, j, a, pa, game.Event{Kind: game.Claimed, Epoch: 1, Node: "a"})
	appended("a second append to the first lane", pa)

	// Neither a refused append nor a read moves it.
	if _, err := j.Append(ctx, b, 0, game.Open(b, "Again", 2)); !errors.Is(err, game.ErrConflict) {
		t.Fatalf("Append(%s, last 0) to a lane with an event: %v, want an error wrapping game.ErrConflict", b, err)
	}
	wantLog(t, ctx, j, a, 0, pa, game.Open(a, "Last", 2), game.Event{Kind: game.Claimed, Epoch: 1, Node: "a"})
	if _, err := j.Lanes(ctx); err != nil {
		t.Fatalf("Lanes: %v", err)
	}
	wantLast(t, ctx, j, mark)
}

func testConcurrentLanes(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	const lanes, perLane = 16, 20
	type result struct {
		lane string
		pos  []uint64
		err  error
	}
	results := make(chan result, lanes)
	for i := range lanes {
		lane := ids.lane(fmt.Sprintf("conc%d", i))
		go func() {
			r := result{lane: lane}
			events := rolls(perLane)
			var last uint64
			for k, e := range events {
				pos, err := j.Append(ctx, lane, last, e)
				if err != nil {
					r.err = fmt.Errorf("append #%d after %d: %w", k, last, err)
					break
				}
				r.pos = append(r.pos, pos)
				last = pos
			}
			results <- r
		}()
	}
	all := map[uint64]string{}
	for range lanes {
		r := <-results
		if r.err != nil {
			t.Errorf("lane %s: %v", r.lane, r.err)
			continue
		}
		for k, p := range r.pos {
			if k > 0 && p <= r.pos[k-1] {
				t.Errorf("lane %s: append #%d at %d, after #%d at %d: positions must grow", r.lane, k, p, k-1, r.pos[k-1])
			}
			if other, ok := all[p]; ok {
				t.Errorf("position %d given to lanes %s and %s", p, other, r.lane)
			}
			all[p] = r.lane
		}
		if !t.Failed() {
			wantLog(t, ctx, j, r.lane, 0, r.pos[len(r.pos)-1], rolls(perLane)...)
		}
	}
}

// testConcurrentOneLane races appends to one lane at the same position:
// the fence lets exactly one through each time.
func testConcurrentOneLane(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	const writers, rounds = 8, 5
	lane := ids.lane("race")
	last := mustAppend(t, ctx, j, lane, 0, game.Open(lane, "Race", 8))
	want := []game.Event{game.Open(lane, "Race", 8)}
	for round := range rounds {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var won []uint64
		var winner game.Event
		var errs []error
		for w := range writers {
			e := game.Event{Kind: game.Claimed, Epoch: uint64(round + 1), Node: fmt.Sprintf("node-%d", w)}
			wg.Go(func() {
				pos, err := j.Append(ctx, lane, last, e)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					won = append(won, pos)
					winner = e
				case !errors.Is(err, game.ErrConflict):
					errs = append(errs, err)
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			t.Errorf("round %d: Append: %v, want nil or an error wrapping game.ErrConflict", round, err)
		}
		if len(won) != 1 {
			t.Fatalf("round %d: %d of %d appends after %d succeeded (at %v), want exactly 1", round, len(won), writers, last, won)
		}
		last = won[0]
		want = append(want, winner)
	}
	wantLog(t, ctx, j, lane, 0, last, want...)
}

func testRoundTrip(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	events := gameEvents(t, "rt")
	played := game.Replay(events)
	// A state whose snapshot holds a finished game of the series and a
	// game in play, with a player who left after bowling.
	more := append(slices.Clone(events), game.Event{Kind: game.NewGame})
	s := game.Replay(more)
	for _, pins := range []int{10, 4, 0} {
		up, frame, _ := s.Match().Up()
		p := s.Match().Players()[up]
		e, err := s.Roll(game.Throw{By: p.Name, Frame: frame, Ball: p.Game.Ball(), Pins: pins})
		if err != nil {
			t.Fatalf("building the snapshot: %v", err)
		}
		more = append(more, e)
		s.Apply(e)
	}
	leave, err := s.Leave("ABC")
	if err != nil {
		t.Fatalf("building the snapshot: %v", err)
	}
	s.Apply(leave)
	snap := s.Snapshot()
	if len(snap.Snapshot.Series) == 0 || len(snap.Snapshot.Game) == 0 {
		t.Fatalf("building the snapshot: series %d games, game %d events; want both", len(snap.Snapshot.Series), len(snap.Snapshot.Game))
	}

	for _, tc := range []struct {
		name string
		e    game.Event
	}{
		{"opened", game.Open("rt", "Round trip: «Ünïcode» & <tags>", 6)},
		{"claimed", game.Event{Kind: game.Claimed, Epoch: 1<<63 + 1, Node: "node-a"}},
		{"seat taken", game.Event{Kind: game.SeatTaken, Player: "ABC", Token: game.HashToken("resume-me")}},
		{"game started", game.Event{Kind: game.GameStarted}},
		{"rolled 0", game.Event{Kind: game.Rolled, Player: "ABC", Frame: 1, Ball: 1, Pins: 0}},
		{"rolled 10 in the tenth", game.Event{Kind: game.Rolled, Player: "XYZ", Frame: 10, Ball: 3, Pins: 10}},
		{"player left", game.Event{Kind: game.PlayerLeft, Player: "XYZ"}},
		{"new game", game.Event{Kind: game.NewGame}},
		{"closed", game.Event{Kind: game.Closed, Reason: "everyone left"}},
		{"snapshot of a game", played.Snapshot()},
		{"snapshot with series", snap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lane := ids.lane("rt")
			pos := mustAppend(t, ctx, j, lane, 0, tc.e)
			wantLog(t, ctx, j, lane, 0, pos, tc.e)
		})
	}
}

// testCompact drops the events of four lanes, interleaved, stored before
// a mark: each lane keeps exactly its events appended after it, a lane
// left with none is gone, and appends go on above each lane's earlier
// positions, fenced as before.
func testCompact(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	a, b, c, d := ids.lane("compact-a"), ids.lane("compact-b"), ids.lane("compact-c"), ids.lane("compact-d")
	want := map[string]*game.Log{}
	pos := map[string][]uint64{}
	for _, l := range []string{a, b, c, d} {
		want[l] = &game.Log{Lane: l}
	}
	add := func(lane string, e game.Event) uint64 {
		t.Helper()
		w := want[lane]
		w.Last = mustAppend(t, ctx, j, lane, w.Last, e)
		w.Events = append(w.Events, e)
		pos[lane] = append(pos[lane], w.Last)
		if w.First == 0 {
			w.First = w.Last
		}
		return w.Last
	}
	ea, eb, ec, ed := gameEvents(t, a), gameEvents(t, b), gameEvents(t, c), gameEvents(t, d)
	add(a, ea[0])
	add(d, ed[0])
	add(b, eb[0])
	add(a, ea[1])
	add(d, ed[1])
	add(c, ec[0])
	mark := mustLast(t, ctx, j) // d's events are all before it
	add(b, eb[1])
	add(a, ea[2])
	add(c, ec[1])
	add(a, ea[3])
	wantLanes(t, ctx, j, ids, want, a, d, b, c)

	// Nothing is below 0 or 1.
	mustCompact(t, ctx, j, 0)
	mustCompact(t, ctx, j, 1)
	wantLanes(t, ctx, j, ids, want, a, d, b, c)

	last := mustLast(t, ctx, j)
	mustCompact(t, ctx, j, mark+1)
	want[a].Events, want[a].First = want[a].Events[2:], pos[a][2]
	want[b].Events, want[b].First = want[b].Events[1:], pos[b][1]
	want[c].Events, want[c].First = want[c].Events[1:], pos[c][1]
	want[d] = &game.Log{Lane: d}
	check := func() {
		t.Helper()
		for _, l := range []string{a, b, c, d} {
			wantLog(t, ctx, j, l, 0, want[l].Last, want[l].Events...)
		}
		// After a position that was dropped: the same.
		wantLog(t, ctx, j, a, pos[a][0], want[a].Last, want[a].Events...)
		wantLog(t, ctx, j, d, pos[d][0], pos[d][0])
		wantLanes(t, ctx, j, ids, want, b, a, c)
		wantLast(t, ctx, j, last)
	}
	check()

	// Again, and below it: nothing more goes.
	mustCompact(t, ctx, j, mark+1)
	mustCompact(t, ctx, j, mark)
	mustCompact(t, ctx, j, 1)
	check()

	// The fence holds: at a lane's last event, wherever an append
	// expects another one, dropped or not.
	for _, tc := range []struct {
		name string
		lane string
		last uint64
	}{
		{"an event of a lane that stayed", a, pos[a][2]},
		{"a dropped event of a lane that stayed", a, pos[a][1]},
		{"the dropped event before a lane's first", b, pos[b][0]},
		{"the last event of a lane that is gone", d, pos[d][1]},
		{"0 on a lane that stayed", c, 0},
	} {
		e := game.Event{Kind: game.Claimed, Epoch: 9, Node: "z"}
		if p, err := j.Append(ctx, tc.lane, tc.last, e); !errors.Is(err, game.ErrConflict) {
			t.Errorf("Append(%s, last %d: %s) = %d, %v; want an error wrapping game.ErrConflict", tc.lane, tc.last, tc.name, p, err)
		}
	}
	check()

	// Appends go on above every position the lane had before the
	// compaction. A lane that is gone starts again from 0, here with the
	// same event after the same position as its first: a store that
	// recognises a retried append by what it appends must not take it
	// for one.
	for _, step := range []struct {
		lane string
		e    game.Event
	}{
		{a, game.Replay(ea[:4]).Snapshot()},
		{d, ed[0]},
		{b, eb[2]},
	} {
		before := pos[step.lane][len(pos[step.lane])-1]
		if p := add(step.lane, step.e); p <= before {
			t.Errorf("Append(%s) after a compaction = %d, want a position above %d, its last before it", step.lane, p, before)
		}
	}
	want[d].First = pos[d][2]
	check = func() {
		t.Helper()
		for _, l := range []string{a, b, c, d} {
			wantLog(t, ctx, j, l, 0, want[l].Last, want[l].Events...)
		}
		wantLanes(t, ctx, j, ids, want, b, a, c, d)
		if got := mustLast(t, ctx, j); got <= last || got < want[b].Last {
			t.Errorf("Last after three appends = %d, want above %d, the Last before them, and at least %d, the last of them", got, last, want[b].Last)
		}
	}
	check()
}

// testCompactAll drops every event: no lane is left, and positions go on
// from where they were.
func testCompactAll(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	a, b := ids.lane("all-a"), ids.lane("all-b")
	ea, eb := gameEvents(t, a)[:4], gameEvents(t, b)[:3]
	pa := appendAll(t, ctx, j, a, ea)
	appendAll(t, ctx, j, b, eb)
	last := mustLast(t, ctx, j)

	mustCompact(t, ctx, j, last+1)
	gone := func(last uint64) {
		t.Helper()
		wantLog(t, ctx, j, a, 0, 0)
		wantLog(t, ctx, j, b, 0, 0)
		logs, err := j.Lanes(ctx)
		if err != nil {
			t.Fatalf("Lanes: %v", err)
		}
		if len(logs) > 0 {
			t.Errorf("Lanes after a compaction of every event = %d lanes, the first %q; want none", len(logs), logs[0].Lane)
		}
		wantLast(t, ctx, j, last)
	}
	gone(last)
	mustCompact(t, ctx, j, last+1)
	gone(last)

	// The same first event again, after the same position.
	p := mustAppend(t, ctx, j, a, 0, ea[0])
	if p <= pa[len(pa)-1] {
		t.Fatalf("Append(%s, last 0) after every event was dropped = %d, want a position above %d, its last before", a, p, pa[len(pa)-1])
	}
	if got := mustLast(t, ctx, j); got <= last || got < p {
		t.Fatalf("Last after an append at %d = %d, want above %d, the Last before, and at least %d", p, got, last, p)
	}
	wantLog(t, ctx, j, a, 0, p, ea[0])

	// Beyond the last mark: everything goes all the same, and positions
	// still grow.
	mustCompact(t, ctx, j, mustLast(t, ctx, j)+1000)
	wantLog(t, ctx, j, a, 0, 0)
	last = mustLast(t, ctx, j)
	if last < p {
		t.Errorf("Last after a compaction beyond the last mark = %d, want at least %d: marks never go back", last, p)
	}
	p2 := mustAppend(t, ctx, j, a, 0, ea[0])
	if p2 <= p {
		t.Errorf("Append(%s, last 0) = %d, want a position above %d", a, p2, p)
	}
	wantLog(t, ctx, j, a, 0, p2, ea[0])
}

// testCompactBelowALane compacts as a server does when a lane failed to
// store its snapshot: with the mark lowered to the position that lane
// still needs. That lane keeps its events from there, and every lane
// keeps what was appended after the mark — in a journal of shards too,
// where a quieter shard's positions after the mark are below those of the
// busy lane's shard before it.
func testCompactBelowALane(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	const (
		lanes = 8  // enough to land in several shards of a journal that has them
		busy  = 40 // events of lane 0, the one that fails, stored last
	)
	names := make([]string, lanes)
	before := make([][]uint64, lanes) // positions before the mark
	for i := lanes - 1; i >= 0; i-- {
		names[i] = ids.lane(fmt.Sprintf("below%d", i))
		n := 3
		if i == 0 {
			n = busy
		}
		before[i] = appendAll(t, ctx, j, names[i], rolls(n))
	}
	mark := mustLast(t, ctx, j)
	after := make([]uint64, lanes) // a snapshot, stored after the mark
	for i, l := range names {
		after[i] = mustAppend(t, ctx, j, l, before[i][len(before[i])-1], game.Replay(rolls(len(before[i]))).Snapshot())
	}
	// Lane 0 failed to store its snapshot: it needs its log from its
	// second last event before the mark.
	keep := before[0][busy-2]
	mustCompact(t, ctx, j, min(mark+1, keep))

	// What lane 0 stored below keep may go, or stay: a journal of shards
	// drops only what it knows was stored before the mark.
	all := append(rolls(busy), game.Replay(rolls(busy)).Snapshot())
	if log, err := j.Read(ctx, names[0], 0); err != nil || len(log.Events) < 3 {
		t.Errorf("Read(%s) after Compact(%d) = %d events, %v; want at least its 3 from position %d", names[0], min(mark+1, keep), len(log.Events), err, keep)
	} else {
		wantLog(t, ctx, j, names[0], 0, after[0], all[len(all)-len(log.Events):]...)
	}
	for i, l := range names[1:] {
		log, err := j.Read(ctx, l, 0)
		if err != nil {
			t.Fatalf("Read(%s): %v", l, err)
		}
		n := len(log.Events)
		if n == 0 || log.Last != after[i+1] || log.Events[n-1].Kind != game.Snapshot {
			t.Errorf("Read(%s) after Compact(%d) = %d events to %d; want its snapshot, stored after the mark, at %d, last", l, min(mark+1, keep), n, log.Last, after[i+1])
		}
	}
}

// testCompactWhileAppending compacts as a server does, while its lanes
// append and are read: it takes a mark from Last, waits until every lane
// has appended after it, then drops everything stored before it. No
// append fails, and every read is a run of the lane's events without a
// gap, up to its last.
func testCompactWhileAppending(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	const (
		lanes = 4
		least = 50   // appends of each lane, and more until enough compactions ran
		most  = 5000 // appends of each lane at most
		runs  = 5    // compactions enough
	)
	// The k-th event of a lane (from 0), all different.
	event := func(k int) game.Event { return game.Event{Kind: game.Claimed, Epoch: uint64(k) + 1, Node: "cwa"} }
	// run reports whether events are event(first), event(first+1), …
	// event(k), and the first of them.
	run := func(events []game.Event, k int) (first int, ok bool) {
		first = k + 1 - len(events)
		for i, e := range events {
			if e != event(first+i) {
				return first, false
			}
		}
		return first, len(events) > 0
	}
	var (
		ended       sync.WaitGroup
		lasts       [lanes]atomic.Uint64 // each lane's last append
		appended    [lanes]atomic.Int64  // each lane's appends done
		over        [lanes]atomic.Bool   // each lane's end
		counts      [lanes]int           // each lane's appends, once ended
		compactions atomic.Int64
	)
	names := make([]string, lanes)
	for i := range lanes {
		names[i] = ids.lane(fmt.Sprintf("cwa%d", i))
		ended.Go(func() {
			defer over[i].Store(true)
			var last uint64
			for k := 0; (k < least || compactions.Load() < runs) && !t.Failed(); k++ {
				if k == most {
					t.Errorf("lane %s: %d appends, and only %d compactions", names[i], k, compactions.Load())
					return
				}
				pos, err := j.Append(ctx, names[i], last, event(k))
				if err != nil {
					t.Errorf("lane %s: append #%d after %d: %v", names[i], k, last, err)
					return
				}
				last = pos
				lasts[i].Store(pos)
				appended[i].Add(1)
				counts[i] = k + 1
				// Read now and then, while compactions run.
				if k%5 != 4 {
					continue
				}
				log, err := j.Read(ctx, names[i], 0)
				if err != nil {
					t.Errorf("lane %s: Read: %v", names[i], err)
					return
				}
				if first, ok := run(log.Events, k); !ok || log.Last != last {
					t.Errorf("lane %s: Read after append #%d at %d = %d events, last %d, a run of its events from #%d: %t; want a run up to #%d, last %d: %v",
						names[i], k, last, len(log.Events), log.Last, first, ok, k, last, epochs(log.Events))
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			upTo, err := j.Last(ctx)
			if err != nil {
				t.Errorf("Last: %v", err)
				return
			}
			// Wait until every lane has appended after Last returned: an
			// append that began after one that ended after it. A lane that
			// ended will not: the compactions are over then.
			var seen [lanes]int64
			for i := range lanes {
				seen[i] = appended[i].Load()
			}
			for i := 0; i < lanes; {
				switch {
				case appended[i].Load() >= seen[i]+2:
					i++
				case over[i].Load():
					return
				default:
					time.Sleep(100 * time.Microsecond)
				}
			}
			if err := j.Compact(ctx, upTo+1); err != nil {
				t.Errorf("Compact(%d): %v", upTo+1, err)
				return
			}
			compactions.Add(1)
		}
	}()
	ended.Wait()
	<-done
	t.Logf("%d compactions, %v appends", compactions.Load(), counts)
	if n := compactions.Load(); n < runs && !t.Failed() {
		t.Errorf("%d compactions ran while the lanes appended, want at least %d", n, runs)
	}
	for i, l := range names {
		log, err := j.Read(ctx, l, 0)
		if err != nil {
			t.Fatalf("Read(%s): %v", l, err)
		}
		if first, ok := run(log.Events, counts[i]-1); !ok || log.Last != lasts[i].Load() || first == 0 {
			t.Errorf("lane %s at the end = %d events, last %d, a run of its events from #%d: %t; want a run up to #%d, last %d, without the first",
				l, len(log.Events), log.Last, first, ok, counts[i]-1, lasts[i].Load())
		}
	}
}

func epochs(events []game.Event) []uint64 {
	var out []uint64
	for _, e := range events {
		out = append(out, e.Epoch)
	}
	return out
}

// gameEvents returns the events of a lane played through one whole game by
// two players, decided by the lane's own rules.
func gameEvents(t *testing.T, lane string) []game.Event {
	t.Helper()
	s := new(game.State)
	var events []game.Event
	apply := func(e game.Event, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("building a game: %v", err)
		}
		s.Apply(e)
		events = append(events, e)
	}
	apply(game.Open(lane, "Lane "+lane, 4), nil)
	apply(s.Claim("node-a"), nil)
	apply(s.Join("abc", game.HashToken("token-abc"), game.TokenHash{}))
	apply(s.Join("xyz", game.HashToken("token-xyz"), game.TokenHash{}))
	apply(s.Start("ABC"))
	pins := []int{10, 7, 3, 0, 0, 9, 1, 5}
	for i := 0; s.Phase() == game.Playing; i++ {
		up, _, _ := s.Match().Up()
		p := s.Match().Players()[up]
		n := min(pins[i%len(pins)], p.Game.Standing())
		apply(s.Roll(game.Throw{By: p.Name, Frame: p.Game.CurrentFrame(), Ball: p.Game.Ball(), Pins: n}))
	}
	return events
}

// rolls returns n rolled events, not a valid game: the journal stores
// events, it does not judge them.
func rolls(n int) []game.Event {
	events := make([]game.Event, n)
	for i := range events {
		events[i] = game.Event{Kind: game.Rolled, Player: bowling.Name("ABC"), Frame: i%10 + 1, Ball: i%2 + 1, Pins: i % 11}
	}
	return events
}

func mustAppend(t *testing.T, ctx context.Context, j game.Journal, lane string, last uint64, e game.Event) uint64 {
	t.Helper()
	pos, err := j.Append(ctx, lane, last, e)
	if err != nil {
		t.Fatalf("Append(%s, last %d, %s): %v", lane, last, e.Kind, err)
	}
	if pos <= last {
		t.Fatalf("Append(%s, last %d, %s) = %d, want a position above %d", lane, last, e.Kind, pos, last)
	}
	return pos
}

func mustLast(t *testing.T, ctx context.Context, j game.Journal) uint64 {
	t.Helper()
	last, err := j.Last(ctx)
	if err != nil {
		t.Fatalf("Last: %v", err)
	}
	return last
}

func wantLast(t *testing.T, ctx context.Context, j game.Journal, want uint64) {
	t.Helper()
	if got := mustLast(t, ctx, j); got != want {
		t.Fatalf("Last = %d, want %d", got, want)
	}
}

func mustCompact(t *testing.T, ctx context.Context, j game.Journal, before uint64) {
	t.Helper()
	if err := j.Compact(ctx, before); err != nil {
		t.Fatalf("Compact(%d): %v", before, err)
	}
}

// appendAll appends events to lane in order and returns their positions.
func appendAll(t *testing.T, ctx context.Context, j game.Journal, lane string, events []game.Event) []uint64 {
	t.Helper()
	pos := make([]uint64, len(events))
	var last uint64
	for i, e := range events {
		last = mustAppend(t, ctx, j, lane, last, e)
		pos[i] = last
	}
	return pos
}

// wantLog checks that Read(lane, after) returns exactly events, ending at
// last.
func wantLog(t *testing.T, ctx context.Context, j game.Journal, lane string, after, last uint64, events ...game.Event) {
	t.Helper()
	got, err := j.Read(ctx, lane, after)
	if err != nil {
		t.Fatalf("Read(%s, after %d): %v", lane, after, err)
	}
	want := game.Log{Lane: lane, Events: events, Last: last}
	if !equalLogs(got, want) {
		t.Fatalf("Read(%s, after %d) = %s", lane, after, diff(got, want))
	}
}

// equalLogs reports whether two logs are the same, event for event and
// field for field but First, except that an empty slice equals a nil one:
// the stored form does not tell them apart, and neither does a lane.
func equalLogs(a, b game.Log) bool {
	return reflect.DeepEqual(normalLog(a), normalLog(b))
}

func normalLog(l game.Log) game.Log {
	l.First = 0 // checked on its own: the tests do not know every position
	l.Events = normalEvents(l.Events)
	return l
}

func normalEvents(events []game.Event) []game.Event {
	if len(events) == 0 {
		return nil
	}
	out := make([]game.Event, len(events))
	for i, e := range events {
		if e.Snapshot != nil {
			s := *e.Snapshot
			s.Game = normalEvents(s.Game)
			s.Series = nil
			for _, r := range e.Snapshot.Series {
				s.Series = append(s.Series, game.Result{Players: slices.Clone(r.Players)})
			}
			e.Snapshot = &s
		}
		out[i] = e
	}
	return out
}

// diff describes how got differs from want: the lane, the last position
// and the count of events, then the first event that differs.
func diff(got, want game.Log) string {
	var b strings.Builder
	fmt.Fprintf(&b, "lane %q, last %d, %d events; want lane %q, last %d, %d events",
		got.Lane, got.Last, len(got.Events), want.Lane, want.Last, len(want.Events))
	g, w := normalEvents(got.Events), normalEvents(want.Events)
	for i := range max(len(g), len(w)) {
		if i < len(g) && i < len(w) && reflect.DeepEqual(g[i], w[i]) {
			continue
		}
		fmt.Fprintf(&b, "\nfirst difference, event %d:\n\tgot  %s\n\twant %s", i, show(g, i), show(w, i))
		break
	}
	return b.String()
}

// show prints events[i] in its stored form, which is short and says
// everything that is stored, or in full if that hides the difference.
func show(events []game.Event, i int) string {
	if i >= len(events) {
		return "nothing"
	}
	e := events[i]
	if data, err := game.Marshal(e); err == nil {
		if back, err := game.Unmarshal(data); err == nil && reflect.DeepEqual(normalEvents([]game.Event{back}), []game.Event{e}) {
			return string(data)
		}
	}
	if e.Snapshot != nil {
		return fmt.Sprintf("%+v with snapshot %+v", e, *e.Snapshot)
	}
	return fmt.Sprintf("%+v", e)
}
