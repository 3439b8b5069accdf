package league

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The scale of issue 35: 32 teams of 6 bowlers, 36 weeks of 3 games.
const (
	benchTeams   = 32
	benchBowlers = 6
	benchWeeks   = 36
	benchGames   = 3
)

// benchSeason returns a league of the benchmark's size with every night
// but the last closed and the last half scored, and its events: a bowler
// in twenty absent each night, one in three of them with a substitute.
func benchSeason(tb testing.TB) (*League, []Event) {
	tb.Helper()
	s := Settings{
		Name: "Scale", GamesPerNight: benchGames, Handicap: Handicap{220, 90}, Points: Points{1, 1},
		AbsentMinus: 10, VacancyScore: 120, Teams: manyTeams(benchTeams, benchBowlers), Weeks: benchWeeks,
	}
	s.Teams[0].Bowlers[0].Average = 0 // a bowler with no average
	l, err := New(s)
	if err != nil {
		tb.Fatal(err)
	}
	var events []Event
	apply := func(e Event, err error) {
		if err != nil {
			tb.Fatal(err)
		}
		l.Apply(e)
		events = append(events, e)
	}
	seed := uint32(1)
	random := func(n int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % n
	}
	for w := 1; w <= benchWeeks; w++ {
		var absent []Absence
		bowling := make([]string, 0, len(l.members))
		for _, m := range l.members {
			switch random(20) {
			case 0:
				absent = append(absent, Absence{Bowler: m.name})
			case 1:
				sub := "Hu" + strings.ToLower(m.name) // a name like no bowler's
				absent = append(absent, Absence{Bowler: m.name, Sub: Substitute{Name: sub, Average: 140}})
				bowling = append(bowling, sub)
			default:
				bowling = append(bowling, m.name)
			}
		}
		apply(l.Open(w, absent))
		for g := 1; g <= benchGames; g++ {
			for i, name := range bowling {
				if w == benchWeeks && i%2 == 1 {
					continue
				}
				apply(l.Score(GameScore{Week: w, Bowler: name, Game: g, Pins: 100 + random(150)}))
			}
		}
		if w < benchWeeks {
			apply(l.Close(w))
		}
	}
	return l, events
}

// BenchmarkStandings is the standings of a full season, its last night
// half bowled; p99-ns is the 99th percentile of one call.
func BenchmarkStandings(b *testing.B) {
	l, _ := benchSeason(b)
	times := make([]time.Duration, 0, 1<<16)
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		st := l.Standings()
		times = append(times, time.Since(start))
		if len(st.Teams) != benchTeams {
			b.Fatal(len(st.Teams))
		}
	}
	reportP99(b, times)
}

// BenchmarkScore decides and applies a game's score on the night in play
// of a full season: a place's game, in turn, as a lane sends them.
func BenchmarkScore(b *testing.B) {
	l, _ := benchSeason(b)
	week, _ := l.Night()
	var names []string
	for i, p := range l.nights[week-1].places {
		if p.kind == present || p.kind == substitute {
			names = append(names, l.placeName(l.nights[week-1].places[i]))
		}
	}
	times := make([]time.Duration, 0, 1<<16)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		start := time.Now()
		e, err := l.Score(GameScore{Week: week, Bowler: names[i%len(names)], Game: 1 + i/len(names)%benchGames, Pins: 100 + i%200})
		if err != nil {
			b.Fatal(err)
		}
		l.Apply(e)
		times = append(times, time.Since(start))
		i++
	}
	reportP99(b, times)
}

// BenchmarkCorrect corrects a game of the first night of a full season:
// every night is counted again.
func BenchmarkCorrect(b *testing.B) {
	l, _ := benchSeason(b)
	name := l.members[1].name
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		e, err := l.Score(GameScore{Week: 1, Bowler: name, Game: 1, Pins: 100 + i%200})
		if err != nil {
			b.Fatal(err)
		}
		l.Apply(e)
		i++
	}
}

// BenchmarkReplay rebuilds a full season from its settings and events.
func BenchmarkReplay(b *testing.B) {
	l, events := benchSeason(b)
	s := l.Settings()
	b.ReportMetric(float64(len(events)), "events")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Replay(s, events); err != nil {
			b.Fatal(err)
		}
	}
}

func reportP99(b *testing.B, times []time.Duration) {
	if len(times) == 0 {
		return
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)*99/100]), "p99-ns")
}

// TestBenchSeasonReplays: the benchmark's season, kept as its games were
// scored, is the season its events replay, and the season counted again
// from its nights.
func TestBenchSeasonReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("a season of 20,000 games")
	}
	l, events := benchSeason(t)
	got := l.Standings()
	again, err := Replay(l.Settings(), events)
	if err != nil {
		t.Fatal(err)
	}
	if st := again.Standings(); !slices.Equal(st.Teams, got.Teams) || !slices.Equal(st.Bowlers, got.Bowlers) {
		t.Fatal("the season replayed differs from the season kept")
	}
	l.replay()
	if st := l.Standings(); !slices.Equal(st.Teams, got.Teams) || !slices.Equal(st.Bowlers, got.Bowlers) {
		t.Fatal("the season counted again differs from the season kept")
	}
}
