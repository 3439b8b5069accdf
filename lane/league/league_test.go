package league

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tenpin/tenpin/lane/bowling"
)

func TestHandicapFor(t *testing.T) {
	tests := []struct {
		h       Handicap
		average int
		want    int
	}{
		{Handicap{220, 90}, 150, 63}, // 70 × 0.9 = 63
		{Handicap{220, 90}, 151, 62}, // 69 × 0.9 = 62.1: fractions dropped
		{Handicap{220, 90}, 219, 0},  // 0.9
		{Handicap{220, 90}, 220, 0},  // at the basis
		{Handicap{220, 90}, 250, 0},  // above it: never below 0
		{Handicap{200, 80}, 163, 29}, // 37 × 0.8 = 29.6
		{Handicap{210, 100}, 0, 210}, // full handicap
		{Handicap{230, 0}, 100, 0},   // scratch
		{Handicap{}, 100, 0},         // no handicap at all
		{Handicap{300, 95}, 299, 0},  // 0.95
		{Handicap{300, 95}, 280, 19}, // 19.0 exactly
		{Handicap{300, 95}, 281, 18}, // 18.05
	}
	for _, tt := range tests {
		if got := tt.h.For(tt.average); got != tt.want {
			t.Errorf("%+v.For(%d) = %d, want %d", tt.h, tt.average, got, tt.want)
		}
	}
}

// season is a league under test, with the events it applied.
type season struct {
	t      *testing.T
	l      *League
	events []Event
}

func newSeason(t *testing.T, s Settings) *season {
	t.Helper()
	l, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return &season{t: t, l: l}
}

func (s *season) apply(e Event, err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatal(err)
	}
	s.l.Apply(e)
	s.events = append(s.events, e)
}

func (s *season) open(week int, absent ...Absence) {
	s.t.Helper()
	s.apply(s.l.Open(week, absent))
}

// bowl scores the bowler's games of the week from game 1.
func (s *season) bowl(week int, bowler string, scores ...int) {
	s.t.Helper()
	for g, pins := range scores {
		s.apply(s.l.Score(GameScore{Week: week, Bowler: bowler, Game: g + 1, Pins: pins}))
	}
}

func (s *season) close(week int) {
	s.t.Helper()
	s.apply(s.l.Close(week))
}

// teams returns the team lines of the standings, checking that a replay
// of the events gives the same standings.
func (s *season) standings() Standings {
	s.t.Helper()
	got := s.l.Standings()
	again, err := Replay(s.l.Settings(), s.events)
	if err != nil {
		s.t.Fatal(err)
	}
	if st := again.Standings(); !reflect.DeepEqual(st, got) {
		s.t.Fatalf("standings replayed:\n%+v\nkept:\n%+v", st, got)
	}
	return got
}

func (s *season) wantTeams(want ...TeamStanding) {
	s.t.Helper()
	if got := s.standings().Teams; !reflect.DeepEqual(got, want) {
		s.t.Errorf("Standings().Teams =\n%+v\nwant\n%+v", got, want)
	}
}

func (s *season) wantBowlers(want ...BowlerStanding) {
	s.t.Helper()
	if got := s.standings().Bowlers; !reflect.DeepEqual(got, want) {
		s.t.Errorf("Standings().Bowlers =\n%+v\nwant\n%+v", got, want)
	}
}

func duo(teamA string, a Bowler, teamB string, b ...Bowler) []Team {
	return []Team{{Name: teamA, Bowlers: []Bowler{a}}, {Name: teamB, Bowlers: b}}
}

// TestTiesSplitPoints: a night of two one-bowler teams, by hand. Ann
// (150) gets 50 pins of handicap, Cat (170) 30. Game 1: 160+50 = 210 ties
// 180+30 = 210, half a point each; game 2: 200 beats 190; game 3: 200
// loses to 205; the series 610 beats 605.
func TestTiesSplitPoints(t *testing.T) {
	s := newSeason(t, Settings{
		Name: "Ties", GamesPerNight: 3, Handicap: Handicap{200, 100}, Points: Points{1, 1},
		Teams: duo("Pin Pals", Bowler{"Ann", 150}, "Gutter Kings", Bowler{"Cat", 170}),
	})
	s.open(1)
	s.bowl(1, "Ann", 160, 150, 150)
	s.bowl(1, "cat", 180, 160, 175) // names are matched whatever their case
	s.wantTeams(
		TeamStanding{Rank: 1, Name: "Pin Pals", PointsWon: 2.5, PointsLost: 1.5, PinsScratch: 460, PinsHandicap: 610, HighGame: 210, HighSeries: 610},
		TeamStanding{Rank: 2, Name: "Gutter Kings", PointsWon: 1.5, PointsLost: 2.5, PinsScratch: 515, PinsHandicap: 605, HighGame: 210, HighSeries: 605},
	)
	s.close(1)
	// 460 ÷ 3 = 153.3: 153, and 47 pins of handicap; 515 ÷ 3 = 171.7: 171, 29.
	s.wantBowlers(
		BowlerStanding{Name: "Ann", Team: "Pin Pals", Games: 3, Pins: 460, Average: 153, Handicap: 47, HighGame: 160, HighSeries: 460},
		BowlerStanding{Name: "Cat", Team: "Gutter Kings", Games: 3, Pins: 515, Average: 171, Handicap: 29, HighGame: 180, HighSeries: 515},
	)
}

