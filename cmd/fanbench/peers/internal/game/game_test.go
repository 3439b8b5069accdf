package game

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRoll(t *testing.T) {
	tests := []struct {
		name    string
		players int
		rolls   []int
		want    Turn
	}{
		{"first ball", 2, []int{3}, Turn{"playing", 0, 1, 1, 7}},
		{"open frame passes the turn", 2, []int{3, 4}, Turn{"playing", 1, 1, 0, 10}},
		{"strike passes the turn", 2, []int{10}, Turn{"playing", 1, 1, 0, 10}},
		{"spare passes the turn", 2, []int{0, 10}, Turn{"playing", 1, 1, 0, 10}},
		{"last seat's turn ends the frame", 2, []int{10, 10}, Turn{"playing", 0, 2, 0, 10}},
		{"ten frames end the game", 1, []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 1, 2}, Turn{"finished", 0, 11, 0, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := New()
			got.Start()
			for _, pins := range tt.rolls {
				got.Roll(pins, tt.players)
			}
			if got != tt.want {
				t.Errorf("after %v: %+v, want %+v", tt.rolls, got, tt.want)
			}
		})
	}
}

func TestBoard(t *testing.T) {
	playing := New()
	playing.Start()
	playing.Roll(3, 4)
	tests := []struct {
		turn   Turn
		prefix string
	}{
		{New(), `{"type":"board","lane":"k3x9","name":"Friday","seq":7,"phase":"waiting","up":null,"players":[{"name":"AAA",`},
		{playing, `{"type":"board","lane":"k3x9","name":"Friday","seq":7,"phase":"playing","up":{"seat":0,"frame":1,"standing":7},"players":[{"name":"AAA",`},
	}
	for _, tt := range tests {
		b := Board("k3x9", "Friday", 7, tt.turn, 6)
		if !strings.HasPrefix(string(b), tt.prefix) || !strings.HasSuffix(string(b), `],"spectators":6}`) || !json.Valid(b) {
			t.Errorf("Board(%+v) = %s, want %s…,\"spectators\":6}", tt.turn, b, tt.prefix)
		}
	}
	// The board's size is what makes the peers' fan-out comparable with
	// tenpin's: about 1,170 bytes in mid-game.
	if n := len(Board("k3x9abcdef", "lane 123", 1234, playing, 6)); n < 1100 || n > 1250 {
		t.Errorf("a mid-game board is %d bytes, want about 1,170", n)
	}
}

func TestMove(t *testing.T) {
	pins := func(n int) *int { return &n }
	playing := New()
	playing.Start()
	finished := Turn{Phase: "finished"}
	tests := []struct {
		name        string
		turn        Turn
		move        string
		seat, seats int
		pins        *int
		want        string
	}{
		{"join", New(), "join", -1, 0, nil, ""},
		{"join twice", New(), "join", 0, 1, nil, "already_seated"},
		{"join a game started", playing, "join", -1, 1, nil, "game_started"},
		{"join a full lane", New(), "join", -1, MaxPlayers, nil, "lane_full"},
		{"start unseated", New(), "start", -1, 1, nil, "not_seated"},
		{"start", New(), "start", 0, 1, nil, ""},
		{"start twice", playing, "start", 0, 1, nil, "game_started"},
		{"rematch before the end", playing, "rematch", 0, 1, nil, "not_finished"},
		{"rematch", finished, "rematch", 0, 1, nil, ""},
		{"roll before the start", New(), "roll", 0, 1, pins(3), "not_playing"},
		{"roll out of turn", playing, "roll", 1, 2, pins(3), "not_your_turn"},
		{"roll no pins", playing, "roll", 0, 2, nil, "invalid_pins"},
		{"roll too many pins", playing, "roll", 0, 2, pins(11), "invalid_pins"},
		{"roll fewer than none", playing, "roll", 0, 2, pins(-1), "invalid_pins"},
		{"roll", playing, "roll", 0, 2, pins(3), ""},
		{"unknown", playing, "bowl", 0, 2, nil, "unknown_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := tt.turn
			if got := turn.Move(tt.move, tt.seat, tt.seats, tt.pins); got != tt.want {
				t.Errorf("%+v.Move(%q, %d, %d, …) = %q, want %q", tt.turn, tt.move, tt.seat, tt.seats, got, tt.want)
			}
		})
	}
}
