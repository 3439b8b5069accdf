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
	// ErrStaleRoll: a roll for a ball other than the one up: a repeated
	// or late roll, which must never count twice, or one ahead of the game.
	ErrStaleRoll = errors.New("game: stale roll")
	// ErrNotHost: a start or a new game from a player who is not the host.
	ErrNotHost = errors.New("game: not the host")
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

// Start decides whether by, the host, may start the game.
func (s *State) Start(by bowling.Name) (Event, error) {
	if err := s.checkHost(by, "start the game"); err != nil {
		return Event{}, err
	}
	if s.started {
		return Event{}, fmt.Errorf("%w: the game is already under way", ErrGameStarted)
	}
	return Event{Kind: GameStarted}, nil
}

// Throw is a roll as a player enters it: who enters it (By), whose ball
// it is (For; empty means By's own), which ball it is meant for, and the
// pins. UpOffline says whether the player up has no connection: the lane
// knows that, the game does not.
type Throw struct {
	By, For     bowling.Name
	Frame, Ball int
	Pins        int
	UpOffline   bool
}

// Roll decides whether a throw counts. It must be for the ball up — the
// player up, the frame and the ball they are on — so that a repeated or
// late roll is refused (ErrStaleRoll) and never counts twice. A player
// enters their own balls; the host may enter anyone's, and any seated
// player may enter the ball of a player up who is offline.
func (s *State) Roll(t Throw) (Event, error) {
	if t.For == "" {
		t.For = t.By
	}
	if err := s.check(t.By); err != nil {
		return Event{}, err
	}
	if p := s.Phase(); p != Playing {
		return Event{}, fmt.Errorf("%w: the game is %s", ErrNotPlaying, p)
	}
	p, ok := s.match.Player(t.For)
	if !ok || p.Left {
		return Event{}, fmt.Errorf("%w: %s is not playing on this lane", bowling.ErrUnknownPlayer, t.For)
	}
	seat, _, _ := s.match.Up()
	up := s.match.At(seat).Name
	g := &p.Game
	switch {
	case t.For != t.By && t.By != s.Host() && !(t.For == up && t.UpOffline):
		return Event{}, fmt.Errorf("%w: only the host, %s, may enter %s's roll while %s is connected", ErrNotHost, s.Host(), t.For, t.For)
	case g.Over() || t.Frame != g.CurrentFrame() || t.Ball != g.Ball():
		return Event{}, fmt.Errorf("%w: frame %d ball %d is not %s's next ball%s", ErrStaleRoll, t.Frame, t.Ball, t.For, next(g))
	case t.For != up:
		return Event{}, fmt.Errorf("%w: it is %s's turn, not %s's", bowling.ErrNotYourTurn, up, t.For)
	}
	if err := g.Check(t.Pins); err != nil {
		return Event{}, err
	}
	e := Event{Kind: Rolled, Player: t.For, Frame: t.Frame, Ball: t.Ball, Pins: t.Pins}
	if t.By != t.For {
		e.By = t.By
	}
	return e, nil
}

// next says which ball a game is on, for an error message.
func next(g *bowling.Game) string {
	if g.Over() {
		return " (their game is over)"
	}
	return fmt.Sprintf(" (that is frame %d ball %d)", g.CurrentFrame(), g.Ball())
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

// NewGame decides whether by, the host, may start a new game of the
// series once the game is over, with the players still seated.
func (s *State) NewGame(by bowling.Name) (Event, error) {
	if err := s.checkHost(by, "start a new game"); err != nil {
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

// checkHost refuses a command only the host may give.
func (s *State) checkHost(by bowling.Name, what string) error {
	if err := s.check(by); err != nil {
		return err
	}
	if host := s.Host(); by != host {
		return fmt.Errorf("%w: only %s, the host, may %s", ErrNotHost, host, what)
	}
	return nil
}
