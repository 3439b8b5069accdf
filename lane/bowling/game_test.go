package bowling

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func repeat(n int, rolls ...int) []int {
	var out []int
	for range n {
		out = append(out, rolls...)
	}
	return out
}

func concat(parts ...[]int) []int { return slices.Concat(parts...) }

func TestGameTotal(t *testing.T) {
	tests := []struct {
		name  string
		rolls []int
		total int
		over  bool
	}{
		{"no rolls", nil, 0, false},
		{"gutter game", repeat(20, 0), 0, true},
		{"all ones", repeat(20, 1), 20, true},
		{"all spares 5/5 and a 5", concat(repeat(21, 5)), 150, true},
		{"nine-zero ten times", repeat(10, 9, 0), 90, true},
		{"perfect game", repeat(12, 10), 300, true},
		{"strike in the tenth with two bonus strikes", concat(repeat(18, 0), []int{10, 10, 10}), 30, true},
		{"X|7|/ in the tenth", concat(repeat(18, 0), []int{10, 7, 3}), 20, true},
		{"7/ then X in the tenth", concat(repeat(18, 0), []int{7, 3, 10}), 20, true},
		{"X|7|2 in the tenth", concat(repeat(18, 0), []int{10, 7, 2}), 19, true},
		{"7|/|2 in the tenth", concat(repeat(18, 0), []int{7, 3, 2}), 12, true},
		{"7|2 in the tenth", concat(repeat(18, 0), []int{7, 2}), 9, true},
		{"X|-|/ in the tenth", concat(repeat(18, 0), []int{10, 0, 10}), 20, true},
		{"seeds' first three frames", []int{10, 8, 2, 8, 1}, 47, false},
		{"strike waiting for its bonus", []int{10, 3}, 0, false},
		{"spare waiting for its bonus", []int{3, 7}, 0, false},
		{"open frame then a frame in play", []int{3, 4, 5}, 7, false},
		{"nine perfect frames, tenth in play", repeat(10, 10), 240, false},
		{"heart break: 299", concat(repeat(11, 10), []int{9}), 299, true},
		{"dutch 200", []int{10, 5, 5, 10, 5, 5, 10, 5, 5, 10, 5, 5, 10, 5, 5, 10}, 200, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Replay(tt.rolls)
			if err != nil {
				t.Fatalf("Replay(%v): %v", tt.rolls, err)
			}
			if got := g.Total(); got != tt.total {
				t.Errorf("Total() after %v = %d, want %d", tt.rolls, got, tt.total)
			}
			if got := g.Over(); got != tt.over {
				t.Errorf("Over() after %v = %v, want %v", tt.rolls, got, tt.over)
			}
		})
	}
}

// marksAndScores renders a game's frames compactly for table tests:
// "X:20 8|/:38 8|1:47 8:_" (frames not yet bowled are left out).
func marksAndScores(g *Game) string {
	var parts []string
	for _, f := range g.Frames() {
		if len(f.Rolls) == 0 {
			continue
		}
		score := "_"
		if s, ok := f.Score(); ok {
			score = fmt.Sprint(s)
		}
		parts = append(parts, f.Marks()+":"+score)
	}
	return strings.Join(parts, " ")
}

func TestGameFrames(t *testing.T) {
	tests := []struct {
		rolls []int
		want  string
	}{
		{[]int{10}, "X:_"},
		{[]int{10, 8}, "X:_ 8:_"},
		{[]int{10, 8, 2}, "X:20 8|/:_"},
		{[]int{10, 8, 2, 8}, "X:20 8|/:38 8:_"},
		{[]int{10, 8, 2, 8, 1}, "X:20 8|/:38 8|1:47"},
		{[]int{7, 0}, "7|-:7"},
		{[]int{0, 0}, "-|-:0"},
		{[]int{0, 10, 0}, "-|/:10 -:_"},
		{[]int{0}, "-:_"},
		{[]int{9, 1, 9, 1}, "9|/:19 9|/:_"},
		{[]int{9, 1, 9}, "9|/:19 9:_"},
		{concat(repeat(9, 10), []int{10, 10, 10}), "X:30 X:60 X:90 X:120 X:150 X:180 X:210 X:240 X:270 X|X|X:300"},
		{concat(repeat(18, 0), []int{10, 7, 3}), strings.Repeat("-|-:0 ", 9) + "X|7|/:20"},
		{concat(repeat(18, 0), []int{8, 2, 10}), strings.Repeat("-|-:0 ", 9) + "8|/|X:20"},
		{concat(repeat(18, 0), []int{10, 0, 0}), strings.Repeat("-|-:0 ", 9) + "X|-|-:10"},
		{concat(repeat(18, 0), []int{10, 0, 10}), strings.Repeat("-|-:0 ", 9) + "X|-|/:20"},
		{concat(repeat(18, 0), []int{10, 10, 0}), strings.Repeat("-|-:0 ", 9) + "X|X|-:20"},
		{concat(repeat(18, 0), []int{0, 10, 10}), strings.Repeat("-|-:0 ", 9) + "-|/|X:20"},
		{concat(repeat(18, 0), []int{10, 7}), strings.Repeat("-|-:0 ", 9) + "X|7:_"},
		{concat(repeat(16, 0), []int{10, 10, 10}), strings.Repeat("-|-:0 ", 8) + "X:30 X|X:_"},
	}
	for _, tt := range tests {
		g, err := Replay(tt.rolls)
		if err != nil {
			t.Fatalf("Replay(%v): %v", tt.rolls, err)
		}
		if got := marksAndScores(&g); got != tt.want {
			t.Errorf("frames after %v = %q, want %q", tt.rolls, got, tt.want)
		}
	}
}

