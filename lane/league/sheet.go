package league

// PlaceKind says who fills a team's place on a night.
type PlaceKind string

// The kinds of place.
const (
	PlaceBowler     PlaceKind = "bowler"     // the roster's bowler bowls
	PlaceAbsent     PlaceKind = "absent"     // the roster's bowler is absent: their average less AbsentMinus
	PlaceSubstitute PlaceKind = "substitute" // a substitute bowls for the absent bowler
	PlaceVacancy    PlaceKind = "vacancy"    // no bowler on the roster: VacancyScore
)

var placeKinds = [...]PlaceKind{present: PlaceBowler, absent: PlaceAbsent, substitute: PlaceSubstitute, vacancy: PlaceVacancy}

// Sheet is a night's score sheet: each match, each team's places, their
// handicaps and scores, and what the match counts so far.
type Sheet struct {
	Week    int
	Closed  bool
	Matches []MatchSheet // in the order of the week's schedule
}

// MatchSheet is a match of a night.
type MatchSheet struct {
	Home, Away TeamSheet
}

// TeamSheet is a team's side of a match.
type TeamSheet struct {
	Team   string
	Places []PlaceSheet
	// Totals are the team's games, scratch and handicap of every place;
	// -1 for a game that does not count yet.
	Totals                []int
	PointsWon, PointsLost float64
}

// PlaceSheet is a team's place on a night.
type PlaceSheet struct {
	Kind   PlaceKind
	Bowler string // the roster's bowler whose place it is; "" for a vacancy
	Name   string // who bowls it: the bowler or the substitute; "" for nobody
	// Average is the average the handicap comes from: the bowler's before
	// the night, or the substitute's; once known, a first night's own; 0
	// for none.
	Average       int
	Handicap      int
	HandicapKnown bool  // false until a first night's games are all scored
	Scores        []int // each game's scratch score, -1 for not yet
}

// Sheet returns the score sheet of week's night, false if it has not been
// opened.
func (l *League) Sheet(week int) (Sheet, bool) {
	if week < 1 || week > len(l.nights) {
		return Sheet{}, false
	}
	n := l.nights[week-1]
	games := l.s.GamesPerNight
	out := Sheet{Week: week, Closed: n.closed, Matches: make([]MatchSheet, len(n.results))}
	for mi, m := range l.schedule[week-1] {
		r := &n.results[mi]
		for s, team := range [2]int{m.Home, m.Away} {
			ts := TeamSheet{
				Team:      l.s.Teams[team].Name,
				Places:    make([]PlaceSheet, l.size),
				Totals:    make([]int, games),
				PointsWon: float64(r[s].won) / 2, PointsLost: float64(r[s].lost) / 2,
			}
			for g := range games {
				ts.Totals[g] = -1
				if r[s].counted[g] {
					ts.Totals[g] = r[s].total[g]
				}
			}
			for p := range l.size {
				i := team*l.size + p
				pl := n.places[i]
				avg, hcp, known := l.handicap(n, i)
				ps := PlaceSheet{Kind: placeKinds[pl.kind], Average: avg, Handicap: hcp, HandicapKnown: known, Scores: make([]int, games)}
				if pl.member >= 0 {
					ps.Bowler = l.members[pl.member].name
				}
				switch pl.kind {
				case present:
					ps.Name = ps.Bowler
				case substitute:
					ps.Name = pl.sub.Name
				}
				for g := range games {
					ps.Scores[g] = n.placeScore(i, g, games)
				}
				ts.Places[p] = ps
			}
			if s == 0 {
				out.Matches[mi].Home = ts
			} else {
				out.Matches[mi].Away = ts
			}
		}
	}
	return out, true
}
