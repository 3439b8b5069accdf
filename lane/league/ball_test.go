package league

import (
	"errors"
	"reflect"
	"testing"

	"github.com/tenpin/tenpin/lane/bowling"
)

// game bowls rolls into a game.
func game(t *testing.T, rolls ...int) bowling.Game {
	t.Helper()
	var g bowling.Game
	for _, pins := range rolls {
		if err := g.Roll(pins); err != nil {
			t.Fatalf("roll %d: %v", pins, err)
		}
	}
	return g
}

// nines is a game of ten frames of 9 and a miss: 90.
func nines(t *testing.T) bowling.Game {
	t.Helper()
	var rolls []int
	for range bowling.NumFrames {
		rolls = append(rolls, 9, 0)
	}
	return game(t, rolls...)
}

// TestCorrectBall: Ann's 90 of week 1 (nine and a miss, ten times) is
// corrected ball by ball after the night closed: frame 3's miss was a
// spare (9/ then 9: 90 + 1 + 9 = 100), then frame 5's 9 an 8 (99, the
// first correction made again on the lane's game first). By hand, 100%
// of 200, 2 points a game, one game a night: before, Ann's first night's
// handicap is 110 (200 − 90): 200 beats Cat's 95 + 100; week 2, 100 +
// 110 beats 100 + 105: A 4–0. After, Ann's first night is 99, handicap
// 101: 200 still beats 195, but week 2's 100 + 101 loses to 205: 2–2,
// and A leads on pins with handicap, 401 to 400.
func TestCorrectBall(t *testing.T) {
	s := newSeason(t, Settings{
		Name: "Balls", GamesPerNight: 1, Handicap: Handicap{200, 100}, Points: Points{2, 0},
		Teams: duo("A", Bowler{Name: "Ann"}, "B", Bowler{"Cat", 100}), Weeks: 2,
	})
	s.open(1)
	s.bowl(1, "Ann", 90)
	s.bowl(1, "Cat", 95)
	s.close(1)
	s.open(2)
	s.bowl(2, "Ann", 100)
	s.bowl(2, "Cat", 100)
	s.wantTeams(
		TeamStanding{Rank: 1, Name: "A", PointsWon: 4, PinsScratch: 190, PinsHandicap: 410, HighGame: 210, HighSeries: 210},
		TeamStanding{Rank: 2, Name: "B", PointsLost: 4, PinsScratch: 195, PinsHandicap: 400, HighGame: 205, HighSeries: 205},
	)

	bowled := nines(t)
	e, err := s.l.CorrectBall(BallFix{Week: 1, Bowler: "ann", Game: 1, Frame: 3, Ball: 2, Pins: 1}, bowled)
	want := Event{Kind: Corrected, Week: 1, Bowler: "Ann", Game: 1, Pins: 100, Was: 90, Frame: 3, Ball: 2, BallWas: 0, BallPins: 1}
	if err != nil || !reflect.DeepEqual(e, want) {
		t.Fatalf("CorrectBall = %+v, %v; want %+v", e, err, want)
	}
	s.apply(e, err)
	e, err = s.l.CorrectBall(BallFix{Week: 1, Bowler: "Ann", Game: 1, Frame: 5, Ball: 1, Pins: 8}, bowled)
	want = Event{Kind: Corrected, Week: 1, Bowler: "Ann", Game: 1, Pins: 99, Was: 100, Frame: 5, Ball: 1, BallWas: 9, BallPins: 8}
	if err != nil || !reflect.DeepEqual(e, want) {
		t.Fatalf("CorrectBall again = %+v, %v; want %+v", e, err, want)
	}
	s.apply(e, err)
	s.wantTeams(
		TeamStanding{Rank: 1, Name: "A", PointsWon: 2, PointsLost: 2, PinsScratch: 199, PinsHandicap: 401, HighGame: 201, HighSeries: 201},
		TeamStanding{Rank: 2, Name: "B", PointsWon: 2, PointsLost: 2, PinsScratch: 195, PinsHandicap: 400, HighGame: 205, HighSeries: 205},
	)
	s.wantBowlers(
		BowlerStanding{Name: "Ann", Team: "A", Games: 2, Pins: 199, Average: 99, Handicap: 101, HighGame: 100, HighSeries: 100},
		BowlerStanding{Name: "Cat", Team: "B", Games: 2, Pins: 195, Average: 97, Handicap: 103, HighGame: 100, HighSeries: 100},
	)
}

