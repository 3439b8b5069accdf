package game

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
)

var tokenA, tokenB, tokenC = HashToken("a"), HashToken("b"), HashToken("c")

// step is one command of a table test: decided, and applied if accepted.
type step struct {
	what  string
	cmd   func(s *State) (Event, error)
	err   error // the refusal wanted; nil: accepted
	phase Phase // after the step
}

func join(name string, token TokenHash) func(*State) (Event, error) {
	return func(s *State) (Event, error) { return s.Join(name, token, TokenHash{}) }
}
func start(by bowling.Name) func(*State) (Event, error) {
	return func(s *State) (Event, error) { return s.Start(by) }
}

// roll is by's roll of their own next ball.
func roll(by bowling.Name, pins int) func(*State) (Event, error) {
	return func(s *State) (Event, error) { return s.Roll(own(s, by, pins)) }
}

// own returns by's throw for their own next ball.
func own(s *State, by bowling.Name, pins int) Throw {
	p, _ := s.Match().Player(by)
	return Throw{By: by, Frame: p.Game.CurrentFrame(), Ball: p.Game.Ball(), Pins: pins}
}

func throw(t Throw) func(*State) (Event, error) {
	return func(s *State) (Event, error) { return s.Roll(t) }
}
func correct(c Correction) func(*State) (Event, error) {
	return func(s *State) (Event, error) { return s.Correct(c) }
}
func skip(by bowling.Name, offline time.Duration) func(*State) (Event, error) {
	return func(s *State) (Event, error) { return s.Skip(by, offline, 30*time.Second) }
}
func back(name bowling.Name) func(*State) (Event, error) {
	return func(s *State) (Event, error) {
		e, ok := s.Back(name)
		if !ok {
			return Event{}, errNotAway
		}
		return e, nil
	}
}

var errNotAway = errors.New("test: Back found nobody away")

func remove(by bowling.Name, name string) func(*State) (Event, error) {
	return func(s *State) (Event, error) { return s.Remove(by, name) }
}
func leave(by bowling.Name) func(*State) (Event, error) {
	return func(s *State) (Event, error) { return s.Leave(by) }
}
func newGame(by bowling.Name) func(*State) (Event, error) {
	return func(s *State) (Event, error) { return s.NewGame(by) }
}

// run decides and applies steps in order on a lane opened with two seats,
// checking each step's outcome, that a refusal changes nothing, and that
// the log of accepted events (encoded and decoded) rebuilds the state.
func run(t *testing.T, steps []step) *State {
	t.Helper()
	return runOn(t, 2, steps)
}

// runOn runs steps as run does, on a lane of seats seats.
func runOn(t *testing.T, seats int, steps []step) *State {
	t.Helper()
	return runFrom(t, Open("lane1", "Friday", seats), steps)
}

// runFrom is runOn on a lane opened by open.
func runFrom(t *testing.T, open Event, steps []step) *State {
	t.Helper()
	log := []Event{open}
	s := Replay(log)
	for i, st := range steps {
		before := s.Snapshot()
		e, err := st.cmd(s)
		if !errors.Is(err, st.err) || (st.err == nil) != (err == nil) {
			t.Fatalf("step %d (%s) = %v, want %v", i, st.what, err, st.err)
		}
		if err == nil {
			s.Apply(e)
			log = append(log, e)
		} else if !equal(Replay([]Event{before}), s) {
			t.Fatalf("step %d (%s): the refusal changed the state", i, st.what)
		}
		if got := s.Phase(); got != st.phase {
			t.Fatalf("step %d (%s): phase %s, want %s", i, st.what, got, st.phase)
		}
		if got := Replay(roundTrip(t, log)); !equal(got, s) {
			t.Fatalf("step %d (%s): the log rebuilds\n%s\nnot\n%s", i, st.what, got.Match().Board(), s.Match().Board())
		}
		if got := Replay(roundTrip(t, []Event{s.Snapshot()})); !equal(got, s) {
			t.Fatalf("step %d (%s): the snapshot rebuilds\n%s\nnot\n%s", i, st.what, got.Match().Board(), s.Match().Board())
		}
	}
	return s
}

func roundTrip(t *testing.T, events []Event) []Event {
	t.Helper()
	out := make([]Event, len(events))
	for i, e := range events {
		data, err := Marshal(e)
		if err != nil {
			t.Fatalf("Marshal(%+v): %v", e, err)
		}
		if out[i], err = Unmarshal(data); err != nil {
			t.Fatalf("Unmarshal(%s): %v", data, err)
		}
	}
	return out
}

// equal compares two states by everything a lane shows or decides with.
func equal(a, b *State) bool {
	da, _ := Marshal(a.Snapshot())
	db, _ := Marshal(b.Snapshot())
	ua, fa, oka := a.Match().Up()
	ub, fb, okb := b.Match().Up()
	return string(da) == string(db) && a.Phase() == b.Phase() && a.Match().Board() == b.Match().Board() &&
		slices.Equal(a.Match().Players(), b.Match().Players()) && ua == ub && fa == fb && oka == okb &&
		slices.Equal(a.Corrections(), b.Corrections()) && a.Host() == b.Host() &&
		a.Closed() == b.Closed() && a.Epoch() == b.Epoch()
}

func TestDecideAndApply(t *testing.T) {
	run(t, []step{
		{"start with nobody", start("AAA"), bowling.ErrUnknownPlayer, Waiting},
		{"join a bad name", join("A1", tokenA), bowling.ErrInvalidName, Waiting},
		{"join AAA", join("aaa", tokenA), nil, Waiting},
		{"join AAA again", join("AAA", tokenB), bowling.ErrNameTaken, Waiting},
		{"roll before the start", roll("AAA", 3), ErrNotPlaying, Waiting},
		{"new game before the end", newGame("AAA"), ErrNotFinished, Waiting},
		{"join BBB", join("BBB", tokenB), nil, Waiting},
		{"join a third on two seats", join("CCC", tokenC), ErrLaneFull, Waiting},
		{"BBB, not the host, starts", start("BBB"), ErrNotHost, Waiting},
		{"AAA, the host, starts", start("AAA"), nil, Playing},
		{"start again", start("AAA"), ErrGameStarted, Playing},
		{"join a game in play with every seat taken", join("CCC", tokenC), ErrLaneFull, Playing},
		{"roll out of turn", roll("BBB", 3), bowling.ErrNotYourTurn, Playing},
		{"roll 11", roll("AAA", 11), bowling.ErrInvalidPins, Playing},
		{"roll 10", roll("AAA", 10), nil, Playing},
		{"roll by a stranger", roll("ZZZ", 1), bowling.ErrUnknownPlayer, Playing},
		{"AAA's strike again", throw(Throw{By: "AAA", Frame: 1, Ball: 1, Pins: 10}), ErrRolledAlready, Playing},
		{"AAA's first ball again, another count", throw(Throw{By: "AAA", Frame: 1, Ball: 1, Pins: 9}), ErrStaleRoll, Playing},
		{"AAA's first ball again, a foul", throw(Throw{By: "AAA", Frame: 1, Ball: 1, Pins: 10, Foul: true}), ErrStaleRoll, Playing},
		{"BBB's ball ahead", throw(Throw{By: "BBB", Frame: 1, Ball: 2, Pins: 1}), ErrStaleRoll, Playing},
		{"BBB's ball in another frame", throw(Throw{By: "BBB", Frame: 2, Ball: 1, Pins: 1}), ErrStaleRoll, Playing},
		{"BBB's ball with no frame", throw(Throw{By: "BBB", Pins: 1}), ErrStaleRoll, Playing},
		{"AAA's next ball out of turn", throw(Throw{By: "AAA", Frame: 2, Ball: 1, Pins: 1}), bowling.ErrNotYourTurn, Playing},
		{"roll 6", roll("BBB", 6), nil, Playing},
		{"BBB's 6 again", throw(Throw{By: "BBB", Frame: 1, Ball: 1, Pins: 6}), ErrRolledAlready, Playing},
		{"BBB's 6 again as its deck", throw(Throw{By: "BBB", Frame: 1, Ball: 1, Deck: bowling.Deck(0b1111), HasDeck: true, FromDeck: true}), ErrStaleRoll, Playing}, // its deck is not known
		{"roll 5 of 4 standing", roll("BBB", 5), bowling.ErrTooManyPins, Playing},
		{"BBB leaves", leave("BBB"), nil, Playing},
		{"BBB leaves again", leave("BBB"), bowling.ErrUnknownPlayer, Playing},
		{"AAA rolls, BBB skipped", roll("AAA", 10), nil, Playing},
	})
}