// TestAbsentAndVacancy: Bob (180) is absent, so his place scores 180 − 10
// = 170 with his 20 pins of handicap; Gutter Kings have one bowler for
// Pin Pals' two, so their second place is a vacancy: 100, no handicap.
// Game 1: 210 + 190 = 400 against 210 + 100 = 310; game 2: 390 against
// 330; the series 790 against 640.
func TestAbsentAndVacancy(t *testing.T) {
	settings := Settings{
		Name: "Absent", GamesPerNight: 2, Handicap: Handicap{200, 100}, Points: Points{1, 2},
		AbsentMinus: 10, VacancyScore: 100, Weeks: 2,
		Teams: duo("Pin Pals", Bowler{"Ann", 150}, "Gutter Kings", Bowler{"Cat", 170}),
	}
	settings.Teams[0].Bowlers = append(settings.Teams[0].Bowlers, Bowler{"Bob", 180})
	s := newSeason(t, settings)
	s.open(1, Absence{Bowler: "BOB"})
	s.bowl(1, "Ann", 160, 150)
	s.bowl(1, "Cat", 180, 200)
	s.close(1)
	s.wantTeams(
		TeamStanding{Rank: 1, Name: "Pin Pals", PointsWon: 4, PointsLost: 0, PinsScratch: 650, PinsHandicap: 790, HighGame: 400, HighSeries: 790},
		TeamStanding{Rank: 2, Name: "Gutter Kings", PointsWon: 0, PointsLost: 4, PinsScratch: 580, PinsHandicap: 640, HighGame: 330, HighSeries: 640},
	)
	// The absent score is not Bob's: he keeps his entering average.
	s.wantBowlers(
		BowlerStanding{Name: "Ann", Team: "Pin Pals", Games: 2, Pins: 310, Average: 155, Handicap: 45, HighGame: 160, HighSeries: 310},
		BowlerStanding{Name: "Bob", Team: "Pin Pals", Games: 0, Pins: 0, Average: 180, Handicap: 20},
		BowlerStanding{Name: "Cat", Team: "Gutter Kings", Games: 2, Pins: 380, Average: 190, Handicap: 10, HighGame: 200, HighSeries: 380},
	)

	// Week 2 Sue (160: 40 pins) bowls for Bob: 150 + 40 and 170 + 40 count
	// for the team; Ann (155: 45) bowls 100 and 100; Cat (190: 10) 180 and
	// 200; the vacancy 100. Game 1: 145 + 190 = 335 against 190 + 100 =
	// 290; game 2: 355 against 310; the series 690 against 600.
	s.open(2, Absence{Bowler: "Bob", Sub: Substitute{Name: "Sue", Average: 160}})
	if _, err := s.l.Score(GameScore{Week: 2, Bowler: "Bob", Game: 1, Pins: 200}); !errors.Is(err, ErrInvalidScore) || !strings.Contains(err.Error(), `"Sue" bowls in their place`) {
		t.Errorf("Score(Bob, absent) = %v, want ErrInvalidScore naming Sue", err)
	}
	s.bowl(2, "Ann", 100, 100)
	s.bowl(2, "Sue", 150, 170)
	s.bowl(2, "Cat", 180, 200)
	s.close(2)
	s.wantTeams(
		TeamStanding{Rank: 1, Name: "Pin Pals", PointsWon: 8, PointsLost: 0, PinsScratch: 650 + 520, PinsHandicap: 790 + 690, HighGame: 400, HighSeries: 790},
		TeamStanding{Rank: 2, Name: "Gutter Kings", PointsWon: 0, PointsLost: 8, PinsScratch: 580 + 580, PinsHandicap: 640 + 600, HighGame: 330, HighSeries: 640},
	)
	s.wantBowlers(
		BowlerStanding{Name: "Ann", Team: "Pin Pals", Games: 4, Pins: 510, Average: 127, Handicap: 73, HighGame: 160, HighSeries: 310},
		BowlerStanding{Name: "Bob", Team: "Pin Pals", Games: 0, Pins: 0, Average: 180, Handicap: 20},
		BowlerStanding{Name: "Cat", Team: "Gutter Kings", Games: 4, Pins: 760, Average: 190, Handicap: 10, HighGame: 200, HighSeries: 380},
	)
}

