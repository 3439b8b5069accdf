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

// TestANewEpochIsAFailover: a board of a new epoch says the lane was taken
// over, so a stale_roll answer to a roll in flight is no error (the dead
// node may have stored it); boards skipped within an epoch are counted,
// and a jump to a new epoch is not.
func TestANewEpochIsAFailover(t *testing.T) {
	for _, tt := range []struct {
		name     string
		seqs     []uint64
		failover bool
		skipped  int64
	}{
		{"boards of one epoch", []uint64{1, 2, 3}, false, 0},
		{"boards skipped", []uint64{1, 4}, false, 2},
		{"the lane taken over", []uint64{1<<32 | 7, 2<<32 | 1}, true, 0},
		{"the first board", []uint64{3<<32 | 1}, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &run{}
			c := &user{lane: &lane{run: r}}
			for _, seq := range tt.seqs {
				if _, ok := c.seen(seq); !ok {
					t.Fatalf("seq %d refused", seq)
				}
			}
			if c.failedOver() != tt.failover || r.skipped.Load() != tt.skipped {
				t.Errorf("after seqs %v: failover %v, skipped %d; want %v, %d", tt.seqs, c.failedOver(), r.skipped.Load(), tt.failover, tt.skipped)
			}
		})
	}
}