func TestGameRefusesImpossibleRolls(t *testing.T) {
	tests := []struct {
		name    string
		before  []int
		pins    int
		want    error
		message string
	}{
		{"negative", nil, -1, ErrInvalidPins, "roll 1: -1 pins is not a roll, a roll is 0 to 10 pins"},
		{"over ten", []int{3, 4}, 11, ErrInvalidPins, "roll 3: 11 pins is not a roll, a roll is 0 to 10 pins"},
		{"more than standing", []int{10, 8, 2, 5}, 6, ErrTooManyPins, "roll 5: 6 pins but only 5 standing"},
		{"X 6 10 in the tenth", concat(repeat(18, 0), []int{10, 6}), 10, ErrTooManyPins, "roll 21: 10 pins but only 4 standing"},
		{"after an open tenth", repeat(20, 1), 0, ErrGameOver, "roll 21: the game is over"},
		{"after a perfect game", repeat(12, 10), 10, ErrGameOver, "roll 13: the game is over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Replay(tt.before)
			if err != nil {
				t.Fatalf("Replay(%v): %v", tt.before, err)
			}
			before := g
			err = g.Roll(tt.pins)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Roll(%d) after %v = %v, want %v", tt.pins, tt.before, err, tt.want)
			}
			if err.Error() != tt.message {
				t.Errorf("Roll(%d) error text = %q, want %q", tt.pins, err.Error(), tt.message)
			}
			var re *RollError
			if !errors.As(err, &re) || re.Roll != len(tt.before)+1 || re.Pins != tt.pins {
				t.Errorf("Roll(%d) error = %#v, want a *RollError for roll %d", tt.pins, err, len(tt.before)+1)
			}
			if g != before {
				t.Errorf("refused Roll(%d) changed the game", tt.pins)
			}
			if err := g.Check(tt.pins); !errors.Is(err, tt.want) {
				t.Errorf("Check(%d) = %v, want %v", tt.pins, err, tt.want)
			}
		})
	}
}

func TestReplayStopsAtFirstRefusal(t *testing.T) {
	g, err := Replay([]int{3, 4, 9, 2, 1})
	if !errors.Is(err, ErrTooManyPins) {
		t.Fatalf("Replay error = %v, want ErrTooManyPins", err)
	}
	if got := g.Rolls(); !slices.Equal(got, []int{3, 4, 9}) {
		t.Errorf("Replay kept rolls %v, want [3 4 9]", got)
	}
}

func TestStandingAndCurrentFrame(t *testing.T) {
	tests := []struct {
		rolls    []int
		standing int
		frame    int
		ball     int
	}{
		{nil, 10, 1, 1},
		{[]int{3}, 7, 1, 2},
		{[]int{3, 4}, 10, 2, 1},
		{[]int{10}, 10, 2, 1},
		{concat(repeat(18, 0), []int{10}), 10, 10, 2},
		{concat(repeat(18, 0), []int{10, 6}), 4, 10, 3},
		{concat(repeat(18, 0), []int{6, 4}), 10, 10, 3},
		{concat(repeat(18, 0), []int{6}), 4, 10, 2},
		{repeat(20, 0), 0, 10, 0},
	}
	for _, tt := range tests {
		g, _ := Replay(tt.rolls)
		if got := g.Standing(); got != tt.standing {
			t.Errorf("Standing() after %v = %d, want %d", tt.rolls, got, tt.standing)
		}
		if got := g.CurrentFrame(); got != tt.frame {
			t.Errorf("CurrentFrame() after %v = %d, want %d", tt.rolls, got, tt.frame)
		}
		if got := g.Ball(); got != tt.ball {
			t.Errorf("Ball() after %v = %d, want %d", tt.rolls, got, tt.ball)
		}
	}
}