// TestAbsentWithoutAverage: an absent bowler with neither games nor an
// entering average has no average to take from: the place scores as a
// vacancy, 100 and no handicap.
func TestAbsentWithoutAverage(t *testing.T) {
	s := newSeason(t, Settings{
		Name: "New", GamesPerNight: 1, Handicap: Handicap{200, 100}, Points: Points{1, 0},
		AbsentMinus: 10, VacancyScore: 100,
		Teams: duo("A", Bowler{Name: "Ann"}, "B", Bowler{"Cat", 170}),
	})
	s.open(1, Absence{Bowler: "Ann"})
	s.bowl(1, "Cat", 60) // 90 with handicap: loses to the 100
	s.wantTeams(
		TeamStanding{Rank: 1, Name: "A", PointsWon: 1, PinsScratch: 100, PinsHandicap: 100, HighGame: 100, HighSeries: 100},
		TeamStanding{Rank: 2, Name: "B", PointsLost: 1, PinsScratch: 60, PinsHandicap: 90, HighGame: 90, HighSeries: 90},
	)
}

// TestFirstNightAndCorrection: Ann has no average. Her first night's
// handicap comes from that night's own average: 130, 140, 160 average
// 143, so 90% of 200 − 143 = 51.3: 51 pins a game, 181, 191, 211 = 583.
// Cat (170: 27) bowls 187, 197, 207 = 591: B wins games 1 and 2 and the
// series, A game 3. Until Ann's last game is in, her team's games cannot
// count.
//
// Week 2, Ann's 143 gives her 51: 150 + 51 = 201 three times beats Cat's
// 170 + 27 = 197: A takes all four points.
//
// Then Ann's first game is corrected to 190: her first night averages
// 163, so her handicap is 33 that night (223, 173, 193 = 589: one point of
// four still) and in week 2 (183 three times: none of the four).
func TestFirstNightAndCorrection(t *testing.T) {
	s := newSeason(t, Settings{
		Name: "First", GamesPerNight: 3, Handicap: Handicap{200, 90}, Points: Points{1, 1},
		Teams: duo("A", Bowler{Name: "Ann"}, "B", Bowler{"Cat", 170}), Weeks: 3,
	})
	s.open(1)
	s.bowl(1, "Ann", 130, 140)
	s.bowl(1, "Cat", 160, 170, 180)
	s.wantTeams(
		TeamStanding{Rank: 1, Name: "B", PinsScratch: 510, PinsHandicap: 591, HighGame: 207, HighSeries: 591},
		TeamStanding{Rank: 2, Name: "A"},
	)
	s.wantBowlers(
		BowlerStanding{Name: "Ann", Team: "A", Games: 2, Pins: 270, Average: 135, Handicap: 58, HighGame: 140},
		BowlerStanding{Name: "Cat", Team: "B", Games: 3, Pins: 510, Average: 170, Handicap: 27, HighGame: 180, HighSeries: 510},
	)
	s.bowl(1, "Ann", 130, 140, 160) // the first two again: the same scores, corrected to themselves
	s.wantTeams(
		TeamStanding{Rank: 1, Name: "B", PointsWon: 3, PointsLost: 1, PinsScratch: 510, PinsHandicap: 591, HighGame: 207, HighSeries: 591},
		TeamStanding{Rank: 2, Name: "A", PointsWon: 1, PointsLost: 3, PinsScratch: 430, PinsHandicap: 583, HighGame: 211, HighSeries: 583},
	)
	s.close(1)
	s.open(2)
	s.bowl(2, "Ann", 150, 150, 150)
	s.bowl(2, "Cat", 170, 170, 170)
	s.close(2)
	s.wantTeams(
		TeamStanding{Rank: 1, Name: "A", PointsWon: 5, PointsLost: 3, PinsScratch: 880, PinsHandicap: 583 + 603, HighGame: 211, HighSeries: 603},
		TeamStanding{Rank: 2, Name: "B", PointsWon: 3, PointsLost: 5, PinsScratch: 1020, PinsHandicap: 1182, HighGame: 207, HighSeries: 591},
	)
	// 880 ÷ 6 = 146.7: 146, and 90% of 54 = 48.6: 48.
	s.wantBowlers(
		BowlerStanding{Name: "Ann", Team: "A", Games: 6, Pins: 880, Average: 146, Handicap: 48, HighGame: 160, HighSeries: 450},
		BowlerStanding{Name: "Cat", Team: "B", Games: 6, Pins: 1020, Average: 170, Handicap: 27, HighGame: 180, HighSeries: 510},
	)

	e, err := s.l.Score(GameScore{Week: 1, Bowler: "Ann", Game: 1, Pins: 190})
	if want := (Event{Kind: Corrected, Week: 1, Bowler: "Ann", Game: 1, Pins: 190, Was: 130}); !reflect.DeepEqual(e, want) || err != nil {
		t.Fatalf("Score(correction) = %+v, %v; want %+v", e, err, want)
	}
	s.apply(e, err)
	s.wantTeams(
		TeamStanding{Rank: 1, Name: "B", PointsWon: 7, PointsLost: 1, PinsScratch: 1020, PinsHandicap: 1182, HighGame: 207, HighSeries: 591},
		TeamStanding{Rank: 2, Name: "A", PointsWon: 1, PointsLost: 7, PinsScratch: 940, PinsHandicap: 589 + 549, HighGame: 223, HighSeries: 589},
	)
	// 940 ÷ 6 = 156.7: 156, and 90% of 44 = 39.6: 39.
	s.wantBowlers(
		BowlerStanding{Name: "Ann", Team: "A", Games: 6, Pins: 940, Average: 156, Handicap: 39, HighGame: 190, HighSeries: 490},
		BowlerStanding{Name: "Cat", Team: "B", Games: 6, Pins: 1020, Average: 170, Handicap: 27, HighGame: 180, HighSeries: 510},
	)
}

