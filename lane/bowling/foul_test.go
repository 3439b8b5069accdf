package bowling

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// rollBalls rolls balls written as on a sheet: "F" a foul, a number a
// count.
func rollBalls(t *testing.T, g *Game, balls string) {
	t.Helper()
	for _, b := range strings.Fields(balls) {
		var err error
		if b == "F" {
			err = g.RollBall(Ball{Foul: true})
		} else {
			err = g.Roll(int(b[0]-'0') + 9*len(b[1:])) // "10" is ten
		}
		if err != nil {
			t.Fatalf("ball %s after %v: %v", b, g.Balls(), err)
		}
	}
}

func TestFouls(t *testing.T) {
	nine := strings.Repeat("0 0 ", 9)
	tests := []struct {
		balls string
		want  string
		over  bool
	}{
		{"F 10 3", "F|/:13 3:_", false},      // pins set again: ten then is a spare
		{"F 3", "F|3:3", false},              // and a count an open frame
		{"7 F", "7|F:7", false},              // a second ball's foul counts 0
		{"F F", "F|F:0", false},              // two fouls: the frame is over
		{"10 F 3", "X:13 F|3:16", false},     // a foul counts 0 for the strike's bonus
		{"7 F 10 F", "7|F:7 X:_ F:_", false}, // a strike's bonus waits on
		{nine + "F F", "F|F:0", true},        // the tenth: fouls on balls 1 and 2
		{nine + "10 F F", "X|F|F:10", true},  // on balls 2 and 3 after a strike
		{nine + "F 10 F", "F|/|F:10", true},  // on balls 1 and 3, a spare between
		{nine + "F 10 10", "F|/|X:20", true}, // a foul then a spare then a strike
		{nine + "10 10 F", "X|X|F:20", true}, // on ball 3 after two strikes
		{nine + "10 7 F", "X|7|F:17", true},  // on ball 3 at the pins left
		{nine + "7 F", "7|F:7", true},        // on ball 2 of an open tenth
		{nine + "10 F 10", "X|F|/:20", true}, // the ball after a foul faces ten
	}
	for _, tt := range tests {
		t.Run(tt.balls, func(t *testing.T) {
			var g Game
			rollBalls(t, &g, tt.balls)
			got := marksAndScores(&g)
			got = strings.TrimPrefix(got, strings.Repeat("-|-:0 ", 9))
			if got != tt.want {
				t.Errorf("frames after %s = %q, want %q", tt.balls, got, tt.want)
			}
			if g.Over() != tt.over {
				t.Errorf("Over() after %s = %v, want %v", tt.balls, g.Over(), tt.over)
			}
			again, err := ReplayBalls(g.Balls())
			if err != nil || again != g {
				t.Errorf("ReplayBalls(Balls()) = %v: not the game", err)
			}
			if _, err := Replay(g.Rolls()); err != nil {
				t.Errorf("the counts %v do not replay: %v", g.Rolls(), err)
			}
		})
	}
}

func TestFoulFrames(t *testing.T) {
	var g Game
	rollBalls(t, &g, "F 10 7 F")
	if f := g.Frame(1); !f.Foul(1) || f.Foul(2) || f.Foul(3) || f.Foul(0) {
		t.Errorf("frame 1: Foul(1, 2, 3) = %v %v %v, want true false false", f.Foul(1), f.Foul(2), f.Foul(3))
	}
	if f := g.Frame(2); f.Foul(1) || !f.Foul(2) {
		t.Errorf("frame 2: Foul(1, 2) = %v %v, want false true", f.Foul(1), f.Foul(2))
	}
	if got, want := g.Balls(), []Ball{{Foul: true}, {Pins: 10}, {Pins: 7}, {Foul: true}}; !slices.Equal(got, want) {
		t.Errorf("Balls() = %v, want %v", got, want)
	}
	if d, ok := g.Rack(); !ok || d != Full {
		t.Errorf("Rack() = %s, %v, want Full", d, ok)
	}
}

func TestFoulAfterAFoulFacesTen(t *testing.T) {
	var g Game
	rollBalls(t, &g, "F")
	if d, ok := g.Rack(); !ok || d != Full || g.Standing() != NumPins {
		t.Errorf("after a foul: Rack() = %s, %v, Standing() = %d, want ten pins", d, ok, g.Standing())
	}
	// The deck after the next ball is checked against the ten set again.
	if err := g.RollDeck(leave(t, "7-10")); err != nil {
		t.Fatal(err)
	}
	if got := g.Frame(1).Marks(); got != "F|8" {
		t.Errorf("Marks() = %q, want F|8: a second ball is no split", got)
	}
}

func TestFoulsRefused(t *testing.T) {
	tests := []struct {
		name   string
		ball   Ball
		reason string
	}{
		{"pins", Ball{Foul: true, Pins: 3}, "roll 2: a foul counts 0 pins, not 3"},
		{"a deck", Ball{Foul: true, Deck: leave(t, "7"), HasDeck: true}, "roll 2: a foul has no deck: the pins it knocked down are set again"},
	}
	for _, tt := range tests {
		var g Game
		_ = g.Roll(9)
		before := g
		err := g.RollBall(tt.ball)
		if !errors.Is(err, ErrInvalidPins) || err.Error() != tt.reason {
			t.Errorf("%s: RollBall(%v) = %v, want %q", tt.name, tt.ball, err, tt.reason)
		}
		if g != before {
			t.Errorf("%s: a refused foul changed the game", tt.name)
		}
	}
	var g Game
	rollBalls(t, &g, strings.Repeat("1 ", 20))
	if err := g.RollBall(Ball{Foul: true}); !errors.Is(err, ErrGameOver) {
		t.Errorf("a foul after the game = %v, want ErrGameOver", err)
	}
}

func TestCorrectFouls(t *testing.T) {
	var g Game
	rollBalls(t, &g, "F 10 3")
	// The foul was a gutter ball: the same count, another mark.
	was, err := g.Correct(1, 1, 0)
	if err != nil || was != 0 {
		t.Fatalf("Correct(F to 0) = %d, %v", was, err)
	}
	if got := marksAndScores(&g); got != "-|/:13 3:_" {
		t.Errorf("after the correction: %q", got)
	}
	if _, err := g.Correct(1, 1, 0); !errors.Is(err, ErrInvalidCorrection) {
		t.Errorf("Correct(0 to 0) = %v, want ErrInvalidCorrection", err)
	}
	// And back to a foul.
	b, err := g.CorrectBall(1, 1, Ball{Foul: true})
	if err != nil || b != (Ball{}) {
		t.Fatalf("CorrectBall(0 to F) = %v, %v", b, err)
	}
	if got := marksAndScores(&g); got != "F|/:13 3:_" {
		t.Errorf("after the correction: %q", got)
	}
	if _, err := g.CorrectBall(1, 1, Ball{Foul: true}); !errors.Is(err, ErrInvalidCorrection) || !strings.Contains(err.Error(), "is a foul already") {
		t.Errorf("CorrectBall(F to F) = %v, want ErrInvalidCorrection", err)
	}
	if _, err := g.CorrectBall(2, 1, Ball{Foul: true, Pins: 3}); !errors.Is(err, ErrInvalidCorrection) || !strings.Contains(err.Error(), "a foul counts 0 pins") {
		t.Errorf("CorrectBall(3 to a foul of 3) = %v, want ErrInvalidCorrection", err)
	}
}
