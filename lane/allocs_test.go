package lane

import (
	"fmt"
	"testing"
)

// The allocations of a roll's way from the decoded message to the board
// in every outbox (rollOnce: decide, apply, encode one board, queue it for
// each client), counted by testing.AllocsPerRun: 29 a roll by count,
// 31 by deck (go1.26, linux/amd64). The bound leaves a little room
// for the runtime; a change past it says why in PERFORMANCE.md.
const maxRollAllocs = 36

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
