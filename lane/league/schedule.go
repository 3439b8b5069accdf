package league

// Match is a pairing of a week: two teams by their place in
// [Settings].Teams, from 0. Home and away say which pair of lanes' sides
// each team takes; a match's points do not depend on it.
type Match struct {
	Home, Away int
}

// Schedule returns a season's weeks for an even number of teams, each week
// its matches: a round robin by the circle method (team 0 stays, the
// others turn one place a week), so that in teams − 1 weeks every pair
// meets once and every team bowls every week. Weeks past a round robin
// repeat it with home and away swapped; fewer cut it short. It returns nil
// for an odd number of teams, fewer than two, or no weeks.
//
// Home and away alternate: the turning teams' places alternate home and
// away, but for the one against team 0, whose side alternates by week; so
// a team bowls home and away by turns with one break a round robin (an
// odd number of weeks cannot alternate without one), team 0 with none, and
// every team is home ⌊(teams−1)/2⌋ or ⌈(teams−1)/2⌉ times a round robin.
// Over two round robins each pair meets once at each side. The schedule
// depends only on its arguments.
func Schedule(teams, weeks int) [][]Match {
	if teams < 2 || teams%2 != 0 || weeks < 1 {
		return nil
	}
	turning := teams - 1 // the teams that turn, and the weeks of a round robin
	out := make([][]Match, weeks)
	all := make([]Match, weeks*teams/2)
	for w := range weeks {
		round, swap := w%turning, (w/turning)%2 == 1
		// at returns the team at place p of the circle: place 0 faces team
		// 0, place i faces place turning−i.
		at := func(p int) int { return 1 + ((p-round)%turning+turning)%turning }
		week := all[w*teams/2 : w*teams/2 : (w+1)*teams/2]
		week = append(week, pair(0, at(0), round%2 == 0 != swap))
		for i := 1; i < teams/2; i++ {
			week = append(week, pair(at(i), at(turning-i), i%2 == 1 != swap))
		}
		out[w] = week
	}
	return out
}

// pair returns the match of a and b with a at home if aHome.
func pair(a, b int, aHome bool) Match {
	if aHome {
		return Match{Home: a, Away: b}
	}
	return Match{Home: b, Away: a}
}
