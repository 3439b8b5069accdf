package lane

import (
	"sync"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane/bowling"
)

// client is one connection attached to a lane, seen from the lane: an
// outbox the lane fills without ever blocking, and the seat the connection
// holds. The connection's writer goroutine drains the outbox.
type client struct {
	mu      sync.Mutex
	queue   []outgoing // waiting to be written, in order
	boards  int        // boards in queue
	skipped int        // boards dropped because the client fell behind

	wake chan struct{} // capacity 1: something was queued

	dropOnce    sync.Once
	dropped     chan struct{} // closed when the client must be disconnected
	closeStatus websocket.StatusCode
	closeReason string

	// Owned by the lane goroutine.
	seat bowling.Name // "" for a spectator
}

type outgoing struct {
	data  []byte
	board bool
}

func newClient() *client {
	return &client{wake: make(chan struct{}, 1), dropped: make(chan struct{})}
}

// sendBoard queues a board. A client that has fallen maxQueuedBoards behind
// loses its older boards: each board is a full snapshot, so the newest is
// all it needs. It reports how many boards were dropped.
func (c *client) sendBoard(b []byte) (skipped int) {
	c.mu.Lock()
	if c.boards >= maxQueuedBoards {
		kept := c.queue[:0]
		for _, m := range c.queue {
			if !m.board {
				kept = append(kept, m)
			}
		}
		clear(c.queue[len(kept):])
		skipped = c.boards
		c.skipped += skipped
		c.queue, c.boards = kept, 0
	}
	c.queue = append(c.queue, outgoing{data: b, board: true})
	c.boards++
	c.mu.Unlock()
	c.signal()
	return skipped
}

// sendReply queues an answer meant for this client alone. It reports false,
// and drops the client, when the client has let too many answers pile up.
func (c *client) sendReply(b []byte) bool {
	c.mu.Lock()
	over := len(c.queue)-c.boards >= maxQueuedReplies
	if !over {
		c.queue = append(c.queue, outgoing{data: b})
	}
	c.mu.Unlock()
	if over {
		c.drop(websocket.StatusPolicyViolation, "too many unread replies")
		return false
	}
	c.signal()
	return true
}

func (c *client) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// take empties the queue into buf and returns it.
func (c *client) take(buf []outgoing) []outgoing {
	c.mu.Lock()
	buf = append(buf, c.queue...)
	clear(c.queue)
	c.queue, c.boards = c.queue[:0], 0
	c.mu.Unlock()
	return buf
}

// drop asks the connection to close with the given status, after writing
// what is already queued. Only the first call counts.
func (c *client) drop(status websocket.StatusCode, reason string) {
	c.dropOnce.Do(func() {
		c.closeStatus, c.closeReason = status, reason
		close(c.dropped)
	})
}
