package bowling

import (
	"errors"
	"fmt"
	"strconv"
)

// The shape of a game.
const (
	NumFrames = 10 // frames in a game
	NumPins   = 10 // pins in a full rack
	MaxRolls  = 21 // rolls in the longest game: nine open frames and three in the tenth
	MaxScore  = 300
)

// Game is one player's game: the rolls bowled so far and where they stand.
// The zero value is a game that has not begun. A Game is a plain value with
// no pointers inside, so copying it takes a snapshot.
//
// A roll is a count of pins ([Game.Roll]), or a [Ball] that may also say
// which pins it left standing ([Game.RollBall], [Game.RollDeck]), or that
// it was a foul.
//
// Rolling never allocates: the rolls live in a fixed array and the frames
// are derived from them on demand.
type Game struct {
	rolls  [MaxRolls]int8
	decks  [MaxRolls]Deck  // the pins standing after each roll, where known
	known  uint32          // bit i: decks[i] is known
	fouls  uint32          // bit i: roll i was a foul
	n      int8            // rolls bowled
	starts [NumFrames]int8 // index in rolls of each frame's first roll, for frames up to frame
	frame  int8            // 0-based frame in play; NumFrames once the game is over
	down   int8            // pins down on the rack in play; 0 on a fresh rack
}

// Ball is one ball as a lane records it: the pins it knocked down and,
// when they were seen, the pins it left standing; or a foul. The zero
// value is a gutter ball with its deck unknown.
//
// A foul counts no pin, and has no deck: the pins it knocked down are
// set again. After a foul on the first ball of a rack the next ball faces
// ten pins, so a foul then ten is a spare ("F|/"); a foul on a second ball
// counts 0 for that ball.
type Ball struct {
	Pins    int  // pins knocked down, 0 to 10; 0 for a foul
	Deck    Deck // the pins standing after the ball, if HasDeck
	HasDeck bool // the deck after the ball is known
	Foul    bool // the bowler fouled: the ball counts 0, marked F
}

// Replay rebuilds a game from its ordered rolls. It stops at the first
// roll the rules refuse and returns the game as it stood before that roll,
// with the error.
func Replay(rolls []int) (Game, error) {
	var g Game
	for _, pins := range rolls {
		if err := g.Roll(pins); err != nil {
			return g, err
		}
	}
	return g, nil
}

// ReplayBalls rebuilds a game from its ordered balls, as [Game.Balls]
// returns them, like [Replay].
func ReplayBalls(balls []Ball) (Game, error) {
	var g Game
	for _, b := range balls {
		if err := g.RollBall(b); err != nil {
			return g, err
		}
	}
	return g, nil
}

// Roll records a roll that knocked down pins. An impossible roll is refused
// with a *[RollError] wrapping [ErrInvalidPins], [ErrTooManyPins] or
// [ErrGameOver], and the game is left unchanged.
func (g *Game) Roll(pins int) error { return g.RollBall(Ball{Pins: pins}) }

// RollDeck records a roll that left the pins of deck standing: the pins
// it knocked down are those standing before it that deck no longer has.
// A deck with a pin that was down before the ball is refused with a
// *[RollError] wrapping [ErrInvalidPins]; so is one of more pins than
// were standing, when the deck before is not known (a count was rolled
// before it on the rack).
func (g *Game) RollDeck(deck Deck) error {
	return g.RollBall(Ball{Pins: max(g.Standing()-deck.Count(), 0), Deck: deck, HasDeck: true})
}

// RollBall records a ball: its pins and, if it has one, its deck, which
// must be the deck before the ball less the pins it knocked down. It is
// refused, changing nothing, with a *[RollError] wrapping
// [ErrInvalidPins], [ErrTooManyPins] or [ErrGameOver].
func (g *Game) RollBall(b Ball) error {
	if err := g.CheckBall(b); err != nil {
		return err
	}
	g.add(b)
	return nil
}

// add records a ball the rules accept.
func (g *Game) add(b Ball) {
	pins := b.Pins
	g.rolls[g.n] = int8(pins)
	g.decks[g.n] = 0
	g.known &^= 1 << g.n
	g.fouls &^= 1 << g.n
	if b.HasDeck {
		g.decks[g.n] = b.Deck
		g.known |= 1 << g.n
	}
	if b.Foul {
		g.fouls |= 1 << g.n
	}
	g.n++
	g.down += int8(pins)
	if g.down == NumPins {
		g.down = 0 // a strike or a spare: the rack is set again
	}
	if g.frameDone() {
		g.frame++
		g.down = 0
		if g.frame < NumFrames {
			g.starts[g.frame] = g.n
		}
	}
}