func TestRollEventSaysFrameAndBall(t *testing.T) {
	s := Replay([]Event{Open("l", "n", 0)})
	for _, c := range []func(*State) (Event, error){join("AAA", tokenA), start("AAA")} {
		e, err := c(s)
		if err != nil {
			t.Fatal(err)
		}
		s.Apply(e)
	}
	want := []struct{ pins, frame, ball int }{{3, 1, 1}, {4, 1, 2}, {10, 2, 1}, {0, 3, 1}, {10, 3, 2}}
	for _, w := range want {
		e, err := s.Roll(own(s, "AAA", w.pins))
		if err != nil {
			t.Fatal(err)
		}
		if e.Frame != w.frame || e.Ball != w.ball || e.Pins != w.pins || e.Player != "AAA" {
			t.Errorf("Roll(%d) = %+v, want frame %d ball %d", w.pins, e, w.frame, w.ball)
		}
		s.Apply(e)
	}
}

func TestLeavingBeforeAnyBallGoesBackToWaiting(t *testing.T) {
	s := run(t, []step{
		{"join AAA", join("AAA", tokenA), nil, Waiting},
		{"start", start("AAA"), nil, Playing},
		{"AAA leaves", leave("AAA"), nil, Waiting},
		{"BBB joins", join("BBB", tokenB), nil, Waiting},
	})
	if _, ok := s.Holder(tokenA); ok {
		t.Error("a token of a seat given up still resumes it")
	}
	if name, ok := s.Holder(tokenB); !ok || name != "BBB" {
		t.Errorf("Holder(BBB's token) = %q, %v", name, ok)
	}
	if n := len(s.Snapshot().Snapshot.Game); n != 1 {
		t.Errorf("the snapshot of a lane with one seat taken holds %d events, want 1", n)
	}
}

func TestNewGameKeepsThePlayersStillIn(t *testing.T) {
	steps := []step{
		{"join AAA", join("AAA", tokenA), nil, Waiting},
		{"join BBB", join("BBB", tokenB), nil, Waiting},
		{"start", start("AAA"), nil, Playing},
		{"AAA rolls", roll("AAA", 1), nil, Playing},
		{"BBB leaves", leave("BBB"), nil, Playing},
	}
	for range 18 {
		steps = append(steps, step{"AAA rolls", roll("AAA", 0), nil, Playing})
	}
	steps = append(steps,
		step{"AAA's last ball", roll("AAA", 0), nil, Finished},
		step{"a roll after the end", roll("AAA", 0), ErrNotPlaying, Finished},
		step{"AAA's last ball again", throw(Throw{By: "AAA", Frame: 10, Ball: 2}), ErrRolledAlready, Finished},
		step{"AAA's last ball again, another count", throw(Throw{By: "AAA", Frame: 10, Ball: 2, Pins: 1}), ErrNotPlaying, Finished},
		step{"AAA's first ball again", throw(Throw{By: "AAA", Frame: 1, Ball: 1, Pins: 1}), ErrRolledAlready, Finished},
		step{"BBB asks for a new game", newGame("BBB"), bowling.ErrUnknownPlayer, Finished},
		step{"CCC joins before the rematch", join("CCC", tokenC), ErrGameStarted, Finished},
		step{"AAA asks for a new game", newGame("AAA"), nil, Waiting},
		step{"AAA's last ball of the game before, again", throw(Throw{By: "AAA", Frame: 10, Ball: 2}), ErrRolledAlready, Waiting},
		step{"AAA's first ball of the game before, again", throw(Throw{By: "AAA", Frame: 1, Ball: 1, Pins: 1}), ErrNotPlaying, Waiting}, // a first ball is the new game's
		step{"CCC joins between games", join("CCC", tokenC), nil, Waiting},
		step{"CCC starts", start("CCC"), ErrNotHost, Waiting},
		step{"AAA starts", start("AAA"), nil, Playing},
	)
	s := run(t, steps)
	ps := s.Match().Players()
	if len(ps) != 2 || ps[0].Name != "AAA" || ps[1].Name != "CCC" || ps[0].Game.NumRolls() != 0 {
		t.Errorf("after a new game: %+v; want AAA and CCC, a new game", ps)
	}
	series := s.Series()
	// BBB left before bowling a ball: the seat was given up, and the
	// game has no line of theirs.
	if len(series) != 1 || len(series[0].Players) != 1 || series[0].Players[0].Total() != 1 {
		t.Errorf("series = %+v, want the first game: AAA 1 alone", series)
	}
	if name, ok := s.Holder(tokenA); !ok || name != "AAA" {
		t.Errorf("AAA's token after a new game resumes %q, %v", name, ok)
	}
}

func TestClaimAndClose(t *testing.T) {
	s := Replay([]Event{Open("l", "n", 0)})
	for want := uint64(1); want <= 3; want++ {
		s.Apply(s.Claim("node"))
		if s.Epoch() != want {
			t.Fatalf("epoch after claim = %d, want %d", s.Epoch(), want)
		}
	}
	s.Apply(s.Close("idle"))
	if !s.Closed() {
		t.Fatal("not closed after a close event")
	}
	if _, err := s.Join("AAA", tokenA, TokenHash{}); !errors.Is(err, ErrClosed) {
		t.Errorf("join on a closed lane = %v, want ErrClosed", err)
	}
}

// TestApplyNeverFails applies events that no decision would produce (an
// old log under other rules): nothing panics and the state stays sound.
func TestApplyNeverFails(t *testing.T) {
	s := Replay([]Event{
		Open("l", "n", 1),
		{Kind: SeatTaken, Player: "AAA", Token: tokenA},
		{Kind: SeatTaken, Player: "BBB", Token: tokenB}, // over the limit of its day: kept
		{Kind: SeatTaken, Player: "AAA", Token: tokenC}, // a name taken: ignored
		{Kind: SeatTaken, Player: "a1"},                 // an invalid name: ignored
		{Kind: Rolled, Player: "AAA", Pins: 3},          // before the start: ignored
		{Kind: GameStarted},
		{Kind: GameStarted},
		{Kind: Rolled, Player: "BBB", Pins: 3},  // out of turn: ignored
		{Kind: Rolled, Player: "AAA", Pins: 13}, // impossible: ignored
		{Kind: Rolled, Player: "AAA", Pins: 3},
		{Kind: PlayerLeft, Player: "ZZZ"},
		{Kind: Snapshot}, // without its lane: ignored
		{Kind: "from_the_future"},
	})
	if got := s.Match().Len(); got != 2 {
		t.Errorf("seats = %d, want 2", got)
	}
	if p, _ := s.Match().Player("AAA"); p.Game.NumRolls() != 1 {
		t.Errorf("AAA's rolls = %v, want [3]", p.Game.Rolls())
	}
}

