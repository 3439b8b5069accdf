package lane

import (
	"testing"
	"time"
)

// tenureAt returns a tenure in state s, holding epoch 3; claiming, its
// claim is of epoch 4.
func tenureAt(s tenureState) *tenure {
	t := &tenure{epoch: 3}
	if s == claiming {
		t.claiming = 4
	}
	t.set(s)
	return t
}

// TestTenureTransitions walks every transition of the tenure's table
// (see the package documentation), and those the table does not list,
// which must leave the tenure as it is.
func TestTenureTransitions(t *testing.T) {
	later := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type event struct {
		name string
		do   func(*tenure) bool // what it reports, if anything
	}
	var (
		wake       = event{"wake", func(t *tenure) bool { t.wake(); return false }}
		lose       = event{"lose", func(t *tenure) bool { t.lose(); return false }}
		fail       = event{"fail", func(t *tenure) bool { t.fail(later); return false }}
		readSame   = event{"caughtUp(3)", func(t *tenure) bool { return t.caughtUp(3, false) }}
		readLater  = event{"caughtUp(4)", func(t *tenure) bool { return t.caughtUp(4, false) }}
		readOwn    = event{"caughtUp(4, own)", func(t *tenure) bool { return t.caughtUp(4, true) }}
		readOwnOld = event{"caughtUp(3, own)", func(t *tenure) bool { return t.caughtUp(3, true) }}
		claim      = event{"claim(4)", func(t *tenure) bool { return t.claim(4) }}
		took       = event{"took", func(t *tenure) bool { t.took(); return false }}
	)
	for _, tt := range []struct {
		from     tenureState
		on       event
		to       tenureState
		reports  bool   // what the event reports: caughtUp took, claim sent
		epoch    uint64 // held after
		claiming uint64 // after
		retryAt  time.Time
	}{
		// The table.
		{from: holding, on: lose, to: behind, epoch: 3},
		{from: holding, on: wake, to: woken, epoch: 3},
		{from: holding, on: readLater, to: moved, epoch: 3},
		{from: behind, on: lose, to: behind, epoch: 3},
		{from: behind, on: wake, to: woken, epoch: 3},
		{from: behind, on: fail, to: behind, epoch: 3, retryAt: later},
		{from: behind, on: readSame, to: holding, epoch: 3},
		{from: behind, on: readLater, to: moved, epoch: 3},
		{from: woken, on: lose, to: woken, epoch: 3},
		{from: woken, on: wake, to: woken, epoch: 3},
		{from: woken, on: fail, to: woken, epoch: 3, retryAt: later},
		{from: woken, on: readSame, to: unclaimed, epoch: 3},
		{from: woken, on: readLater, to: moved, epoch: 3},
		{from: woken, on: readOwn, to: moved, epoch: 3}, // a claim of 4 it never sent: another process of its name
		{from: unclaimed, on: claim, to: claiming, reports: true, epoch: 3, claiming: 4},
		{from: unclaimed, on: wake, to: woken, epoch: 3},
		{from: unclaimed, on: lose, to: woken, epoch: 3},
		{from: unclaimed, on: fail, to: woken, epoch: 3, retryAt: later},
		{from: unclaimed, on: readLater, to: moved, epoch: 3},
		{from: claiming, on: took, to: holding, epoch: 4},
		{from: claiming, on: readOwn, to: holding, reports: true, epoch: 4},
		{from: claiming, on: readSame, to: unclaimed, epoch: 3},
		{from: claiming, on: readLater, to: moved, epoch: 3, claiming: 4}, // another server's claim of 4
		{from: claiming, on: lose, to: claiming, epoch: 3, claiming: 4},
		{from: claiming, on: fail, to: claiming, epoch: 3, claiming: 4, retryAt: later},
		{from: claiming, on: wake, to: claiming, epoch: 3, claiming: 4}, // its claim may land: it must know it for its own

		// Not in the table: nothing changes.
		{from: holding, on: fail, to: holding, epoch: 3},
		{from: holding, on: readSame, to: holding, epoch: 3},
		{from: holding, on: readOwnOld, to: holding, epoch: 3},
		{from: holding, on: claim, to: holding, epoch: 3},
		{from: holding, on: took, to: holding, epoch: 3},
		{from: behind, on: claim, to: behind, epoch: 3},
		{from: behind, on: took, to: behind, epoch: 3},
		{from: woken, on: claim, to: woken, epoch: 3},
		{from: woken, on: took, to: woken, epoch: 3},
		{from: unclaimed, on: readSame, to: unclaimed, epoch: 3},
		{from: unclaimed, on: took, to: unclaimed, epoch: 3},
		{from: claiming, on: claim, to: claiming, epoch: 3, claiming: 4},
		{from: moved, on: lose, to: moved, epoch: 3},
		{from: moved, on: wake, to: moved, epoch: 3},
		{from: moved, on: fail, to: moved, epoch: 3},
		{from: moved, on: readSame, to: moved, epoch: 3},
		{from: moved, on: readLater, to: moved, epoch: 3},
		{from: moved, on: claim, to: moved, epoch: 3},
		{from: moved, on: took, to: moved, epoch: 3},
	} {
		t.Run(tt.from.String()+"/"+tt.on.name, func(t *testing.T) {
			tn := tenureAt(tt.from)
			if got := tt.on.do(tn); got != tt.reports {
				t.Errorf("%s reported %v, want %v", tt.on.name, got, tt.reports)
			}
			if got := tn.now(); got != tt.to {
				t.Errorf("%s from %s: now %s, want %s", tt.on.name, tt.from, got, tt.to)
			}
			if tn.epoch != tt.epoch || tn.claiming != tt.claiming {
				t.Errorf("%s from %s: epoch %d, claiming %d; want %d, %d", tt.on.name, tt.from, tn.epoch, tn.claiming, tt.epoch, tt.claiming)
			}
			if !tn.retryAt.Equal(tt.retryAt) {
				t.Errorf("%s from %s: retryAt %v, want %v", tt.on.name, tt.from, tn.retryAt, tt.retryAt)
			}
		})
	}
}

