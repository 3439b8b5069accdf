package lobby

import "testing"

// TestCompaction: a compaction's mark lags one round behind: each round
// may drop what the one before it marked, the first nothing; and a round
// is skipped while nothing was appended since the last one ended.
func TestCompaction(t *testing.T) {
	var c compaction
	for i, st := range []struct {
		appends    int64  // counted before the round
		idle       bool   // whether the round is skipped
		next       uint64 // what the round marks, if it runs
		wantBefore uint64 // what it may drop
	}{
		{appends: 0, idle: true},                // nothing stored yet
		{appends: 5, next: 6, wantBefore: 0},    // the first round drops nothing
		{appends: 5, idle: true},                // nothing since: skipped
		{appends: 9, next: 10, wantBefore: 6},   // drops what the first replaced
		{appends: 12, next: 8, wantBefore: 10},  // a lane failed: the mark goes back
		{appends: 13, next: 14, wantBefore: 8},  // and holds this round back
		{appends: 13, idle: true},               // skipped again
		{appends: 20, next: 21, wantBefore: 14}, // on
	} {
		if got := c.idle(st.appends); got != st.idle {
			t.Fatalf("round %d: idle(%d) = %v, want %v", i, st.appends, got, st.idle)
		}
		if st.idle {
			continue
		}
		end := c.round()
		if got := c.advance(st.next); got != st.wantBefore {
			t.Errorf("round %d: advance(%d) = %d, want %d", i, st.next, got, st.wantBefore)
		}
		c.ended(st.appends)
		end()
	}
}
