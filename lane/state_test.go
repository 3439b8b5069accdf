package lane

import (
	"errors"
	"testing"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/protocol"
)

func TestStateApply(t *testing.T) {
	var s State
	steps := []struct {
		e     Event
		err   error
		phase protocol.Phase
	}{
		{Event{Kind: GameStarted}, bowling.ErrNoPlayers, "waiting"},
		{Event{Kind: Rolled, Name: "AAA", Pins: 3}, ErrNotPlaying, "waiting"},
		{Event{Kind: SeatTaken, Name: "AAA"}, nil, "waiting"},
		{Event{Kind: SeatTaken, Name: "AAA"}, bowling.ErrNameTaken, "waiting"},
		{Event{Kind: SeatTaken, Name: "BBB"}, nil, "waiting"},
		{Event{Kind: Rematched}, ErrNotFinished, "waiting"},
		{Event{Kind: GameStarted}, nil, "playing"},
		{Event{Kind: GameStarted}, ErrGameStarted, "playing"},
		{Event{Kind: SeatTaken, Name: "CCC"}, ErrGameStarted, "playing"},
		{Event{Kind: Rolled, Name: "BBB", Pins: 3}, bowling.ErrNotYourTurn, "playing"},
		{Event{Kind: Rolled, Name: "AAA", Pins: 11}, bowling.ErrInvalidPins, "playing"},
		{Event{Kind: Rolled, Name: "AAA", Pins: 10}, nil, "playing"},
		{Event{Kind: PlayerLeft, Name: "BBB"}, nil, "playing"},
		{Event{Kind: PlayerLeft, Name: "BBB"}, bowling.ErrUnknownPlayer, "playing"},
		{Event{Kind: Rolled, Name: "AAA", Pins: 10}, nil, "playing"}, // BBB is skipped
		{Event{Kind: Kind(99)}, nil, "playing"},
	}
	for i, st := range steps {
		before := s.Match().Board()
		err := s.Apply(st.e)
		if st.e.Kind == Kind(99) {
			if err == nil {
				t.Errorf("step %d: an unknown event was accepted", i)
			}
			continue
		}
		if !errors.Is(err, st.err) || (st.err == nil) != (err == nil) {
			t.Fatalf("step %d: Apply(%v %s %d) = %v, want %v", i, st.e.Kind, st.e.Name, st.e.Pins, err, st.err)
		}
		if err != nil && s.Match().Board() != before {
			t.Errorf("step %d: refused %v changed the state", i, st.e.Kind)
		}
		if got := s.Phase(); got != st.phase {
			t.Errorf("step %d: phase %s, want %s", i, got, st.phase)
		}
	}
}

// Kind converts a number to an EventKind, for the unknown-event case.
func Kind(n uint8) EventKind { return EventKind(n) }

func TestLeavingBeforeAnyRollGoesBackToWaiting(t *testing.T) {
	var s State
	for _, e := range []Event{{Kind: SeatTaken, Name: "AAA"}, {Kind: GameStarted}, {Kind: PlayerLeft, Name: "AAA"}} {
		if err := s.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	if s.Phase() != protocol.PhaseWaiting {
		t.Errorf("phase after the only player left before a roll = %s, want waiting", s.Phase())
	}
	if err := s.Apply(Event{Kind: SeatTaken, Name: "BBB"}); err != nil {
		t.Errorf("join after that = %v, want accepted", err)
	}
}

func TestRematchKeepsThePlayersStillIn(t *testing.T) {
	var s State
	for _, e := range []Event{{Kind: SeatTaken, Name: "AAA"}, {Kind: SeatTaken, Name: "BBB"}, {Kind: GameStarted},
		{Kind: Rolled, Name: "AAA", Pins: 1}, {Kind: PlayerLeft, Name: "BBB"}} {
		if err := s.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	for range 19 {
		if err := s.Apply(Event{Kind: Rolled, Name: "AAA", Pins: 0}); err != nil {
			t.Fatal(err)
		}
	}
	if s.Phase() != protocol.PhaseFinished {
		t.Fatalf("phase = %s, want finished", s.Phase())
	}
	if err := s.Apply(Event{Kind: Rematched}); err != nil {
		t.Fatal(err)
	}
	ps := s.Match().Players()
	if len(ps) != 1 || ps[0].Name != "AAA" || ps[0].Game.NumRolls() != 0 || s.Phase() != protocol.PhasePlaying {
		t.Errorf("after rematch: %+v, phase %s; want AAA alone, a new game, playing", ps, s.Phase())
	}
}
