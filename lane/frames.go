package lane

import (
	"fmt"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// frameView is a bowled frame as a board shows it: marks, rolls, the
// score once it cannot change, and, where the balls named them, the decks
// they left and whether the first left a split; and the fouls. The board
// writes the same frames itself (appendFrames); this is the series'.
func frameView(f bowling.Frame, corrected bool) protocol.Frame {
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
			pf.Decks = make([]*[]int, len(f.Rolls))
		}
		pins := d.Pins()
		pf.Decks[ball-1] = &pins
	}
	return pf
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
