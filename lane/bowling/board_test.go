package bowling

import (
	"strings"
	"testing"

	"github.com/tenpin/tenpin/lane/golden"
)

// progression renders the board after every roll, as the console game
// redraws it, boards separated by a blank line.
func progression(t *testing.T, name string, rolls []int, from int) []byte {
	t.Helper()
	var boards []string
	var g Game
	for i := 0; ; i++ {
		if i >= from {
			boards = append(boards, Board(Player{Name: Name(name), Game: g}))
		}
		if i == len(rolls) {
			break
		}
		if err := g.Roll(rolls[i]); err != nil {
			t.Fatalf("Roll(%d): %v", rolls[i], err)
		}
	}
	return []byte(strings.Join(boards, "\n"))
}

// The seeds' boards, byte for byte. (Seed 000 once prints a frame in play
// as "   8  "; DOMAIN.md, which wins, and every other seed board put two
// spaces before it, as here.)
func TestBoardMatchesSeeds(t *testing.T) {
	golden.Check(t, "seed-pjs.golden", progression(t, "PJS", []int{10, 8, 2, 8, 1}, 0))
	golden.Check(t, "seed-gutter.golden", progression(t, "PJS", []int{10, 8, 2, 7, 0}, 4))
}

func TestBoardGolden(t *testing.T) {
	tests := []struct {
		file  string
		rolls []int
	}{
		{"perfect.golden", repeat(12, 10)},
		{"gutter.golden", repeat(20, 0)},
		{"spares.golden", repeat(21, 5)},
		{"tenth-x-7-spare.golden", concat(repeat(9, 10), []int{10, 7, 3})},
		{"tenth-open.golden", concat([]int{9, 0, 0, 9, 0, 10, 10, 1, 1, 5, 5, 7, 2, 10, 10}, []int{7, 2})},
		{"tenth-in-play.golden", concat(repeat(18, 1), []int{10, 7})},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			g, err := Replay(tt.rolls)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tt.file, []byte(Board(Player{Name: "PJS", Game: g})))
		})
	}
}

func TestBoardSeveralPlayers(t *testing.T) {
	m, err := NewMatch("PJS", "kim", "LEE")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{10, 8, 2, 0, 0, 9, 1, 7, 2, 10, 3} {
		if err := m.Roll(p); err != nil {
			t.Fatal(err)
		}
	}
	golden.Check(t, "three-players.golden", []byte(m.Board()))
}

func TestAppendCell(t *testing.T) {
	tests := []struct{ text, want string }{
		{"", "      |"},
		{"X", "  X   |"},
		{"8|/", "  8|/ |"},
		{"300", "  300 |"},
		{"X|7", "  X|7 |"},
		{"NAME", "  NAME|"},
		{"X|X|X", " X|X|X|"},
	}
	for _, tt := range tests {
		if got := string(appendCell(nil, []byte(tt.text))); got != tt.want {
			t.Errorf("appendCell(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// Names wider than three columns widen the NAME column for every row; a
// Hangul syllable takes two columns, so 홍길동 is as wide as "Stephi".
func TestBoardWideNames(t *testing.T) {
	tests := []struct {
		file  string
		names []string
	}{
		{"name-long-latin.golden", []string{"Anne-Marie", "PJS", "Stephanie"}},
		{"name-hangul.golden", []string{"홍길동", "Zoë", "kim"}},
		{"name-accents.golden", []string{"Zoë", "PJS", "Jo"}}, // three columns or fewer: the seeds' NAME column
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var m Match
			for _, s := range tt.names {
				n, err := ParseLaneName(s)
				if err != nil {
					t.Fatal(err)
				}
				if err := m.AddName(n); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range []int{10, 8, 2, 0, 0, 9, 1, 7, 2, 10, 3} {
				if err := m.Roll(p); err != nil {
					t.Fatal(err)
				}
			}
			golden.Check(t, tt.file, []byte(m.Board()))
		})
	}
}

// TestBoardSplits: splits are marked with their count in parentheses; a
// tenth frame's marks longer than a cell widen its column.
func TestBoardSplits(t *testing.T) {
	var m Match
	for _, n := range []Name{"PJS", "KIM"} {
		if err := m.AddName(n); err != nil {
			t.Fatal(err)
		}
	}
	// PJS bowls by decks, KIM by counts.
	pjs := []string{"7-10", "", "4-6", "4", "10", "", "2-8", "", "5-6", "6", "", "3-10", "", "1-2-10", "10", "", "", "7-10", ""}
	kim := []int{8, 2, 9, 0, 10, 7, 3, 6, 3, 10, 10, 10, 8, 1, 10, 10, 10}
	for frame := range NumFrames {
		for _, who := range []int{0, 1} {
			g := func() *Game { p := m.At(who); return &p.Game }
			for !g().Over() && g().CurrentFrame() == frame+1 {
				var err error
				if who == 0 {
					err = m.RollBall(Ball{Pins: g().Standing() - leave(t, pjs[0]).Count(), Deck: leave(t, pjs[0]), HasDeck: true})
					pjs = pjs[1:]
				} else {
					err = m.Roll(kim[0])
					kim = kim[1:]
				}
				if err != nil {
					t.Fatalf("frame %d: %v", frame+1, err)
				}
			}
		}
	}
	if !m.Over() {
		t.Fatalf("the match is not over:\n%s", m.Board())
	}
	golden.Check(t, "splits.golden", []byte(m.Board()))
}

// TestBoardFouls: a foul is marked F; a game with fouls and splits, a
// split in the tenth after a foul and a spare.
func TestBoardFouls(t *testing.T) {
	var g Game
	for _, b := range strings.Fields("F 10 =7-10 F 7 F F F 10 F 3 =4-6 =4 F F =2-8 2 F 10 =4-6") {
		var err error
		switch {
		case b == "F":
			err = g.RollBall(Ball{Foul: true})
		case b[0] == '=': // the pins left standing
			err = g.RollDeck(leave(t, b[1:]))
		default:
			err = g.Roll(int(b[0]-'0') + 9*len(b[1:]))
		}
		if err != nil {
			t.Fatalf("ball %s after %v: %v", b, g.Balls(), err)
		}
	}
	if !g.Over() {
		t.Fatalf("the game is not over: %v", g.Balls())
	}
	golden.Check(t, "fouls.golden", []byte(Board(Player{Name: "PJS", Game: g})))
}