// TestTenureWakeReadsAtOnce: a wake is a new reason to read the log, and
// lifts the pause after a failed read.
func TestTenureWakeReadsAtOnce(t *testing.T) {
	now := time.Now()
	for _, s := range []tenureState{behind, woken, claiming} {
		tn := tenureAt(s)
		tn.fail(now.Add(time.Second))
		if tn.mayRead(now) {
			t.Errorf("%s: mayRead during the pause after a failed read", s)
		}
		tn.wake()
		if !tn.mayRead(now) {
			t.Errorf("%s: woken, mayRead = false, want true", s)
		}
	}
}

// TestTenureAnswers: what the lane may do in each state.
func TestTenureAnswers(t *testing.T) {
	for _, tt := range []struct {
		s                tenureState
		decide, show     bool
		retries, isMoved bool
	}{
		{s: holding, decide: true, show: true},
		{s: behind, show: true}, // its boards are its own: it holds its epoch
		{s: woken, retries: true},
		{s: unclaimed, retries: true},
		{s: claiming, retries: true},
		{s: moved, isMoved: true},
	} {
		tn := tenureAt(tt.s)
		if got := tn.mayDecide(); got != tt.decide {
			t.Errorf("%s: mayDecide() = %v, want %v", tt.s, got, tt.decide)
		}
		if got := tn.mayShow(); got != tt.show {
			t.Errorf("%s: mayShow() = %v, want %v", tt.s, got, tt.show)
		}
		if got := tn.moved(); got != tt.isMoved {
			t.Errorf("%s: moved() = %v, want %v", tt.s, got, tt.isMoved)
		}
		if got := tn.armRetry(); got != tt.retries {
			t.Errorf("%s: armRetry() = %v, want %v", tt.s, got, tt.retries)
		}
		if tt.retries {
			if tn.armRetry() {
				t.Errorf("%s: armRetry() armed a second try before the first came", tt.s)
			}
			tn.retried()
			if !tn.armRetry() {
				t.Errorf("%s: armRetry() after the try came = false, want true", tt.s)
			}
		}
	}
}

// TestTenureLostClaim: the life of a woken lane whose claim lands but
// whose answer is lost, and whose first read back fails: it takes the
// lane up when it reads its own claim back, and never counts it as
// another server's.
func TestTenureLostClaim(t *testing.T) {
	tn := tenureAt(holding)
	now := time.Now()
	steps := []struct {
		do   func()
		want tenureState
	}{
		{tn.wake, woken},
		{func() { tn.caughtUp(3, false) }, unclaimed},
		{func() { tn.claim(4) }, claiming},
		{tn.lose, claiming},
		{func() { tn.fail(now.Add(time.Second)) }, claiming},
		{func() { tn.caughtUp(4, true) }, holding},
	}
	for i, s := range steps {
		s.do()
		if got := tn.now(); got != s.want {
			t.Fatalf("step %d: now %s, want %s", i, got, s.want)
		}
	}
	if tn.epoch != 4 || tn.claiming != 0 {
		t.Errorf("epoch %d, claiming %d; want 4, 0", tn.epoch, tn.claiming)
	}
	if tn.caughtUp(4, false); tn.now() != holding {
		t.Errorf("its own epoch read back again: now %s, want holding", tn.now())
	}
}
