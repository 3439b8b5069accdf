package lane

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tenpin/tenpin/protocol"
)

// writingConn is a memConn that is also a BoardWriter: it counts the
// boards the lane asked it to write itself, and those it queued, and the
// replies it was given with a board to write, and alone.
type writingConn struct {
	memConn
	written, queued       atomic.Int32
	withBoard, replyAlone atomic.Int32
}

func (w *writingConn) WriteBoard(b []byte, seq uint64, reply []byte) int {
	w.written.Add(1)
	skipped := w.memConn.Board(b, seq)
	if reply != nil {
		w.withBoard.Add(1)
		w.memConn.Reply(reply, seq)
	}
	return skipped
}

func (w *writingConn) Board(b []byte, seq uint64) int {
	w.queued.Add(1)
	return w.memConn.Board(b, seq)
}

func (w *writingConn) Reply(b []byte, seq uint64) {
	w.replyAlone.Add(1)
	w.memConn.Reply(b, seq)
}

func TestTheBowlersAckGoesWithTheBoardOfTheBall(t *testing.T) {
	l := New("lane", "lane", Config{})
	conns := []*writingConn{new(writingConn), new(writingConn)}
	var players []*Client
	for i, conn := range conns {
		c := &Client{l: l, conn: conn}
		l.handle(context.Background(), request{op: opAttach, c: c})
		l.send(c, fmt.Sprintf(`{"type":"join","name":"P%c%c"}`, 'A'+i, 'A'+i))
		players = append(players, c)
	}
	l.send(players[0], `{"type":"start"}`)
	for _, c := range conns {
		c.withBoard.Store(0)
		c.replyAlone.Store(0)
		(&Client{conn: &c.memConn}).take(nil)
	}

	l.send(players[0], l.roll(7, `,"id":"r1"`))
	if n := conns[0].withBoard.Load(); n != 1 {
		t.Errorf("the bowler was given %d replies with a board to write, want its ack", n)
	}
	if n := conns[0].replyAlone.Load(); n != 0 {
		t.Errorf("the bowler was queued %d replies apart from the board, want none", n)
	}
	if n := conns[1].withBoard.Load() + conns[1].replyAlone.Load(); n != 0 {
		t.Errorf("the other player was given %d replies, want none", n)
	}
	got := (&Client{conn: &conns[0].memConn}).take(nil)
	if len(got) != 2 || !got[0].board || got[1].board {
		t.Fatalf("the bowler's outbox holds %d messages, want the board, then the ack", len(got))
	}
	var ack protocol.Ack
	if err := json.Unmarshal(got[1].data, &ack); err != nil || ack.Type != protocol.TypeAck || ack.Ref != "r1" {
		t.Errorf("the bowler's reply = %s (%v), want the ack of r1", got[1].data, err)
	}
	var board protocol.Board
	if err := json.Unmarshal(got[0].data, &board); err != nil || ack.Seq != board.Seq {
		t.Errorf("the ack's seq %d, the board's %d (%v): want the same", ack.Seq, board.Seq, err)
	}
}

func TestLaneWritesABoardItselfToItsFirstClientsOnly(t *testing.T) {
	for _, watchers := range []int{10, DirectBoards + 50} {
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
			if want := min(watchers+1, DirectBoards); written < want-1 || written > want {
				t.Errorf("%d watchers: the lane wrote the board itself to %d of them, want %d (or %d)", watchers, written, want, want-1)
			}
			if written+queued != watchers {
				t.Errorf("%d watchers: %d boards written, %d queued; want one each", watchers, written, queued)
			}
		})
	}
}
