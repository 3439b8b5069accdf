package league

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tenpin/tenpin/lane/bowling"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Limits of a league's settings. Settings past them are refused with
// [ErrInvalid].
const (
	// MinTeams and MaxTeams bound the teams of a league: two make a match,
	// 32 fill sixteen lane pairs, a large house's whole night.
	MinTeams = 2
	MaxTeams = 32

	// MaxBowlers is the longest roster: six bowlers share a lane pair
	// with the six of the other team and still finish a night in time.
	MaxBowlers = 6

	// MaxGamesPerNight is the most games a night has: leagues bowl three,
	// sometimes four; more is not an evening.
	MaxGamesPerNight = 5

	// MaxWeeks is the longest season: a year of weekly nights.
	MaxWeeks = 52

	// MaxPoints bounds the points of a game and of a series: leagues give
	// a point or a few; a season's totals stay small numbers.
	MaxPoints = 100

	// MaxTitle is the longest league or team name, in characters, as a
	// lane's name: it fits a phone's standings table.
	MaxTitle = 40
)

// ErrInvalid is returned by [New] for impossible settings. The error
// wrapping it says which setting and why; the transport answers it with
// its invalid_league code.
var ErrInvalid = errors.New("league: invalid league")

// Settings are a league's rules and rosters, fixed for its season.
type Settings struct {
	Name          string
	GamesPerNight int      // 1 to MaxGamesPerNight
	Handicap      Handicap // the zero value is a scratch league
	Points        Points
	// AbsentMinus is taken from an absent bowler's average for each game
	// they miss.
	AbsentMinus int
	// VacancyScore is what an empty roster place scores each game, with no
	// handicap.
	VacancyScore int
	Teams        []Team // an even number, MinTeams to MaxTeams
	// Weeks is the season's length: 0 for one round robin (a week fewer
	// than the teams); more repeats the round robin, home and away swapped
	// each time round; fewer cuts it short.
	Weeks int
}

// Handicap is a league's handicap: Percent per cent of the pins an
// average falls short of Basis. A Percent of 0 is a scratch league.
type Handicap struct {
	Basis   int // 0 to 300
	Percent int // 0 to 100
}

// For returns the handicap a game bowled with the average gets:
// ⌊(Basis − average) × Percent ÷ 100⌋, never below 0.
func (h Handicap) For(average int) int {
	short := h.Basis - average
	if short <= 0 || h.Percent <= 0 {
		return 0
	}
	return short * h.Percent / 100
}

// Points are what a match awards: PerGame to the team with the higher
// total in each game, PerSeries to the higher total of the night's games;
// a tie splits them.
type Points struct {
	PerGame   int
	PerSeries int
}

// Team is a team's name and its roster, in the order its bowlers take
// their places.
type Team struct {
	Name    string
	Bowlers []Bowler // 1 to MaxBowlers
}

// Bowler is a bowler on a team's roster.
type Bowler struct {
	// Name is a name a lane seats (bowling.ParseLaneName), once in the
	// league: two names are one bowler when they are equal after NFKC and
	// case folding ("Zoë" and "ZOË", "Kim" and "Ｋｉｍ"), or look alike as
	// a lane tells them (bowling.Name.Same: "José" and "Jоsé" with a
	// Cyrillic о, "Kim" and "Kirn").
	Name string
	// Average is the entering (book) average, 1 to 300; 0 for none. It
	// stands until the bowler has bowled a night of the league.
	Average int
}