// Rack returns the pins standing for the next ball, and whether they are
// known: a fresh rack is always known (all ten); the second ball of a rack
// faces the deck its first ball left, if that ball had one. Once the game
// is over no pin stands.
func (g *Game) Rack() (Deck, bool) {
	switch {
	case g.Over():
		return 0, true
	case g.down == 0:
		return Full, true
	case g.known&(1<<(g.n-1)) != 0:
		return g.decks[g.n-1], true
	}
	return 0, false
}

// Check reports whether a roll of pins would be accepted, with the error
// [Game.Roll] would return, without changing the game.
func (g *Game) Check(pins int) error { return g.CheckBall(Ball{Pins: pins}) }

// CheckBall reports whether a ball would be accepted, with the error
// [Game.RollBall] would return, without changing the game.
func (g *Game) CheckBall(b Ball) error {
	pins := b.Pins
	switch {
	case g.Over():
		return g.refuse(pins, ErrGameOver, "the game is over")
	case b.Foul && pins != 0:
		return g.refuse(pins, ErrInvalidPins, fmt.Sprintf("a foul counts 0 pins, not %d", pins))
	case b.Foul && b.HasDeck:
		return g.refuse(pins, ErrInvalidPins, "a foul has no deck: the pins it knocked down are set again")
	case pins < 0 || pins > NumPins:
		return g.refuse(pins, ErrInvalidPins, fmt.Sprintf("%d pins is not a roll, a roll is 0 to %d pins", pins, NumPins))
	case pins > g.Standing():
		return g.refuse(pins, ErrTooManyPins, fmt.Sprintf("%d pins but only %d standing", pins, g.Standing()))
	case b.HasDeck:
		if why := g.deckFault(b.Deck); why != "" {
			return g.refuse(pins, ErrInvalidPins, why)
		}
		if after := g.Standing() - pins; b.Deck.Count() != after {
			return g.refuse(pins, ErrInvalidPins, fmt.Sprintf("%d pins of %d standing leave %d, but the deck %s has %d", pins, g.Standing(), after, b.Deck, b.Deck.Count()))
		}
	}
	return nil
}

// deckFault says why deck cannot be what the next ball leaves standing,
// whatever its count, or "" if it can.
func (g *Game) deckFault(deck Deck) string {
	if !deck.Valid() {
		return fmt.Sprintf("the deck %#x names pins beyond the ten", uint16(deck))
	}
	before, known := g.Rack()
	if !known {
		if deck.Count() > g.Standing() {
			return fmt.Sprintf("the deck %s has %d pins standing, but only %d were", deck, deck.Count(), g.Standing())
		}
		return ""
	}
	for p := 1; p <= NumPins; p++ {
		if deck.Has(p) && !before.Has(p) {
			return fmt.Sprintf("pin %d stands in the deck %s, but it was down before the ball (%s standing)", p, deck, before)
		}
	}
	return ""
}

func (g *Game) refuse(pins int, err error, reason string) error {
	return &RollError{Roll: int(g.n) + 1, Pins: pins, Err: err, reason: reason}
}

// Correct changes the pins of a ball already bowled — ball (1 to 3) of
// frame (1 to 10) — and returns what it was. The game is replayed with the
// new value. A correction the rules refuse on replay (a second ball now
// more than the pins standing, a ball after the game is over), or one that
// would change which frame and ball any roll is (a strike where a second
// ball was bowled, an open first ball where the next frame has begun), fails
// with an error wrapping [ErrInvalidCorrection] and changes nothing. The
// last roll may change whether its frame or the game is over: a strike
// entered as a 7 becomes one, and a 7 entered as a strike then waits for
// its second ball.
//
// The corrected ball is a count: its deck, if it had one, is forgotten,
// and a foul corrected to 0 is a gutter ball.
// See [Game.CorrectBall] for the balls after it that have decks.
func (g *Game) Correct(frame, ball, pins int) (was int, err error) {
	i, err := g.ballIndex(frame, ball)
	if err != nil {
		return 0, err
	}
	if int(g.rolls[i]) == pins && g.fouls&(1<<i) == 0 {
		return 0, fmt.Errorf("%w: frame %d ball %d is %d already", ErrInvalidCorrection, frame, ball, pins)
	}
	b, err := g.CorrectBall(frame, ball, Ball{Pins: pins})
	return b.Pins, err
}

