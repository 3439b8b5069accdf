package game

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
)

// worstName returns the i-th of eight names as long in bytes as a name
// may be: twelve letters of four bytes, each with four marks of four.
func worstName(t testing.TB, i int) bowling.Name {
	t.Helper()
	letter := string(rune(0x10400+i)) + strings.Repeat("\U0001E000", 4)
	n, err := bowling.ParseLaneName(strings.Repeat(letter, 12))
	if err != nil {
		t.Fatal(err)
	}
	if len(n) != 12*5*4 {
		t.Fatalf("the longest name is %d bytes, want %d", len(n), 12*5*4)
	}
	return n
}

// playWorstGame plays a game of the largest log the rules allow on s:
// every seat taken, every ball of every frame bowled with its deck or as
// a foul, and as many corrections as a game takes.
// If afterLast is set, it runs after the last seat's first ball: every
// player has bowled, so none who leaves then gives a seat up.
func playWorstGame(t testing.TB, s *State, names []bowling.Name, corrections int, afterLast func()) {
	t.Helper()
	must := func(e Event, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		s.Apply(e)
	}
	if !s.started {
		must(s.Start(names[0]))
	}
	for s.Phase() != Finished {
		seat, frame, ok := s.match.Up()
		if !ok {
			t.Fatal("nobody up in a game not finished")
		}
		p := s.match.Players()[seat]
		ball := p.Game.Ball()
		th := Throw{By: p.Name, Frame: frame, Ball: ball}
		switch {
		case frame == 10 && ball == 1:
			th.Pins, th.HasDeck = 10, true // a strike: the tenth has three balls
		case ball == 1 || frame == 10:
			th.Deck, th.HasDeck, th.FromDeck = bowling.Full&^1, true, true // the head pin alone
		default:
			th.Foul = true
		}
		must(s.Roll(th))
		if afterLast != nil && p.Name == names[len(names)-1] {
			afterLast()
			afterLast = nil
		}
	}
	at := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	for i := range corrections {
		c := Correction{By: names[0], For: names[1+i%(len(names)-2)], Frame: 1, Ball: 2, At: at} // not the last, who may have left
		if i/(len(names)-2)%2 == 0 {
			c.Pins = 1
		} else {
			c.Foul = true
		}
		must(s.Correct(c))
	}
}

// worstLane returns a lane at every limit of its log: a series of
// MaxSeries games and a game in play, each of eight players of the
// longest names bowling every ball with its deck or as a foul, with
// MaxCorrections corrections; the game in play with as many seats given
// up and taken again, and skips and returns, as it takes; MaxRemoved
// players removed.
func worstLane(t testing.TB) *State {
	s := Replay([]Event{Open("worst", strings.Repeat("<", 40), 0)}) // written \u003c
	var names []bowling.Name
	for i := range DefaultMaxPlayers {
		n := worstName(t, i)
		names = append(names, n)
		e, err := s.Join(string(n), HashToken(string(n)), TokenHash{})
		if err != nil {
			t.Fatal(err)
		}
		s.Apply(e)
	}
	for range MaxSeries {
		playWorstGame(t, s, names, MaxCorrections, nil)
		e, err := s.NewGame(names[0])
		if err != nil {
			t.Fatal(err)
		}
		s.Apply(e)
	}
	playWorstGame(t, s, names, MaxCorrections, func() {
		for i := 0; ; i++ {
			if i > 2*MaxGameEvents {
				t.Fatal("a player left and came back without end")
			}
			e, err := s.Leave(names[7])
			if err != nil {
				t.Fatal(err)
			}
			s.Apply(e)
			if e, err = s.Join(string(names[7]), HashToken("again"), TokenHash{}); err != nil {
				if !errors.Is(err, ErrLaneFull) {
					t.Fatalf("a player back with %d events in the game: %v, want ErrLaneFull", len(s.game), err)
				}
				break
			}
			s.Apply(e)
		}
		// Seated again by the next game's rules: but in this one, the
		// player stays away; the game goes on without them.
	})
	for i := range MaxRemoved + 10 {
		n, err := bowling.ParseLaneName(strings.Repeat(string(rune('가'+i)), 12))
		if err != nil {
			t.Fatal(err)
		}
		s.Apply(Event{Kind: PlayerLeft, Player: n, By: names[0]})
	}
	if len(s.removed) != MaxRemoved {
		t.Fatalf("the lane remembers %d removed players, want %d", len(s.removed), MaxRemoved)
	}
	return s
}

