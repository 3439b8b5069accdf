package league

import (
	"errors"
	"strings"
	"testing"
)

// roster returns a team of bowlers named so, without averages.
func roster(name string, bowlers ...string) Team {
	t := Team{Name: name}
	for _, b := range bowlers {
		t.Bowlers = append(t.Bowlers, Bowler{Name: b})
	}
	return t
}

func validSettings() Settings {
	return Settings{
		Name:          "Tuesday Mixed",
		GamesPerNight: 3,
		Handicap:      Handicap{Basis: 220, Percent: 90},
		Points:        Points{PerGame: 1, PerSeries: 1},
		AbsentMinus:   10,
		VacancyScore:  120,
		Teams:         []Team{roster("Pin Pals", "Ann", "Bob"), roster("Gutter Kings", "Cat", "Dan")},
	}
}

func TestNewRefuses(t *testing.T) {
	tests := []struct {
		name   string
		change func(s *Settings)
		want   string // in the error's text
	}{
		{"odd teams", func(s *Settings) { s.Teams = append(s.Teams, roster("Third", "Eve")) }, "3 teams: a league has an even number of teams"},
		{"one team", func(s *Settings) { s.Teams = s.Teams[:1] }, "1 teams"},
		{"no teams", func(s *Settings) { s.Teams = nil }, "0 teams"},
		{"34 teams", func(s *Settings) { s.Teams = manyTeams(34, 1) }, "34 teams"},
		{"percent over 100", func(s *Settings) { s.Handicap.Percent = 101 }, "handicap percent 101: a percentage is 0 to 100"},
		{"percent below 0", func(s *Settings) { s.Handicap.Percent = -1 }, "handicap percent -1"},
		{"basis below 0", func(s *Settings) { s.Handicap.Basis = -5 }, "handicap basis -5"},
		{"basis over 300", func(s *Settings) { s.Handicap.Basis = 301 }, "handicap basis 301"},
		{"no games", func(s *Settings) { s.GamesPerNight = 0 }, "games_per_night 0: a night has 1 to 5 games"},
		{"absurd games", func(s *Settings) { s.GamesPerNight = 40 }, "games_per_night 40"},
		{"negative points", func(s *Settings) { s.Points.PerGame = -1 }, "points per_game -1"},
		{"absurd series points", func(s *Settings) { s.Points.PerSeries = 1000 }, "points per_series 1000"},
		{"absent minus", func(s *Settings) { s.AbsentMinus = -10 }, "absent_minus -10"},
		{"vacancy score", func(s *Settings) { s.VacancyScore = 301 }, "vacancy_score 301"},
		{"weeks", func(s *Settings) { s.Weeks = 53 }, "weeks 53"},
		{"negative weeks", func(s *Settings) { s.Weeks = -1 }, "weeks -1"},
		{"empty team", func(s *Settings) { s.Teams[1].Bowlers = nil }, `team "Gutter Kings" has 0 bowlers: a team has 1 to 6`},
		{"seven bowlers", func(s *Settings) {
			s.Teams[0] = roster("Pin Pals", "Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus")
		}, `team "Pin Pals" has 7 bowlers`},
		{"a name twice", func(s *Settings) { s.Teams[1].Bowlers[1].Name = "ann" }, `team "Gutter Kings": "ann" is on team "Pin Pals" already`},
		{"a name twice on a team", func(s *Settings) { s.Teams[0].Bowlers[1].Name = "ANN" }, `"ANN" is on the team already`},
		{"a name twice, case folded", func(s *Settings) {
			s.Teams[0].Bowlers[0].Name, s.Teams[1].Bowlers[0].Name = "Zoë", "ZOË"
		}, `"ZOË" is on team "Pin Pals"`},
		{"a name twice, compatibility form", func(s *Settings) { s.Teams[1].Bowlers[0].Name = "Ａｎｎ" }, `"Ａｎｎ" is on team "Pin Pals"`},
		{"a name twice, decomposed", func(s *Settings) {
			s.Teams[0].Bowlers[0].Name, s.Teams[1].Bowlers[0].Name = "Zoë", "Zoe\u0308"
		}, `"Zoë" is on team "Pin Pals"`},
		{"a name twice, looking alike", func(s *Settings) {
			s.Teams[0].Bowlers[0].Name, s.Teams[1].Bowlers[0].Name = "José", "Jоsé" // a Cyrillic о
		}, `"Jоsé" is on team "Pin Pals"`},
		{"a name twice, rn for m", func(s *Settings) {
			s.Teams[0].Bowlers[0].Name, s.Teams[1].Bowlers[0].Name = "Kim", "Kirn"
		}, `"Kirn" is on team "Pin Pals"`},
		{"no name", func(s *Settings) { s.Teams[0].Bowlers[0].Name = "" }, `team "Pin Pals", bowler 1: the name is empty`},
		{"a digit", func(s *Settings) { s.Teams[0].Bowlers[1].Name = "Bob2" }, `bowler 2: "Bob2" has the digit '2'`},
		{"bad average", func(s *Settings) { s.Teams[0].Bowlers[0].Average = 301 }, `"Ann"'s average 301`},
		{"negative average", func(s *Settings) { s.Teams[0].Bowlers[0].Average = -1 }, `"Ann"'s average -1`},
		{"team twice", func(s *Settings) { s.Teams[1].Name = " pin pals " }, `teams 1 and 2 are both named "pin pals"`},
		{"team unnamed", func(s *Settings) { s.Teams[1].Name = "   " }, "team 2: a name is needed"},
		{"league unnamed", func(s *Settings) { s.Name = "" }, "the league's name: a name is needed"},
		{"league name too long", func(s *Settings) { s.Name = strings.Repeat("x", 41) }, "41 characters"},
		{"team name turned around", func(s *Settings) { s.Teams[0].Name = "Pin\u202ePals" }, "U+202E at byte 3, a bidirectional"},
		{"team name hidden", func(s *Settings) { s.Teams[0].Name = "Pin\u200bPals" }, "U+200B at byte 3, an invisible"},
		{"team name control", func(s *Settings) { s.Teams[0].Name = "Pin\nPals" }, "U+000A at byte 3, a control"},
		{"team name only marks", func(s *Settings) { s.Teams[0].Name = "!!" }, `"!!" has no letter or digit`},
		{"not UTF-8", func(s *Settings) { s.Name = "\xff" }, "not UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := validSettings()
			tt.change(&s)
			l, err := New(s)
			if !errors.Is(err, ErrInvalid) || l != nil {
				t.Fatalf("New() = %v, %v; want nil, ErrInvalid", l, err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "league: invalid league: ") {
				t.Errorf("New() error %q, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestNewAccepts(t *testing.T) {
	tests := []struct {
		name   string
		change func(s *Settings)
		weeks  int
	}{
		{"as is", func(s *Settings) {}, 1},
		{"scratch", func(s *Settings) { s.Handicap = Handicap{} }, 1},
		{"no points", func(s *Settings) { s.Points = Points{} }, 1},
		{"32 teams of 6", func(s *Settings) { s.Teams = manyTeams(32, 6) }, 31},
		{"36 weeks", func(s *Settings) { s.Teams, s.Weeks = manyTeams(32, 6), 36 }, 36},
		{"short season", func(s *Settings) { s.Teams, s.Weeks = manyTeams(8, 1), 3 }, 3},
		{"uneven rosters", func(s *Settings) { s.Teams[0].Bowlers = s.Teams[0].Bowlers[:1] }, 1},
		{"names of any script", func(s *Settings) {
			s.Teams[0] = roster("볼링 클럽 2", "홍길동", "Zoë", "O'Neil")
			s.Teams[1] = roster("🎳 Strikers", "Anne-Marie", "Мария", "Mary Ann")
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := validSettings()
			tt.change(&s)
			l, err := New(s)
			if err != nil {
				t.Fatalf("New() = %v", err)
			}
			if got := len(l.Schedule()); got != tt.weeks {
				t.Errorf("len(Schedule()) = %d, want %d", got, tt.weeks)
			}
		})
	}
}

// TestSettingsKept: the league keeps its names trimmed and in normal form
// C, and hands out a copy that its holder may change.
func TestSettingsKept(t *testing.T) {
	s := validSettings()
	s.Name = "  Tuesday Mixed  "
	s.Teams[0].Bowlers[0].Name = "Zoe\u0308"
	l, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	got := l.Settings()
	if got.Name != "Tuesday Mixed" || got.Teams[0].Bowlers[0].Name != "Zoë" {
		t.Errorf("Settings() names %q, %q; want %q, %q", got.Name, got.Teams[0].Bowlers[0].Name, "Tuesday Mixed", "Zoë")
	}
	got.Teams[0].Bowlers[0].Name = "Changed"
	if l.Settings().Teams[0].Bowlers[0].Name != "Zoë" {
		t.Error("changing Settings()'s copy changed the league")
	}
}

// manyTeams returns n teams of k bowlers: teams A, B, …; bowlers named
// from syllables that look like no other ("Bana", "Bara", …, "Duka"), as
// names unlike by eye must be.
func manyTeams(n, k int) []Team {
	const consonants, vowels = "BDFGKMNPRSTVZ", "aeu"
	suffixes := []string{"na", "ra", "ta", "ka", "sa", "va"}
	teams := make([]Team, n)
	for i := range teams {
		teams[i].Name = "Team " + letters(i)
		stem := string(consonants[i%len(consonants)]) + string(vowels[i/len(consonants)%len(vowels)])
		for j := range k {
			teams[i].Bowlers = append(teams[i].Bowlers, Bowler{Name: stem + suffixes[j], Average: 150 + (i*7+j*13)%60})
		}
	}
	return teams
}

// FuzzSettings: any settings are refused with ErrInvalid or accepted; an
// accepted league's settings are accepted again as they are, the same,
// and schedule every team once a week.
func FuzzSettings(f *testing.F) {
	f.Add(4, 3, 220, 90, 1, 1, 10, 120, 0, "Ann", "ann")
	f.Add(3, 3, 220, 90, 1, 1, 10, 120, 0, "Zoë", "ZOË")
	f.Add(2, 0, -1, 101, -1, 0, 0, 0, 53, "", "\u202e")
	f.Fuzz(func(t *testing.T, teams, games, basis, percent, perGame, perSeries, absentMinus, vacancy, weeks int, a, b string) {
		if teams < 0 || teams > 40 {
			return
		}
		s := Settings{
			Name: "League", GamesPerNight: games,
			Handicap: Handicap{Basis: basis, Percent: percent}, Points: Points{PerGame: perGame, PerSeries: perSeries},
			AbsentMinus: absentMinus, VacancyScore: vacancy, Weeks: weeks,
			Teams: manyTeams(teams, 2),
		}
		if teams >= 2 {
			s.Teams[0].Bowlers[0].Name, s.Teams[1].Bowlers[1].Name = a, b
		}
		l, err := New(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("New() = %v, not ErrInvalid", err)
			}
			return
		}
		kept := l.Settings()
		again, err := New(kept)
		if err != nil {
			t.Fatalf("New(Settings()) = %v", err)
		}
		if key(kept.Teams[0].Bowlers[0].Name) == key(kept.Teams[1].Bowlers[1].Name) {
			t.Fatalf("%q and %q are one name, both accepted", a, b)
		}
		if len(again.Schedule()) != len(l.Schedule()) {
			t.Fatalf("the league's settings schedule %d weeks again, not %d", len(again.Schedule()), len(l.Schedule()))
		}
	})
}

// letters names the number i: A, B, …, Z, BA, BB, …
func letters(i int) string {
	s := string(rune('A' + i%26))
	for i /= 26; i > 0; i /= 26 {
		s = string(rune('A'+i%26)) + s
	}
	return s
}
