// Package journaltest is the conformance suite of [game.Journal]: the
// behaviour every journal must have, run against an implementation by its
// own tests.
//
//	func TestJournal(t *testing.T) {
//		journaltest.Run(t, func(t *testing.T) game.Journal { return memjournal.New() })
//	}
//
// The suite covers fenced appends and conflicts, reads after a position,
// snapshots replacing a lane's history, the listing of every lane,
// concurrent appends (run it with -race) and the exact round trip of every
// kind of event: field for field, except that an empty slice in a snapshot
// may come back nil or the other way round, as the stored form does not
// tell them apart.
//
// open may return a fresh journal each time or the same one for every
// subtest: the subtests use lane ids of their own, unique to the run, and
// ignore lanes they did not write. The ids are valid NATS subject tokens
// (letters, digits and '-'). open owns what it returns; close it with
// t.Cleanup if it needs closing.
package journaltest

import (
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
		{"SnapshotReplaces", testSnapshotReplaces},
		{"Lanes", testLanes},
		{"ConcurrentLanes", testConcurrentLanes},
		{"ConcurrentOneLane", testConcurrentOneLane},
		{"RoundTrip", testRoundTrip},
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

func testSnapshotReplaces(t *testing.T, ctx context.Context, j game.Journal, ids *idSource) {
	lane := ids.lane("snap")
	events := gameEvents(t, lane)
	pos := appendAll(t, ctx, j, lane, events)
	before := pos[len(pos)-1]

	snap := game.Replay(events).Snapshot()
	sp := mustAppend(t, ctx, j, lane, before, snap)
	if sp <= before {
		t.Fatalf("Append(snapshot, last %d) = %d, want a position above %d", before, sp, before)
	}
	wantLog(t, ctx, j, lane, 0, sp, snap)
	wantLog(t, ctx, j, lane, pos[2], sp, snap)

	// The log goes on after the snapshot, and a second snapshot replaces
	// the first and what followed it.
	next := game.Event{Kind: game.Claimed, Epoch: 2, Node: "b"}
	np := mustAppend(t, ctx, j, lane, sp, next)
	wantLog(t, ctx, j, lane, 0, np, snap, next)
	wantLog(t, ctx, j, lane, sp, np, next)

	snap2 := game.Replay([]game.Event{snap, next}).Snapshot()
	sp2 := mustAppend(t, ctx, j, lane, np, snap2)
	wantLog(t, ctx, j, lane, 0, sp2, snap2)

	// The old positions are gone: appending after them conflicts.
	if _, err := j.Append(ctx, lane, np, next); !errors.Is(err, game.ErrConflict) {
		t.Fatalf("Append(last %d) after a snapshot at %d: %v, want an error wrapping game.ErrConflict", np, sp2, err)
	}
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
		if e.Kind == game.Snapshot {
			w.Events = nil
		}
		w.Events = append(w.Events, e)
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

	// A snapshot replaces a's first events: a now comes last.
	add(a, game.Replay(ea[:7]).Snapshot())
	add(b, eb[6])
	wantLanes(t, ctx, j, ids, want, b, c, a)
}

// wantLanes checks that Lanes holds the logs of want, in the order of
// lanes, among those of other subtests, and that it is well formed.
func wantLanes(t *testing.T, ctx context.Context, j game.Journal, ids *idSource, want map[string]*game.Log, lanes ...string) {
	t.Helper()
	logs, err := j.Lanes(ctx)
	if err != nil {
		t.Fatalf("Lanes: %v", err)
	}
	seen := map[string]bool{}
	var order []string
	for _, l := range logs {
		if seen[l.Lane] {
			t.Errorf("Lanes lists lane %q twice", l.Lane)
		}
		seen[l.Lane] = true
		if len(l.Events) == 0 {
			t.Errorf("Lanes lists lane %q with no events", l.Lane)
		}
		if ids.ours(l.Lane) && want[l.Lane] != nil {
			order = append(order, l.Lane)
			if w := want[l.Lane]; !equalLogs(l, *w) {
				t.Errorf("Lanes: lane %s = %s", l.Lane, diff(l, *w))
			}
		}
	}
	if !slices.Equal(order, lanes) {
		t.Errorf("Lanes lists our lanes in the order %q, want %q (the order of their first stored event)", order, lanes)
	}
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
		up, _, _ := s.Match().Up()
		e, err := s.Roll(s.Match().Players()[up].Name, pins)
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
	apply(s.Join("abc", game.HashToken("token-abc")))
	apply(s.Join("xyz", game.HashToken("token-xyz")))
	apply(s.Start("ABC"))
	pins := []int{10, 7, 3, 0, 0, 9, 1, 5}
	for i := 0; s.Phase() == game.Playing; i++ {
		up, _, _ := s.Match().Up()
		p := s.Match().Players()[up]
		n := min(pins[i%len(pins)], p.Game.Standing())
		apply(s.Roll(p.Name, n))
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
// field for field, except that an empty slice equals a nil one: the
// stored form does not tell them apart, and neither does a lane.
func equalLogs(a, b game.Log) bool {
	return reflect.DeepEqual(normalLog(a), normalLog(b))
}

func normalLog(l game.Log) game.Log {
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
				var players []game.Score
				for _, p := range r.Players {
					if len(p.Rolls) == 0 {
						p.Rolls = nil
					}
					players = append(players, p)
				}
				s.Series = append(s.Series, game.Result{Players: players})
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
