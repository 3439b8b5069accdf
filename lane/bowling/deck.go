package bowling

import (
	"fmt"
	"math/bits"
	"strconv"
)

// Deck is a set of pins standing on the pin deck, in the standard
// numbering seen from the bowler: pin 1, the head pin, in front; 2 and 3
// behind it; then 4, 5, 6; and 7, 8, 9, 10 in the back row, each row from
// left to right.
//
//	7   8   9   10
//	  4   5   6
//	    2   3
//	      1
//
// Pin n is bit n-1. The zero value is an empty deck: every pin down.
type Deck uint16

// Full is the rack of ten pins, as it is set for a first ball.
const Full Deck = 1<<NumPins - 1

// NewDeck returns the deck of the given pins standing. A number outside 1
// to 10, or a pin named twice, is refused with an error wrapping
// [ErrInvalidPins].
func NewDeck(pins ...int) (Deck, error) {
	var d Deck
	for _, p := range pins {
		if p < 1 || p > NumPins {
			return 0, fmt.Errorf("%w: there is no pin %d, pins are numbered 1 to %d", ErrInvalidPins, p, NumPins)
		}
		if d.Has(p) {
			return 0, fmt.Errorf("%w: pin %d is named twice", ErrInvalidPins, p)
		}
		d |= 1 << (p - 1)
	}
	return d, nil
}

// Has reports whether pin (1 to 10) is standing; false for any other
// number.
func (d Deck) Has(pin int) bool {
	return pin >= 1 && pin <= NumPins && d&(1<<(pin-1)) != 0
}

// Count returns how many pins are standing.
func (d Deck) Count() int { return bits.OnesCount16(uint16(d & Full)) }

// Pins returns the pins standing, in order.
func (d Deck) Pins() []int { return d.AppendPins(make([]int, 0, d.Count())) }

// AppendPins appends the pins standing, in order, to dst and returns the
// extended slice.
func (d Deck) AppendPins(dst []int) []int {
	for p := 1; p <= NumPins; p++ {
		if d.Has(p) {
			dst = append(dst, p)
		}
	}
	return dst
}

// Valid reports whether the deck holds no bit beyond the ten pins.
func (d Deck) Valid() bool { return d&^Full == 0 }

// String writes the pins standing as a leave is spoken: "7-10", "2-4-5-8";
// "none" when every pin is down.
func (d Deck) String() string {
	if d&Full == 0 {
		return "none"
	}
	var buf []byte
	for _, p := range d.Pins() {
		if len(buf) > 0 {
			buf = append(buf, '-')
		}
		buf = strconv.AppendInt(buf, int64(p), 10)
	}
	return string(buf)
}

// Single returns the one pin standing, and false unless exactly one pin
// stands: the leave of a single-pin spare, such as the 10 pin.
func (d Deck) Single() (pin int, ok bool) {
	if d.Count() != 1 {
		return 0, false
	}
	return bits.TrailingZeros16(uint16(d)) + 1, true
}

// spot is where a pin stands on the deck: its row, counted from the front
// (0 for the head pin, 3 for the back row), and its lateral position in
// half the distance between two pins of a row, from the lane's centre
// line (negative to the bowler's left). The pins of a row are two apart;
// a pin stands midway between the two pins behind it.
type spot struct{ row, x int }

// spots holds each pin's spot, by pin number.
var spots = [NumPins + 1]spot{
	1: {0, 0},
	2: {1, -1}, 3: {1, 1},
	4: {2, -2}, 5: {2, 0}, 6: {2, 2},
	7: {3, -3}, 8: {3, -1}, 9: {3, 1}, 10: {3, 3},
}

// pinAt returns the pin at a spot, or 0 if no pin stands there.
func pinAt(s spot) int {
	for p := 1; p <= NumPins; p++ {
		if spots[p] == s {
			return p
		}
	}
	return 0
}

// Split reports whether the deck, as a first ball of a rack left it, is a
// split by the USBC's definition: the head pin is down, and either at
// least one pin is down between two or more standing pins (7-9, 3-10) or
// at least one pin is down immediately ahead of two or more standing pins
// (5-6, where the 3 pin is down). A single pin, or any leave with the head
// pin standing, is never a split.
//
// "Between" is the lateral sense: a pin whose lateral position lies
// strictly between those of two standing pins, in a row from the front
// one's to the back one's: the 8 and 9 between the 7 and 10, the 6 between
// the 3 and 10, the 4 between the 5 and the 7. The 5 is not between the 2
// and 8, which stand one behind the other: that leave is a sleeper, not a
// split. "Immediately ahead" is the pin in front of two neighbours of the
// next row: the 3 ahead of the 5 and 6.
func (d Deck) Split() bool { return splits[d&Full] }

// splits holds Split for every deck: a board asks it of every frame's
// first ball each time it is built, and the definition walks pairs of
// pins.
var splits = func() (t [Full + 1]bool) {
	for d := range Full + 1 {
		t[d] = d.split()
	}
	return t
}()

// split is Split by its definition.
func (d Deck) split() bool {
	if d.Has(1) || d.Count() < 2 {
		return false
	}
	for p := 1; p <= NumPins; p++ {
		if !d.Has(p) && (d.between(spots[p]) || d.ahead(spots[p])) {
			return true
		}
	}
	return false
}

// between reports whether two standing pins have the spot s between them.
func (d Deck) between(s spot) bool {
	for a := 1; a <= NumPins; a++ {
		for b := a + 1; b <= NumPins; b++ {
			if !d.Has(a) || !d.Has(b) {
				continue
			}
			sa, sb := spots[a], spots[b]
			if min(sa.x, sb.x) < s.x && s.x < max(sa.x, sb.x) && min(sa.row, sb.row) <= s.row && s.row <= max(sa.row, sb.row) {
				return true
			}
		}
	}
	return false
}

// ahead reports whether the two pins immediately behind the spot s (in
// the next row, one either side) are both standing.
func (d Deck) ahead(s spot) bool {
	left, right := pinAt(spot{s.row + 1, s.x - 1}), pinAt(spot{s.row + 1, s.x + 1})
	return left != 0 && right != 0 && d.Has(left) && d.Has(right)
}
