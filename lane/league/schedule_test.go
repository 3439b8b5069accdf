package league

import (
	"reflect"
	"testing"
)

// TestScheduleSmall pins the schedule of four teams, by hand from the
// circle method: team 0 stays, teams 1 to 3 turn one place a week.
func TestScheduleSmall(t *testing.T) {
	tests := []struct {
		teams, weeks int
		want         [][]Match
	}{
		{2, 2, [][]Match{{{0, 1}}, {{1, 0}}}},
		{4, 6, [][]Match{
			{{0, 1}, {2, 3}}, // places 0..2 hold teams 1, 2, 3; place 1 (home) faces place 2
			{{3, 0}, {1, 2}}, // teams turned: 3, 1, 2
			{{0, 2}, {3, 1}},
			{{1, 0}, {3, 2}}, // the second round robin, home and away swapped
			{{0, 3}, {2, 1}},
			{{2, 0}, {1, 3}},
		}},
		{4, 0, nil},
		{3, 3, nil},
		{0, 3, nil},
	}
	for _, tt := range tests {
		if got := Schedule(tt.teams, tt.weeks); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Schedule(%d, %d) = %v, want %v", tt.teams, tt.weeks, got, tt.want)
		}
	}
}

// TestScheduleProperties checks every even number of teams from 2 to 32
// over three round robins: each week every team bowls once; each round
// robin every pair meets once; each team is home and away by turns but
// for one break a round robin, and home ⌊(teams−1)/2⌋ or ⌈(teams−1)/2⌉
// times; over two round robins each pair meets once at each side; and any
// stretch of the season from its start is home and away within 2.
func TestScheduleProperties(t *testing.T) {
	for teams := 2; teams <= MaxTeams; teams += 2 {
		rr := teams - 1
		weeks := 3 * rr
		s := Schedule(teams, weeks)
		if len(s) != weeks {
			t.Fatalf("Schedule(%d, %d) has %d weeks", teams, weeks, len(s))
		}
		home := make(map[[2]int]int) // a pair: how often its lower team was home, over the first two round robins
		for w, week := range s {
			if len(week) != teams/2 {
				t.Fatalf("%d teams, week %d: %d matches, want %d", teams, w+1, len(week), teams/2)
			}
			seen := make([]bool, teams)
			for _, m := range week {
				for _, team := range []int{m.Home, m.Away} {
					if team < 0 || team >= teams || seen[team] {
						t.Fatalf("%d teams, week %d: team %d twice or out of range in %v", teams, w+1, team, week)
					}
					seen[team] = true
				}
				if w < 2*rr && m.Home < m.Away {
					home[[2]int{m.Home, m.Away}]++
				}
			}
		}
		for r := range 3 {
			met := make(map[[2]int]bool)
			for _, week := range s[r*rr : (r+1)*rr] {
				for _, m := range week {
					p := [2]int{min(m.Home, m.Away), max(m.Home, m.Away)}
					if met[p] {
						t.Fatalf("%d teams, round robin %d: %v meet twice", teams, r+1, p)
					}
					met[p] = true
				}
			}
			if len(met) != teams*(teams-1)/2 {
				t.Fatalf("%d teams, round robin %d: %d pairs met, want %d", teams, r+1, len(met), teams*(teams-1)/2)
			}
		}
		for a := range teams {
			for b := a + 1; b < teams; b++ {
				if home[[2]int{a, b}] != 1 {
					t.Errorf("%d teams: over two round robins team %d is home to %d %d times, want 1", teams, a, b, home[[2]int{a, b}])
				}
			}
		}
		for team := range teams {
			lead := 0 // home games less away games so far
			for r := range 3 {
				homes, breaks := 0, 0
				for w := r * rr; w < (r+1)*rr; w++ {
					h := isHome(s[w], team)
					if h {
						homes++
						lead++
					} else {
						lead--
					}
					if w > r*rr && h == isHome(s[w-1], team) {
						breaks++
					}
					if lead < -2 || lead > 2 {
						t.Errorf("%d teams: team %d is %+d home after week %d", teams, team, lead, w+1)
					}
				}
				if homes != rr/2 && homes != (rr+1)/2 {
					t.Errorf("%d teams, round robin %d: team %d home %d times of %d", teams, r+1, team, homes, rr)
				}
				if breaks > 1 {
					t.Errorf("%d teams, round robin %d: team %d has %d breaks of home and away", teams, r+1, team, breaks)
				}
			}
		}
	}
}

func isHome(week []Match, team int) bool {
	for _, m := range week {
		if m.Home == team {
			return true
		}
	}
	return false
}

// FuzzSchedule checks any number of teams and weeks: nil unless the
// teams are even and the weeks positive; otherwise every team once a
// week, and the pairs of every whole round robin all different.
func FuzzSchedule(f *testing.F) {
	f.Add(4, 3)
	f.Add(32, 36)
	f.Add(7, 3)
	f.Add(2, 52)
	f.Fuzz(func(t *testing.T, teams, weeks int) {
		if teams > 64 || weeks > 120 {
			return
		}
		s := Schedule(teams, weeks)
		if teams < 2 || teams%2 != 0 || weeks < 1 {
			if s != nil {
				t.Fatalf("Schedule(%d, %d) = %v, want nil", teams, weeks, s)
			}
			return
		}
		if len(s) != weeks {
			t.Fatalf("Schedule(%d, %d) has %d weeks", teams, weeks, len(s))
		}
		met := make(map[[2]int]bool)
		for w, week := range s {
			if w%(teams-1) == 0 {
				clear(met)
			}
			seen := make(map[int]bool)
			for _, m := range week {
				if seen[m.Home] || seen[m.Away] || m.Home == m.Away || m.Home < 0 || m.Away >= teams || m.Away < 0 || m.Home >= teams {
					t.Fatalf("Schedule(%d, %d), week %d: %v", teams, weeks, w+1, week)
				}
				seen[m.Home], seen[m.Away] = true, true
				p := [2]int{min(m.Home, m.Away), max(m.Home, m.Away)}
				if met[p] {
					t.Fatalf("Schedule(%d, %d), week %d: %v meet twice in a round robin", teams, weeks, w+1, p)
				}
				met[p] = true
			}
			if len(seen) != teams {
				t.Fatalf("Schedule(%d, %d), week %d: %d teams bowl", teams, weeks, w+1, len(seen))
			}
		}
	})
}