// StandingBefore returns how many pins stood before a ball already
// bowled — ball (1 to 3) of frame (1 to 10) — as [Game.Standing] did
// then: what a correction naming only the ball's deck counts from.
func (g *Game) StandingBefore(frame, ball int) (int, error) {
	i, err := g.ballIndex(frame, ball)
	if err != nil {
		return 0, err
	}
	var before Game
	for j := range i {
		before.add(g.ball(j)) // balls the game took: the rules take them again
	}
	return before.Standing(), nil
}

// CorrectBall changes a ball already bowled — ball (1 to 3) of frame (1
// to 10) — to b, and returns what it was, as [Game.Correct] does. b is
// checked as [Game.RollBall] checks a ball. A later ball that has a deck
// keeps it: its pins are counted again from the deck before it, since
// the pins left standing are what was seen; a later ball without one
// keeps its count. A correction after which a later ball's deck no longer
// fits, or any ball's count, is refused.
func (g *Game) CorrectBall(frame, ball int, b Ball) (was Ball, err error) {
	i, err := g.ballIndex(frame, ball)
	if err != nil {
		return Ball{}, err
	}
	if !b.HasDeck {
		b.Deck = 0
	}
	balls := g.Balls()
	was = balls[i]
	if was == b {
		return Ball{}, fmt.Errorf("%w: frame %d ball %d is %s already", ErrInvalidCorrection, frame, ball, b)
	}
	balls[i] = b
	var fixed Game
	for j, next := range balls {
		if after := next.Deck.Count(); j > i && next.HasDeck && after <= fixed.Standing() {
			next.Pins = fixed.Standing() - after // the deck is then checked against the rack
		}
		if err := fixed.RollBall(next); err != nil {
			re := err.(*RollError)
			why := "the balls after it would not fit (" + re.reason + ")"
			switch {
			case j == i:
				why = re.reason
			case errors.Is(err, ErrGameOver):
				why = "the game would be over before its last ball"
			}
			return Ball{}, fmt.Errorf("%w: frame %d ball %d cannot be %s: %s", ErrInvalidCorrection, frame, ball, b, why)
		}
	}
	for f := range NumFrames {
		if s, e := g.span(f); s < e {
			if fs, fe := fixed.span(f); fs != s || fe != e {
				return Ball{}, fmt.Errorf("%w: frame %d ball %d cannot be %s: the balls bowled after it would belong to other frames", ErrInvalidCorrection, frame, ball, b)
			}
		}
	}
	*g = fixed
	return was, nil
}

// BallAt returns ball (1 to 3) of frame (1 to 10), if it has been bowled.
func (g *Game) BallAt(frame, ball int) (Ball, bool) {
	i, err := g.ballIndex(frame, ball)
	if err != nil {
		return Ball{}, false
	}
	return g.ball(i), true
}

// ballIndex returns the index in the rolls of ball (1 to 3) of frame (1 to
// 10), or an error wrapping [ErrInvalidCorrection] if it was not bowled.
func (g *Game) ballIndex(frame, ball int) (int, error) {
	if frame < 1 || frame > NumFrames {
		return 0, fmt.Errorf("%w: there is no frame %d", ErrInvalidCorrection, frame)
	}
	s, e := g.span(frame - 1)
	if ball < 1 || ball > 3 || s+ball-1 >= e { // ball is checked before the sum: it may be any int
		return 0, fmt.Errorf("%w: frame %d ball %d has not been bowled", ErrInvalidCorrection, frame, ball)
	}
	return s + ball - 1, nil
}

// String writes a ball as a correction's message names it: "7", "7 (deck
// 2-4-5)", "a foul".
func (b Ball) String() string {
	if b.Foul && b.Pins == 0 && !b.HasDeck {
		return "a foul"
	}
	s := strconv.Itoa(b.Pins)
	if b.Foul {
		s += " (foul)"
	}
	if b.HasDeck {
		s += " (deck " + b.Deck.String() + ")"
	}
	return s
}