// TestHostAndScoringForOthers: the first seated player is the host, the
// next in seat order after they leave; the host enters anyone's ball, any
// seated player the ball of a player up who is offline.
func TestHostAndScoringForOthers(t *testing.T) {
	s := run(t, []step{
		{"join AAA", join("AAA", tokenA), nil, Waiting},
		{"join BBB", join("BBB", tokenB), nil, Waiting},
		{"start", start("AAA"), nil, Playing},
		{"BBB enters AAA's ball", throw(Throw{By: "BBB", For: "AAA", Frame: 1, Ball: 1, Pins: 3}), ErrNotHost, Playing},
		{"BBB enters AAA's ball, AAA offline", throw(Throw{By: "BBB", For: "AAA", Frame: 1, Ball: 1, Pins: 3, UpOffline: true}), nil, Playing},
		{"AAA, the host, enters AAA's second", throw(Throw{By: "AAA", Frame: 1, Ball: 2, Pins: 4}), nil, Playing},
		{"AAA, the host, enters BBB's", throw(Throw{By: "AAA", For: "BBB", Frame: 1, Ball: 1, Pins: 10}), nil, Playing},
		{"the host enters BBB's again", throw(Throw{By: "AAA", For: "BBB", Frame: 1, Ball: 1, Pins: 10}), ErrRolledAlready, Playing},
	})
	var events []Event
	for _, e := range s.Snapshot().Snapshot.Game {
		if e.Kind == Rolled {
			events = append(events, e)
		}
	}
	if len(events) != 3 || events[0].By != "BBB" || events[1].By != "" || events[2].By != "AAA" || events[2].Player != "BBB" {
		t.Errorf("rolls = %+v; want AAA's entered by BBB, AAA's own, BBB's entered by AAA", events)
	}
	if s.Host() != "AAA" {
		t.Errorf("host = %q, want AAA", s.Host())
	}
	e, _ := s.Leave("AAA")
	s.Apply(e)
	if s.Host() != "BBB" {
		t.Errorf("host after AAA left = %q, want BBB", s.Host())
	}
}

// TestSeriesIsSharedSafely: a slice Series returned does not change as
// the state goes on, even when the oldest game is dropped past MaxSeries;
// the series keeps the newest MaxSeries games.
func TestSeriesIsSharedSafely(t *testing.T) {
	s := Replay([]Event{Open("l", "n", 0), {Kind: SeatTaken, Player: "AAA", Token: tokenA}, {Kind: GameStarted}})
	s.Apply(Event{Kind: Rolled, Player: "AAA", Frame: 1, Ball: 1, Pins: 7})
	for range MaxSeries {
		s.Apply(Event{Kind: NewGame})
	}
	full := s.Series() // the game of a 7 first, then empty ones
	if got := s.Totals(); len(got) != 1 || got[0] != (Total{Name: "AAA", Games: 1, Pins: 0}) {
		t.Errorf("totals = %+v, want AAA's one game with a ball", got)
	}
	s.Apply(Event{Kind: NewGame})
	if got := s.Totals(); len(got) != 0 {
		t.Errorf("totals once the game of a 7 is dropped = %+v, want none", got)
	}
	if len(full) != MaxSeries || full[0].Players[0].Game.NumRolls() != 1 {
		t.Errorf("the series taken before the oldest game was dropped changed: it starts with %+v", full[0])
	}
	if got := s.Series(); len(got) != MaxSeries || got[0].Players[0].Game.NumRolls() != 0 {
		t.Errorf("series holds %d games, the oldest %+v; want the newest %d", len(got), got[0], MaxSeries)
	}
}

// TestCorrections: a player corrects their own balls and the host
// anyone's; a correction no game could have is refused and changes
// nothing; the events say what the ball was and who changed it.
func TestCorrections(t *testing.T) {
	at := time.Date(2026, 11, 22, 20, 15, 7, 500, time.UTC)
	s := run(t, []step{
		{"correct before the start", correct(Correction{By: "AAA", Frame: 1, Ball: 1, Pins: 3}), bowling.ErrUnknownPlayer, Waiting},
		{"join AAA", join("AAA", tokenA), nil, Waiting},
		{"join BBB", join("BBB", tokenB), nil, Waiting},
		{"correct before a ball", correct(Correction{By: "AAA", Frame: 1, Ball: 1, Pins: 3}), ErrNotPlaying, Waiting},
		{"start", start("AAA"), nil, Playing},
		{"AAA 7", roll("AAA", 7), nil, Playing},
		{"AAA 2", roll("AAA", 2), nil, Playing},
		{"BBB 10", roll("BBB", 10), nil, Playing},
		{"AAA's 7 was an 8", correct(Correction{By: "AAA", Frame: 1, Ball: 1, Pins: 8, At: at}), nil, Playing},
		{"AAA's 8 was a strike: the 2 would not fit", correct(Correction{By: "AAA", Frame: 1, Ball: 1, Pins: 10}), bowling.ErrInvalidCorrection, Playing},
		{"AAA's 2 was a 3: too many pins", correct(Correction{By: "AAA", Frame: 1, Ball: 2, Pins: 3}), bowling.ErrInvalidCorrection, Playing},
		{"a ball not bowled", correct(Correction{By: "AAA", Frame: 2, Ball: 1, Pins: 3}), bowling.ErrInvalidCorrection, Playing},
		{"BBB corrects AAA's", correct(Correction{By: "BBB", For: "AAA", Frame: 1, Ball: 2, Pins: 1}), ErrNotHost, Playing},
		{"the host corrects BBB's strike to a 9", correct(Correction{By: "AAA", For: "BBB", Frame: 1, Ball: 1, Pins: 9, At: at}), nil, Playing},
	})
	seat, frame, _ := s.Match().Up()
	if up := s.Match().At(seat); up.Name != "BBB" || frame != 1 || up.Game.Ball() != 2 {
		t.Errorf("after BBB's strike became a 9, up = seat %d frame %d; want BBB, frame 1 ball 2", seat, frame)
	}
	got := s.Corrections()
	want := []Event{
		{Kind: Corrected, Player: "AAA", Frame: 1, Ball: 1, Pins: 8, Was: 7, At: at.Truncate(time.Second)},
		{Kind: Corrected, Player: "BBB", Frame: 1, Ball: 1, Pins: 9, Was: 10, By: "AAA", At: at.Truncate(time.Second)},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("corrections = %+v\nwant %+v", got, want)
	}
}

// TestSkipAndComeBack: a player up who is absent for the away time may
// be skipped by any seated player; they bowl their missed frames once
// back. Nobody may be skipped when nobody else could bowl.
func TestSkipAndComeBack(t *testing.T) {
	s := run(t, []step{
		{"join AAA", join("AAA", tokenA), nil, Waiting},
		{"join BBB", join("BBB", tokenB), nil, Waiting},
		{"skip before the game", skip("BBB", time.Hour), ErrNotPlaying, Waiting},
		{"start", start("AAA"), nil, Playing},
		{"skip a connected player", skip("BBB", 0), ErrNotAway, Playing},
		{"skip too soon", skip("BBB", 29*time.Second), ErrNotAway, Playing},
		{"skip AAA", skip("BBB", 30*time.Second), nil, Playing},
		{"BBB 3", roll("BBB", 3), nil, Playing},
		{"BBB 4", roll("BBB", 4), nil, Playing},
		{"BBB bowls on", roll("BBB", 5), nil, Playing},
		{"skip BBB, nobody else to bowl", skip("AAA", time.Hour), ErrNotAway, Playing},
		{"BBB 4", roll("BBB", 4), nil, Playing},
		{"BBB comes back, was never away", back("BBB"), errNotAway, Playing},
		{"AAA comes back", back("AAA"), nil, Playing},
		{"AAA catches up", roll("AAA", 10), nil, Playing},
		{"AAA catches up", roll("AAA", 10), nil, Playing},
		{"level at two frames: seat order, AAA first", roll("BBB", 1), bowling.ErrNotYourTurn, Playing},
		{"AAA's third frame", roll("AAA", 1), nil, Playing},
	})
	if p, _ := s.Match().Player("AAA"); p.Away || p.Game.NumRolls() != 3 {
		t.Errorf("AAA = %+v; want back, three balls", p)
	}
}

