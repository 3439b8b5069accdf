package bowling

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

func rollDecks(t *testing.T, g *Game, leaves ...string) {
	t.Helper()
	for _, l := range leaves {
		if err := g.RollDeck(leave(t, l)); err != nil {
			t.Fatalf("RollDeck(%s) after %v: %v", l, g.Rolls(), err)
		}
	}
}

func TestRollDeckCountsThePins(t *testing.T) {
	var g Game
	rollDecks(t, &g, "7-10", "", "1-2-3-4-5-6-7-8-9-10", "1-2-4", "", "3-6-10")
	if got, want := g.Rolls(), []int{8, 2, 0, 7, 10, 7}; !slices.Equal(got, want) {
		t.Fatalf("Rolls() = %v, want %v", got, want)
	}
	if got, want := marksAndScores(&g), "(8)|/:10 -|7:17 X:_ 7:_"; got != want {
		t.Errorf("frames = %q, want %q", got, want)
	}
	f := g.Frame(1)
	if d, ok := f.Deck(1); !ok || d != leave(t, "7-10") || !f.Split() {
		t.Errorf("frame 1: Deck(1) = %s, %v, Split() = %v, want 7-10, true, true", d, ok, f.Split())
	}
	if d, ok := f.Deck(2); !ok || d != 0 {
		t.Errorf("frame 1: Deck(2) = %s, %v, want none, true", d, ok)
	}
	if _, ok := f.Deck(3); ok {
		t.Error("frame 1: Deck(3) is known")
	}
	if g.Frame(2).Split() || g.Frame(4).Split() {
		t.Error("a frame without a split says it has one")
	}
	if d, ok := g.Rack(); !ok || d != leave(t, "3-6-10") {
		t.Errorf("Rack() = %s, %v, want 3-6-10, true", d, ok)
	}
}

func TestCountsAndDecksMix(t *testing.T) {
	var g Game
	if err := g.Roll(8); err != nil {
		t.Fatal(err)
	}
	if d, ok := g.Rack(); ok {
		t.Errorf("Rack() after a count = %s, true, want unknown", d)
	}
	// The deck before is not known: any deck of at most two pins fits.
	if err := g.RollDeck(leave(t, "10")); err != nil {
		t.Fatal(err)
	}
	if got := g.Rolls(); !slices.Equal(got, []int{8, 1}) {
		t.Errorf("Rolls() = %v, want [8 1]", got)
	}
	if _, ok := g.Frame(1).Deck(1); ok {
		t.Error("a count's deck is known")
	}
	if d, ok := g.Rack(); !ok || d != Full {
		t.Errorf("Rack() on a fresh rack = %s, %v, want Full", d, ok)
	}
	if got, want := g.Balls(), []Ball{{Pins: 8}, {Pins: 1, Deck: leave(t, "10"), HasDeck: true}}; !slices.Equal(got, want) {
		t.Errorf("Balls() = %v, want %v", got, want)
	}
}

