package lane

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
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