// TestRemove: only the host removes a player; the removed player's
// frames stay, their token no longer resumes the seat, and the game ends
// when everyone still in it has bowled ten frames.
func TestRemove(t *testing.T) {
	steps := []step{
		{"join AAA", join("AAA", tokenA), nil, Waiting},
		{"join BBB", join("BBB", tokenB), nil, Waiting},
		{"start", start("AAA"), nil, Playing},
		{"AAA 3", roll("AAA", 3), nil, Playing},
		{"AAA 4", roll("AAA", 4), nil, Playing},
		{"BBB 5", roll("BBB", 5), nil, Playing},
		{"BBB 4", roll("BBB", 4), nil, Playing},
		{"BBB removes AAA", remove("BBB", "AAA"), ErrNotHost, Playing},
		{"the host removes nobody seated", remove("AAA", "ZZZ"), bowling.ErrUnknownPlayer, Playing},
		{"the host removes a bad name", remove("AAA", "Z1"), bowling.ErrInvalidName, Playing},
		{"the host removes BBB", remove("AAA", "bbb"), nil, Playing},
	}
	for range 17 {
		steps = append(steps, step{"AAA bowls on", roll("AAA", 0), nil, Playing})
	}
	steps = append(steps, step{"AAA's last", roll("AAA", 0), nil, Finished})
	s := run(t, steps)
	if _, ok := s.Holder(tokenB); ok {
		t.Error("a removed player's token still resumes a seat")
	}
	if p, _ := s.Match().Player("BBB"); !p.Left {
		t.Errorf("BBB after removal = %+v, want left with their frames", p)
	}
}