// TestCorrectionChangesAbsentScore: a correction of a closed night
// changes the absent scores of the nights after it. Half handicap from
// 200: Ann (190) gets 5 pins, Cat (150) 25. Week 1: 190 + 5 = 195 against
// Cat's 200 + 25 = 225. Week 2 Cat is absent: her 200 less 20, and no
// handicap: 180 against 195. Then her week 1 is corrected to 250: 275
// wins week 1 all the same, and week 2 her place scores 230 and wins it.
func TestCorrectionChangesAbsentScore(t *testing.T) {
	s := newSeason(t, Settings{
		Name: "Absent later", GamesPerNight: 1, Handicap: Handicap{200, 50}, Points: Points{2, 0},
		AbsentMinus: 20, Weeks: 2,
		Teams: duo("A", Bowler{"Ann", 190}, "B", Bowler{"Cat", 150}),
	})
	s.open(1)
	s.bowl(1, "Ann", 190)
	s.bowl(1, "Cat", 200)
	s.close(1)
	s.open(2, Absence{Bowler: "Cat"})
	s.bowl(2, "Ann", 190)
	s.close(2)
	s.wantTeams(
		TeamStanding{Rank: 1, Name: "B", PointsWon: 2, PointsLost: 2, PinsScratch: 380, PinsHandicap: 405, HighGame: 225, HighSeries: 225},
		TeamStanding{Rank: 2, Name: "A", PointsWon: 2, PointsLost: 2, PinsScratch: 380, PinsHandicap: 390, HighGame: 195, HighSeries: 195},
	)
	s.apply(s.l.Score(GameScore{Week: 1, Bowler: "Cat", Game: 1, Pins: 250}))
	s.wantTeams(
		TeamStanding{Rank: 1, Name: "B", PointsWon: 4, PointsLost: 0, PinsScratch: 480, PinsHandicap: 505, HighGame: 275, HighSeries: 275},
		TeamStanding{Rank: 2, Name: "A", PointsWon: 0, PointsLost: 4, PinsScratch: 380, PinsHandicap: 390, HighGame: 195, HighSeries: 195},
	)
}

