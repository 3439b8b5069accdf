package game

import (
	"testing"

	"github.com/tenpin/tenpin/lane/bowling"
)

// TestLaneNames: a lane seats the names of [bowling.ParseLaneName], unique
// but for case, and its events name each player as seated whatever the
// case a command gave.
func TestLaneNames(t *testing.T) {
	s := run(t, []step{
		{"join a Hangul name", join("홍길동", tokenA), nil, Waiting},
		{"join a name with digits", join("Jo3", tokenB), bowling.ErrInvalidName, Waiting},
		{"join the seeds' three letters, lower case", join("pjs", tokenB), nil, Waiting},
		{"start", start("홍길동"), nil, Playing},
		{"roll", roll("홍길동", 7), nil, Playing},
		{"the host enters PJS's ball after its own", throw(Throw{By: "홍길동", Frame: 1, Ball: 2, Pins: 2}), nil, Playing},
		{"the host enters pjs's ball", throw(Throw{By: "홍길동", For: "pjs", Frame: 1, Ball: 1, Pins: 10}), nil, Playing},
		{"the host removes pjs", remove("홍길동", "pjs"), nil, Playing},
	})
	var rolled, left bool
	for _, e := range s.Snapshot().Snapshot.Game {
		switch {
		case e.Kind == Rolled && e.Frame == 1 && e.Pins == 10:
			rolled = e.Player == "pjs"
		case e.Kind == PlayerLeft:
			left = e.Player == "pjs"
		}
	}
	if !rolled || !left {
		t.Errorf("events name the player as given, not as seated: %+v", s.Snapshot().Snapshot.Game)
	}
	if got := s.Host(); got != "홍길동" {
		t.Errorf("Host() = %q, want 홍길동", got)
	}

	s = run(t, []step{
		{"join Stephanie", join("Stephanie", tokenA), nil, Waiting},
		{"join STEPHANIE", join("STEPHANIE", tokenB), bowling.ErrNameTaken, Waiting},
		{"join Zoë, decomposed", join("Zoe\u0308", tokenB), nil, Waiting},
		{"start, by the host in capitals", start("STEPHANIE"), nil, Playing},
		{"Stephanie rolls, in capitals", throw(Throw{By: "STEPHANIE", Frame: 1, Ball: 1, Pins: 10}), nil, Playing},
		{"ZOË rolls", throw(Throw{By: "ZOË", Frame: 1, Ball: 1, Pins: 3}), nil, Playing},
	})
	if _, ok := s.Match().Player("Zoë"); !ok {
		t.Errorf("Zoë is not seated in normal form C: %v", s.Match().Players())
	}
	for _, e := range s.Snapshot().Snapshot.Game {
		if e.Kind == Rolled && e.Player != "Stephanie" && e.Player != "Zoë" {
			t.Errorf("a roll event names %q, not the player as seated", e.Player)
		}
	}
}
