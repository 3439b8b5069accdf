package lane

import (
	"sync"

	"github.com/tenpin/tenpin/protocol"
)

// memConn is a Conn kept in memory, for tests that drive a lane without a
// network: an outbox the test reads with take. It queues as a WebSocket's
// outbox does (package lane/ws), a slice under a mutex that keeps only the
// newest boards of a client that fell behind, so that the benchmarks
// weigh what a lane's fan-out costs on a server.
type memConn struct {
	mu      sync.Mutex
	queue   []outgoing
	boards  int // in queue
	dropped bool
	code    protocol.Code // why it was closed
}

type outgoing struct {
	data  []byte
	board bool
	seq   uint64 // the seq the lane gave with it: a board's, or the one a reply follows
}

// String is the message's text, as a test reports it.
func (o outgoing) String() string { return string(o.data) }

// lane/ws's maxQueuedBoards and maxQueuedReplies.
const memQueuedBoards, memQueuedReplies = 64, 64

func (m *memConn) Board(b []byte, seq uint64) (skipped int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.boards >= memQueuedBoards {
		kept := m.queue[:0]
		for _, o := range m.queue {
			if !o.board {
				kept = append(kept, o)
			}
		}
		clear(m.queue[len(kept):])
		skipped = m.boards
		// The new board ahead of the replies kept, as lane/ws does.
		kept = append(kept, outgoing{})
		copy(kept[1:], kept)
		kept[0] = outgoing{data: b, board: true, seq: seq}
		m.queue, m.boards = kept, 1
		return skipped
	}
	m.queue = append(m.queue, outgoing{data: b, board: true, seq: seq})
	m.boards++
	return 0
}

func (m *memConn) Reply(b []byte, seq uint64) {
	m.mu.Lock()
	if len(m.queue)-m.boards >= memQueuedReplies {
		m.mu.Unlock()
		m.Close(protocol.CodeRateLimited, "too many unread replies")
		return
	}
	m.queue = append(m.queue, outgoing{data: b, seq: seq})
	m.mu.Unlock()
}

func (m *memConn) Close(code protocol.Code, _ string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dropped {
		m.dropped, m.code = true, code
	}
}

// newClient returns a client of l on a memConn, not attached yet.
func newClient(l *Lane) *Client { return &Client{l: l, conn: new(memConn)} }

// take empties c's outbox into buf and returns it: what a writer would
// have written.
func (c *Client) take(buf []outgoing) []outgoing {
	m := c.conn.(*memConn)
	m.mu.Lock()
	defer m.mu.Unlock()
	buf = append(buf, m.queue...)
	clear(m.queue)
	m.queue, m.boards = m.queue[:0], 0
	return buf
}

// dropStatus reports whether c was closed, and with what code.
func (c *Client) dropStatus() (protocol.Code, bool) {
	m := c.conn.(*memConn)
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.code, m.dropped
}
