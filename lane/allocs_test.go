package lane

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
)

// The allocations of a roll's way from the decoded message to the board
// in every outbox (rollOnce: decide, apply, encode one board, queue it for
// each client), counted by testing.AllocsPerRun: 22 a roll by count,
// 24 by deck (go1.26, linux/amd64). The bound leaves a little room
// for the runtime; a change past it says why in PERFORMANCE.md.
const maxRollAllocs = 28

// TestRollAllocs: a roll allocates the same whatever the lane's
// watchers, 6 or 100 — nothing per watcher: the board is encoded once and
// the same bytes go to every outbox — and at most maxRollAllocs in all.
// Allocations are deterministic where time is not, so a change that adds
// one per watcher, or a few to every roll, fails here rather than in a
// load run weeks later. The race detector's own allocations would count:
// .ci/run runs it without.
func TestRollAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates: counted without it")
	}
	for _, deck := range []bool{false, true} {
		per := map[int]float64{}
		for _, watchers := range []int{6, 100} {
			l, players := benchLane(t, watchers)
			pins := 0
			for range 300 { // outboxes full, buffers grown, a rematch or two
				rollBy(l, players, &pins, deck)
			}
			per[watchers] = testing.AllocsPerRun(500, func() { rollBy(l, players, &pins, deck) })
		}
		what := fmt.Sprintf("a roll (deck %v)", deck)
		t.Logf("%s: %.1f allocations with 6 watchers, %.1f with 100", what, per[6], per[100])
		if per[6] > maxRollAllocs {
			t.Errorf("%s allocates %.1f times, want at most %d", what, per[6], maxRollAllocs)
		}
		if grew := per[100] - per[6]; grew > 1 {
			t.Errorf("%s allocates %.1f times with 6 watchers, %.1f with 100: %.2f a watcher, want none", what, per[6], per[100], grew/94)
		}
	}
}

// maxRollBytes bounds the bytes a roll allocates (rollOnce, as
// TestRollAllocs counts it, test helper included): 8,007 by count and
// 8,910 by deck (go1.26, linux/amd64), of which the board's buffer is
// 2,688. Bytes
// are what makes the collector run: at GOGC=50 a cycle comes every half
// of the live heap allocated, and each cycle marks the whole heap.
const maxRollBytes = 9500

// TestRollBytes: a roll allocates at most maxRollBytes. A game's end once
// told its bowlers apart by folding and skeletoning their names, and a
// ball's frames were copied twice to be read, doubling what a roll
// allocated with no allocation more to count.
func TestRollBytes(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates: counted without it")
	}
	for _, deck := range []bool{false, true} {
		l, players := benchLane(t, 6)
		pins := 0
		for range 300 {
			rollBy(l, players, &pins, deck)
		}
		per := bytesPerRun(500, func() { rollBy(l, players, &pins, deck) })
		t.Logf("a roll (deck %v): %d bytes allocated", deck, per)
		if per > maxRollBytes {
			t.Errorf("a roll (deck %v) allocates %d bytes, want at most %d", deck, per, maxRollBytes)
		}
	}
}

// bytesPerRun is testing.AllocsPerRun for bytes: the mean of what f
// allocates over runs, after one run to warm up.
func bytesPerRun(runs int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}

// TestNightStatsAllocs: adding up the night's numbers for a ball of the
// night's first game allocates no more than for a ball of a later one.
// The first game's bowlers are in no finished game, and telling so by
// [bowling.Name.Same] folds and skeletons both names each time (a dozen
// allocations a pair): on every ball of every first game, a third of a
// short night's, until the lane remembered the answer.
func TestNightStatsAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates: counted without it")
	}
	names := []bowling.Name{"PJS", "김철수", "Ana", "ZOË"}
	per := map[string]float64{}
	for _, c := range []struct {
		what   string
		series []game.Result
	}{
		{"first game", nil},
		{"second game", []game.Result{{Players: make([]game.Score, len(names))}}},
	} {
		for i, s := range c.series {
			for j := range s.Players {
				c.series[i].Players[j].Name = names[j]
				c.series[i].Players[j].Game.Roll(5)
			}
		}
		players := make([]bowling.Player, len(names))
		for i, n := range names {
			players[i].Name = n
			players[i].Game.Roll(3) // each has bowled: each is a bowler of the night
		}
		var n nightStats
		n.of(c.series, players)
		ball := 0
		per[c.what] = testing.AllocsPerRun(100, func() {
			// A ball of the second player's, then taken back: a change
			// each run, the figures of one player added up again.
			g := &players[1].Game
			if ball++; ball%2 == 1 {
				g.Roll(1)
			} else {
				*g = bowling.Game{}
				g.Roll(3)
			}
			n.of(c.series, players)
		})
	}
	t.Logf("the night's numbers of a ball: %.1f allocations in a first game, %.1f in a second", per["first game"], per["second game"])
	if per["first game"] > per["second game"] {
		t.Errorf("a ball of the first game allocates %.1f times adding up the night's numbers, of the second %.1f: want no more", per["first game"], per["second game"])
	}
}