// frameDone reports whether the frame in play has had all its rolls.
func (g *Game) frameDone() bool {
	s := g.starts[g.frame]
	balls := g.n - s
	if g.frame < NumFrames-1 {
		return balls == 2 || g.rolls[s] == NumPins
	}
	switch balls {
	case 3:
		return true
	case 2:
		return g.rolls[s]+g.rolls[s+1] < NumPins // open: no bonus ball
	}
	return false
}

// Over reports whether the tenth frame is complete.
func (g *Game) Over() bool { return g.frame == NumFrames }

// Standing returns the pins standing for the next roll (0 once the game is
// over).
func (g *Game) Standing() int {
	if g.Over() {
		return 0
	}
	return NumPins - int(g.down)
}

// CurrentFrame returns the number (1 to 10) of the frame in play; once the
// game is over it stays at 10.
func (g *Game) CurrentFrame() int { return min(int(g.frame)+1, NumFrames) }

// Ball returns which ball (1 to 3) of the frame in play the next roll is;
// 0 once the game is over.
func (g *Game) Ball() int {
	if g.Over() {
		return 0
	}
	return int(g.n-g.starts[g.frame]) + 1
}

// Balls returns every ball bowled so far, in order: the input
// [ReplayBalls] needs to rebuild the game, decks included.
func (g *Game) Balls() []Ball {
	out := make([]Ball, g.n)
	for i := range out {
		out[i] = g.ball(i)
	}
	return out
}

// ball returns roll i as a Ball.
func (g *Game) ball(i int) Ball {
	b := Ball{Pins: int(g.rolls[i])}
	if g.known&(1<<i) != 0 {
		b.Deck, b.HasDeck = g.decks[i], true
	}
	b.Foul = g.fouls&(1<<i) != 0
	return b
}

// NumRolls returns how many rolls have been bowled.
func (g *Game) NumRolls() int { return int(g.n) }

// Rolls returns the pins of every roll bowled so far, in order: the input
// [Replay] needs to rebuild the game.
func (g *Game) Rolls() []int {
	out := make([]int, g.n)
	for i := range out {
		out[i] = int(g.rolls[i])
	}
	return out
}

// span returns the range of rolls (start, end) of the 0-based frame i.
func (g *Game) span(i int) (int, int) {
	if i > int(g.frame) {
		return int(g.n), int(g.n)
	}
	if i+1 <= int(g.frame) && i+1 < NumFrames {
		return int(g.starts[i]), int(g.starts[i+1])
	}
	return int(g.starts[i]), int(g.n)
}

// value returns the points frame i (0-based) is worth, and whether that can
// no longer change.
func (g *Game) value(i int) (int, bool) {
	s, e := g.span(i)
	r := g.rolls[:g.n]
	if i == NumFrames-1 {
		sum := 0
		for _, p := range r[s:e] {
			sum += int(p)
		}
		return sum, g.Over()
	}
	switch {
	case e-s >= 1 && r[s] == NumPins: // strike: ten and the next two rolls
		if len(r) < s+3 {
			return 0, false
		}
		return NumPins + int(r[s+1]) + int(r[s+2]), true
	case e-s < 2:
		return 0, false
	case r[s]+r[s+1] == NumPins: // spare: ten and the next roll
		if len(r) < s+3 {
			return 0, false
		}
		return NumPins + int(r[s+2]), true
	}
	return int(r[s] + r[s+1]), true
}

// Total returns the game's score so far: the cumulative score of the last
// frame whose score can no longer change (0 before any), which is the final
// score once the game is over.
func (g *Game) Total() int {
	total := 0
	for i := range NumFrames {
		v, ok := g.value(i)
		if !ok {
			break
		}
		total += v
	}
	return total
}

// Frame returns frame number n (1 to 10). It panics if n is out of range,
// like an index would.
func (g *Game) Frame(n int) Frame {
	if n < 1 || n > NumFrames {
		panic(fmt.Sprintf("bowling: frame %d out of range 1 to %d", n, NumFrames))
	}
	return g.Frames()[n-1]
}

// Frames returns the ten frames of the game, bowled or not.
func (g *Game) Frames() []Frame {
	frames := g.FramesIn(new([MaxRolls]int))
	return frames[:]
}

