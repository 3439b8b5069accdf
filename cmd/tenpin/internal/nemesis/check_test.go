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

// TestCheckHistories: a remembered player's history must hold every game
// of the sheet they bowled to the end, once the game is over, once and
// with the sheet's score — the game in play included once it is over —
// and nothing else.
func TestCheckHistories(t *testing.T) {
	// frames returns ten frames of 3s and 4s (70), the tenth of balls.
	frames := func(tenth ...int) []protocol.Frame {
		f := make([]protocol.Frame, 10)
		for i := range 9 {
			f[i].Rolls = []int{3, 4}
		}
		f[9].Rolls = tenth
		return f
	}
	done := protocol.GamePlayer{Name: "AAA", Frames: frames(3, 4), Total: 70}
	spared := protocol.GamePlayer{Name: "BBB", Frames: frames(5, 5, 2), Total: 75}
	bowling := protocol.GamePlayer{Name: "BBB", Frames: frames(5, 5), Total: 73}
	sheets := map[string]*protocol.Games{"l1": {Games: []protocol.Game{
		{Game: 1, Finished: true, Players: []protocol.GamePlayer{done, spared}},
		{Game: 2, Finished: true, Players: []protocol.GamePlayer{done, spared}},
		{Game: 3, Players: []protocol.GamePlayer{done, spared}},  // in play, over
		{Game: 4, Players: []protocol.GamePlayer{done, bowling}}, // in play, BBB bowling their tenth
	}}}
	game := func(n, score int) protocol.BowlerGame { return protocol.BowlerGame{Lane: "l1", Game: n, Score: score} }
	history := func(player string, games ...protocol.BowlerGame) History {
		return History{Remembered: Remembered{Lane: "l1", Player: player}, Games: games}
	}
	tests := []struct {
		name    string
		history History
		want    []string
	}{
		{"every game over, once", history("AAA", game(3, 70), game(2, 70), game(1, 70)), nil},
		{"a spare in the tenth", history("BBB", game(3, 75), game(2, 75), game(1, 75)), nil},
		{"missing", history("AAA", game(3, 70), game(1, 70)), []string{"history missing"}},
		{"the game in play, over, missing", history("AAA", game(2, 70), game(1, 70)), []string{"history missing"}},
		{"doubled", history("AAA", game(3, 70), game(2, 70), game(2, 70), game(1, 70)), []string{"history doubled"}},
		{"wrong", history("AAA", game(3, 70), game(2, 71), game(1, 70)), []string{"history wrong"}},
		{"a game not over", history("AAA", game(4, 70), game(3, 70), game(2, 70), game(1, 70)), []string{"history invented"}},
		{"another lane's", history("AAA", protocol.BowlerGame{Lane: "l2", Game: 1}, game(3, 70), game(2, 70), game(1, 70)), []string{"history invented"}},
		{"a lane not read", History{Remembered: Remembered{Lane: "l9", Player: "AAA"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range CheckHistories(sheets, []History{tt.history}) {
				got = append(got, v.Kind)
				t.Log(v)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("violations %q, want %q", got, tt.want)
			}
		})
	}
}
