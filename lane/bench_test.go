package lane

import (
	"fmt"
	"testing"

	"github.com/tenpin/tenpin/protocol"
)

// benchLane returns a lane with four seated players and spectators more
// in-memory clients, its game started.
func benchLane(b *testing.B, spectators int) (*Lane, []*client) {
	l := New("bench", "bench", Config{MaxSpectators: spectators + 1})
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

// rollOnce has whoever is up roll, rematching when the game ends: the
// lane's hot path from a decoded roll to the board in every outbox.
func rollOnce(l *Lane, players []*client, pins *int) {
	seat, _, ok := l.state.Match().Up()
	if !ok {
		l.handle(request{op: opMessage, c: players[0], msg: protocol.Request{Type: protocol.TypeRematch}})
		return
	}
	standing := l.state.Match().Players()[seat].Game.Standing()
	*pins = (*pins + 3) % (standing + 1)
	l.handle(request{op: opMessage, c: players[seat], msg: protocol.Request{Type: protocol.TypeRoll, Pins: pins, ID: "r"}})
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

func BenchmarkBuildBoard(b *testing.B) {
	l, players := benchLane(b, 0)
	pins := 0
	for range 40 { // mid-game: frames to encode
		rollOnce(l, players, &pins)
	}
	b.ReportAllocs()
	for b.Loop() {
		l.publish()
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