func TestRollBallRefusesDecksThatDoNotFit(t *testing.T) {
	tests := []struct {
		name   string
		before []string // leaves rolled first; "n" is a count of n pins
		ball   func(t *testing.T) Ball
		want   error
		reason string
	}{
		{"a pin that was down", []string{"7-10"}, func(t *testing.T) Ball { return Ball{Pins: 1, Deck: leave(t, "8"), HasDeck: true} }, ErrInvalidPins,
			"roll 2: pin 8 stands in the deck 8, but it was down before the ball (7-10 standing)"},
		{"a count that disagrees", nil, func(t *testing.T) Ball { return Ball{Pins: 7, Deck: leave(t, "7-10"), HasDeck: true} }, ErrInvalidPins,
			"roll 1: 7 pins of 10 standing leave 3, but the deck 7-10 has 2"},
		{"more pins than stood, after a count", []string{"8"}, func(t *testing.T) Ball { return Ball{Pins: 0, Deck: leave(t, "7-9-10"), HasDeck: true} }, ErrInvalidPins,
			"roll 2: the deck 7-9-10 has 3 pins standing, but only 2 were"},
		{"a pin beyond the ten", nil, func(t *testing.T) Ball { return Ball{Pins: 10, Deck: 1 << 12, HasDeck: true} }, ErrInvalidPins,
			"roll 1: the deck 0x1000 names pins beyond the ten"},
		{"too many pins, with a deck", []string{"7-10"}, func(t *testing.T) Ball { return Ball{Pins: 3, HasDeck: true} }, ErrTooManyPins,
			"roll 2: 3 pins but only 2 standing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g Game
			for _, l := range tt.before {
				if l == "8" {
					_ = g.Roll(8)
					continue
				}
				rollDecks(t, &g, l)
			}
			before := g
			b := tt.ball(t)
			err := g.RollBall(b)
			if !errors.Is(err, tt.want) {
				t.Fatalf("RollBall(%v) = %v, want %v", b, err, tt.want)
			}
			if err.Error() != tt.reason {
				t.Errorf("RollBall(%v) error = %q, want %q", b, err, tt.reason)
			}
			if g != before {
				t.Errorf("refused RollBall(%v) changed the game", b)
			}
			if err := g.CheckBall(b); !errors.Is(err, tt.want) {
				t.Errorf("CheckBall(%v) = %v, want %v", b, err, tt.want)
			}
		})
	}
}

func TestCorrectBallWithDecks(t *testing.T) {
	var g Game
	rollDecks(t, &g, "7-10", "10", "3-6-10", "")
	// The first ball really left 7-9-10: the second, which left the 10
	// standing, knocked down two.
	was, err := g.CorrectBall(1, 1, Ball{Pins: 7, Deck: leave(t, "7-9-10"), HasDeck: true})
	if err != nil {
		t.Fatal(err)
	}
	if was != (Ball{Pins: 8, Deck: leave(t, "7-10"), HasDeck: true}) {
		t.Errorf("CorrectBall returned %v, want the 7-10 leave", was)
	}
	if got := g.Rolls(); !slices.Equal(got, []int{7, 2, 7, 3}) {
		t.Errorf("Rolls() = %v, want [7 2 7 3]", got)
	}
	// As a count, the first ball leaves the deck unknown: the 10 still
	// stands after the second, so that knocked down 10-8-1.
	if _, err := g.Correct(1, 1, 8); err != nil {
		t.Fatal(err)
	}
	if got := g.Rolls(); !slices.Equal(got, []int{8, 1, 7, 3}) {
		t.Errorf("Rolls() = %v, want [8 1 7 3]", got)
	}
	// A deck before that the second ball's deck does not fit is refused.
	before := g
	_, err = g.CorrectBall(1, 1, Ball{Pins: 8, Deck: leave(t, "7-9"), HasDeck: true})
	if !errors.Is(err, ErrInvalidCorrection) {
		t.Fatalf("CorrectBall to 7-9 under a 10 left standing = %v, want ErrInvalidCorrection", err)
	}
	if g != before {
		t.Error("a refused correction changed the game")
	}
	if _, err := g.Correct(1, 1, 8); !errors.Is(err, ErrInvalidCorrection) {
		t.Errorf("Correct to the count it has = %v, want ErrInvalidCorrection", err)
	}
	if _, err := g.CorrectBall(1, 1, Ball{Pins: 8}); !errors.Is(err, ErrInvalidCorrection) {
		t.Errorf("CorrectBall to the ball it is = %v, want ErrInvalidCorrection", err)
	}
}

