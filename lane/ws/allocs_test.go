package ws

import (
	"bytes"
	"runtime"
	"testing"
)

// TestBoardAllocs: a board's way to a watcher allocates nothing — queued
// in its outbox, and written by a writer, or by its lane, to a real TCP
// socket. The broadcast path runs once per watcher per board: an
// allocation added there is thousands a second on a busy server.
// Allocations are deterministic where time is not, so this is a test
// (BenchmarkQueueBoard, BenchmarkBoardToSocket and BenchmarkWriteBoard
// measure the time); the race detector's own allocations would count,
// so it runs without it (.ci/run runs it so).
func TestBoardAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates: counted without it")
	}
	board := bytes.Repeat([]byte("x"), 1172) // a mid-game board's size
	queued := newConn()
	socket := benchConn(t)
	for _, tt := range []struct {
		what string
		f    func()
	}{
		{"a board queued", func() {
			queued.Board(board, 0)
			if queued.boards == maxQueuedBoards {
				queued.take(nil)
			}
		}},
		{"a board written by a writer", func() {
			socket.Board(board, 0)
			for socket.busy() {
				runtime.Gosched()
			}
		}},
		{"a board written by its lane", func() {
			socket.WriteBoard(board, 0, nil)
			for socket.busy() {
				runtime.Gosched()
			}
		}},
	} {
		tt.f() // buffers sized and pooled
		if n := testing.AllocsPerRun(200, tt.f); n != 0 {
			t.Errorf("%s: %v allocations, want none", tt.what, n)
		}
	}
	if f := socket.failure(); f != nil {
		t.Fatal(f)
	}
}
