package nemesis

import (
	"testing"

	"github.com/tenpin/tenpin/protocol"
)

// TestAckedBallShows: a board of an ack's seq or later must show the
// acked ball, unless the lane has moved on to a later game.
func TestAckedBallShows(t *testing.T) {
	board := func(rolls [][]int, series int) *protocol.Board {
		b := &protocol.Board{Players: []protocol.Player{{Name: "AAA"}}}
		for _, r := range rolls {
			b.Players[0].Frames = append(b.Players[0].Frames, protocol.Frame{Rolls: r})
		}
		if series > 0 {
			b.Series = []protocol.SeriesPlayer{{Name: "AAA", Games: series}}
		}
		return b
	}
	acked := &ackedBall{seq: 7, game: 1, frame: 2, ball: 1}
	for _, tt := range []struct {
		name string
		b    *protocol.Board
		want bool
	}{
		{"the board shows the ball", board([][]int{{3, 4}, {5}}, 0), true},
		{"and a later one", board([][]int{{3, 4}, {5, 2}}, 0), true},
		{"a board without it", board([][]int{{3, 4}}, 0), false},
		{"the frame begun, not the ball", board([][]int{{3, 4}, {}}, 0), false},
		{"a later game", board(nil, 1), true},
	} {
		if got := acked.shows("AAA", tt.b); got != tt.want {
			t.Errorf("%s: shows = %v, want %v", tt.name, got, tt.want)
		}
	}
}