func TestFrameComplete(t *testing.T) {
	tests := []struct {
		f    Frame
		want bool
	}{
		{Frame{Number: 1}, false},
		{Frame{Number: 1, Rolls: []int{10}}, true},
		{Frame{Number: 1, Rolls: []int{9}}, false},
		{Frame{Number: 9, Rolls: []int{9, 0}}, true},
		{Frame{Number: 10, Rolls: []int{10}}, false},
		{Frame{Number: 10, Rolls: []int{10, 3}}, false},
		{Frame{Number: 10, Rolls: []int{7, 2}}, true},
		{Frame{Number: 10, Rolls: []int{7, 3}}, false},
		{Frame{Number: 10, Rolls: []int{7, 3, 1}}, true},
	}
	for _, tt := range tests {
		if got := tt.f.Complete(); got != tt.want {
			t.Errorf("Frame{%d %v}.Complete() = %v, want %v", tt.f.Number, tt.f.Rolls, got, tt.want)
		}
	}
}

func TestFrameOutOfRangePanics(t *testing.T) {
	for _, n := range []int{0, 11} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Frame(%d) did not panic", n)
				}
			}()
			var g Game
			g.Frame(n)
		}()
	}
}

func TestRollDoesNotAllocate(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		var g Game
		for !g.Over() {
			_ = g.Roll(g.Standing() / 2)
		}
	})
	if allocs != 0 {
		t.Errorf("a full game of rolls allocated %v times, want 0", allocs)
	}
}

func TestParseName(t *testing.T) {
	tests := []struct {
		in      string
		want    Name
		message string
	}{
		{"PJS", "PJS", ""},
		{"pjs", "PJS", ""},
		{"aBc", "ABC", ""},
		{"", "", `bowling: invalid name: "" has 0 characters, a name is exactly 3 English letters`},
		{"PJ", "", `bowling: invalid name: "PJ" has 2 characters, a name is exactly 3 English letters`},
		{"P", "", `bowling: invalid name: "P" has 1 character, a name is exactly 3 English letters`},
		{"PJSX", "", `bowling: invalid name: "PJSX" has 4 characters, a name is exactly 3 English letters`},
		{"P1S", "", `bowling: invalid name: "P1S" has '1', a name is exactly 3 English letters`},
		{"P S", "", `bowling: invalid name: "P S" has ' ', a name is exactly 3 English letters`},
		{"박지성", "", `bowling: invalid name: "박지성" has '박', a name is exactly 3 English letters`},
		{"ÉTÉ", "", `bowling: invalid name: "ÉTÉ" has 'É', a name is exactly 3 English letters`},
		{"<b>", "", `bowling: invalid name: "<b>" has '<', a name is exactly 3 English letters`},
	}
	for _, tt := range tests {
		got, err := ParseName(tt.in)
		if tt.message == "" {
			if err != nil || got != tt.want {
				t.Errorf("ParseName(%q) = %q, %v, want %q, nil", tt.in, got, err, tt.want)
			}
			continue
		}
		if !errors.Is(err, ErrInvalidName) || err.Error() != tt.message {
			t.Errorf("ParseName(%q) error = %v, want %q", tt.in, err, tt.message)
		}
		if got != "" {
			t.Errorf("ParseName(%q) = %q with an error, want \"\"", tt.in, got)
		}
	}
}

// TestCorrectAnyBall: a correction may name any frame and ball, as a
// client sent them; none but a bowled ball is taken, and none panics.
func TestCorrectAnyBall(t *testing.T) {
	g, _ := Replay([]int{3, 4, 10})
	for _, fb := range [][2]int{{1, 0}, {1, 3}, {2, 2}, {3, 1}, {2, math.MaxInt}, {2, math.MinInt}, {math.MaxInt, 1}, {math.MinInt, 1}, {0, 1}, {11, 1}} {
		if _, err := g.Correct(fb[0], fb[1], 1); !errors.Is(err, ErrInvalidCorrection) {
			t.Errorf("Correct(frame %d, ball %d) = %v, want ErrInvalidCorrection", fb[0], fb[1], err)
		}
	}
	if got := g.Rolls(); !slices.Equal(got, []int{3, 4, 10}) {
		t.Errorf("refused corrections changed the rolls to %v", got)
	}
}
