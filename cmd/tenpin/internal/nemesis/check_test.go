package nemesis

import (
	"slices"
	"testing"

	"github.com/tenpin/tenpin/protocol"
)

func TestCheck(t *testing.T) {
	ball := func(game, frame, n int) Ball {
		return Ball{Lane: "l1", Game: game, Player: "AAA", Frame: frame, Ball: n}
	}
	roll := func(b Ball, pins int, o Outcome) Roll { return Roll{Ball: b, Pins: pins, Outcome: o} }
	tests := []struct {
		name   string
		rolls  []Roll
		stored Stored
		seqs   []SeqBack
		want   []string // the violations' kinds, in order
	}{
		{
			name:   "every acked roll stored",
			rolls:  []Roll{roll(ball(1, 1, 1), 3, Acked), roll(ball(1, 1, 2), 4, Acked)},
			stored: Stored{ball(1, 1, 1): 3, ball(1, 1, 2): 4},
		},
		{
			name:   "an unknown roll stored or not",
			rolls:  []Roll{roll(ball(1, 1, 1), 3, Acked), roll(ball(1, 1, 2), 4, Unknown), roll(ball(2, 1, 1), 5, Unknown)},
			stored: Stored{ball(1, 1, 1): 3, ball(1, 1, 2): 4},
		},
		{
			name:   "a retry after an unknown outcome: the acked one stored",
			rolls:  []Roll{roll(ball(1, 1, 1), 3, Unknown), roll(ball(1, 1, 1), 7, Acked)},
			stored: Stored{ball(1, 1, 1): 7},
		},
		{
			name:   "lost",
			rolls:  []Roll{roll(ball(1, 1, 1), 3, Acked), roll(ball(1, 1, 2), 4, Acked)},
			stored: Stored{ball(1, 1, 1): 3},
			want:   []string{"lost"},
		},
		{
			name:   "overwritten by an unknown roll, which the lane took instead",
			rolls:  []Roll{roll(ball(1, 1, 1), 3, Unknown), roll(ball(1, 1, 1), 7, Acked)},
			stored: Stored{ball(1, 1, 1): 3},
			want:   []string{"overwritten"},
		},
		{
			name:   "acked twice: the second shifted to the next ball",
			rolls:  []Roll{roll(ball(1, 1, 1), 3, Acked), roll(ball(1, 1, 1), 2, Acked)},
			stored: Stored{ball(1, 1, 1): 3, ball(1, 1, 2): 2},
			want:   []string{"acked twice", "overwritten", "invented"},
		},
		{
			name:   "duplicated",
			rolls:  []Roll{roll(ball(1, 1, 1), 3, Acked)},
			stored: Stored{ball(1, 1, 1): 3, ball(1, 1, 2): 3},
			want:   []string{"duplicated"},
		},
		{
			name:   "invented",
			rolls:  []Roll{roll(ball(1, 1, 1), 3, Acked)},
			stored: Stored{ball(1, 1, 1): 3, ball(1, 2, 1): 10},
			want:   []string{"invented"},
		},
		{
			name:   "refused but stored",
			rolls:  []Roll{roll(ball(1, 1, 1), 3, Refused)},
			stored: Stored{ball(1, 1, 1): 3},
			want:   []string{"refused but stored"},
		},
		{
			name:  "seq backwards",
			seqs:  []SeqBack{{Client: "lane 0.0 AAA", Last: 2<<32 | 5, Seq: 1<<32 | 9}},
			rolls: nil, stored: Stored{},
			want: []string{"seq backwards"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range Check(tt.rolls, tt.stored, tt.seqs) {
				got = append(got, v.Kind)
				t.Log(v)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("violations %q, want %q", got, tt.want)
			}
		})
	}
}

// TestStoredAddGames: the balls of a series as the API shows them, the
// tenth frame's third ball included.
func TestStoredAddGames(t *testing.T) {
	games := &protocol.Games{Games: []protocol.Game{
		{Game: 1, Finished: true, Players: []protocol.GamePlayer{{Name: "AAA", Frames: []protocol.Frame{
			{Rolls: []int{10}}, {Rolls: []int{3, 4}}, {}, {}, {}, {}, {}, {}, {}, {Rolls: []int{10, 10, 10}},
		}}}},
		{Game: 2, Players: []protocol.GamePlayer{{Name: "AAA", Frames: []protocol.Frame{{Rolls: []int{2}}}}}},
	}}
	s := Stored{}
	s.AddGames("l1", games)
	want := Stored{
		{"l1", 1, "AAA", 1, 1}: 10, {"l1", 1, "AAA", 2, 1}: 3, {"l1", 1, "AAA", 2, 2}: 4,
		{"l1", 1, "AAA", 10, 1}: 10, {"l1", 1, "AAA", 10, 2}: 10, {"l1", 1, "AAA", 10, 3}: 10,
		{"l1", 2, "AAA", 1, 1}: 2,
	}
	if len(s) != len(want) {
		t.Fatalf("%d balls %v, want %d %v", len(s), s, len(want), want)
	}
	for b, pins := range want {
		if got, ok := s[b]; !ok || got != pins {
			t.Errorf("%v: %d (%v), want %d", b, got, ok, pins)
		}
	}
}
