package lane

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
)

// benchLane returns a lane with four seated players and spectators more
// in-memory clients, its game started.
func benchLane(b *testing.B, spectators int) (*Lane, []*client) {
	return benchLaneOn(b, New("bench", "bench", Config{MaxSpectators: spectators + 1}), spectators)
}

func benchLaneOn(b *testing.B, l *Lane, spectators int) (*Lane, []*client) {
	var players []*client
	for i := range 4 {
		c := attach(l)
		l.send(c, fmt.Sprintf(`{"type":"join","name":"P%c%c"}`, 'A'+i, 'A'+i))
		players = append(players, c)
	}
	for range spectators {
		attach(l)
	}
	l.send(players[0], `{"type":"start"}`)
	return l, players
}

// rollOnce has whoever is up roll, rematching and starting again when
// the game ends: the lane's hot path from a decoded roll to the board in
// every outbox.
func rollOnce(l *Lane, players []*client, pins *int) {
	seat, _, ok := l.state.Match().Up()
	if !ok {
		for _, t := range []protocol.Type{protocol.TypeRematch, protocol.TypeStart} {
			l.handle(context.Background(), request{op: opMessage, c: players[0], msg: protocol.Request{Type: t}})
		}
		return
	}
	standing := l.state.Match().Players()[seat].Game.Standing()
	*pins = (*pins + 3) % (standing + 1)
	frame, ball := l.upGame().CurrentFrame(), l.upGame().Ball()
	l.handle(context.Background(), request{op: opMessage, c: players[seat], msg: protocol.Request{Type: protocol.TypeRoll, Pins: pins, Frame: &frame, Ball: &ball, ID: "r"}})
}

func BenchmarkRollAndFanOut(b *testing.B) {
	for _, n := range []int{0, 6, 100} {
		b.Run(fmt.Sprintf("spectators=%d", n), func(b *testing.B) {
			l, players := benchLane(b, n)
			pins := 0
			b.ReportAllocs()
			for b.Loop() {
				rollOnce(l, players, &pins)
			}
			b.ReportMetric(float64(l.cfg.Metrics.BoardsSent.Load())/float64(b.N), "boards/op")
		})
	}
}

// BenchmarkRollStored is BenchmarkRollAndFanOut with 6 spectators, each
// roll stored first in memory: the encoding's cost. Its twin in
// stored_test.go stores in the embedded JetStream.
func BenchmarkRollStored(b *testing.B) {
	b.Run("journal=memory", func(b *testing.B) { benchRollStored(b, memjournal.New()) })
}

// benchRollStored is BenchmarkRollStored's loop on the journal j.
func benchRollStored(b *testing.B, j game.Journal) {
	open, err := Open(context.Background(), "bench", "bench", Config{MaxSpectators: 7, Journal: j})
	if err != nil {
		b.Fatal(err)
	}
	l, players := benchLaneOn(b, open, 6)
	pins := 0
	b.ReportAllocs()
	for b.Loop() {
		rollOnce(l, players, &pins)
	}
	b.ReportMetric(float64(l.cfg.Metrics.Appends.Load())/float64(b.N), "appends/op")
}

func BenchmarkBuildBoard(b *testing.B) {
	l, players := benchLane(b, 0)
	pins := 0
	for range 40 { // mid-game: frames to encode
		rollOnce(l, players, &pins)
	}
	b.ReportAllocs()
	for b.Loop() {
		l.buildBoard()
	}
	b.ReportMetric(float64(len(l.BoardJSON())), "bytes/board")
}

func BenchmarkQueueBoard(b *testing.B) {
	c := newClient()
	board := make([]byte, 1500)
	b.ReportAllocs()
	for b.Loop() {
		c.sendBoard(board)
		if c.boards == maxQueuedBoards {
			c.take(nil)
		}
	}
}

// BenchmarkBoardToSocket measures one board's way from a client's outbox
// to a real TCP socket: queueing it, starting a writer, framing it and the
// write itself. The far end discards what it reads with one buffer, so
// the allocations reported are the server side's.
func BenchmarkBoardToSocket(b *testing.B) {
	connc := make(chan *Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, nil)
		if err != nil {
			b.Error(err)
			return
		}
		connc <- conn
	}))
	defer srv.Close()
	nc, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	fmt.Fprintf(nc, "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
	go io.Copy(io.Discard, nc)
	conn := <-connc
	conn.bc.setTimeout(WriteTimeout)
	c := newConnClient(conn)
	board := bytes.Repeat([]byte("x"), 1172) // a mid-game board's size

	b.ReportAllocs()
	for b.Loop() {
		c.sendBoard(board)
		for c.busy() {
			runtime.Gosched()
		}
	}
	if f := c.failure(); f != nil {
		b.Fatal(f)
	}
}

// busy reports whether a writer is at work on c's outbox.
func (c *client) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writing
}
