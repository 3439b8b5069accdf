package relay

import "sync/atomic"

// Publication publishes a lane's boards for the relays of other nodes,
// each board once however many relayed connections the lane has: every
// connection attached with it ([Attach]) hands it each board the lane
// gives that connection, and the first to hand a board on publishes it.
//
// It rides on the relayed connections, not on the lane, so that a lane no
// other node's client follows never calls it: the lane goroutine asks
// nothing of the cluster for each board, and a connection being attached
// cannot miss one (whatever the lane showed before it attached, its first
// board, sent on its own, is newer).
type Publication struct {
	publish func(board []byte, seq uint64)
	// seq is that of the newest board published. Boards come from the
	// lane goroutine alone, in order; it is atomic so that a misuse is a
	// lost board, never a race.
	seq atomic.Uint64
}

// NewPublication returns the publication of one lane's boards through
// publish, which is called on the lane goroutine and must not block.
func NewPublication(publish func(board []byte, seq uint64)) *Publication {
	return &Publication{publish: publish}
}

// board publishes a board the lane gave a relayed connection, unless it
// or a newer one was published already. A nil Publication publishes
// nothing.
func (p *Publication) board(board []byte, seq uint64) {
	if p == nil {
		return
	}
	for {
		last := p.seq.Load()
		if seq <= last {
			return
		}
		if p.seq.CompareAndSwap(last, seq) {
			p.publish(board, seq)
			return
		}
	}
}
