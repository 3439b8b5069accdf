package game

import (
	"errors"
	"fmt"

	"github.com/tenpin/tenpin/lane/bowling"
)

// Errors of a lane's decisions, besides those of package bowling. The
// errors the decisions return wrap one of these or one of bowling's, so
// callers match them with [errors.Is].
var (
	// ErrGameStarted: a join or a start once the game has started.
	ErrGameStarted = errors.New("game: game started")
	// ErrNotPlaying: a roll while no game is in play.
	ErrNotPlaying = errors.New("game: no game in play")
	// ErrLaneFull: a join when every seat is taken.
	ErrLaneFull = errors.New("game: lane full")
	// ErrNotFinished: a new game before the game is over.
	ErrNotFinished = errors.New("game: game not finished")
	// ErrClosed: any command to a lane that has closed.
	ErrClosed = errors.New("game: lane closed")
)

// Open returns the event that opens a lane. A maxPlayers of 0 or less
// means [DefaultMaxPlayers].
func Open(id, name string, maxPlayers int) Event {
	if maxPlayers <= 0 {
		maxPlayers = DefaultMaxPlayers
	}
	return Event{Kind: Opened, Lane: id, Name: name, MaxPlayers: maxPlayers}
}

// Claim returns the event by which a server (node) takes the lane up,
// starting a new epoch: what a client was shown before can then never be
// confused with what it is shown after.
func (s *State) Claim(node string) Event {
	return Event{Kind: Claimed, Epoch: s.epoch + 1, Node: node}
}

// Close returns the event that closes the lane.
func (s *State) Close(reason string) Event {
	return Event{Kind: Closed, Reason: reason}
}

// Join decides whether a player named name (three letters, any case) may
// take a seat that token resumes.
func (s *State) Join(name string, token TokenHash) (Event, error) {
	n, err := bowling.ParseName(name)
	switch {
	case err != nil:
		return Event{}, err
	case s.closed:
		return Event{}, fmt.Errorf("%w: %s cannot join", ErrClosed, n)
	case s.started:
		return Event{}, fmt.Errorf("%w: %s cannot join a game in play", ErrGameStarted, n)
	case s.match.Len() >= s.MaxPlayers():
		return Event{}, fmt.Errorf("%w: all %d seats are taken", ErrLaneFull, s.MaxPlayers())
	}
	if _, ok := s.match.Player(n); ok {
		return Event{}, fmt.Errorf("%w: %s is already on this lane", bowling.ErrNameTaken, n)
	}
	return Event{Kind: SeatTaken, Player: n, Token: token}, nil
}

// Start decides whether by, a seated player, may start the game.
func (s *State) Start(by bowling.Name) (Event, error) {
	if err := s.check(by); err != nil {
		return Event{}, err
	}
	if s.started {
		return Event{}, fmt.Errorf("%w: the game is already under way", ErrGameStarted)
	}
	return Event{Kind: GameStarted}, nil
}

// Roll decides whether by may roll pins: the game is in play, by is up,
// and the pins can fall. The event says which frame and ball the roll was.
func (s *State) Roll(by bowling.Name, pins int) (Event, error) {
	if err := s.check(by); err != nil {
		return Event{}, err
	}
	if p := s.Phase(); p != Playing {
		return Event{}, fmt.Errorf("%w: the game is %s", ErrNotPlaying, p)
	}
	seat, frame, _ := s.match.Up()
	players := s.match.Players()
	up := &players[seat].Game
	if players[seat].Name != by {
		return Event{}, fmt.Errorf("%w: it is %s's turn, not %s's", bowling.ErrNotYourTurn, players[seat].Name, by)
	}
	if err := up.Check(pins); err != nil {
		return Event{}, err
	}
	return Event{Kind: Rolled, Player: by, Frame: frame, Ball: up.Ball(), Pins: pins}, nil
}

// Leave decides whether by may give up their seat. Before the first ball
// the seat is freed; after it the player's frames stay and the turn skips
// them.
func (s *State) Leave(by bowling.Name) (Event, error) {
	if err := s.check(by); err != nil {
		return Event{}, err
	}
	return Event{Kind: PlayerLeft, Player: by}, nil
}

// NewGame decides whether by may start a new game of the series once the
// game is over, with the players still seated.
func (s *State) NewGame(by bowling.Name) (Event, error) {
	if err := s.check(by); err != nil {
		return Event{}, err
	}
	if s.Phase() != Finished {
		return Event{}, fmt.Errorf("%w: a rematch comes after the game is over", ErrNotFinished)
	}
	return Event{Kind: NewGame}, nil
}

// check refuses a command from a closed lane or from someone not seated.
func (s *State) check(by bowling.Name) error {
	switch {
	case s.closed:
		return ErrClosed
	case !s.Seated(by):
		return fmt.Errorf("%w: %s is not playing on this lane", bowling.ErrUnknownPlayer, by)
	}
	return nil
}
