package league

import "fmt"

// placeKind is who fills a team's place on a night.
type placeKind uint8

const (
	present    placeKind = iota // the bowler of the roster
	absent                      // nobody: the absent bowler's average less AbsentMinus
	substitute                  // a substitute, for the absent bowler
	vacancy                     // an empty roster place: VacancyScore
)

// place is a team's place on a night.
type place struct {
	kind   placeKind
	member int // present, absent, substitute: the roster's bowler
	sub    Substitute
	// handicap is the place's handicap each game, from average (0 for
	// none), unless pending: then it comes from the night's own average,
	// once its games are all scored.
	average  int
	handicap int
	pending  bool
	fixed    int // absent, vacancy: the score of every game
}

// night is a week's night: who fills each team's places, their scores, and
// what each match made of them so far.
type night struct {
	week   int
	closed bool
	absent []Absence
	places []place // a team's places one after another: team*size + place
	scores []int16 // place*GamesPerNight + game: its score, -1 for none yet
	// corrected counts each game's corrections, as scores is indexed.
	corrected []uint16
	subs      []int         // the places substitutes take
	matchOf   []int         // a team: its match's index in the week
	results   []matchResult // a match: what it counts so far
	// fixes are the balls corrected after their games, oldest first, by
	// place and game: a later correction of the game's balls makes them
	// again on the game its lane kept (see CorrectBall).
	fixes map[fixKey][]ballFix
}

// correctable refuses a correction of place i's game (from 1) of the
// night, the game of name, if it has had MaxCorrections already.
func (n *night) correctable(i, game, games int, name string) error {
	if c := n.corrected[i*games+game-1]; c >= MaxCorrections {
		return fmt.Errorf("%w: %q's game %d of week %d has been corrected %d times, the most a game takes", ErrTooManyCorrections, name, game, n.week, c)
	}
	return nil
}

// fixKey is a place's game (from 1) of a night.
type fixKey struct{ place, game int }

// ballFix is a ball corrected: frame, ball within it, and its new pins.
type ballFix struct{ frame, ball, pins int }

// side is what a team's match counts so far. A game counts once every
// place of the team has scored it and their handicaps are known.
type side struct {
	counted   [MaxGamesPerNight]bool
	scratch   [MaxGamesPerNight]int
	total     [MaxGamesPerNight]int // with handicap
	won, lost int                   // points, in halves: a tie splits them
}

// matchResult is a match's home side, then its away side.
type matchResult [2]side

func (n *night) score(i, g, games int) int { return int(n.scores[i*games+g]) }

// sub returns the place of the substitute whose name is exactly name, or
// if none, who is that name (sameName); false for none.
func (n *night) sub(name string, exact bool) (int, bool) {
	for _, i := range n.subs {
		if sub := n.places[i].sub.Name; sub == name || !exact && sameName(sub, name) {
			return i, true
		}
	}
	return 0, false
}

// newNight returns week's night with the absences, no game scored and its
// handicaps still to prepare.
func (l *League) newNight(week int, absences []Absence) *night {
	games := l.s.GamesPerNight
	n := &night{
		week:      week,
		absent:    append([]Absence(nil), absences...),
		places:    make([]place, len(l.s.Teams)*l.size),
		scores:    make([]int16, len(l.s.Teams)*l.size*games),
		corrected: make([]uint16, len(l.s.Teams)*l.size*games),
		matchOf:   make([]int, len(l.s.Teams)),
		results:   make([]matchResult, len(l.schedule[week-1])),
	}
	for i := range n.scores {
		n.scores[i] = -1
	}
	for i := range n.places {
		n.places[i] = place{kind: vacancy, member: -1}
	}
	for m, mb := range l.members {
		n.places[mb.team*l.size+mb.place] = place{kind: present, member: m}
	}
	for _, a := range absences {
		m, ok := l.names.find(a.Bowler)
		if !ok {
			continue
		}
		i := l.members[m].team*l.size + l.members[m].place
		if a.Sub.Name == "" {
			n.places[i].kind = absent
			continue
		}
		n.places[i].kind, n.places[i].sub = substitute, a.Sub
		n.subs = append(n.subs, i)
	}
	for mi, m := range l.schedule[week-1] {
		n.matchOf[m.Home], n.matchOf[m.Away] = mi, mi
	}
	return n
}

// average returns the member's average before the nights not in base: the
// league's pins ÷ games, or else their entering average; false for none.
func (l *League) average(base *totals, m int) (int, bool) {
	if b := base.bowlers[m]; b.games > 0 {
		return b.pins / b.games, true
	}
	if e := l.members[m].entering; e > 0 {
		return e, true
	}
	return 0, false
}

// prepare sets the night's handicaps and absent scores from the averages
// of base, the nights before it, and counts its matches again.
func (l *League) prepare(n *night, base *totals) {
	h := l.s.Handicap
	scratch := h.Percent == 0
	for i := range n.places {
		p := &n.places[i]
		p.average, p.handicap, p.pending, p.fixed = 0, 0, false, 0
		switch p.kind {
		case present:
			avg, ok := l.average(base, p.member)
			p.average, p.handicap, p.pending = avg, h.For(avg), !ok && !scratch
			if !ok {
				p.handicap = 0
			}
		case absent:
			if avg, ok := l.average(base, p.member); ok {
				p.average, p.handicap, p.fixed = avg, h.For(avg), max(0, avg-l.s.AbsentMinus)
			} else {
				p.fixed = l.s.VacancyScore // no average to take from: the place is as good as empty
			}
		case substitute:
			if p.sub.Average > 0 {
				p.average, p.handicap = p.sub.Average, h.For(p.sub.Average)
			} else {
				p.pending = !scratch
			}
		case vacancy:
			p.fixed = l.s.VacancyScore
		}
	}
	for mi := range n.results {
		l.result(n, mi)
	}
}