// TestStandingsOrder: points first, then pins with handicap, then
// scratch pins; teams equal in all three share a rank, in the settings'
// order. Four teams of one bowler, one game; week 1 is A–B and C–D.
func TestStandingsOrder(t *testing.T) {
	tests := []struct {
		name     string
		averages [4]int // A, B, C, D, against a basis of 200 at 100%
		scores   [4]int
		want     []TeamStanding
	}{
		{
			// A 150 + 50 beats B 190 + 0; C 180 + 20 ties D 190 + 10: C and D
			// have half a point and 200 each, D more scratch pins.
			name: "scratch pins", averages: [4]int{150, 200, 180, 190}, scores: [4]int{150, 190, 180, 190},
			want: []TeamStanding{
				{Rank: 1, Name: "A", PointsWon: 1, PinsScratch: 150, PinsHandicap: 200, HighGame: 200, HighSeries: 200},
				{Rank: 2, Name: "D", PointsWon: 0.5, PointsLost: 0.5, PinsScratch: 190, PinsHandicap: 200, HighGame: 200, HighSeries: 200},
				{Rank: 3, Name: "C", PointsWon: 0.5, PointsLost: 0.5, PinsScratch: 180, PinsHandicap: 200, HighGame: 200, HighSeries: 200},
				{Rank: 4, Name: "B", PointsLost: 1, PinsScratch: 190, PinsHandicap: 190, HighGame: 190, HighSeries: 190},
			},
		},
		{
			// A 200 beats B 150; D 190 beats C 180: A and D have a point, A
			// more pins; C more pins than B.
			name: "pins with handicap", averages: [4]int{200, 200, 200, 200}, scores: [4]int{200, 150, 180, 190},
			want: []TeamStanding{
				{Rank: 1, Name: "A", PointsWon: 1, PinsScratch: 200, PinsHandicap: 200, HighGame: 200, HighSeries: 200},
				{Rank: 2, Name: "D", PointsWon: 1, PinsScratch: 190, PinsHandicap: 190, HighGame: 190, HighSeries: 190},
				{Rank: 3, Name: "C", PointsLost: 1, PinsScratch: 180, PinsHandicap: 180, HighGame: 180, HighSeries: 180},
				{Rank: 4, Name: "B", PointsLost: 1, PinsScratch: 150, PinsHandicap: 150, HighGame: 150, HighSeries: 150},
			},
		},
		{
			// Everyone ties: all share rank 1, in the settings' order.
			name: "shared rank", averages: [4]int{180, 180, 180, 180}, scores: [4]int{170, 170, 170, 170},
			want: []TeamStanding{
				{Rank: 1, Name: "A", PointsWon: 0.5, PointsLost: 0.5, PinsScratch: 170, PinsHandicap: 190, HighGame: 190, HighSeries: 190},
				{Rank: 1, Name: "B", PointsWon: 0.5, PointsLost: 0.5, PinsScratch: 170, PinsHandicap: 190, HighGame: 190, HighSeries: 190},
				{Rank: 1, Name: "C", PointsWon: 0.5, PointsLost: 0.5, PinsScratch: 170, PinsHandicap: 190, HighGame: 190, HighSeries: 190},
				{Rank: 1, Name: "D", PointsWon: 0.5, PointsLost: 0.5, PinsScratch: 170, PinsHandicap: 190, HighGame: 190, HighSeries: 190},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			settings := Settings{Name: "Order", GamesPerNight: 1, Handicap: Handicap{200, 100}, Points: Points{1, 0}}
			names := []string{"Ann", "Bob", "Cat", "Dan"}
			for i, team := range []string{"A", "B", "C", "D"} {
				settings.Teams = append(settings.Teams, Team{Name: team, Bowlers: []Bowler{{names[i], tt.averages[i]}}})
			}
			s := newSeason(t, settings)
			if got := s.l.Schedule()[0]; !reflect.DeepEqual(got, []Match{{0, 1}, {2, 3}}) {
				t.Fatalf("week 1 = %v, want A–B and C–D", got)
			}
			s.open(1)
			for i, name := range names {
				s.bowl(1, name, tt.scores[i])
			}
			s.wantTeams(tt.want...)
		})
	}
}