func TestHuman(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{300 * time.Millisecond, "300ms"},
		{30 * time.Second, "30s"},
		{12*time.Second + 400*time.Millisecond, "12s"},
		{90 * time.Second, "1m30s"},
		{time.Hour, "1h"},
		{time.Hour + 5*time.Second, "1h5s"},
	} {
		if got := human(tc.d); got != tc.want {
			t.Errorf("human(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestCorrectingTheLastBallReopensTheGame: after the game is over, and
// before the rematch, a player may still correct a ball; a correction of
// the last ball that earns a bonus ball (an open tenth that was a spare)
// puts the game back in play for that ball, and the host cannot start
// the next game until it is bowled.
func TestCorrectingTheLastBallReopensTheGame(t *testing.T) {
	steps := []step{
		{"join AAA", join("AAA", tokenA), nil, Waiting},
		{"start", start("AAA"), nil, Playing},
	}
	for range 18 {
		steps = append(steps, step{"AAA bowls on", roll("AAA", 0), nil, Playing})
	}
	steps = append(steps,
		step{"AAA's 7 in the tenth", roll("AAA", 7), nil, Playing},
		step{"AAA's 2: over", roll("AAA", 2), nil, Finished},
		step{"the 2 was a 3: a spare", correct(Correction{By: "AAA", Frame: 10, Ball: 2, Pins: 3}), nil, Playing},
		step{"no rematch before the bonus ball", newGame("AAA"), ErrNotFinished, Playing},
		step{"the bonus ball", roll("AAA", 5), nil, Finished},
		step{"rematch", newGame("AAA"), nil, Waiting},
		step{"no correction of the last game once the next is set up", correct(Correction{By: "AAA", Frame: 10, Ball: 3, Pins: 4}), ErrNotPlaying, Waiting},
	)
	s := run(t, steps)
	if got := s.Series()[0].Players[0].Total(); got != 15 {
		t.Errorf("the finished game's total = %d, want 15 (7, 3, 5)", got)
	}
}

func readmit(by bowling.Name, name string) func(*State) (Event, error) {
	return func(s *State) (Event, error) { return s.Readmit(by, name) }
}

func TestLateJoinBowlsTheMissedFrames(t *testing.T) {
	s := runOn(t, 3, []step{
		{"join AAA", join("AAA", tokenA), nil, Waiting},
		{"join BBB", join("BBB", tokenB), nil, Waiting},
		{"start", start("AAA"), nil, Playing},
		{"join before the first ball", join("Jo", tokenC), nil, Playing},
		{"Jo leaves", leave("Jo"), nil, Playing},
		{"AAA 10", roll("AAA", 10), nil, Playing},
		{"BBB 3", roll("BBB", 3), nil, Playing},
		{"BBB 4", roll("BBB", 4), nil, Playing},
		{"AAA 10", roll("AAA", 10), nil, Playing},
		{"Jo joins late", join("jo", tokenC), nil, Playing},
		{"BBB rolls before Jo caught up", roll("BBB", 3), bowling.ErrNotYourTurn, Playing},
		{"Jo bowls the frame she missed", roll("Jo", 10), nil, Playing},
		{"BBB's second frame comes before Jo's", roll("Jo", 10), bowling.ErrNotYourTurn, Playing},
		{"BBB 3", roll("BBB", 3), nil, Playing},
		{"BBB 6", roll("BBB", 6), nil, Playing},
		{"Jo's second frame", roll("Jo", 10), nil, Playing},
		{"then AAA's third", roll("AAA", 10), nil, Playing},
	})
	jo := s.Match().At(2)
	if jo.Name != "jo" || !jo.Late || jo.Game.NumRolls() != 2 { // as she typed it the second time
		t.Errorf("seat 2 = %+v, want jo, late, two balls", jo)
	}
	if s.Match().At(0).Late || s.Match().At(1).Late {
		t.Error("players seated before the first ball are marked late")
	}
}

func TestRemovedPlayerStaysOutUntilReadmitted(t *testing.T) {
	s := runOn(t, 3, []step{
		{"join AAA", join("AAA", tokenA), nil, Waiting},
		{"join BBB", join("BBB", tokenB), nil, Waiting},
		{"start", start("AAA"), nil, Playing},
		{"AAA 10", roll("AAA", 10), nil, Playing},
		{"BBB, not the host, removes AAA", remove("BBB", "AAA"), ErrNotHost, Playing},
		{"AAA removes BBB", remove("AAA", "bbb"), nil, Playing},
		{"BBB joins again", join("BBB", tokenC), ErrRemoved, Playing},
		{"bbb joins again", join("bbb", tokenC), ErrRemoved, Playing},
		{"readmit a player never removed", readmit("AAA", "ZZZ"), bowling.ErrUnknownPlayer, Playing},
	})
	for range 11 {
		e, err := s.Roll(own(s, "AAA", 10))
		if err != nil {
			t.Fatal(err)
		}
		s.Apply(e)
	}
	e, err := s.NewGame("AAA")
	if err != nil {
		t.Fatal(err)
	}
	s.Apply(e)
	if !s.Removed("BBB") {
		t.Fatal("a rematch forgot that the host removed BBB")
	}
	if got := Replay([]Event{s.Snapshot()}); !got.Removed("bbb") {
		t.Fatal("a snapshot forgot that the host removed BBB")
	}
	if _, err := s.Join("BBB", tokenC, TokenHash{}); !errors.Is(err, ErrRemoved) {
		t.Fatalf("BBB joins after the rematch = %v, want ErrRemoved", err)
	}
	if _, err := s.Readmit("BBB", "BBB"); !errors.Is(err, bowling.ErrUnknownPlayer) {
		t.Errorf("BBB readmits himself = %v, want him refused as not on the lane", err)
	}
	e, err = s.Readmit("AAA", "bbb")
	if err != nil {
		t.Fatal(err)
	}
	s.Apply(e)
	if _, err = s.Join("BBB", tokenC, TokenHash{}); err != nil {
		t.Fatalf("BBB joins once readmitted = %v", err)
	}
}

func TestLeavingIsNotBeingRemoved(t *testing.T) {
	s := run(t, []step{
		{"join AAA", join("AAA", tokenA), nil, Waiting},
		{"join BBB", join("BBB", tokenB), nil, Waiting},
		{"start", start("AAA"), nil, Playing},
		{"BBB leaves", leave("BBB"), nil, Playing},
	})
	if s.Removed("BBB") {
		t.Error("a player who left is taken for removed")
	}
	if _, err := s.Join("BBB", tokenC, TokenHash{}); err != nil {
		t.Errorf("BBB, who left, joins again = %v", err)
	}
}

func TestLeftPlayerComesBackToTheirSeat(t *testing.T) {
	s := run(t, []step{
		{"join AAA", join("AAA", tokenA), nil, Waiting},
		{"join BBB", join("BBB", tokenB), nil, Waiting},
		{"start", start("AAA"), nil, Playing},
		{"AAA 10", roll("AAA", 10), nil, Playing},
		{"BBB 10", roll("BBB", 10), nil, Playing},
		{"BBB leaves", leave("BBB"), nil, Playing},
		{"AAA 10", roll("AAA", 10), nil, Playing},
		{"AAA 10", roll("AAA", 10), nil, Playing},
		{"a stranger on a full lane", join("CCC", tokenC), ErrLaneFull, Playing},
		{"bbb comes back to his seat on a full lane", join("bbb", tokenC), nil, Playing},
		{"BBB catches up", roll("BBB", 10), nil, Playing},
		{"and again", roll("BBB", 10), nil, Playing},
		{"AAA's turn", roll("AAA", 3), nil, Playing},
	})
	bbb := s.Match().At(1)
	if bbb.Name != "BBB" || bbb.Left || bbb.Game.NumRolls() != 3 || s.Match().Len() != 2 {
		t.Errorf("seat 1 = %+v of %d, want BBB back with three strikes", bbb, s.Match().Len())
	}
	if name, ok := s.Holder(tokenC); !ok || name != "BBB" {
		t.Errorf("the new token holds %q, %v; want BBB's seat", name, ok)
	}
}

// TestHostKey: the holder of the lane's host key is its host, however
// late they join, across a new game and a snapshot; a wrong key, or any
// key on a lane without one, is refused; the host who leaves hands over
// to the first seated, and is host again once back.
func TestHostKey(t *testing.T) {
	open := Open("lane1", "Friday", 0)
	open.HostKey = HashToken("the key")
	s := runFrom(t, open, []step{
		{what: "a crawler joins first", cmd: func(s *State) (Event, error) { return s.Join("BOT", HashToken("b"), TokenHash{}) }, phase: Waiting},
		{what: "a wrong key", cmd: func(s *State) (Event, error) { return s.JoinHost("Ann", HashToken("a"), HashToken("not the key")) }, err: ErrNotHost, phase: Waiting},
		{what: "the creator joins with the key", cmd: func(s *State) (Event, error) { return s.JoinHost("Ann", HashToken("a"), HashToken("the key")) }, phase: Waiting},
		{what: "the crawler may not start", cmd: func(s *State) (Event, error) { return s.Start("BOT") }, err: ErrNotHost, phase: Waiting},
		{what: "the creator starts", cmd: func(s *State) (Event, error) { return s.Start("Ann") }, phase: Playing},
	})
	if s.Host() != "Ann" {
		t.Fatalf("host %s, want Ann", s.Host())
	}
	if got := Replay(roundTrip(t, []Event{s.Snapshot()})); got.Host() != "Ann" {
		t.Fatalf("the snapshot's host is %s, want Ann", got.Host())
	}
	e, err := s.Leave("Ann")
	if err != nil {
		t.Fatal(err)
	}
	s.Apply(e)
	if s.Host() != "BOT" {
		t.Fatalf("with the host gone, host %s, want BOT", s.Host())
	}
	// Another who takes the seat under her name, without the key, is not
	// the host: the seat taken with the key is.
	if e, err = s.Join("ann", HashToken("an impostor"), TokenHash{}); err != nil {
		t.Fatal(err)
	}
	s.Apply(e)
	if s.Host() != "BOT" {
		t.Fatalf("after a join under the host's name without the key, host %s, want BOT", s.Host())
	}
	e, err = s.Leave("Ann")
	if err != nil {
		t.Fatal(err)
	}
	s.Apply(e)
	if e, err = s.JoinHost("Ann", HashToken("a again"), HashToken("the key")); err != nil {
		t.Fatal(err)
	}
	s.Apply(e)
	if s.Host() != "Ann" {
		t.Fatalf("with the host back with the key, host %s, want Ann", s.Host())
	}
	if got := Replay(roundTrip(t, []Event{s.Snapshot()})); got.Host() != "Ann" {
		t.Fatalf("the snapshot's host is %s, want Ann", got.Host())
	}

	plain := Replay([]Event{Open("lane2", "no key", 0)})
	if _, err := plain.JoinHost("Ann", HashToken("a"), HashToken("")); !errors.Is(err, ErrNotHost) {
		t.Fatalf("a host key on a lane without one: %v, want ErrNotHost", err)
	}
}

// TestGameNumbersGoOnPastTheSeries: a game's number counts every game the
// lane finished, past the MaxSeries the series keeps, and across a
// snapshot: a bowler's history names a game by its lane and number.
func TestGameNumbersGoOnPastTheSeries(t *testing.T) {
	s := Replay([]Event{Open("l", "n", 0)})
	apply := func(f func(*State) (Event, error)) {
		t.Helper()
		e, err := f(s)
		if err != nil {
			t.Fatal(err)
		}
		s.Apply(e)
	}
	apply(join("AAA", tokenA))
	for n := 1; n <= MaxSeries+5; n++ {
		if got := s.GameNumber(); got != n {
			t.Fatalf("game %d is numbered %d", n, got)
		}
		apply(start("AAA"))
		for range 20 {
			apply(roll("AAA", 0))
		}
		apply(newGame("AAA"))
	}
	if len(s.Series()) != MaxSeries || s.GameNumber() != MaxSeries+6 {
		t.Errorf("after %d games: series %d, next game %d; want %d kept and game %d next", MaxSeries+5, len(s.Series()), s.GameNumber(), MaxSeries, MaxSeries+6)
	}
	data, err := Marshal(s.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	e, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := Replay([]Event{e}).GameNumber(); got != MaxSeries+6 {
		t.Errorf("restored from a snapshot, the next game is %d, want %d", got, MaxSeries+6)
	}
}

// TestCreatorAwaited: a lane with a host key waits for its creator. A
// crawler that joins it first, however many seats it takes, may not
// start it nor host it, and leaves the last seat free for the creator;
// once the creator joins (or gives the lane away) the game may start.
func TestCreatorAwaited(t *testing.T) {
	open := Open("lane1", "Friday", 3)
	open.HostKey = HashToken("the key")
	give := func(key string) func(*State) (Event, error) {
		return func(s *State) (Event, error) { return s.Give(HashToken(key)) }
	}
	s := runFrom(t, open, []step{
		{"a crawler joins the new lane", join("BOT", HashToken("b1")), nil, Waiting},
		{"and again", join("BOTB", HashToken("b2")), nil, Waiting},
		{"the last seat is the creator's", join("BOTC", HashToken("b3")), ErrLaneFull, Waiting},
		{"the crawler may not start", start("BOT"), ErrCreatorAway, Waiting},
		{"nor remove anyone", remove("BOT", "BOTB"), ErrCreatorAway, Waiting},
		{"a wrong key gives nothing away", give("not the key"), ErrNotHost, Waiting},
		{"the creator takes the kept seat", func(s *State) (Event, error) {
			return s.JoinHost("Ann", HashToken("a"), HashToken("the key"))
		}, nil, Waiting},
		{"the creator frees a crawler's seat", remove("Ann", "BOTB"), nil, Waiting},
		{"a friend takes it", join("Kim", HashToken("k")), nil, Waiting},
		{"the crawler still may not start", start("BOT"), ErrNotHost, Waiting},
		{"the creator starts", start("Ann"), nil, Playing},
	})
	if s.AwaitsCreator() || s.Host() != "Ann" {
		t.Fatalf("after the creator joined: awaits %v, host %q; want false, Ann", s.AwaitsCreator(), s.Host())
	}

	// Given away: nobody is awaited, the first seated hosts, every seat
	// is anyone's; and there is no key left to give.
	s = runFrom(t, open, []step{
		{"a friend joins", join("Kim", HashToken("k")), nil, Waiting},
		{"Kim may not start yet", start("Kim"), ErrCreatorAway, Waiting},
		{"the creator gives the lane away", give("the key"), nil, Waiting},
		{"a second friend", join("Lee", HashToken("l")), nil, Waiting},
		{"a third takes the last seat", join("Moe", HashToken("m")), nil, Waiting},
		{"given twice", give("the key"), ErrNotHost, Waiting},
		{"the key makes no host now", func(s *State) (Event, error) {
			return s.JoinHost("Ann", HashToken("a"), HashToken("the key"))
		}, ErrNotHost, Waiting},
		{"Kim, first seated, starts", start("Kim"), nil, Playing},
	})
	if s.AwaitsCreator() || s.Host() != "Kim" {
		t.Fatalf("given away: awaits %v, host %q; want false, Kim", s.AwaitsCreator(), s.Host())
	}

	plain := Replay([]Event{Open("lane2", "no key", 0)})
	if plain.AwaitsCreator() {
		t.Error("a lane without a host key awaits a creator")
	}
	if _, err := plain.Give(HashToken("")); !errors.Is(err, ErrNotHost) {
		t.Errorf("giving away a lane without a key: %v, want ErrNotHost", err)
	}
}

// TestSeatsFreed: a seat left before its player bowled is free at once,
// in the middle of a game too, so that joining and leaving under other
// names cannot use up a lane's seats; a seat left after bowling keeps its
// frames until the host frees it.
func TestSeatsFreed(t *testing.T) {
	free := func(by bowling.Name, name string) func(*State) (Event, error) {
		return func(s *State) (Event, error) { return s.Free(by, name) }
	}
	steps := []step{
		{"Ann joins", join("Ann", HashToken("a")), nil, Waiting},
		{"Kim joins", join("Kim", HashToken("k")), nil, Waiting},
		{"start", start("Ann"), nil, Playing},
		{"Ann 3", roll("Ann", 3), nil, Playing},
		{"Ann 4", roll("Ann", 4), nil, Playing},
	}
	// A spectator burns seats: joins late under a name and leaves.
	for _, n := range []string{"Aa", "Bb", "Cc", "Dd", "Ee", "Ff", "Gg", "Hh"} {
		steps = append(steps,
			step{"a burner joins as " + n, join(n, HashToken(n)), nil, Playing},
			step{"and leaves", leave(bowling.Name(n)), nil, Playing})
	}
	steps = append(steps,
		step{"Kim 9", roll("Kim", 9), nil, Playing},
		step{"Kim 0", roll("Kim", 0), nil, Playing},
		step{"Lee, late, joins", join("Lee", HashToken("l")), nil, Playing},
		step{"Lee 5", roll("Lee", 5), nil, Playing},
		step{"Lee 5", roll("Lee", 5), nil, Playing},
		step{"Lee leaves, having bowled", leave("Lee"), nil, Playing},
		step{"Kim may not free a seat", free("Kim", "Lee"), ErrNotHost, Playing},
		step{"nor the host a seated player's", free("Ann", "Kim"), bowling.ErrNameTaken, Playing},
		step{"nor a seat nobody had", free("Ann", "Zed"), bowling.ErrUnknownPlayer, Playing},
		step{"the host frees Lee's seat", free("Ann", "lee"), nil, Playing},
		step{"Moe takes it", join("Moe", HashToken("m")), nil, Playing},
		step{"Ann may not bowl ahead of Moe", roll("Ann", 10), bowling.ErrNotYourTurn, Playing},
	)
	s := runOn(t, 3, steps)
	var names []bowling.Name
	for _, p := range s.Match().Players() {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []bowling.Name{"Ann", "Kim", "Moe"}) {
		t.Errorf("seats %v, want Ann, Kim, Moe: the burner's and Lee's seats freed", names)
	}
	// Moe, late, bowls the frame missed before the others go on.
	if seat, frame, _ := s.Match().Up(); seat != 2 || frame != 1 {
		t.Errorf("up: seat %d frame %d, want Moe's frame 1", seat, frame)
	}
}

// TestLeagueLane: a league match's lane opens with its places seated and
// its first game started; a bowler claims their place by name (no other
// name is seated), gives it back by leaving, and the next game starts by
// itself until the night's games are bowled. Rematch and removals are
// not a league night's.
func TestLeagueLane(t *testing.T) {
	open := OpenPrivate("lane1", "Week 1: Pins v Aces", 0)
	open.League = &LeagueLane{League: "lg1", Week: 1, Games: 2, Teams: [2]string{"Pins", "Aces"},
		Places: []LeaguePlace{{Name: "Ann", Team: 0}, {Name: "Bob", Team: 1}}}
	ann, bob := HashToken("a"), HashToken("b")
	// Ann bowls her own balls; Bob's place has no phone, nor has his
	// team: the league's secretary enters them.
	bobsBall := func(pins int) func(*State) (Event, error) {
		return func(s *State) (Event, error) {
			p, _ := s.Match().Player("Bob")
			return s.Roll(Throw{For: "Bob", Frame: p.Game.CurrentFrame(), Ball: p.Game.Ball(), Pins: pins, Secretary: true})
		}
	}
	steps := []step{
		{"a stranger", join("Zed", HashToken("z")), ErrNotOnRoster, Playing},
		{"Ann claims her place", join("ann", ann), nil, Playing},
		{"again, from another phone", join("Ann", HashToken("other")), bowling.ErrNameTaken, Playing},
		{"Ann removes Bob", remove("Ann", "Bob"), ErrNotHost, Playing},
		{"Ann gives her place back", leave("Ann"), nil, Playing},
		{"and claims it again", join("Ann", ann), nil, Playing},
	}
	for range 9 {
		steps = append(steps, step{"Ann", roll("Ann", 3), nil, Playing}, step{"Ann", roll("Ann", 4), nil, Playing},
			step{"Bob", bobsBall(5), nil, Playing}, step{"Bob", bobsBall(4), nil, Playing})
	}
	steps = append(steps,
		step{"Ann's tenth", roll("Ann", 3), nil, Playing}, step{"Ann's tenth", roll("Ann", 4), nil, Playing},
		step{"Bob's tenth", bobsBall(5), nil, Playing}, step{"Bob's tenth", bobsBall(4), nil, Finished},
		step{"a rematch", newGame("Ann"), ErrNotOnRoster, Finished},
		step{"the next game starts by itself", func(s *State) (Event, error) {
			e, ok := s.NextLeagueGame()
			if !ok {
				return Event{}, errors.New("no next game")
			}
			return e, nil
		}, nil, Playing},
		// What was sent for game 1's last balls, sent again once game 2
		// has begun, counted in game 1: acknowledged, whoever sends it.
		step{"Bob's last ball of game 1, again", throw(Throw{For: "Bob", Frame: 10, Ball: 2, Pins: 4, Secretary: true}), ErrRolledAlready, Playing},
		step{"Ann's last ball of game 1, again", throw(Throw{By: "Ann", Frame: 10, Ball: 2, Pins: 4}), ErrRolledAlready, Playing},
		step{"Ann's first ball of game 2, as in game 1", roll("Ann", 3), nil, Playing},
		step{"Ann's last ball of game 1, once she bowled in game 2", throw(Throw{By: "Ann", Frame: 10, Ball: 2, Pins: 4}), ErrStaleRoll, Playing},
		step{"Bob claims his place", join("Bob", bob), nil, Playing},
	)
	s := runFrom(t, open, steps)
	if s.GameNumber() != 2 || len(s.Series()) != 1 || s.Series()[0].Players[0].Total() != 70 || s.Series()[0].Players[1].Total() != 90 {
		t.Errorf("after game 1: game %d, series %+v; want game 2, Ann 70 and Bob 90", s.GameNumber(), s.Series())
	}
	if name, ok := s.Holder(ann); !ok || name != "Ann" {
		t.Errorf("Ann's token in game 2 resumes %q, %v", name, ok)
	}
	if s.League() == nil || s.League().Games != 2 {
		t.Fatalf("League() = %+v", s.League())
	}
	if _, ok := s.NextLeagueGame(); ok {
		t.Error("a next game while the game is in play")
	}
}

// TestLeagueLanePowers: who scores whom on a league lane (issue 43). A
// bowler enters their own balls and their teammates', whoever holds
// the place and whether its phone is connected or not; never the other
// team's (ErrNotYourTeam), not even of a place no phone holds. The lane
// has no host among its bowlers: the host's commands are refused, and
// the league's secretary enters and corrects anyone's ball, skips a
// bowler away past the away time as anyone on the lane may (of either
// team), and gives a place back from the phone that holds it.
func TestLeagueLanePowers(t *testing.T) {
	open := OpenPrivate("lane1", "Week 1: Pins v Aces", 0)
	open.League = &LeagueLane{League: "lg1", Week: 1, Games: 1, Teams: [2]string{"Pins", "Aces"},
		Places: []LeaguePlace{{Name: "Ann", Team: 0}, {Name: "Cy", Team: 0}, {Name: "Bob", Team: 1}, {Name: "Dee", Team: 1}}}
	ann, bob := HashToken("a"), HashToken("b")
	ball := func(by, forName bowling.Name, frame, ball, pins int, offline bool) func(*State) (Event, error) {
		return throw(Throw{By: by, For: forName, Frame: frame, Ball: ball, Pins: pins, UpOffline: offline})
	}
	fix := func(by, forName bowling.Name, frame, ball, pins int) func(*State) (Event, error) {
		return correct(Correction{By: by, For: forName, Frame: frame, Ball: ball, Pins: pins})
	}
	secretary := func(forName bowling.Name, frame, ball, pins int) func(*State) (Event, error) {
		return throw(Throw{For: forName, Frame: frame, Ball: ball, Pins: pins, Secretary: true})
	}
	secretarySkip := func(offline time.Duration) func(*State) (Event, error) {
		return func(s *State) (Event, error) { return s.SecretarySkip(offline, 30*time.Second) }
	}
	secretaryRemove := func(name string) func(*State) (Event, error) {
		return func(s *State) (Event, error) { return s.SecretaryRemove(name) }
	}
	noHost := func(s *State) (Event, error) {
		if h := s.Host(); h != "" {
			return Event{}, fmt.Errorf("%s hosts a league lane", h)
		}
		return Event{}, ErrNotHost
	}
	s := runFrom(t, open, []step{
		{"Ann claims her place", join("Ann", ann), nil, Playing},
		{"Bob claims his", join("Bob", bob), nil, Playing},
		{"nobody hosts the lane", noHost, ErrNotHost, Playing},
		{"Ann starts", start("Ann"), ErrNotHost, Playing},
		{"Bob enters Ann's ball, offline", ball("Bob", "Ann", 1, 1, 3, true), ErrNotYourTeam, Playing},
		{"Ann bowls", ball("Ann", "", 1, 1, 3, false), nil, Playing},
		{"Bob enters Ann's ball, connected", ball("Bob", "Ann", 1, 2, 4, false), ErrNotYourTeam, Playing},
		{"Cy enters his teammate's ball, connected", ball("Cy", "Ann", 1, 2, 4, false), nil, Playing},
		{"Bob corrects Ann's ball", fix("Bob", "Ann", 1, 1, 2), ErrNotYourTeam, Playing},
		{"Cy corrects Ann's ball", fix("Cy", "Ann", 1, 1, 2), nil, Playing},
		{"Ann enters Cy's ball", ball("Ann", "Cy", 1, 1, 10, true), nil, Playing},
		{"Ann enters Bob's ball, offline", ball("Ann", "bob", 1, 1, 5, true), ErrNotYourTeam, Playing},
		{"Ann enters Dee's ball, a place no phone holds", ball("Ann", "Dee", 1, 1, 5, true), ErrNotYourTeam, Playing},
		{"the secretary enters Bob's ball", secretary("bob", 1, 1, 5), nil, Playing},
		{"the secretary, as Ann", throw(Throw{By: "Ann", For: "Bob", Frame: 1, Ball: 2, Pins: 4, Secretary: true}), ErrNotHost, Playing},
		{"the secretary, for nobody's place", secretary("Zed", 1, 2, 4), bowling.ErrUnknownPlayer, Playing},
		{"the secretary corrects Ann's ball", correct(Correction{For: "Ann", Frame: 1, Ball: 2, Pins: 5, Secretary: true}), nil, Playing},
		{"Bob bowls", ball("Bob", "", 1, 2, 4, false), nil, Playing},
		{"the secretary skips Dee, offline 10s", secretarySkip(10 * time.Second), ErrNotAway, Playing},
		{"the secretary skips Dee, offline 31s", secretarySkip(31 * time.Second), nil, Playing},
		{"Bob skips Ann, of the other team, away", skip("Bob", 31*time.Second), nil, Playing},
		{"Ann removes Bob", remove("Ann", "Bob"), ErrNotHost, Playing},
		{"Ann frees Dee's seat", func(s *State) (Event, error) { return s.Free("Ann", "Dee") }, ErrNotOnRoster, Playing},
		{"the secretary removes Cy, whom no phone holds", secretaryRemove("Cy"), bowling.ErrUnknownPlayer, Playing},
		{"the secretary gives Bob's place back", secretaryRemove("bob"), nil, Playing},
		{"another phone claims it", join("Bob", HashToken("b2")), nil, Playing},
	})
	if _, ok := s.Holder(bob); ok {
		t.Error("Bob's first phone still holds his place after the secretary gave it back")
	}
	p, _ := s.Match().Player("Ann")
	if got := p.Game.Frames()[0].Rolls; !slices.Equal(got, []int{2, 5}) {
		t.Errorf("Ann's frame 1 = %v, want [2 5]: Cy's correction, then the secretary's", got)
	}
	if c := s.Corrections(); len(c) != 2 || c[0].By != "Cy" || c[1].By != "" || !c[1].Secretary {
		t.Errorf("corrections %+v, want Cy's, then the secretary's", c)
	}
	if seat, frame, _ := s.Match().Up(); seat != 1 || frame != 2 {
		t.Errorf("up: seat %d in frame %d, want Cy in frame 2: Dee and Ann skipped", seat, frame)
	}
}

// TestSecretaryOnFriendsLane: a lane of friends has no secretary.
func TestSecretaryOnFriendsLane(t *testing.T) {
	run(t, []step{
		{"join AAA", join("AAA", tokenA), nil, Waiting},
		{"join BBB", join("BBB", tokenB), nil, Waiting},
		{"start", start("AAA"), nil, Playing},
		{"a secretary's ball", throw(Throw{For: "AAA", Frame: 1, Ball: 1, Pins: 5, Secretary: true}), ErrNotHost, Playing},
		{"a secretary's skip", func(s *State) (Event, error) { return s.SecretarySkip(time.Minute, 30*time.Second) }, ErrNotHost, Playing},
		{"a secretary's removal", func(s *State) (Event, error) { return s.SecretaryRemove("BBB") }, ErrNotHost, Playing},
	})
}

// TestLeagueLaneCheck: a league lane that could not be opened as it
// says, or read back once stored, is refused.
func TestLeagueLaneCheck(t *testing.T) {
	ok := func() *LeagueLane {
		return &LeagueLane{League: "lg", Week: 1, Games: 3, Teams: [2]string{"Pins", "Aces"},
			Places: []LeaguePlace{{Name: "Ann", Team: 0}, {Name: "Bob", Team: 1}}}
	}
	for _, tc := range []struct {
		what   string
		change func(*LeagueLane)
		ok     bool
	}{
		{"a match", func(*LeagueLane) {}, true},
		{"no games", func(l *LeagueLane) { l.Games = 0 }, false},
		{"no places", func(l *LeagueLane) { l.Places = nil }, false},
		{"a third team", func(l *LeagueLane) { l.Places[1].Team = 2 }, false},
		{"a name with digits", func(l *LeagueLane) { l.Places[1].Name = "Bob2" }, false},
		{"a name too long", func(l *LeagueLane) { l.Places[1].Name = "Bartholomew Jones" }, false},
		{"two places of one name", func(l *LeagueLane) { l.Places[1].Name = "ANN" }, false},
	} {
		l := ok()
		tc.change(l)
		if err := l.Check(); (err == nil) != tc.ok {
			t.Errorf("%s: Check() = %v, want ok %v", tc.what, err, tc.ok)
		}
	}
}

// TestThrowIsTheBallBowled: a roll sent again is the ball bowled only if
// it gives what the ball has: its count, its deck if it gives one (by
// the deck alone, the deck), its foul.
func TestThrowIsTheBallBowled(t *testing.T) {
	deck := bowling.Deck(0b0000001011) // pins 1, 2 and 4 left
	for _, tt := range []struct {
		name  string
		ball  bowling.Ball
		throw Throw
		is    bool
	}{
		{"the count", bowling.Ball{Pins: 7}, Throw{Pins: 7}, true},
		{"another count", bowling.Ball{Pins: 7}, Throw{Pins: 6}, false},
		{"a foul for a count", bowling.Ball{Pins: 0}, Throw{Pins: 0, Foul: true}, false},
		{"the foul", bowling.Ball{Pins: 0, Foul: true}, Throw{Pins: 0, Foul: true}, true},
		{"the count of a ball with its deck", bowling.Ball{Pins: 7, Deck: deck, HasDeck: true}, Throw{Pins: 7}, true},
		{"the deck alone", bowling.Ball{Pins: 7, Deck: deck, HasDeck: true}, Throw{Deck: deck, HasDeck: true, FromDeck: true}, true},
		{"another deck", bowling.Ball{Pins: 7, Deck: deck, HasDeck: true}, Throw{Deck: deck | 1<<9, HasDeck: true, FromDeck: true}, false},
		{"a deck where none was given", bowling.Ball{Pins: 7}, Throw{Deck: deck, HasDeck: true, FromDeck: true}, false},
		{"the count and the deck", bowling.Ball{Pins: 7, Deck: deck, HasDeck: true}, Throw{Pins: 7, Deck: deck, HasDeck: true}, true},
		{"the count and another deck", bowling.Ball{Pins: 7, Deck: deck, HasDeck: true}, Throw{Pins: 7, Deck: deck >> 1, HasDeck: true}, false},
	} {
		if got := tt.throw.is(tt.ball); got != tt.is {
			t.Errorf("%s: %+v is %+v: %v, want %v", tt.name, tt.throw, tt.ball, got, tt.is)
		}
	}
}

// TestInvitation: a lane opened with an invitation seats only a join
// that carries it; the host key's holder and a player coming back by
// token need none. A new invitation from the host replaces the old,
// seated players keep their seats, and nobody else may issue one.
func TestInvitation(t *testing.T) {
	open := Open("lane1", "Friday", 4)
	open.HostKey, open.Invite = HashToken("the key"), HashToken("first")
	first, second := HashToken("first"), HashToken("second")
	joinWith := func(name string, invite TokenHash) func(*State) (Event, error) {
		return func(s *State) (Event, error) { return s.Join(name, HashToken(name), invite) }
	}
	invite := func(by bowling.Name, invite TokenHash) func(*State) (Event, error) {
		return func(s *State) (Event, error) { return s.Invite(by, invite) }
	}
	s := runFrom(t, open, []step{
		{"a stranger with the link alone", joinWith("Bot", TokenHash{}), ErrInvitationRequired, Waiting},
		{"another lane's invitation", joinWith("Bot", HashToken("elsewhere")), ErrInvitationRequired, Waiting},
		{"the creator, with the key and no invitation", func(s *State) (Event, error) {
			return s.JoinHost("Ann", HashToken("Ann"), HashToken("the key"))
		}, nil, Waiting},
		{"a friend with the invitation", joinWith("Bob", first), nil, Waiting},
		{"a crawler with it too", joinWith("Bot", first), nil, Waiting},
		{"not the host", invite("Bob", second), ErrNotHost, Waiting},
		{"a spectator", invite("Zed", second), bowling.ErrUnknownPlayer, Waiting},
		{"the host issues a new one", invite("Ann", second), nil, Waiting},
		{"the host removes the crawler", remove("Ann", "Bot"), nil, Waiting},
		{"the crawler under a new name, with the old invitation", joinWith("Bot2", first), ErrInvitationRequired, Waiting},
		{"a friend with the new one", joinWith("Cat", second), nil, Waiting},
		{"the host starts: the seated kept their seats", start("Ann"), nil, Playing},
	})
	if got := len(s.Match().Players()); got != 3 {
		t.Errorf("%d players, want Ann, Bob and Cat", got)
	}

	openLane := Replay([]Event{Open("lane2", "open", 4)})
	if _, err := openLane.Join("Any", HashToken("any"), TokenHash{}); err != nil {
		t.Errorf("a join of an open lane: %v", err)
	}
}

// TestLeagueInvitations: a league lane seats a team's places only with
// that team's invitation; the other team's names are refused
// not_your_team, and a join with no invitation, or another's, is refused.
func TestLeagueInvitations(t *testing.T) {
	open := OpenPrivate("lane1", "Week 1: Pins v Aces", 0)
	home, away := HashToken("home"), HashToken("away")
	open.League = &LeagueLane{League: "lg1", Week: 1, Games: 1, Teams: [2]string{"Pins", "Aces"},
		Places:  []LeaguePlace{{Name: "Ann", Team: 0}, {Name: "Amy", Team: 0}, {Name: "Bob", Team: 1}},
		Invites: [2]TokenHash{home, away}}
	claim := func(name string, invite TokenHash) func(*State) (Event, error) {
		return func(s *State) (Event, error) { return s.Join(name, HashToken(name), invite) }
	}
	runFrom(t, open, []step{
		{"a stranger with the lane's link alone", claim("Ann", TokenHash{}), ErrInvitationRequired, Playing},
		{"another lane's invitation", claim("Ann", HashToken("elsewhere")), ErrInvitationRequired, Playing},
		{"the away team's phone, for a home place", claim("Ann", away), ErrNotYourTeam, Playing},
		{"the home team's, for an away place", claim("Bob", home), ErrNotYourTeam, Playing},
		{"a name of no place, with an invitation", claim("Zed", home), ErrNotOnRoster, Playing},
		{"Ann, with her team's", claim("Ann", home), nil, Playing},
		{"Amy, with her team's", claim("amy", home), nil, Playing},
		{"Bob, with his team's", claim("Bob", away), nil, Playing},
	})
}

// TestLeagueLaneSeatOfNoPlace: a league lane's log that seats a name of
// no place (no decision does: a log written otherwise) gives that seat
// nobody else's ball, and does not panic deciding it.
func TestLeagueLaneSeatOfNoPlace(t *testing.T) {
	open := OpenPrivate("lane1", "Week 1: Pins v Aces", 0)
	open.League = &LeagueLane{League: "lg1", Week: 1, Games: 1, Teams: [2]string{"Pins", "Aces"},
		Places: []LeaguePlace{{Name: "Ann", Team: 0}, {Name: "Bob", Team: 1}}}
	s := Replay([]Event{open, {Kind: SeatTaken, Player: "Zed", Token: tokenC}})
	if !s.Seated("Zed") {
		t.Fatal("the log did not seat Zed")
	}
	if _, err := s.Roll(Throw{By: "Zed", For: "Ann", Frame: 1, Ball: 1, Pins: 3, UpOffline: true}); !errors.Is(err, ErrNotYourTeam) {
		t.Errorf("Zed enters Ann's ball: %v, want %v", err, ErrNotYourTeam)
	}
}
