package lane

import (
	"fmt"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// frameView is a bowled frame as a board shows it: marks, rolls, the
// score once it cannot change, and, where the balls named them, the decks
// they left (taken from a) and whether the first left a split; and the
// fouls.
func frameView(f bowling.Frame, corrected bool, a *deckArena) protocol.Frame {
	pf := protocol.Frame{Marks: f.Marks(), Rolls: f.Rolls, Corrected: corrected, Split: f.Split()}
	if s, ok := f.Score(); ok {
		pf.Score = &s
	}
	for ball := 1; ball <= len(f.Rolls); ball++ {
		if f.Foul(ball) {
			pf.Fouls = append(pf.Fouls, ball)
		}
		d, ok := f.Deck(ball)
		if !ok {
			continue
		}
		if pf.Decks == nil {
			pf.Decks = a.frame(len(f.Rolls))
		}
		pf.Decks[ball-1] = a.deck(d)
	}
	return pf
}

// deckArena hands out the decks of one board's frames from a few large
// allocations rather than two small ones a ball: a board of four players
// who name their pins holds some eighty decks.
type deckArena struct {
	pins   []int
	decks  [][]int
	frames []*[]int
}

// deck returns d's pins, as a board shows them.
func (a *deckArena) deck(d bowling.Deck) *[]int {
	if cap(a.pins)-len(a.pins) < bowling.NumPins {
		a.pins = make([]int, 0, 8*bowling.NumPins) // the old one stays, held by the decks it gave
	}
	start := len(a.pins)
	a.pins = d.AppendPins(a.pins)
	if len(a.decks) == cap(a.decks) {
		a.decks = make([][]int, 0, 16)
	}
	a.decks = append(a.decks, a.pins[start:len(a.pins):len(a.pins)])
	return &a.decks[len(a.decks)-1]
}

// frame returns the decks of a frame of n balls, all null.
func (a *deckArena) frame(n int) []*[]int {
	if cap(a.frames)-len(a.frames) < n {
		a.frames = make([]*[]int, 0, 24)
	}
	a.frames = a.frames[:len(a.frames)+n]
	return a.frames[len(a.frames)-n : len(a.frames) : len(a.frames)]
}

// requestBall reads the ball a roll or a correction names: a count, the
// pins it left standing (the count then follows from them, or must agree
// with them), or a foul.
func requestBall(m protocol.Request) (t game.Throw, err error) {
	if m.Pins != nil {
		t.Pins = *m.Pins
	}
	t.Foul = m.Foul
	if m.Deck != nil {
		if t.Deck, err = bowling.NewDeck(*m.Deck...); err != nil {
			return t, fmt.Errorf("%w: \"deck\" %v: %w", bowling.ErrInvalidPins, *m.Deck, err)
		}
		t.HasDeck, t.FromDeck = true, m.Pins == nil
	}
	return t, nil
}
