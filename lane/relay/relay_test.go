package relay

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/protocol"
)

// sent is what a recordingConn was given, in order.
type sent struct {
	board bool
	data  string
	seq   uint64
}

func (s sent) String() string {
	if s.board {
		return fmt.Sprintf("board %d", s.seq)
	}
	return fmt.Sprintf("reply %s after %d", s.data, s.seq)
}

// recordingConn is a lane.Conn that records what it is given; as a
// BoardWriter it counts the boards written at once apart.
type recordingConn struct {
	mu      sync.Mutex
	got     []sent
	written int
	closed  protocol.Code
}

func (c *recordingConn) Board(b []byte, seq uint64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, sent{board: true, data: string(b), seq: seq})
	return 0
}

func (c *recordingConn) WriteBoard(b []byte, seq uint64, reply []byte) int {
	c.mu.Lock()
	c.written++
	c.mu.Unlock()
	c.Board(b, seq)
	if reply != nil {
		c.Reply(reply, seq)
	}
	return 0
}

func (c *recordingConn) Reply(b []byte, seq uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, sent{data: string(b), seq: seq})
}

func (c *recordingConn) Close(code protocol.Code, _ string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed == "" {
		c.closed = code
	}
}

func (c *recordingConn) take() []sent {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.got
	c.got = nil
	return out
}

// attachingUp is an Upstream that takes every connection and keeps their
// numbers.
type attachingUp struct{ conns []uint64 }

func (u *attachingUp) Attach(_ context.Context, conn uint64) error {
	u.conns = append(u.conns, conn)
	return nil
}
func (u *attachingUp) Read(context.Context, uint64, []byte) error { return nil }
func (u *attachingUp) Detach(uint64)                              {}

func TestRelayWritesABoardItselfToItsFirstConnectionsOnly(t *testing.T) {
	for _, watchers := range []int{10, lane.DirectBoards + 50} {
		up := new(attachingUp)
		r := New("lane", up, lane.Config{})
		conns := make([]*recordingConn, watchers)
		for i := range conns {
			conns[i] = new(recordingConn)
			if _, ok := r.Attach(t.Context(), conns[i]); !ok {
				t.Fatal("the relay closed")
			}
		}
		for _, id := range up.conns {
			r.Deliver(id, []byte(`{"type":"board","seq":1}`), 1, true) // each its first board
		}
		for _, c := range conns {
			c.take()
			c.written = 0
		}

		r.Board([]byte(`{"type":"board","seq":2}`), 2)
		var written, given int
		for _, c := range conns {
			written += c.written
			given += len(c.take())
		}
		if want := min(watchers, lane.DirectBoards); written != want {
			t.Errorf("%d watchers: the relay wrote the board itself to %d of them, want %d", watchers, written, want)
		}
		if given != watchers {
			t.Errorf("%d watchers: %d boards given; want one each", watchers, given)
		}
		r.Close(protocol.CodeServerRestarting, "")
	}
}

// TestRemoteConnSendsItsOwnBoardsOnlyWhereNeeded: a relayed connection,
// on its lane's side, is sent on its own its first board, and the board
// a reply follows if it was not sent that one on its own; the boards of
// the fan-out between are left to the publication.
func TestRemoteConnSendsItsOwnBoardsOnlyWhereNeeded(t *testing.T) {
	steps := []struct {
		name  string
		do    func(r *remoteConn)
		wants []string
	}{
		{"a reply before any board", func(r *remoteConn) { r.Reply([]byte("refused"), 0) }, []string{"reply refused after 0"}},
		{"its first board", func(r *remoteConn) { r.Board([]byte("b1"), 1) }, []string{"board 1"}},
		{"a reply after it", func(r *remoteConn) { r.Reply([]byte("welcome"), 1) }, []string{"reply welcome after 1"}},
		{"the boards of the fan-out", func(r *remoteConn) { r.Board([]byte("b2"), 2); r.Board([]byte("b3"), 3) }, nil},
		{"an ack after them", func(r *remoteConn) { r.Reply([]byte("ack"), 3) }, []string{"board 3", "reply ack after 3"}},
		{"another reply", func(r *remoteConn) { r.Reply([]byte("error"), 3) }, []string{"reply error after 3"}},
		{"a board and its ack", func(r *remoteConn) { r.Board([]byte("b4"), 4); r.Reply([]byte("ack"), 4) }, []string{"board 4", "reply ack after 4"}},
		{"a reply after a board it was not given", func(r *remoteConn) { r.Reply([]byte("notice"), 5) }, []string{"reply notice after 5"}},
	}
	conn := new(recordingConn)
	r := &remoteConn{conn: conn}
	for _, s := range steps {
		s.do(r)
		got := conn.take()
		if fmt.Sprint(got) != fmt.Sprint(s.wants) {
			t.Errorf("%s: conn got %v, want %v", s.name, got, s.wants)
		}
	}
}
