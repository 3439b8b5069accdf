package lane

import (
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane/bowling"
)

// client is one connection attached to a lane, seen from the lane: an
// outbox the lane fills without ever blocking, and the seat the connection
// holds.
//
// Nothing waits on an empty outbox: the first message queued starts a
// writer goroutine (see [client.writeOut]), which drains the outbox and
// exits. A connection at rest so costs one goroutine, its reader, however
// many connections a server holds.
type client struct {
	mu      sync.Mutex
	queue   []outgoing // waiting to be written, in order
	spare   []outgoing // the last batch written, emptied: the next queue
	boards  int        // boards in queue
	skipped int        // boards dropped because the client fell behind

	writing bool           // a writer goroutine owns the connection's writes
	ended   bool           // the connection is over: start no more writers
	dropped bool           // the connection must close, with closeStatus
	failed  error          // why the connection broke, if it did
	wg      sync.WaitGroup // writer goroutines
	pinger  *time.Timer    // the next ping

	closeStatus websocket.StatusCode
	closeReason string

	// conn is where writers write; nil for the in-memory clients of tests,
	// whose outbox is read with take. writeOutFn is c.writeOut, made once:
	// a go statement with a method call would allocate a closure a batch.
	conn       *Conn
	writeOutFn func()

	// sink, for a client connected to another node, carries what the
	// lane sends it (see AttachRemote); it has no conn.
	sink Sink

	// Owned by the lane goroutine.
	seat bowling.Name // "" for a spectator
}

type outgoing struct {
	data  []byte
	board bool
}

func newClient() *client { return &client{} }

// newConnClient returns a client whose outbox is written to conn.
func newConnClient(conn *Conn) *client {
	c := &client{conn: conn}
	c.writeOutFn = c.writeOut
	return c
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
	c.startWriterLocked()
	c.mu.Unlock()
	return skipped
}

// sendReply queues an answer meant for this client alone. It reports false,
// and drops the client, when the client has let too many answers pile up.
func (c *client) sendReply(b []byte) bool {
	c.mu.Lock()
	over := len(c.queue)-c.boards >= maxQueuedReplies
	if !over {
		c.queue = append(c.queue, outgoing{data: b})
		c.startWriterLocked()
	}
	c.mu.Unlock()
	if over {
		c.drop(websocket.StatusPolicyViolation, "too many unread replies")
		return false
	}
	return true
}

// drop asks the connection to close with the given status, after writing
// what is already queued. Only the first call counts.
func (c *client) drop(status websocket.StatusCode, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dropped {
		return
	}
	c.dropped, c.closeStatus, c.closeReason = true, status, reason
	if c.sink != nil {
		c.sink.Close(status, reason)
		return
	}
	c.startWriterLocked()
}

// startWriterLocked starts a writer goroutine unless one is running or the
// connection is over. c.mu is held.
func (c *client) startWriterLocked() {
	if c.conn == nil || c.writing || c.ended {
		return
	}
	c.writing = true
	c.wg.Add(1)
	go c.writeOutFn()
}

func (c *client) skippedCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.skipped
}
