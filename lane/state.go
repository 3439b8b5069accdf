package lane

import (
	"errors"
	"fmt"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/protocol"
)

// Errors of a lane's state, besides those of package bowling.
var (
	// ErrGameStarted: a join or a start once the game has started.
	ErrGameStarted = errors.New("lane: game started")
	// ErrNotPlaying: a roll while no game is in play.
	ErrNotPlaying = errors.New("lane: no game in play")
	// ErrLaneFull: a join when every seat is taken.
	ErrLaneFull = errors.New("lane: lane full")
	// ErrNotFinished: a rematch before the game is over.
	ErrNotFinished = errors.New("lane: game not finished")
)

// EventKind names what happened on a lane.
type EventKind uint8

// The events a lane's state is made of.
const (
	SeatTaken   EventKind = iota + 1 // Name took a seat
	GameStarted                      // the game started
	Rolled                           // Name rolled Pins
	PlayerLeft                       // Name left
	Rematched                        // a new game with the same players started
)

func (k EventKind) String() string {
	switch k {
	case SeatTaken:
		return "seat taken"
	case GameStarted:
		return "game started"
	case Rolled:
		return "roll"
	case PlayerLeft:
		return "player left"
	case Rematched:
		return "rematch"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is one change of a lane's game. A lane's state is fully
// determined by its ordered events: [State.Apply] them in order to rebuild it.
type Event struct {
	Kind EventKind
	Name bowling.Name // SeatTaken, Rolled, PlayerLeft
	Pins int          // Rolled
}

// State is a lane's game: who is seated, whether the game has started, and
// every player's frames. It is pure: no connections, no clocks, no tokens.
// The zero value is an empty lane waiting for players.
type State struct {
	match      bowling.Match
	started    bool
	maxPlayers int // 0 means MaxPlayers
}

// Apply applies one event. A refused event returns an error that
// [errors.Is] matches against this package's or package bowling's sentinel
// errors, and changes nothing.
func (s *State) Apply(e Event) error {
	switch e.Kind {
	case SeatTaken:
		if s.started {
			return fmt.Errorf("%w: %s cannot join a game in play", ErrGameStarted, e.Name)
		}
		if limit := s.playerLimit(); s.match.Len() >= limit {
			return fmt.Errorf("%w: all %d seats are taken", ErrLaneFull, limit)
		}
		_, err := s.match.Add(string(e.Name))
		return err
	case GameStarted:
		if s.started {
			return fmt.Errorf("%w: the game is already under way", ErrGameStarted)
		}
		if s.match.Len() == 0 {
			return fmt.Errorf("%w: a game needs at least one player", bowling.ErrNoPlayers)
		}
		s.started = true
		return nil
	case Rolled:
		if s.Phase() != protocol.PhasePlaying {
			return fmt.Errorf("%w: the game is %s", ErrNotPlaying, s.Phase())
		}
		return s.match.RollAs(e.Name, e.Pins)
	case PlayerLeft:
		if err := s.match.Remove(e.Name); err != nil {
			return err
		}
		if s.match.Len() == 0 {
			s.started = false // everyone gave up their seat before a ball: wait for players again
		}
		return nil
	case Rematched:
		if s.Phase() != protocol.PhaseFinished {
			return fmt.Errorf("%w: a rematch comes after the game is over", ErrNotFinished)
		}
		var next bowling.Match
		for _, p := range s.match.Players() {
			if !p.Left {
				_, _ = next.Add(string(p.Name)) // names were valid and unique already
			}
		}
		if next.Len() == 0 {
			return fmt.Errorf("%w: nobody is left to play again", bowling.ErrNoPlayers)
		}
		s.match = next
		return nil
	}
	return fmt.Errorf("lane: unknown event %v", e.Kind)
}

func (s *State) playerLimit() int {
	if s.maxPlayers > 0 {
		return s.maxPlayers
	}
	return MaxPlayers
}

// Phase returns where the game stands.
func (s *State) Phase() protocol.Phase {
	switch {
	case !s.started:
		return protocol.PhaseWaiting
	case s.match.Over():
		return protocol.PhaseFinished
	}
	if _, _, ok := s.match.Up(); !ok {
		return protocol.PhaseFinished // every player left
	}
	return protocol.PhasePlaying
}

// Match returns the players' match.
func (s *State) Match() *bowling.Match { return &s.match }

// Seated reports whether name holds a seat and has not left.
func (s *State) Seated(name bowling.Name) bool {
	p, ok := s.match.Player(name)
	return ok && !p.Left
}
