package league

import (
	"cmp"
	"slices"
)

// Standings are a league's teams and bowlers after the games scored so
// far, the night in play included.
type Standings struct {
	Closed int // the nights closed
	Open   int // the week of the night in play, 0 for none
	// Teams are ranked by points won, then pins with handicap, then
	// scratch pins, all from the most; teams equal in all three share a
	// rank and keep the settings' order.
	Teams []TeamStanding
	// Bowlers are in the settings' order, team by team.
	Bowlers []BowlerStanding
}

// TeamStanding is a team's line of the standings. A team's pins count
// every place, the absent's and the vacancies' scores included, once the
// team's game counts (every place scored, every handicap known).
type TeamStanding struct {
	Rank                      int
	Name                      string
	PointsWon, PointsLost     float64 // whole or half points: a tie splits them
	PinsScratch, PinsHandicap int     // PinsHandicap is the pins with the handicaps added
	HighGame, HighSeries      int     // the team's best game and night, with handicap
}

// BowlerStanding is a bowler's line of the standings: their own games
// only, never an absent score nor a substitute's games.
type BowlerStanding struct {
	Name, Team string
	Games      int
	Pins       int // scratch
	// Average is the league's average, Pins ÷ Games, fractions dropped;
	// before a night bowled, the entering average, or 0 for none.
	Average int
	// Handicap is the next night's handicap, from Average; 0 with no
	// average (the first night's own average will set it).
	Handicap             int
	HighGame, HighSeries int // scratch; a series is a night's games
}

// Standings returns the league's standings. The closed nights are kept
// counted and the night in play is counted match by match as its games
// are scored, so this costs a pass over the teams and bowlers, not over
// the season.
func (l *League) Standings() Standings {
	t := totals{teams: slices.Clone(l.base.teams), bowlers: slices.Clone(l.base.bowlers)}
	out := Standings{Closed: len(l.nights)}
	if week, open := l.Night(); open {
		out.Open, out.Closed = week, week-1
		n := l.nights[week-1]
		l.fold(n, &t)
	}
	out.Teams = make([]TeamStanding, len(l.s.Teams))
	for i, team := range l.s.Teams {
		tt := t.teams[i]
		out.Teams[i] = TeamStanding{
			Name:      team.Name,
			PointsWon: float64(tt.won) / 2, PointsLost: float64(tt.lost) / 2,
			PinsScratch: tt.scratch, PinsHandicap: tt.handicap,
			HighGame: tt.highGame, HighSeries: tt.highSeries,
		}
	}
	slices.SortStableFunc(out.Teams, compareTeams)
	for i := range out.Teams {
		out.Teams[i].Rank = i + 1
		if i > 0 && compareTeams(out.Teams[i-1], out.Teams[i]) == 0 {
			out.Teams[i].Rank = out.Teams[i-1].Rank
		}
	}
	out.Bowlers = make([]BowlerStanding, len(l.members))
	for m, mb := range l.members {
		b := t.bowlers[m]
		avg, ok := l.average(&t, m)
		hcp := 0
		if ok {
			hcp = l.s.Handicap.For(avg)
		}
		out.Bowlers[m] = BowlerStanding{
			Name: mb.name, Team: l.s.Teams[mb.team].Name,
			Games: b.games, Pins: b.pins, Average: avg, Handicap: hcp,
			HighGame: b.highGame, HighSeries: b.highSeries,
		}
	}
	return out
}

// compareTeams orders teams by points won, pins with handicap and scratch
// pins, the most first.
func compareTeams(a, b TeamStanding) int {
	return cmp.Or(
		cmp.Compare(b.PointsWon, a.PointsWon),
		cmp.Compare(b.PinsHandicap, a.PinsHandicap),
		cmp.Compare(b.PinsScratch, a.PinsScratch),
	)
}
