package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tenpin/tenpin/lane/bowling"
)

// ballError is a ball the console could not read: the answer, and why.
type ballError struct {
	answer string
	why    ballWhy
}

// ballWhy is why an answer is no ball, for each language to say.
type ballWhy int

const (
	notABall    ballWhy = iota // neither a count nor a mark
	strikeLate                 // X on a rack's second ball
	spareFirst                 // / on a rack's first ball
	countTooBig                // a count over ten
)

func (e *ballError) Error() string { return fmt.Sprintf("%q: %s", e.answer, ballWhyEnglish[e.why]) }

var ballWhyEnglish = map[ballWhy]string{
	notABall:    "not a ball: enter the pins knocked down (0 to 10), X, /, - or F",
	strikeLate:  "X is a strike, the first ball at ten pins; this ball is the rack's second: enter the pins it knocked down, or /",
	spareFirst:  "/ is a spare, the second ball of a rack; this ball is the first: enter the pins it knocked down, or X",
	countTooBig: "a ball knocks down 0 to 10 pins",
}

// parseBall reads a ball as a bowler writes it on a score sheet: the pins
// knocked down (0 to 10), X (a strike), / (a spare: every pin standing),
// - (a gutter, 0) or F (a foul, 0), in either case. standing is the pins
// standing before it, and fresh whether the rack is a new one (ten pins
// set for a first ball).
func parseBall(s string, standing int, fresh bool) (bowling.Ball, error) {
	switch strings.ToUpper(s) {
	case "X":
		if !fresh {
			return bowling.Ball{}, &ballError{s, strikeLate}
		}
		return bowling.Ball{Pins: bowling.NumPins}, nil
	case "/":
		if fresh {
			return bowling.Ball{}, &ballError{s, spareFirst}
		}
		return bowling.Ball{Pins: standing}, nil
	case "-":
		return bowling.Ball{}, nil
	case "F":
		return bowling.Ball{Foul: true}, nil
	}
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return bowling.Ball{}, &ballError{s, notABall}
	case n < 0 || n > bowling.NumPins:
		return bowling.Ball{}, &ballError{s, countTooBig}
	}
	return bowling.Ball{Pins: n}, nil
}

// rackOf returns the pins standing before a game's next ball, and whether
// they are a fresh rack: the frame's first ball, or in the tenth one after
// a strike or a spare.
func rackOf(g *bowling.Game) (standing int, fresh bool) {
	fresh = true
	for _, p := range g.Frame(g.CurrentFrame()).Rolls {
		fresh = !fresh || p == bowling.NumPins // a strike leaves the rack fresh; a second ball ends it
	}
	return g.Standing(), fresh
}
