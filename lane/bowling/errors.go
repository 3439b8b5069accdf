package bowling

import (
	"errors"
	"fmt"
)

// Sentinel errors. The errors returned by this package wrap one of these, so
// callers match them with [errors.Is]; the wrapping error's text says which
// roll or name was refused and why.
var (
	// ErrInvalidPins: a roll below 0 or above 10 pins, a deck naming a pin
	// that is not one of the ten or naming one twice, a ball whose deck
	// has a pin that was down before it or disagrees with its count, or a
	// foul that claims pins.
	ErrInvalidPins = errors.New("bowling: invalid pins")
	// ErrTooManyPins: a roll of more pins than are standing.
	ErrTooManyPins = errors.New("bowling: more pins than standing")
	// ErrGameOver: a roll after the game (or match) has ended.
	ErrGameOver = errors.New("bowling: game over")
	// ErrInvalidName: a player name that is not three English letters
	// ([ParseName]) or not a lane's name ([ParseLaneName]).
	ErrInvalidName = errors.New("bowling: invalid name")
	// ErrNameTaken: a second player with a name already on the lane.
	ErrNameTaken = errors.New("bowling: name taken")
	// ErrStarted: adding a player after the first roll of a match.
	ErrStarted = errors.New("bowling: match started")
	// ErrNotYourTurn: a roll by a player who is not up.
	ErrNotYourTurn = errors.New("bowling: not your turn")
	// ErrUnknownPlayer: naming a player who is not in the match.
	ErrUnknownPlayer = errors.New("bowling: unknown player")
	// ErrNoPlayers: rolling in a match that has no player to bowl.
	ErrNoPlayers = errors.New("bowling: no players")
	// ErrInvalidCorrection: changing a roll that was not bowled, or so
	// that no game could have had it.
	ErrInvalidCorrection = errors.New("bowling: invalid correction")
)

// RollError reports a refused roll: which roll of the game it would have
// been, how many pins it claimed, and why it was refused.
type RollError struct {
	Roll   int   // 1-based position the roll would have had in the game
	Pins   int   // the pins the roll claimed
	Err    error // one of the sentinel errors
	reason string
}

func (e *RollError) Error() string { return fmt.Sprintf("roll %d: %s", e.Roll, e.reason) }

// Unwrap returns the sentinel error, for [errors.Is].
func (e *RollError) Unwrap() error { return e.Err }
