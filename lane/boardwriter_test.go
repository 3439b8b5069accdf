package lane

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tenpin/tenpin/protocol"
)

// writingConn is a memConn that is also a BoardWriter: it counts the
// boards the lane asked it to write itself, and those it queued.
type writingConn struct {
	memConn
	written, queued atomic.Int32
}

func (w *writingConn) WriteBoard(b []byte, seq uint64) int {
	w.written.Add(1)
	return w.memConn.Board(b, seq)
}

func (w *writingConn) Board(b []byte, seq uint64) int {
	w.queued.Add(1)
	return w.memConn.Board(b, seq)
}

func TestLaneWritesABoardItselfToItsFirstClientsOnly(t *testing.T) {
	for _, watchers := range []int{10, directBoards + 50} {
		synctest.Test(t, func(t *testing.T) {
			l := New("lane", "lane", Config{MaxSpectators: 1000})
			defer runLane(l)()
			attach := func() *writingConn {
				c := new(writingConn)
				if _, ok := l.Attach(t.Context(), c); !ok {
					t.Fatal("the lane stopped")
				}
				return c
			}
			conns := make([]*writingConn, watchers)
			for i := range conns {
				conns[i] = attach()
			}
			time.Sleep(presenceMost) // every arrival shown
			synctest.Wait()
			for _, c := range conns {
				c.written.Store(0)
				c.queued.Store(0)
				(&Client{conn: &c.memConn}).take(nil)
			}

			attach() // shown to the others at once, in one board
			synctest.Wait()
			var written, queued int
			for _, c := range conns {
				written += int(c.written.Load())
				queued += int(c.queued.Load())
			}
			if got := boards(t, &Client{conn: &conns[0].memConn}); len(got) != 1 {
				t.Fatalf("%d watchers: an arrival sent the first %d boards, want 1", watchers, len(got))
			}
			// The newcomer is one of the board's clients, and may be among
			// the first.
			if want := min(watchers+1, directBoards); written < want-1 || written > want {
				t.Errorf("%d watchers: the lane wrote the board itself to %d of them, want %d (or %d)", watchers, written, want, want-1)
			}
			if written+queued != watchers {
				t.Errorf("%d watchers: %d boards written, %d queued; want one each", watchers, written, queued)
			}
		})
	}
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
	for _, watchers := range []int{10, directBoards + 50} {
		up := new(attachingUp)
		r := NewRelay("lane", up, Config{})
		conns := make([]*writingConn, watchers)
		for i := range conns {
			conns[i] = new(writingConn)
			if _, ok := r.Attach(t.Context(), conns[i]); !ok {
				t.Fatal("the relay closed")
			}
		}
		for _, id := range up.conns {
			r.Deliver(id, []byte(`{"type":"board","seq":1}`), 1, true) // each its first board
		}
		for _, c := range conns {
			c.written.Store(0)
			c.queued.Store(0)
		}

		r.Board([]byte(`{"type":"board","seq":2}`), 2)
		var written, queued int
		for _, c := range conns {
			written += int(c.written.Load())
			queued += int(c.queued.Load())
		}
		if want := min(watchers, directBoards); written != want {
			t.Errorf("%d watchers: the relay wrote the board itself to %d of them, want %d", watchers, written, want)
		}
		if written+queued != watchers {
			t.Errorf("%d watchers: %d boards written, %d queued; want one each", watchers, written, queued)
		}
		r.Close(protocol.CodeServerRestarting, "")
	}
}
