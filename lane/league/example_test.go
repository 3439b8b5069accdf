package league_test

import (
	"errors"
	"fmt"

	"github.com/tenpin/tenpin/lane/league"
)

// A league of two teams bowls its first night. Bob is absent: his place
// scores his 180 less 10 with his handicap, 18. Gutter Kings have one
// bowler for Pin Pals' two: their second place is a vacancy, 120.
func Example() {
	l, err := league.New(league.Settings{
		Name:          "Tuesday Mixed",
		GamesPerNight: 3,
		Handicap:      league.Handicap{Basis: 200, Percent: 90},
		Points:        league.Points{PerGame: 1, PerSeries: 1},
		AbsentMinus:   10,
		VacancyScore:  120,
		Teams: []league.Team{
			{Name: "Pin Pals", Bowlers: []league.Bowler{{Name: "Ann", Average: 150}, {Name: "Bob", Average: 180}}},
			{Name: "Gutter Kings", Bowlers: []league.Bowler{{Name: "Cat", Average: 170}}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Decide, then apply: a store would keep each event first.
	apply := func(e league.Event, err error) {
		if err != nil {
			fmt.Println(err)
			return
		}
		l.Apply(e)
	}
	apply(l.Open(1, []league.Absence{{Bowler: "Bob"}}))
	for g, pins := range []int{160, 150, 190} {
		apply(l.Score(league.GameScore{Week: 1, Bowler: "Ann", Game: g + 1, Pins: pins}))
	}
	for g, pins := range []int{200, 180, 170} {
		apply(l.Score(league.GameScore{Week: 1, Bowler: "Cat", Game: g + 1, Pins: pins}))
	}
	apply(l.Close(1))

	st := l.Standings()
	fmt.Println("team          won lost scratch  hdcp  high series")
	for _, t := range st.Teams {
		fmt.Printf("%d %-12s %3.1f %3.1f %6d %5d %5d %6d\n", t.Rank, t.Name, t.PointsWon, t.PointsLost, t.PinsScratch, t.PinsHandicap, t.HighGame, t.HighSeries)
	}
	fmt.Println("bowler games pins avg hdcp high series")
	for _, b := range st.Bowlers {
		fmt.Printf("%-6s %5d %4d %3d %4d %4d %6d\n", b.Name, b.Games, b.Pins, b.Average, b.Handicap, b.HighGame, b.HighSeries)
	}
	// Output:
	// team          won lost scratch  hdcp  high series
	// 1 Pin Pals     4.0 0.0   1010  1199   423   1199
	// 2 Gutter Kings 0.0 4.0    910   991   347    991
	// bowler games pins avg hdcp high series
	// Ann        3  500 166   30  190    500
	// Bob        0    0 180   18    0      0
	// Cat        3  550 183   15  200    550
}

func ExampleSchedule() {
	for w, week := range league.Schedule(4, 3) {
		fmt.Println("week", w+1, week)
	}
	// Output:
	// week 1 [{0 1} {2 3}]
	// week 2 [{3 0} {1 2}]
	// week 3 [{0 2} {3 1}]
}

func ExampleHandicap_For() {
	h := league.Handicap{Basis: 220, Percent: 90}
	fmt.Println(h.For(150), h.For(151), h.For(230))
	// Output:
	// 63 62 0
}

func ExampleNew_invalid() {
	_, err := league.New(league.Settings{
		Name:          "Odd",
		GamesPerNight: 3,
		Teams: []league.Team{
			{Name: "A", Bowlers: []league.Bowler{{Name: "Ann"}}},
			{Name: "B", Bowlers: []league.Bowler{{Name: "Bob"}}},
			{Name: "C", Bowlers: []league.Bowler{{Name: "Cat"}}},
		},
	})
	fmt.Println(errors.Is(err, league.ErrInvalid))
	fmt.Println(err)
	// Output:
	// true
	// league: invalid league: 3 teams: a league has an even number of teams, 2 to 32, so that every team bowls every week
}