// TestCorrectBallRefused: each refusal says why and changes nothing.
func TestCorrectBallRefused(t *testing.T) {
	s := newSeason(t, Settings{
		Name: "Balls", GamesPerNight: 2, Points: Points{2, 2},
		Teams: []Team{{Name: "A", Bowlers: []Bowler{{Name: "Ann"}, {Name: "Bob"}}}, {Name: "B", Bowlers: []Bowler{{Name: "Cat"}}}}, Weeks: 2,
	})
	s.open(1, Absence{Bowler: "Bob"})
	s.bowl(1, "Ann", 90)
	s.bowl(1, "Cat", 80)
	bowled := nines(t)
	s.apply(s.l.CorrectBall(BallFix{Week: 1, Bowler: "Ann", Game: 1, Frame: 1, Ball: 2, Pins: 1}, bowled))
	before := s.standings()

	for _, tc := range []struct {
		name   string
		fix    BallFix
		bowled bowling.Game
		want   error
	}{
		{"no such ball", BallFix{Week: 1, Bowler: "Ann", Game: 1, Frame: 0, Ball: 4, Pins: -1}, bowled, bowling.ErrInvalidCorrection},
		{"eleven pins", BallFix{Week: 1, Bowler: "Ann", Game: 1, Frame: 11, Ball: 1, Pins: 11}, bowled, bowling.ErrInvalidCorrection},
		{"a week not opened", BallFix{Week: 2, Bowler: "Ann", Game: 1, Frame: 1, Ball: 1, Pins: 8}, bowled, ErrWeek},
		{"nobody of the league", BallFix{Week: 1, Bowler: "Zed", Game: 1, Frame: 1, Ball: 1, Pins: 8}, bowled, ErrUnknownBowler},
		{"an absent bowler", BallFix{Week: 1, Bowler: "Bob", Game: 1, Frame: 1, Ball: 1, Pins: 8}, bowled, ErrInvalidScore},
		{"a game the night has not", BallFix{Week: 1, Bowler: "Ann", Game: 3, Frame: 1, Ball: 1, Pins: 8}, bowled, ErrInvalidScore},
		{"a game not scored yet", BallFix{Week: 1, Bowler: "Ann", Game: 2, Frame: 1, Ball: 1, Pins: 8}, bowled, bowling.ErrInvalidCorrection},
		{"a game not over", BallFix{Week: 1, Bowler: "Ann", Game: 1, Frame: 1, Ball: 1, Pins: 8}, game(t, 9, 0, 9), bowling.ErrInvalidCorrection},
		{"more pins than stood", BallFix{Week: 1, Bowler: "Ann", Game: 1, Frame: 2, Ball: 2, Pins: 2}, bowled, bowling.ErrInvalidCorrection},
		{"a ball not bowled", BallFix{Week: 1, Bowler: "Ann", Game: 1, Frame: 10, Ball: 3, Pins: 1}, bowled, bowling.ErrInvalidCorrection},
		{"the pins it has", BallFix{Week: 1, Bowler: "Ann", Game: 1, Frame: 2, Ball: 1, Pins: 9}, bowled, bowling.ErrInvalidCorrection},
		// Frame 1's earlier correction (a spare) cannot be made on a
		// game whose frame 1 was a strike.
		{"another game than the corrections'", BallFix{Week: 1, Bowler: "Ann", Game: 1, Frame: 2, Ball: 1, Pins: 8}, game(t, 10, 9, 0, 9, 0, 9, 0, 9, 0, 9, 0, 9, 0, 9, 0, 9, 0, 9, 0), bowling.ErrInvalidCorrection},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := s.l.CorrectBall(tc.fix, tc.bowled)
			if !errors.Is(err, tc.want) {
				t.Fatalf("CorrectBall = %+v, %v; want an error wrapping %v", e, err, tc.want)
			}
			if !reflect.DeepEqual(e, Event{}) {
				t.Errorf("refused, CorrectBall still gave an event to apply: %+v", e)
			}
			// CorrectBall decides and Apply changes: a refusal that
			// touched the league would show here.
			if after := s.standings(); !reflect.DeepEqual(after, before) {
				t.Errorf("standings changed: %+v, were %+v", after, before)
			}
		})
	}
}