// result counts match mi of the night again, from its places' scores.
func (l *League) result(n *night, mi int) {
	m := l.schedule[n.week-1][mi]
	games := l.s.GamesPerNight
	var r matchResult
	for s, t := range [2]int{m.Home, m.Away} {
		sd := &r[s]
		for g := range games {
			sd.counted[g] = true
		}
		for i := t * l.size; i < (t+1)*l.size; i++ {
			_, hcp, known := l.handicap(n, i)
			for g := range games {
				sc := n.placeScore(i, g, games)
				if sc < 0 || !known {
					sd.counted[g] = false
					continue
				}
				sd.scratch[g] += sc
				sd.total[g] += sc + hcp
			}
		}
	}
	perGame, perSeries := l.s.Points.PerGame, l.s.Points.PerSeries
	series, all := [2]int{}, true
	for g := range games {
		if !r[0].counted[g] || !r[1].counted[g] {
			all = false
			continue
		}
		r.award(r[0].total[g], r[1].total[g], perGame)
		series[0] += r[0].total[g]
		series[1] += r[1].total[g]
	}
	if all {
		r.award(series[0], series[1], perSeries)
	}
	n.results[mi] = r
}

// handicap returns the average place i's handicap comes from (0 for
// none), the handicap, and whether it is known: a pending one is, once
// the place has scored every game of the night.
func (l *League) handicap(n *night, i int) (average, handicap int, known bool) {
	p := &n.places[i]
	if !p.pending {
		return p.average, p.handicap, true
	}
	games := l.s.GamesPerNight
	sum := 0
	for g := range games {
		sc := n.score(i, g, games)
		if sc < 0 {
			return 0, 0, false
		}
		sum += sc
	}
	return sum / games, l.s.Handicap.For(sum / games), true
}

// placeScore returns what place i scores in game g: its bowler's score
// (-1 for none yet), or its absent or vacancy score.
func (n *night) placeScore(i, g, games int) int {
	if k := n.places[i].kind; k == present || k == substitute {
		return n.score(i, g, games)
	}
	return n.places[i].fixed
}

// award gives the points to the higher total, home's a or away's b, or
// half to each for a tie, in halves.
func (r *matchResult) award(a, b, points int) {
	switch {
	case a > b:
		r[0].won += 2 * points
		r[1].lost += 2 * points
	case b > a:
		r[1].won += 2 * points
		r[0].lost += 2 * points
	default:
		r[0].won += points
		r[1].won += points
		r[0].lost += points
		r[1].lost += points
	}
}

// fold adds the night's counts to t.
func (l *League) fold(n *night, t *totals) {
	games := l.s.GamesPerNight
	for mi, m := range l.schedule[n.week-1] {
		t.teams[m.Home].add(&n.results[mi][0], games)
		t.teams[m.Away].add(&n.results[mi][1], games)
	}
	for i, p := range n.places {
		if p.kind == present {
			t.bowlers[p.member].add(n.scores[i*games : (i+1)*games])
		}
	}
}

// replay counts every night again, in order, from the first: after a
// correction of a closed night, whose averages every later night's
// handicaps and absent scores come from.
func (l *League) replay() {
	l.base = newTotals(len(l.s.Teams), len(l.members))
	for _, n := range l.nights {
		l.prepare(n, &l.base)
		if n.closed {
			l.fold(n, &l.base)
		}
	}
}

// totals are what nights count for each team and each bowler.
type totals struct {
	teams   []teamTotals
	bowlers []bowlerTotals
}

func newTotals(teams, bowlers int) totals {
	return totals{teams: make([]teamTotals, teams), bowlers: make([]bowlerTotals, bowlers)}
}

type teamTotals struct {
	won, lost            int // in halves
	scratch, handicap    int // pins, and pins with handicap
	highGame, highSeries int // with handicap
}

// add counts a team's side of a match.
func (t *teamTotals) add(s *side, games int) {
	t.won += s.won
	t.lost += s.lost
	series, all := 0, true
	for g := range games {
		if !s.counted[g] {
			all = false
			continue
		}
		t.scratch += s.scratch[g]
		t.handicap += s.total[g]
		t.highGame = max(t.highGame, s.total[g])
		series += s.total[g]
	}
	if all {
		t.highSeries = max(t.highSeries, series)
	}
}

type bowlerTotals struct {
	games, pins          int
	highGame, highSeries int // scratch
}

// add counts a bowler's games of a night, those scored.
func (b *bowlerTotals) add(scores []int16) {
	series, all := 0, true
	for _, sc := range scores {
		if sc < 0 {
			all = false
			continue
		}
		b.games++
		b.pins += int(sc)
		b.highGame = max(b.highGame, int(sc))
		series += int(sc)
	}
	if all {
		b.highSeries = max(b.highSeries, series)
	}
}