// TestWorstSnapshot: a snapshot of a lane at every limit is smaller than
// MaxEventSize, which journals take.
func TestWorstSnapshot(t *testing.T) {
	b, err := Marshal(worstLane(t).Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a snapshot at every limit: %d bytes, MaxEventSize %d", len(b), MaxEventSize)
	if len(b) >= MaxEventSize {
		t.Fatalf("a snapshot at every limit is %d bytes, MaxEventSize %d", len(b), MaxEventSize)
	}
}

// TestLimits: past its limits a game refuses what would grow it with a
// clear error, and changes nothing.
func TestLimits(t *testing.T) {
	s := worstLane(t)
	host := s.Host()
	p := s.match.At(1)
	before, _ := Marshal(s.Snapshot())
	_, err := s.Correct(Correction{By: host, For: p.Name, Frame: 2, Ball: 1, Pins: 5})
	if !errors.Is(err, bowling.ErrInvalidCorrection) || !strings.Contains(err.Error(), "at most 100 corrections") {
		t.Errorf("correction %d: %v, want ErrInvalidCorrection saying why", MaxCorrections+1, err)
	}
	if after, _ := Marshal(s.Snapshot()); string(after) != string(before) {
		t.Error("a refused command changed the lane")
	}
}

// TestGameEventsBounded: a player who leaves and comes back again and
// again is refused once the game holds MaxGameEvents, and so is skipping
// the player up; the others play on.
func TestGameEventsBounded(t *testing.T) {
	s := runOn(t, 0, []step{
		{what: "Ann joins", cmd: func(s *State) (Event, error) { return s.Join("ANN", HashToken("a"), TokenHash{}) }, phase: Waiting},
		{what: "Bob joins", cmd: func(s *State) (Event, error) { return s.Join("BOB", HashToken("b"), TokenHash{}) }, phase: Waiting},
		{what: "Cat joins", cmd: func(s *State) (Event, error) { return s.Join("CAT", HashToken("c"), TokenHash{}) }, phase: Waiting},
		{what: "start", cmd: func(s *State) (Event, error) { return s.Start("ANN") }, phase: Playing},
		{what: "Ann's strike", cmd: func(s *State) (Event, error) { return s.Roll(Throw{By: "ANN", Frame: 1, Ball: 1, Pins: 10}) }, phase: Playing},
		{what: "Bob's strike", cmd: func(s *State) (Event, error) { return s.Roll(Throw{By: "BOB", Frame: 1, Ball: 1, Pins: 10}) }, phase: Playing},
		// Cat bowls: a player who leaves before bowling gives the seat up,
		// and their log with it; one who bowled keeps their frames.
		{what: "Cat's strike", cmd: func(s *State) (Event, error) { return s.Roll(Throw{By: "CAT", Frame: 1, Ball: 1, Pins: 10}) }, phase: Playing},
	})
	joins, refused := 0, false
	for range 2 * MaxGameEvents {
		e, err := s.Leave("CAT")
		if err != nil {
			t.Fatal(err)
		}
		s.Apply(e)
		if e, err = s.Join("CAT", HashToken("c"), TokenHash{}); err != nil {
			if !errors.Is(err, ErrLaneFull) || !strings.Contains(err.Error(), "next game") {
				t.Fatalf("coming back with %d events in the game: %v, want ErrLaneFull saying when", len(s.game), err)
			}
			refused = true
			break
		}
		s.Apply(e)
		joins++
	}
	if !refused || len(s.game) < MaxGameEvents || joins < (MaxGameEvents-10)/2 {
		t.Fatalf("refused after %d returns, with %d events in the game", joins, len(s.game))
	}
	_, err := s.Skip("ANN", time.Hour, time.Minute)
	if !errors.Is(err, ErrNotAway) || !strings.Contains(err.Error(), "too many") {
		t.Errorf("a skip past MaxGameEvents: %v, want ErrNotAway saying why", err)
	}
	e, err := s.Roll(Throw{By: "ANN", Frame: 2, Ball: 1, Pins: 7})
	if err != nil {
		t.Fatalf("the others play on: %v", err)
	}
	s.Apply(e)
}