// TestRefused: decisions refused say why and change nothing.
func TestRefused(t *testing.T) {
	settings := Settings{
		Name: "Refusals", GamesPerNight: 2, Handicap: Handicap{200, 90}, Points: Points{1, 1}, Weeks: 2,
		Teams: duo("A", Bowler{"Ann", 150}, "B", Bowler{"Cat", 170}, Bowler{"Dan", 0}),
	}
	tests := []struct {
		name    string
		before  func(s *season)
		command func(l *League) (Event, error)
		want    error
		says    string
	}{
		{"score before opening", nil, func(l *League) (Event, error) { return l.Score(GameScore{Week: 1, Bowler: "Ann", Game: 1, Pins: 100}) }, ErrWeek, "week 1's night has not been opened"},
		{"open week 2 first", nil, func(l *League) (Event, error) { return l.Open(2, nil) }, ErrWeek, "week 1 opens next, not week 2"},
		{"open twice", func(s *season) { s.open(1) }, func(l *League) (Event, error) { return l.Open(2, nil) }, ErrWeek, "week 1's night is open"},
		{"close unopened", nil, func(l *League) (Event, error) { return l.Close(1) }, ErrWeek, "week 1's night is not open"},
		{"close incomplete", func(s *season) { s.open(1); s.bowl(1, "Ann", 150) }, func(l *League) (Event, error) { return l.Close(1) }, ErrIncomplete, `week 1 still needs "Ann"'s game 2, "Cat"'s game 1, "Cat"'s game 2 and 2 more`},
		{"unknown absent", nil, func(l *League) (Event, error) { return l.Open(1, []Absence{{Bowler: "Eve"}}) }, ErrUnknownBowler, `"Eve", marked absent, is no bowler of the league`},
		{"absent twice", nil, func(l *League) (Event, error) { return l.Open(1, []Absence{{Bowler: "Ann"}, {Bowler: "ANN"}}) }, ErrInvalidNight, `"Ann" is marked absent twice`},
		{"member as sub", nil, func(l *League) (Event, error) {
			return l.Open(1, []Absence{{Bowler: "Ann", Sub: Substitute{Name: "dan"}}})
		}, ErrInvalidNight, `"dan" cannot substitute for "Ann"`},
		{"member as sub, looking alike", nil, func(l *League) (Event, error) {
			return l.Open(1, []Absence{{Bowler: "Ann", Sub: Substitute{Name: "Ｃat"}}})
		}, ErrInvalidNight, `"Ｃat" cannot substitute for "Ann": "Cat" bowls for their own team`},
		{"sub twice", nil, func(l *League) (Event, error) {
			return l.Open(1, []Absence{{Bowler: "Ann", Sub: Substitute{Name: "Sue"}}, {Bowler: "Cat", Sub: Substitute{Name: "SUE"}}})
		}, ErrInvalidNight, `"SUE" substitutes for "Ann" and "Cat"`},
		{"sub unnamed", nil, func(l *League) (Event, error) {
			return l.Open(1, []Absence{{Bowler: "Ann", Sub: Substitute{Average: 150}}})
		}, ErrInvalidNight, `"Ann"'s substitute: the name is empty`},
		{"sub average", nil, func(l *League) (Event, error) {
			return l.Open(1, []Absence{{Bowler: "Ann", Sub: Substitute{Name: "Sue", Average: 400}}})
		}, ErrInvalidNight, `"Sue"'s average 400`},
		{"corrected too often", func(s *season) {
			s.open(1)
			for i := range MaxCorrections + 1 { // a score, then MaxCorrections corrections
				s.bowl(1, "Ann", 100+i)
			}
		}, func(l *League) (Event, error) { return l.Score(GameScore{Week: 1, Bowler: "Ann", Game: 1, Pins: 200}) }, ErrTooManyCorrections, `"Ann"'s game 1 of week 1 has been corrected 30 times`},
		{"a ball corrected too often", func(s *season) {
			s.open(1)
			for i := range MaxCorrections + 1 {
				s.bowl(1, "Ann", 100+i)
			}
		}, func(l *League) (Event, error) {
			return l.CorrectBall(BallFix{Week: 1, Bowler: "Ann", Game: 1, Frame: 1, Ball: 1, Pins: 5}, bowling.Game{})
		}, ErrTooManyCorrections, `has been corrected 30 times`},
		{"everyone absent", nil, func(l *League) (Event, error) {
			return l.Open(1, []Absence{{Bowler: "Ann"}, {Bowler: "Cat"}, {Bowler: "Dan"}})
		}, ErrInvalidNight, "match 1, A v B: every bowler of both teams is absent, and none has a substitute"},
		{"unknown bowler", func(s *season) { s.open(1) }, func(l *League) (Event, error) { return l.Score(GameScore{Week: 1, Bowler: "Eve", Game: 1, Pins: 100}) }, ErrUnknownBowler, `"Eve" bowls in no place of week 1`},
		{"absent bowler", func(s *season) { s.open(1, Absence{Bowler: "Cat"}) }, func(l *League) (Event, error) {
			return l.Score(GameScore{Week: 1, Bowler: "Cat", Game: 1, Pins: 100})
		}, ErrInvalidScore, `"Cat" is absent in week 1: their place scores their average less 0`},
		{"no such game", func(s *season) { s.open(1) }, func(l *League) (Event, error) { return l.Score(GameScore{Week: 1, Bowler: "Ann", Game: 3, Pins: 100}) }, ErrInvalidScore, "game 3: a night has games 1 to 2"},
		{"too many pins", func(s *season) { s.open(1) }, func(l *League) (Event, error) { return l.Score(GameScore{Week: 1, Bowler: "Ann", Game: 1, Pins: 301}) }, ErrInvalidScore, "301 pins: a game scores 0 to 300"},
		{"season over", func(s *season) {
			for w := 1; w <= 2; w++ {
				s.open(w)
				s.bowl(w, "Ann", 100, 100)
				s.bowl(w, "Cat", 100, 100)
				s.bowl(w, "Dan", 100, 100)
				s.close(w)
			}
		}, func(l *League) (Event, error) { return l.Open(3, nil) }, ErrWeek, "the season's 2 weeks are over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSeason(t, settings)
			if tt.before != nil {
				tt.before(s)
			}
			before := s.l.Standings()
			e, err := tt.command(s.l)
			if !errors.Is(err, tt.want) || !strings.Contains(fmtErr(err), tt.says) {
				t.Fatalf("got %+v, %v; want %v saying %q", e, err, tt.want, tt.says)
			}
			if after := s.l.Standings(); !reflect.DeepEqual(after, before) {
				t.Errorf("a refused decision changed the standings")
			}
		})
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestApplyIgnoresStrays: events that do not fit the league change
// nothing.
func TestApplyIgnoresStrays(t *testing.T) {
	s := newSeason(t, validSettings())
	before := s.l.Standings()
	for _, e := range []Event{
		{Kind: Opened, Week: 2},
		{Kind: Scored, Week: 1, Bowler: "Ann", Game: 1, Pins: 100},
		{Kind: Closed, Week: 1},
		{Kind: "unknown", Week: 1},
	} {
		s.l.Apply(e)
	}
	s.l.Apply(Event{Kind: Opened, Week: 1})
	for _, e := range []Event{
		{Kind: Scored, Week: 1, Bowler: "Eve", Game: 1, Pins: 100},
		{Kind: Scored, Week: 1, Bowler: "Ann", Game: 9, Pins: 100},
		{Kind: Scored, Week: 1, Bowler: "Ann", Game: 1, Pins: 999},
		{Kind: Opened, Week: 1},
		{Kind: Closed, Week: 2},
	} {
		s.l.Apply(e)
	}
	after := s.l.Standings()
	after.Open, after.Closed = 0, 0
	if !reflect.DeepEqual(after, before) {
		t.Errorf("stray events changed the standings:\n%+v\nwas\n%+v", after, before)
	}
}

// TestSubstituteWithoutAverage: a substitute with no average gets the
// handicap of their night's own average, as a bowler's first night does;
// their games count for the team, and for nobody's average: Sue's 140
// gives her 60 pins, 200 against Cat's 180 + 30.
func TestSubstituteWithoutAverage(t *testing.T) {
	s := newSeason(t, Settings{
		Name: "Subs", GamesPerNight: 1, Handicap: Handicap{200, 100}, Points: Points{1, 1},
		Teams: duo("A", Bowler{"Ann", 150}, "B", Bowler{"Cat", 170}),
	})
	s.open(1, Absence{Bowler: "Ann", Sub: Substitute{Name: "Sue"}})
	s.bowl(1, "sue", 140)
	s.bowl(1, "Cat", 180)
	s.close(1)
	s.wantTeams(
		TeamStanding{Rank: 1, Name: "B", PointsWon: 2, PinsScratch: 180, PinsHandicap: 210, HighGame: 210, HighSeries: 210},
		TeamStanding{Rank: 2, Name: "A", PointsLost: 2, PinsScratch: 140, PinsHandicap: 200, HighGame: 200, HighSeries: 200},
	)
	s.wantBowlers(
		BowlerStanding{Name: "Ann", Team: "A", Average: 150, Handicap: 50},
		BowlerStanding{Name: "Cat", Team: "B", Games: 1, Pins: 180, Average: 180, Handicap: 20, HighGame: 180, HighSeries: 180},
	)
	if _, err := s.l.Score(GameScore{Week: 1, Bowler: "Sue", Game: 1, Pins: 150}); err != nil {
		t.Errorf("correcting a substitute's game: %v", err)
	}
}

// TestSheet: the Example's night, Ann's last game still to bowl. Ann
// (150) has 45 pins of handicap; Bob is absent, 180 − 10 with 18; Cat
// (170) 27; the vacancy 120. Games 1 and 2 count: 393 and 383 against 347
// and 327, a point each to Pin Pals.
func TestSheet(t *testing.T) {
	settings := Settings{
		Name: "Sheet", GamesPerNight: 3, Handicap: Handicap{200, 90}, Points: Points{1, 1},
		AbsentMinus: 10, VacancyScore: 120,
		Teams: duo("Pin Pals", Bowler{"Ann", 150}, "Gutter Kings", Bowler{"Cat", 170}),
	}
	settings.Teams[0].Bowlers = append(settings.Teams[0].Bowlers, Bowler{"Bob", 180})
	s := newSeason(t, settings)
	if _, ok := s.l.Sheet(1); ok {
		t.Error("Sheet(1) before the night opened: ok")
	}
	s.open(1, Absence{Bowler: "Bob"})
	s.bowl(1, "Ann", 160, 150)
	s.bowl(1, "Cat", 200, 180, 170)
	got, ok := s.l.Sheet(1)
	want := Sheet{Week: 1, Matches: []MatchSheet{{
		Home: TeamSheet{
			Team: "Pin Pals",
			Places: []PlaceSheet{
				{Kind: PlaceBowler, Bowler: "Ann", Name: "Ann", Average: 150, Handicap: 45, HandicapKnown: true, Scores: []int{160, 150, -1}},
				{Kind: PlaceAbsent, Bowler: "Bob", Average: 180, Handicap: 18, HandicapKnown: true, Scores: []int{170, 170, 170}},
			},
			Totals: []int{393, 383, -1}, PointsWon: 2,
		},
		Away: TeamSheet{
			Team: "Gutter Kings",
			Places: []PlaceSheet{
				{Kind: PlaceBowler, Bowler: "Cat", Name: "Cat", Average: 170, Handicap: 27, HandicapKnown: true, Scores: []int{200, 180, 170}},
				{Kind: PlaceVacancy, HandicapKnown: true, Scores: []int{120, 120, 120}},
			},
			Totals: []int{347, 327, 317}, PointsLost: 2,
		},
	}}}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("Sheet(1) = %+v, %v\nwant %+v", got, ok, want)
	}
}

