package lane

import (
	"context"
	"fmt"
	"testing"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
)

// benchLane returns a lane with four seated players and spectators more
// in-memory clients (memConn: outboxes as a WebSocket's, which no writer
// empties), its game started.
func benchLane(b testing.TB, spectators int) (*Lane, []*Client) {
	return benchLaneOn(b, New("bench", "bench", Config{MaxSpectators: spectators + 1}), spectators)
}

func benchLaneOn(b testing.TB, l *Lane, spectators int) (*Lane, []*Client) {
	var players []*Client
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
func rollOnce(l *Lane, players []*Client, pins *int) { rollBy(l, players, pins, false) }

// rollBy is rollOnce, the roll given by its count or, if deck, by the
// pins it leaves standing (the lowest-numbered of those standing before
// it knocked down).
func rollBy(l *Lane, players []*Client, pins *int, deck bool) {
	seat, _, ok := l.state.Match().Up()
	if !ok {
		for _, t := range []protocol.Type{protocol.TypeRematch, protocol.TypeStart} {
			l.handle(context.Background(), request{op: opMessage, c: players[0], msg: &protocol.Request{Type: t}})
		}
		return
	}
	standing := l.state.Match().Players()[seat].Game.Standing()
	*pins = (*pins + 3) % (standing + 1)
	frame, ball := l.upGame().CurrentFrame(), l.upGame().Ball()
	msg := protocol.Request{Type: protocol.TypeRoll, Pins: pins, Frame: &frame, Ball: &ball, ID: "r"}
	if rack, ok := l.upGame().Rack(); deck && ok {
		left := rack.Pins()[*pins:]
		msg.Pins, msg.Deck = nil, &left
	}
	l.handle(context.Background(), request{op: opMessage, c: players[seat], msg: &msg})
}

// BenchmarkRollAndFanOut rolls by count, as the seeds' pad does, and by
// deck, the pins left standing, as the pin deck does (its boards then
// show up.deck and each frame's decks).
func BenchmarkRollAndFanOut(b *testing.B) {
	for _, n := range []int{0, 6, 100} {
		for _, deck := range []bool{false, true} {
			name := fmt.Sprintf("spectators=%d/count", n)
			if deck {
				name = fmt.Sprintf("spectators=%d/deck", n)
			}
			b.Run(name, func(b *testing.B) {
				l, players := benchLane(b, n)
				pins := 0
				b.ReportAllocs()
				for b.Loop() {
					rollBy(l, players, &pins, deck)
				}
				b.ReportMetric(float64(l.cfg.Metrics.BoardsSent.Load())/float64(b.N), "boards/op")
			})
		}
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

// BenchmarkBuildBoard builds a board mid-game: of balls entered by
// count, and (deck) of balls entered by the pins they left.
func BenchmarkBuildBoard(b *testing.B) {
	for _, deck := range []bool{false, true} {
		name := "count"
		if deck {
			name = "deck"
		}
		b.Run(name, func(b *testing.B) {
			l, players := benchLane(b, 0)
			pins := 0
			for range 40 { // mid-game: frames to encode
				rollBy(l, players, &pins, deck)
			}
			b.ReportAllocs()
			for b.Loop() {
				l.buildBoard()
			}
			b.ReportMetric(float64(len(l.BoardJSON())), "bytes/board")
		})
	}
}