// invalid returns an error wrapping ErrInvalid with the reason.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// check returns the settings with their names cleaned, or an error
// wrapping ErrInvalid that says what is wrong with them.
func (s Settings) check() (Settings, error) {
	out := s
	name, err := bowling.ParseTitle(s.Name, MaxTitle)
	if err != nil {
		return Settings{}, invalid("the league's name: %s", err)
	}
	out.Name = name
	switch {
	case s.GamesPerNight < 1 || s.GamesPerNight > MaxGamesPerNight:
		return Settings{}, invalid("games_per_night %d: a night has 1 to %d games", s.GamesPerNight, MaxGamesPerNight)
	case s.Handicap.Percent < 0 || s.Handicap.Percent > 100:
		return Settings{}, invalid("handicap percent %d: a percentage is 0 to 100", s.Handicap.Percent)
	case s.Handicap.Basis < 0 || s.Handicap.Basis > bowling.MaxScore:
		return Settings{}, invalid("handicap basis %d: a basis is an average, 0 to %d", s.Handicap.Basis, bowling.MaxScore)
	case s.Points.PerGame < 0 || s.Points.PerGame > MaxPoints:
		return Settings{}, invalid("points per_game %d: 0 to %d points", s.Points.PerGame, MaxPoints)
	case s.Points.PerSeries < 0 || s.Points.PerSeries > MaxPoints:
		return Settings{}, invalid("points per_series %d: 0 to %d points", s.Points.PerSeries, MaxPoints)
	case s.AbsentMinus < 0 || s.AbsentMinus > bowling.MaxScore:
		return Settings{}, invalid("absent_minus %d: 0 to %d pins", s.AbsentMinus, bowling.MaxScore)
	case s.VacancyScore < 0 || s.VacancyScore > bowling.MaxScore:
		return Settings{}, invalid("vacancy_score %d: a game's score is 0 to %d", s.VacancyScore, bowling.MaxScore)
	case len(s.Teams) < MinTeams || len(s.Teams) > MaxTeams || len(s.Teams)%2 != 0:
		return Settings{}, invalid("%d teams: a league has an even number of teams, %d to %d, so that every team bowls every week", len(s.Teams), MinTeams, MaxTeams)
	case s.Weeks < 0 || s.Weeks > MaxWeeks:
		return Settings{}, invalid("weeks %d: a season has 1 to %d weeks, or 0 for one round robin", s.Weeks, MaxWeeks)
	}
	out.Teams = make([]Team, len(s.Teams))
	teams := make(map[string]int, len(s.Teams)) // a team name's key: its team
	bowlers := newNameIndex()                   // a bowler: their team
	for t, team := range s.Teams {
		name, err := bowling.ParseTitle(team.Name, MaxTitle)
		if err != nil {
			return Settings{}, invalid("team %d: %s", t+1, err)
		}
		if other, ok := teams[key(name)]; ok {
			return Settings{}, invalid("teams %d and %d are both named %q: a league names each team once", other+1, t+1, name)
		}
		teams[key(name)] = t
		if n := len(team.Bowlers); n < 1 || n > MaxBowlers {
			return Settings{}, invalid("team %q has %d bowlers: a team has 1 to %d", name, n, MaxBowlers)
		}
		roster := make([]Bowler, len(team.Bowlers))
		for p, b := range team.Bowlers {
			bn, err := bowling.ParseLaneName(b.Name)
			if err != nil {
				return Settings{}, invalid("team %q, bowler %d: %s", name, p+1, strings.TrimPrefix(err.Error(), bowling.ErrInvalidName.Error()+": "))
			}
			if at, ok := bowlers.find(string(bn)); ok {
				where := fmt.Sprintf("on team %q", out.Teams[at].Name)
				if at == t {
					where = "on the team"
				}
				return Settings{}, invalid("team %q: %q is %s already: a bowler is in a league once", name, string(bn), where)
			}
			if b.Average < 0 || b.Average > bowling.MaxScore {
				return Settings{}, invalid("team %q: %q's average %d: an average is 1 to %d, or 0 for none", name, string(bn), b.Average, bowling.MaxScore)
			}
			bowlers.add(string(bn), t)
			roster[p] = Bowler{Name: string(bn), Average: b.Average}
		}
		out.Teams[t] = Team{Name: name, Bowlers: roster}
	}
	return out, nil
}

// nameIndex finds a name however it is typed: as the league spells it,
// in another case or compatibility form (key), or a name that only looks
// like it (bowling.Name.Keys), as a lane tells names apart.
type nameIndex struct {
	exact, fold, looks, lookFolded map[string]int
}

func newNameIndex() nameIndex {
	return nameIndex{exact: make(map[string]int), fold: make(map[string]int), looks: make(map[string]int), lookFolded: make(map[string]int)}
}

// sameName reports whether a and b are one name, as a nameIndex tells.
func sameName(a, b string) bool {
	return a == b || key(a) == key(b) || bowling.Name(a).Same(bowling.Name(b))
}

// add indexes a name, as the league spells it, with its value.
func (x nameIndex) add(name string, v int) {
	x.exact[name] = v
	x.fold[key(name)] = v
	looks, folded := bowling.Name(name).Keys()
	x.looks[looks] = v
	x.lookFolded[folded] = v
}

// find returns the value of the name that name is, if one is indexed.
func (x nameIndex) find(name string) (int, bool) {
	if v, ok := x.exact[name]; ok {
		return v, true
	}
	return x.alike(name)
}

// alike returns the value of a name that name is, told by its folded
// forms only.
func (x nameIndex) alike(name string) (int, bool) {
	if v, ok := x.fold[key(name)]; ok {
		return v, true
	}
	looks, folded := bowling.Name(name).Keys()
	if v, ok := x.looks[looks]; ok {
		return v, true
	}
	v, ok := x.lookFolded[folded]
	return v, ok
}

// key is the form in which two names are compared: NFKC with case folded
// (Unicode's NFKC_Casefold, near enough), so that names a reader cannot
// tell apart are one: "Zoë", "ZOË" and "ｚｏë".
func key(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	fold := cases.Fold() // a Caser is not safe to share between goroutines
	return norm.NFKC.String(fold.String(norm.NFKC.String(s)))
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