// TestSheetFirstNight: a substitute with no average has no handicap to
// show until their night's games are all in; then their night's own.
func TestSheetFirstNight(t *testing.T) {
	s := newSeason(t, Settings{
		Name: "Subs", GamesPerNight: 2, Handicap: Handicap{200, 100}, Points: Points{1, 1},
		Teams: duo("A", Bowler{"Ann", 150}, "B", Bowler{"Cat", 170}),
	})
	s.open(1, Absence{Bowler: "Ann", Sub: Substitute{Name: "Sue"}})
	s.bowl(1, "Sue", 140)
	sheet, _ := s.l.Sheet(1)
	want := PlaceSheet{Kind: PlaceSubstitute, Bowler: "Ann", Name: "Sue", Scores: []int{140, -1}}
	if got := sheet.Matches[0].Home.Places[0]; !reflect.DeepEqual(got, want) {
		t.Errorf("Sue's place = %+v, want %+v", got, want)
	}
	s.bowl(1, "Sue", 140, 161) // 150.5: 150, and 50 pins
	sheet, _ = s.l.Sheet(1)
	want = PlaceSheet{Kind: PlaceSubstitute, Bowler: "Ann", Name: "Sue", Average: 150, Handicap: 50, HandicapKnown: true, Scores: []int{140, 161}}
	if got := sheet.Matches[0].Home.Places[0]; !reflect.DeepEqual(got, want) {
		t.Errorf("Sue's place = %+v, want %+v", got, want)
	}
}

