package ws

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/coder/websocket"
)

// take empties c's outbox into buf and returns it: what a writer would
// have written.
func (c *Conn) take(buf []outgoing) []outgoing {
	c.mu.Lock()
	buf = append(buf, c.queue...)
	clear(c.queue)
	c.queue, c.boards = c.queue[:0], 0
	c.mu.Unlock()
	return buf
}

func TestSlowClientKeepsOnlyRecentBoards(t *testing.T) {
	c := newConn() // an outbox alone: no writer takes from it
	for i := range 3 * maxQueuedBoards {
		c.Board([]byte(fmt.Sprint(i)), uint64(i))
		if i == 5 {
			c.Reply([]byte("reply"), uint64(i))
		}
	}
	q := c.take(nil)
	var boards, replies int
	for _, m := range q {
		if m.board {
			boards++
		} else {
			replies++
		}
	}
	if replies != 1 || boards > maxQueuedBoards || string(q[len(q)-1].data) != fmt.Sprint(3*maxQueuedBoards-1) {
		t.Errorf("queue after a flood: %d boards, %d replies, last %q", boards, replies, q[len(q)-1].data)
	}
	if c.skippedCount() == 0 {
		t.Error("no boards counted as skipped")
	}
	// The reply followed board 5: it still follows a board at least as
	// new, the boards before it dropped.
	newest := -1
	for _, m := range q {
		if m.board {
			fmt.Sscan(string(m.data), &newest)
		} else if newest < 5 {
			t.Errorf("the reply to board 5 comes after board %d at most", newest)
		}
	}
}

func TestClientWhoIgnoresRepliesIsDropped(t *testing.T) {
	c := newConn()
	for range maxQueuedReplies {
		c.Reply([]byte("x"), 0)
	}
	if c.dropped {
		t.Fatal("dropped before the limit")
	}
	c.Reply([]byte("x"), 0)
	if len(c.queue) != maxQueuedReplies {
		t.Errorf("a reply past the limit was queued: %d in the outbox, want %d", len(c.queue), maxQueuedReplies)
	}
	if !c.dropped || c.closeStatus != websocket.StatusPolicyViolation {
		t.Fatalf("client past the limit: dropped %v with %v, want StatusPolicyViolation", c.dropped, c.closeStatus)
	}
}

func BenchmarkQueueBoard(b *testing.B) {
	c := newConn()
	board := make([]byte, 1500)
	b.ReportAllocs()
	for b.Loop() {
		c.Board(board, 0)
		if c.boards == maxQueuedBoards {
			c.take(nil)
		}
	}
}

// BenchmarkBoardToSocket measures one board's way from a client's outbox
// to a real TCP socket: queueing it, starting a writer, framing it and the
// write itself.
func BenchmarkBoardToSocket(b *testing.B) {
	c := benchConn(b)
	board := bytes.Repeat([]byte("x"), 1172) // a mid-game board's size
	b.ReportAllocs()
	for b.Loop() {
		c.Board(board, 0)
		for c.busy() {
			runtime.Gosched()
		}
	}
	if f := c.failure(); f != nil {
		b.Fatal(f)
	}
}

// BenchmarkWriteBoard measures a board its lane writes to the socket
// itself (Conn.WriteBoard): framing it and the write, with no writer.
func BenchmarkWriteBoard(b *testing.B) {
	c := benchConn(b)
	board := bytes.Repeat([]byte("x"), 1172)
	b.ReportAllocs()
	for b.Loop() {
		c.WriteBoard(board, 0, nil)
		for c.busy() {
			runtime.Gosched()
		}
	}
	if f := c.failure(); f != nil {
		b.Fatal(f)
	}
}

// benchConn returns the server's side of a WebSocket connection over real
// TCP, whose far end discards what it reads with one buffer, so the
// allocations reported are the server side's. Its writers run on a
// poller's workers, as a server's do.
func benchConn(b testing.TB) *Conn {
	connc := make(chan *Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, nil)
		if err != nil {
			b.Error(err)
			return
		}
		connc <- conn
	}))
	b.Cleanup(srv.Close)
	nc := dialHandshake(b, srv)
	b.Cleanup(func() { nc.Close() })
	go io.Copy(io.Discard, nc)
	c := <-connc
	c.bc.setTimeout(WriteTimeout)
	p, err := NewPoller()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	p.track(c)
	return c
}

// busy reports whether a writer is at work on c's outbox.
func (c *Conn) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writing
}
