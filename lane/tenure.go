package lane

import (
	"strconv"
	"sync/atomic"
	"time"
)

// tenure is a lane's hold on its log: whether the lane may decide (store
// an event it decided) and whether it may show a board, as its appends,
// its reads of the log and its server's pauses tell it. The package
// documentation has its table of states and transitions.
//
// The lane goroutine alone makes its transitions. mayShow and wakes are
// safe on any goroutine: a relay's node asks the lane for its board
// (Lane.Board) on its own.
type tenure struct {
	state atomic.Uint32 // a tenureState
	// wakes is Config.Wakes when the lane last looked: a count that moved
	// since means its server was found paused (see Lane.checkWakes).
	wakes atomic.Uint64

	epoch    uint64    // the epoch the lane holds: a later claim in the log is another server's
	claiming uint64    // while claiming: the epoch of the claim whose outcome is unknown
	retryAt  time.Time // a read back, or a claim, failed: not before then again
	retrying bool      // a try is armed, for a lane that must try on its own: see Lane.retryLater
}

// tenureState is where a lane's tenure is: see the package documentation.
type tenureState uint32

const (
	// holding: the lane holds its epoch, and its state is in step with
	// its log.
	holding tenureState = iota
	// behind: an append's outcome is unknown: the log may hold it. The
	// lane reads the log back before it decides again.
	behind
	// woken: the lane's server was found paused, long enough for another
	// to take the lane over. The lane reads its log back, then claims
	// the lane again, before it decides or shows a board: its board may
	// be older than another server's.
	woken
	// unclaimed: a woken lane read its log back, and found no other
	// server's claim: it claims the lane.
	unclaimed
	// claiming: a woken lane's claim is on its way, or its outcome is
	// unknown: the lane reads its log back to learn which.
	claiming
	// moved: the log holds another server's later claim. The lane stops.
	moved
)

func (s tenureState) String() string {
	switch s {
	case holding:
		return "holding"
	case behind:
		return "behind"
	case woken:
		return "woken"
	case unclaimed:
		return "unclaimed"
	case claiming:
		return "claiming"
	case moved:
		return "moved"
	}
	return "tenureState(" + strconv.FormatUint(uint64(s), 10) + ")"
}

// now returns the tenure's state.
func (t *tenure) now() tenureState { return tenureState(t.state.Load()) }

func (t *tenure) set(s tenureState) { t.state.Store(uint32(s)) }

// mayDecide reports whether the lane may decide a command, and store the
// event: only while it holds its epoch, in step with its log. In any
// other state, but moved, it reads its log back first (see Lane.sync).
func (t *tenure) mayDecide() bool { return t.now() == holding }

// mayShow reports whether the lane may show a board, and acknowledge a
// command with its seq. Not after its server was found paused, until it
// has claimed the lane again: another server may have shown later boards
// meanwhile, whose seq the lane's would take back. Nor once it moved.
// Safe on any goroutine.
func (t *tenure) mayShow() bool {
	s := t.now()
	return s == holding || s == behind
}

// moved reports whether another server holds the lane.
func (t *tenure) moved() bool { return t.now() == moved }

// mayRead reports whether the lane may read its log back at now: not
// before the pause after a read, or a claim, that failed is over.
func (t *tenure) mayRead(now time.Time) bool { return !now.Before(t.retryAt) }

// Each transition below is one event of the table in the package
// documentation. One that the table does not list for the tenure's state
// leaves the tenure as it is.

// lose: an append had no answer, and may have landed.
func (t *tenure) lose() {
	switch t.now() {
	case holding:
		t.set(behind)
	case unclaimed:
		t.set(woken) // not sent by the lane: only a claim is appended, from claiming
	}
}

// wake: the lane's server was found paused (see Lane.checkWakes), or the
// lobby woke the lane (see Lane.Wake). A claim on
// its way stays on its way: reading it back later, the lane must know it
// for its own.
func (t *tenure) wake() {
	switch t.now() {
	case holding, behind, unclaimed:
		t.set(woken)
	case woken, claiming:
	default:
		return
	}
	t.retryAt = time.Time{} // a new reason to read: at once
}

// fail: a read back, or a claim, failed; the lane may read again from
// until.
func (t *tenure) fail(until time.Time) {
	switch t.now() {
	case behind, woken, claiming:
	case unclaimed:
		t.set(woken)
	default:
		return
	}
	t.retryAt = until
}

// caughtUp: a read back of the log succeeded. epoch is the latest claim's
// in the log (its state's epoch, once the lane applied what it read),
// and own whether what it read holds this server's claim of that epoch:
// a claim whose answer was lost lands in the log all the same. It
// reports whether the lane took its epoch up so (see took).
func (t *tenure) caughtUp(epoch uint64, own bool) (took bool) {
	switch s := t.now(); {
	case s == moved:
	case s == claiming && epoch == t.claiming && own:
		t.took()
		return true
	case epoch > t.epoch:
		t.set(moved)
	case s == behind:
		t.set(holding)
	case s == woken || s == claiming:
		t.claiming = 0
		t.set(unclaimed) // not in the log: claim again
	}
	return false
}

// claim: the lane sends its claim of epoch. It reports false, and changes
// nothing, unless the lane is unclaimed: a claim must be fenced by a log
// the lane has just read back.
func (t *tenure) claim(epoch uint64) bool {
	if t.now() != unclaimed {
		return false
	}
	t.claiming = epoch
	t.set(claiming)
	return true
}

// took: the lane's claim is stored. Its epoch is the one the lane holds.
func (t *tenure) took() {
	if t.now() != claiming {
		return
	}
	t.epoch, t.claiming = t.claiming, 0
	t.set(holding)
}

// armRetry reports whether the lane must arm a try of its own to read
// its log back, and marks one armed: a woken lane's clients may all have
// gone elsewhere, and with no message to make it read, it would never
// learn that it moved (see Lane.retryLater). A lane merely behind waits
// for its next message.
func (t *tenure) armRetry() bool {
	switch t.now() {
	case woken, unclaimed, claiming:
	default:
		return false
	}
	if t.retrying {
		return false
	}
	t.retrying = true
	return true
}

// retried: the armed try came.
func (t *tenure) retried() { t.retrying = false }