// TestReportKeepsWhatTheLeagueHas: a lane's report scores a game the
// league has not; a report of a game scored already (the lane did not
// hear the first answer, and a secretary may have corrected the game
// meanwhile, as often as a game may be) changes nothing.
func TestReportKeepsWhatTheLeagueHas(t *testing.T) {
	s := newSeason(t, Settings{
		Name: "Reports", GamesPerNight: 2, Points: Points{1, 1},
		Teams: duo("A", Bowler{Name: "Ann"}, "B", Bowler{"Cat", 170}), Weeks: 2,
	})
	s.open(1)
	e, err := s.l.Report(GameScore{Week: 1, Bowler: "Ann", Game: 1, Pins: 130})
	if want := (Event{Kind: Scored, Week: 1, Bowler: "Ann", Game: 1, Pins: 130}); !reflect.DeepEqual(e, want) || err != nil {
		t.Fatalf("Report(a game not scored) = %+v, %v; want %+v", e, err, want)
	}
	s.apply(e, err)
	s.apply(s.l.Score(GameScore{Week: 1, Bowler: "Ann", Game: 1, Pins: 150})) // the secretary's correction
	for _, pins := range []int{130, 150, 170} {
		if e, err := s.l.Report(GameScore{Week: 1, Bowler: "Ann", Game: 1, Pins: pins}); !reflect.DeepEqual(e, Event{}) || err != nil {
			t.Errorf("Report(game 1 again, %d pins) = %+v, %v; want no change", pins, e, err)
		}
	}
	for c := 1; c < MaxCorrections; c++ { // corrected as often as a game may be
		s.apply(s.l.Score(GameScore{Week: 1, Bowler: "Ann", Game: 1, Pins: 150 + c%2}))
	}
	if _, err := s.l.Score(GameScore{Week: 1, Bowler: "Ann", Game: 1, Pins: 100}); !errors.Is(err, ErrTooManyCorrections) {
		t.Fatalf("a correction past MaxCorrections: %v, want %v", err, ErrTooManyCorrections)
	}
	if e, err := s.l.Report(GameScore{Week: 1, Bowler: "Ann", Game: 1, Pins: 130}); !reflect.DeepEqual(e, Event{}) || err != nil {
		t.Errorf("Report(a game corrected as often as it may be) = %+v, %v; want no change", e, err)
	}
	if _, err := s.l.Report(GameScore{Week: 1, Bowler: "Zed", Game: 1, Pins: 100}); !errors.Is(err, ErrUnknownBowler) {
		t.Errorf("Report(nobody of the league) = %v; want %v", err, ErrUnknownBowler)
	}
}

// TestOpenWithATeamAbsent: a match where one team's bowlers are all
// absent opens (its lane seats the other team), and so does one where
// everybody is absent but a substitute comes.
func TestOpenWithATeamAbsent(t *testing.T) {
	settings := Settings{
		Name: "Absences", GamesPerNight: 1, Handicap: Handicap{200, 90}, Points: Points{1, 1}, Weeks: 1,
		Teams: duo("A", Bowler{"Ann", 150}, "B", Bowler{"Cat", 170}, Bowler{"Dan", 0}),
	}
	for _, absent := range [][]Absence{
		{{Bowler: "Ann"}},
		{{Bowler: "Cat"}, {Bowler: "Dan"}},
		{{Bowler: "Ann"}, {Bowler: "Cat"}, {Bowler: "Dan", Sub: Substitute{Name: "Sue"}}},
	} {
		s := newSeason(t, settings)
		if _, err := s.l.Open(1, absent); err != nil {
			t.Errorf("Open with %v absent: %v", absent, err)
		}
	}
}