// TestDifferentialDecks bowls random games by decks — each ball leaves a
// random subset of the pins standing — and checks them against the same
// game bowled by counts: the same counts, frames and scores, and Balls
// rebuilds the game.
func TestDifferentialDecks(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 13))
	splits := 0
	for n := range 5000 {
		var g Game
		for !g.Over() && (n%2 == 0 || r.IntN(25) > 0) {
			before, known := g.Rack()
			if !known || r.IntN(8) == 0 {
				if err := g.Roll(r.IntN(g.Standing() + 1)); err != nil {
					t.Fatal(err)
				}
				continue
			}
			after := before & Deck(r.Uint32())
			if r.IntN(4) == 0 {
				after = 0
			}
			if err := g.RollDeck(after); err != nil {
				t.Fatalf("game %d: RollDeck(%s) after %s standing: %v", n, after, before, err)
			}
		}
		counted, err := Replay(g.Rolls())
		if err != nil {
			t.Fatalf("game %d: the counts %v do not replay: %v", n, g.Rolls(), err)
		}
		if a, b := marksWithoutSplits(&g), marksAndScores(&counted); a != b || g.Over() != counted.Over() {
			t.Fatalf("game %d: by decks %q, by counts %q", n, a, b)
		}
		again, err := ReplayBalls(g.Balls())
		if err != nil || again != g {
			t.Fatalf("game %d: ReplayBalls(Balls()) = %v, want the game", n, err)
		}
		for _, f := range g.Frames() {
			if f.Split() {
				splits++
			}
		}
	}
	if splits < 500 {
		t.Errorf("only %d splits in 5000 random games: the test is not exercising them", splits)
	}
}

// marksWithoutSplits is marksAndScores with splits' parentheses dropped.
func marksWithoutSplits(g *Game) string {
	s := []byte(marksAndScores(g))
	return string(slices.DeleteFunc(s, func(c byte) bool { return c == '(' || c == ')' }))
}

func TestRollDeckDoesNotAllocate(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		var g Game
		for !g.Over() {
			d, _ := g.Rack()
			_ = g.RollDeck(d &^ 1)
		}
	})
	if allocs != 0 {
		t.Errorf("a full game of decks allocated %v times, want 0", allocs)
	}
}

// FuzzGameBalls feeds arbitrary balls, each two bytes: a count, a deck
// (any sixteen bits, so a deck may name pins beyond the ten or pins
// down) or a foul. No sequence may panic; a refused ball leaves the game as it was;
// an accepted one agrees with the deck before it, and the game replays
// from its balls and, by counts, scores the same.
func FuzzGameBalls(f *testing.F) {
	f.Add([]byte{0x02, 0x40, 0x00, 0x00, 0x03, 0xff})
	f.Add([]byte{0x00, 0x08, 0x01, 0x00, 0x03, 0x00})
	f.Add([]byte{0x26, 0x00, 0xc0, 0x00, 0x26, 0x00, 0x26, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		var g Game
		for i := 0; i+1 < len(data); i += 2 {
			b := Ball{Pins: int(data[i]>>4) - 2}
			if data[i]&1 == 1 {
				b.Deck, b.HasDeck = Deck(uint16(data[i])<<8|uint16(data[i+1]))>>1, true
			}
			if data[i]&6 == 6 {
				b.Foul = true
			}
			before := g
			rack, known := g.Rack()
			if err := g.RollBall(b); err != nil {
				if g != before {
					t.Fatalf("refused RollBall(%v) changed the game", b)
				}
				continue
			}
			if b.HasDeck && (known && b.Deck&^rack != 0 || !b.Deck.Valid()) || b.Foul && (b.Pins != 0 || b.HasDeck) {
				t.Fatalf("RollBall(%v) accepted on a rack of %s", b, rack)
			}
		}
		again, err := ReplayBalls(g.Balls())
		if err != nil || again != g {
			t.Fatalf("ReplayBalls(%v) = %v, not the game", g.Balls(), err)
		}
		counted, err := Replay(g.Rolls())
		if err != nil || counted.Total() != g.Total() || counted.Over() != g.Over() {
			t.Fatalf("the counts %v replay as %d, %v, the balls %d", g.Rolls(), counted.Total(), err, g.Total())
		}
	})
}