// FramesIn returns the ten frames of the game, bowled or not, as [Game.Frames]
// does but without allocating, for what reads a game's frames on every ball
// (a lane's board, the night's numbers): the frames' rolls are held by
// rolls, which the caller declares beside them.
func (g *Game) FramesIn(rolls *[MaxRolls]int) [NumFrames]Frame {
	for i := range int(g.n) {
		rolls[i] = int(g.rolls[i])
	}
	var frames [NumFrames]Frame
	cum, scored := 0, true
	for i := range frames {
		s, e := g.span(i)
		f := Frame{Number: i + 1, Rolls: rolls[s:e:e]}
		for b := range e - s {
			if g.known&(1<<(s+b)) != 0 {
				f.decks[b] = g.decks[s+b]
				f.known |= 1 << b
			}
			if g.fouls&(1<<(s+b)) != 0 {
				f.fouls |= 1 << b
			}
		}
		v, ok := g.value(i)
		scored = scored && ok
		if scored {
			cum += v
			f.score, f.scored = cum, true
		}
		frames[i] = f
	}
	return frames
}

// Frame is one frame of a game, as a snapshot.
type Frame struct {
	Number int   // 1 to 10
	Rolls  []int // the pins of each roll bowled in the frame, in order
	score  int
	scored bool
	decks  [3]Deck // the deck after each ball, where known
	known  uint8   // bit b: decks[b] is known
	fouls  uint8   // bit b: ball b+1 was a foul
}

// Foul reports whether ball (1 to 3) of the frame was a foul.
func (f Frame) Foul(ball int) bool {
	return ball >= 1 && ball <= 3 && f.fouls&(1<<(ball-1)) != 0
}

// Deck returns the pins ball (1 to 3) of the frame left standing, and
// false if that is not known (the ball was rolled as a count, or has not
// been bowled).
func (f Frame) Deck(ball int) (Deck, bool) {
	if ball < 1 || ball > len(f.decks) || f.known&(1<<(ball-1)) == 0 {
		return 0, false
	}
	return f.decks[ball-1], true
}

// splitAt reports whether ball i (0-based) left a split, when its deck is
// known.
func (f Frame) splitAt(i int) bool {
	d, ok := f.Deck(i + 1)
	return ok && d.Split()
}

// Split reports whether the frame's first ball left a split
// ([Deck.Split]); false when its deck is not known.
func (f Frame) Split() bool {
	d, ok := f.Deck(1)
	return ok && d.Split()
}

// Score returns the frame's cumulative score, and false while that score can
// still change (the frame is in play, or waits for the rolls of a strike's
// or a spare's bonus).
func (f Frame) Score() (int, bool) { return f.score, f.scored }

// Complete reports whether the frame has had all its rolls.
func (f Frame) Complete() bool {
	r := f.Rolls
	if f.Number < NumFrames {
		return len(r) == 2 || len(r) == 1 && r[0] == NumPins
	}
	return len(r) == 3 || len(r) == 2 && r[0]+r[1] < NumPins
}

// Marks returns the frame as the scoreboard shows it: "X" for a strike,
// "8|/" for a spare, "8|1" for an open frame, "-" for a gutter, the first
// roll alone while the frame is in play, and the tenth frame's rolls joined
// by "|" ("X|7|/"). A frame not yet bowled has no marks.
//
// A split is marked as lane scoring circles it, with its count in
// parentheses: "(8)|1", "(8)|/", in the tenth "X|(8)|/". Only a ball at a
// full rack whose deck is known can be marked a split. A foul is "F",
// wherever it is: "F|/", "7|F", "X|F|F".
func (f Frame) Marks() string {
	var buf [12]byte
	return string(f.AppendMarks(buf[:0]))
}

// AppendMarks appends the frame's [Frame.Marks] to dst.
func (f Frame) AppendMarks(dst []byte) []byte {
	fresh, standing := true, NumPins
	for i, p := range f.Rolls {
		if i > 0 {
			dst = append(dst, '|')
		}
		switch {
		case f.fouls&(1<<i) != 0:
			dst = append(dst, 'F')
		case fresh && p == NumPins:
			dst = append(dst, 'X')
		case !fresh && p == standing:
			dst = append(dst, '/')
		case p == 0:
			dst = append(dst, '-')
		case fresh && f.splitAt(i):
			dst = append(dst, '(')
			dst = strconv.AppendInt(dst, int64(p), 10)
			dst = append(dst, ')')
		default:
			dst = strconv.AppendInt(dst, int64(p), 10)
		}
		switch {
		case fresh && p == NumPins: // strike: a new rack, still fresh
		case !fresh: // second ball of a rack: it is set again
			fresh, standing = true, NumPins
		default:
			fresh, standing = false, standing-p
		}
	}
	return dst
}
