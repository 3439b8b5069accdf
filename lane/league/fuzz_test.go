package league

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// FuzzLeague decides arbitrary commands on a small league, each from a
// few bytes, and applies those accepted. No command may panic; a refused
// one changes nothing; the points won are the points lost; and the
// league kept as games were scored is the league its events replay, and
// the league counted again from its nights.
func FuzzLeague(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 1, 200, 1, 1, 2, 150, 1, 2, 1, 99, 6})
	f.Add([]byte{0, 5, 1, 3, 1, 40, 1, 3, 2, 60, 1, 0, 1, 250, 1, 0, 2, 250, 6, 0, 0, 1, 0, 1, 7})
	f.Add([]byte{0, 255, 1, 7, 1, 100, 1, 7, 2, 120, 6, 2, 0, 1, 180, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) { checkCommands(t, data) })
}

// TestCommands runs FuzzLeague's checks over a few hundred random
// commands lists, the same each run.
func TestCommands(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 2026))
	kinds := make(map[Kind]int)
	for range 300 {
		data := make([]byte, 50+r.IntN(400))
		for i := range data {
			data[i] = byte(r.UintN(256))
		}
		for _, e := range checkCommands(t, data) {
			kinds[e.Kind]++
		}
	}
	t.Logf("events applied: %v", kinds)
	for _, k := range []Kind{Opened, Scored, Corrected, Closed} {
		if kinds[k] < 100 {
			t.Errorf("%d events %q, want the commands to make more", kinds[k], k)
		}
	}
}

// checkCommands decides the commands of data and returns the events
// applied.
func checkCommands(t *testing.T, data []byte) []Event {
	s := Settings{
		Name: "Fuzz", GamesPerNight: 2, Handicap: Handicap{200, 80}, Points: Points{1, 1},
		AbsentMinus: 10, VacancyScore: 90, Weeks: 4,
		Teams: []Team{
			{Name: "A", Bowlers: []Bowler{{"Ann", 150}, {"Al", 0}}},
			{Name: "B", Bowlers: []Bowler{{"Bob", 180}}},
			{Name: "C", Bowlers: []Bowler{{"Cat", 120}, {"Cy", 210}}},
			{Name: "D", Bowlers: []Bowler{{"Dan", 0}, {"Di", 160}}},
		},
	}
	names := []string{"Ann", "Al", "Bob", "Cat", "Cy", "Dan", "Di", "Sue", "Sam", "Eve"}
	l, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	var events []Event
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	for len(data) > 0 {
		before := l.Standings()
		var e Event
		var err error
		week, _ := l.Night()
		switch op := next() % 8; {
		case op == 0:
			bits := next()
			var absent []Absence
			for i := range 7 {
				if bits&(1<<i) != 0 {
					a := Absence{Bowler: names[i]}
					if i%2 == 1 {
						a.Sub = Substitute{Name: names[7+i%3], Average: 130 * (bits >> 7)}
					}
					absent = append(absent, a)
				}
			}
			e, err = l.Open(week+next()%2, absent)
		case op <= 5:
			w := week - next()%3
			e, err = l.Score(GameScore{Week: w, Bowler: names[next()%len(names)], Game: next() % 4, Pins: next() * 3 / 2})
		case op == 6:
			// Bowl every game still to bowl, then close.
			pins := next()
			for _, name := range names {
				for g := 1; g <= s.GamesPerNight; g++ {
					e, err := l.Score(GameScore{Week: week, Bowler: name, Game: g, Pins: pins})
					if err == nil && e.Kind == Scored {
						l.Apply(e)
						events = append(events, e)
					}
				}
			}
			before = l.Standings()
			e, err = l.Close(week)
		default:
			e, err = l.Score(GameScore{Week: week, Bowler: "ＡＮＮ", Game: 1, Pins: next()})
		}
		if err != nil {
			if after := l.Standings(); !reflect.DeepEqual(after, before) {
				t.Fatalf("refused %v changed the standings", err)
			}
			continue
		}
		l.Apply(e)
		events = append(events, e)
	}
	got := l.Standings()
	var won, lost float64
	for _, team := range got.Teams {
		won += team.PointsWon
		lost += team.PointsLost
	}
	if won != lost {
		t.Fatalf("%v points won, %v lost", won, lost)
	}
	// The sheets add up to the standings.
	pins, points := make(map[string]int), make(map[string]float64)
	for w := 1; ; w++ {
		sheet, ok := l.Sheet(w)
		if !ok {
			break
		}
		for _, m := range sheet.Matches {
			for _, side := range []TeamSheet{m.Home, m.Away} {
				for _, total := range side.Totals {
					pins[side.Team] += max(total, 0)
				}
				points[side.Team] += side.PointsWon
			}
		}
	}
	for _, team := range got.Teams {
		if pins[team.Name] != team.PinsHandicap || points[team.Name] != team.PointsWon {
			t.Fatalf("team %s: the sheets add up to %d pins and %v points, the standings say %d and %v", team.Name, pins[team.Name], points[team.Name], team.PinsHandicap, team.PointsWon)
		}
	}
	again, err := Replay(s, events)
	if err != nil {
		t.Fatal(err)
	}
	if st := again.Standings(); !reflect.DeepEqual(st, got) {
		t.Fatalf("replayed:\n%+v\nkept:\n%+v", st, got)
	}
	l.replay()
	if st := l.Standings(); !reflect.DeepEqual(st, got) {
		t.Fatalf("counted again:\n%+v\nkept:\n%+v", st, got)
	}
	return events
}
