package loadgen

import (
	"testing"
	"time"
)

// TestFanOutAcrossEpochs: a lane taken over by another node starts a new
// epoch, and the seq its spectators see jumps by 2^32. Following the jump
// keeps at most a window of seqs: walked seq by seq, it took the load tool
// minutes and gigabytes.
func TestFanOutAcrossEpochs(t *testing.T) {
	l := &lane{run: &run{cfg: Config{Spectators: 2}}, fan: map[uint64]*fanEntry{}}
	now := time.Now()
	l.spectatorSaw(0, 5, now)
	l.spectatorSaw(5, 1<<32|3, now)
	l.rollAcked(1<<32|3, now)
	if n := len(l.fan); n > fanWindow+1 {
		t.Errorf("the lane follows %d seqs, want at most %d", n, fanWindow+1)
	}
}
