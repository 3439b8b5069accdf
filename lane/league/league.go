package league

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/tenpin/tenpin/lane/bowling"
)

// Errors of a league's decisions. The errors returned wrap one of these
// (or [ErrInvalid]) and say what was refused and why.
var (
	// ErrWeek: a night opened out of turn (the week before it is not
	// closed, a night is open, the season is over), or a score or a
	// closing for a week whose night has not been opened.
	ErrWeek = errors.New("league: not that week's night")
	// ErrUnknownBowler: a name that is neither a bowler of the league nor
	// a substitute of the night.
	ErrUnknownBowler = errors.New("league: unknown bowler")
	// ErrInvalidNight: an opening with a bowler marked absent twice, or a
	// substitute whose name is not a lane's, is (or looks like) a league
	// bowler's or another substitute's, or whose average is not 0 to 300.
	ErrInvalidNight = errors.New("league: invalid night")
	// ErrInvalidScore: a score of no game (outside 0 to 300, or of a game
	// the night does not have), or for an absent bowler's place.
	ErrInvalidScore = errors.New("league: invalid score")
	// ErrIncomplete: closing a night with games still to score.
	ErrIncomplete = errors.New("league: night incomplete")
	// ErrTooManyCorrections: a correction of a game corrected
	// MaxCorrections times already.
	ErrTooManyCorrections = errors.New("league: too many corrections")
)

// MaxCorrections bounds the corrections of one game of a night, of its
// score or of its balls: more than a game has balls, so no real night
// runs out, while a night's records stay bounded (its places × games ×
// (1 + MaxCorrections), and its opening and closing), and with them what
// a league costs to keep and to load.
const MaxCorrections = 30

// Kind names what happened in a league. Kinds are stored: never rename
// one.
type Kind string

// The kinds of event.
const (
	Opened    Kind = "opened"    // the night of Week opened, with its Absent bowlers
	Scored    Kind = "scored"    // Bowler bowled Pins in game Game of Week's night
	Corrected Kind = "corrected" // Bowler's game Game of Week's night, Was pins, is Pins (and if Frame is set, by its ball Ball of frame Frame, BallWas pins, being BallPins)
	Closed    Kind = "closed"    // the night of Week closed: its averages stand
)

// Event is one change of a league. Only the fields of its Kind are set.
// A league is its [Settings] and its events: [Replay] rebuilds it.
type Event struct {
	Kind   Kind
	Week   int       // from 1
	Absent []Absence // Opened
	Bowler string    // Scored, Corrected: a league bowler or the night's substitute, spelt as the league does
	Game   int       // Scored, Corrected: from 1
	Pins   int       // Scored, Corrected: the game's scratch score
	Was    int       // Corrected: the score before
	// Corrected, when a ball was corrected (see [League.CorrectBall]):
	// which ball, frame 1 to 10 and ball 1 to 3 within it, and its pins
	// before and after. Frame is 0 for a correction of the score alone.
	Frame, Ball       int
	BallWas, BallPins int
}

// Absence is a bowler marked absent when a night opens, and who bowls in
// their place, if anyone.
type Absence struct {
	Bowler string
	Sub    Substitute // the zero value: nobody; the place scores as absent
}

// Substitute is someone bowling in an absent bowler's place for a night.
// They are not a bowler of the league: their games count for the team
// (its pins, points and highs) and for nothing personal, not even for
// the bowler whose place they take.
type Substitute struct {
	Name    string // a lane's name, not a bowler's of the league, once in the night
	Average int    // their average, 1 to 300, for their handicap; 0 for none
}

// GameScore is a game bowled: the week's night, who bowled it (a bowler
// of the league, or a substitute of the night), which game (from 1) and
// its scratch score.
type GameScore struct {
	Week   int
	Bowler string
	Game   int
	Pins   int
}

// League is a league's season: its settings, its schedule and its nights,
// with standings kept as games are scored. Its decisions ([League.Open],
// [League.Score], [League.Close]) check a command and return the event it
// makes, changing nothing; [League.Apply] applies an event, and cannot
// fail. A League is not safe for concurrent use: one goroutine owns it.
type League struct {
	s        Settings
	size     int // places a team fields: the longest roster
	schedule [][]Match
	members  []member  // every bowler of the league, team by team in roster order
	names    nameIndex // a member's name: the member
	nights   []*night  // nights[w-1] is week w's
	base     totals    // the closed nights'
}

// member is a bowler of the league.
type member struct {
	name        string
	team, place int
	entering    int // 0 for none
}

// New returns a league with the settings and no night bowled, or an error
// wrapping [ErrInvalid] that says which setting is impossible and why.
func New(s Settings) (*League, error) {
	s, err := s.check()
	if err != nil {
		return nil, err
	}
	weeks := s.Weeks
	if weeks == 0 {
		weeks = len(s.Teams) - 1
	}
	l := &League{s: s, schedule: Schedule(len(s.Teams), weeks), names: newNameIndex()}
	for t, team := range s.Teams {
		l.size = max(l.size, len(team.Bowlers))
		for p, b := range team.Bowlers {
			l.names.add(b.Name, len(l.members))
			l.members = append(l.members, member{name: b.Name, team: t, place: p, entering: b.Average})
		}
	}
	l.base = newTotals(len(s.Teams), len(l.members))
	return l, nil
}

// Replay returns the league of the settings after the events, in order.
// The error is New's.
func Replay(s Settings, events []Event) (*League, error) {
	l, err := New(s)
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		l.Apply(e)
	}
	return l, nil
}

// Settings returns the league's settings, their names as the league keeps
// them (trimmed, in normal form C).
func (l *League) Settings() Settings {
	s := l.s
	s.Teams = make([]Team, len(l.s.Teams))
	for i, t := range l.s.Teams {
		s.Teams[i] = Team{Name: t.Name, Bowlers: append([]Bowler(nil), t.Bowlers...)}
	}
	return s
}

// Schedule returns the season's weeks and their matches (see [Schedule]).
func (l *League) Schedule() [][]Match {
	out := make([][]Match, len(l.schedule))
	for i, w := range l.schedule {
		out[i] = append([]Match(nil), w...)
	}
	return out
}

// Night returns the week of the night in play, and whether it is open: the
// week a night is open for, or else the next one to open (one past the
// season when it is over).
func (l *League) Night() (week int, open bool) {
	if n := len(l.nights); n > 0 && !l.nights[n-1].closed {
		return n, true
	}
	return len(l.nights) + 1, false
}

// Open decides the opening of week's night with the bowlers absent, and who
// bowls in their places. Nights are bowled in the order of the weeks: a
// night opens once the one before it is closed. Each absent bowler's place
// scores their average before the night less AbsentMinus, with their
// handicap, unless a substitute takes it.
func (l *League) Open(week int, absent []Absence) (Event, error) {
	next, open := l.Night()
	switch {
	case open:
		return Event{}, fmt.Errorf("%w: week %d's night is open: close it before week %d's", ErrWeek, next, week)
	case next > len(l.schedule):
		return Event{}, fmt.Errorf("%w: the season's %d weeks are over", ErrWeek, len(l.schedule))
	case week != next:
		return Event{}, fmt.Errorf("%w: week %d opens next, not week %d", ErrWeek, next, week)
	}
	e := Event{Kind: Opened, Week: week}
	marked := make(map[int]bool) // the members marked absent
	subs := newNameIndex()       // the substitutes: whose place they take
	for _, a := range absent {
		m, ok := l.names.find(a.Bowler)
		if !ok {
			return Event{}, fmt.Errorf("%w: %q, marked absent, is no bowler of the league", ErrUnknownBowler, a.Bowler)
		}
		name := l.members[m].name
		if marked[m] {
			return Event{}, fmt.Errorf("%w: %q is marked absent twice", ErrInvalidNight, name)
		}
		marked[m] = true
		out := Absence{Bowler: name}
		if a.Sub != (Substitute{}) {
			sub, err := bowling.ParseLaneName(a.Sub.Name)
			if err != nil {
				return Event{}, fmt.Errorf("%w: %q's substitute: %s", ErrInvalidNight, name, strings.TrimPrefix(err.Error(), bowling.ErrInvalidName.Error()+": "))
			}
			if other, member := l.names.find(string(sub)); member {
				return Event{}, fmt.Errorf("%w: %q cannot substitute for %q: %q bowls for their own team", ErrInvalidNight, string(sub), name, l.members[other].name)
			}
			if other, taken := subs.find(string(sub)); taken {
				return Event{}, fmt.Errorf("%w: %q substitutes for %q and %q: one place a night", ErrInvalidNight, string(sub), l.members[other].name, name)
			}
			subs.add(string(sub), m)
			if a.Sub.Average < 0 || a.Sub.Average > bowling.MaxScore {
				return Event{}, fmt.Errorf("%w: %q's average %d: an average is 1 to %d, or 0 for none", ErrInvalidNight, string(sub), a.Sub.Average, bowling.MaxScore)
			}
			out.Sub = Substitute{Name: string(sub), Average: a.Sub.Average}
		}
		e.Absent = append(e.Absent, out)
	}
	// A match's lane seats the places that bowl: a match with none has no
	// lane to bowl on, and nothing to score but absent scores.
	bowls := make(map[int]bool) // the teams with someone to bowl
	for m, mb := range l.members {
		if !marked[m] {
			bowls[mb.team] = true
		}
	}
	for _, a := range e.Absent {
		if a.Sub != (Substitute{}) {
			m, _ := l.names.find(a.Bowler)
			bowls[l.members[m].team] = true
		}
	}
	for i, m := range l.schedule[week-1] {
		if !bowls[m.Home] && !bowls[m.Away] {
			return Event{}, fmt.Errorf("%w: match %d, %s v %s: every bowler of both teams is absent, and none has a substitute; a match needs one bowler on its lane", ErrInvalidNight, i+1, l.s.Teams[m.Home].Name, l.s.Teams[m.Away].Name)
		}
	}
	return e, nil
}

// Score decides a game's score: [Scored] for a game not scored yet,
// [Corrected] for one that was, on the night in play or on a closed one.
// A correction of a closed night changes the averages after it, and so the
// later nights' handicaps, absent scores, points and standings.
func (l *League) Score(g GameScore) (Event, error) {
	if g.Week < 1 || g.Week > len(l.nights) {
		return Event{}, fmt.Errorf("%w: week %d's night has not been opened", ErrWeek, g.Week)
	}
	n := l.nights[g.Week-1]
	i, name, err := l.place(n, g.Bowler)
	if err != nil {
		return Event{}, err
	}
	switch {
	case g.Game < 1 || g.Game > l.s.GamesPerNight:
		return Event{}, fmt.Errorf("%w: game %d: a night has games 1 to %d", ErrInvalidScore, g.Game, l.s.GamesPerNight)
	case g.Pins < 0 || g.Pins > bowling.MaxScore:
		return Event{}, fmt.Errorf("%w: %d pins: a game scores 0 to %d", ErrInvalidScore, g.Pins, bowling.MaxScore)
	}
	e := Event{Kind: Scored, Week: g.Week, Bowler: name, Game: g.Game, Pins: g.Pins}
	if was := n.score(i, g.Game-1, l.s.GamesPerNight); was >= 0 {
		if err := n.correctable(i, g.Game, l.s.GamesPerNight, name); err != nil {
			return Event{}, err
		}
		e.Kind, e.Was = Corrected, was
	}
	return e, nil
}

// Report decides a lane's report of a game it saw bowled: as [League.Score]
// does, but a game scored already is left as it is, and Report returns
// the zero Event (no change). A lane reports each game once, when it
// ends, and again only if it did not hear the answer: the score the
// league has since then is the lane's, or a secretary's correction of it,
// which a late report must not take back.
func (l *League) Report(g GameScore) (Event, error) {
	if g.Week >= 1 && g.Week <= len(l.nights) && g.Game >= 1 && g.Game <= l.s.GamesPerNight {
		n := l.nights[g.Week-1]
		if i, _, err := l.place(n, g.Bowler); err == nil && n.score(i, g.Game-1, l.s.GamesPerNight) >= 0 {
			// Scored already: whether it could be corrected again or
			// not (MaxCorrections), the report changes nothing. A lane
			// restored reports its night's games again.
			return Event{}, nil
		}
	}
	e, err := l.Score(g)
	if err != nil || e.Kind == Corrected {
		return Event{}, err
	}
	return e, nil
}

// BallFix is a ball of a game already scored that the secretary corrects:
// the week's night, who bowled it (as [GameScore] names them), which game
// (from 1), which ball — frame 1 to 10, ball 1 to 3 within it — and the
// pins it knocked down.
type BallFix struct {
	Week        int
	Bowler      string
	Game        int
	Frame, Ball int
	Pins        int
}

// Bowled returns where the game a ball's correction is of was bowled:
// which match of the week's night (its index in the week's schedule), and
// the name the night's lane seats its bowler under (the league's
// bowler's, or the substitute's who bowls in an absent bowler's place);
// or why no ball of it can be corrected: a night not opened, a name that
// bowls in no place of it, a game the night has not, or one not scored
// yet (a game in play is corrected on its lane).
func (l *League) Bowled(f BallFix) (match int, seated string, err error) {
	n, i, seated, err := l.scored(f)
	if err != nil {
		return 0, "", err
	}
	return n.matchOf[i/l.size], seated, nil
}

// scored returns the night and the place of a ball's correction's game,
// and the name of who bowled it, if the game has a score to correct.
func (l *League) scored(f BallFix) (*night, int, string, error) {
	if f.Week < 1 || f.Week > len(l.nights) {
		return nil, 0, "", fmt.Errorf("%w: week %d's night has not been opened", ErrWeek, f.Week)
	}
	n := l.nights[f.Week-1]
	i, name, err := l.place(n, f.Bowler)
	if err != nil {
		return nil, 0, "", err
	}
	if f.Game < 1 || f.Game > l.s.GamesPerNight {
		return nil, 0, "", fmt.Errorf("%w: game %d: a night has games 1 to %d", ErrInvalidScore, f.Game, l.s.GamesPerNight)
	}
	// The ball, before anything looks for the game: refused whatever
	// the game holds.
	var bad []string
	if f.Frame < 1 || f.Frame > bowling.NumFrames {
		bad = append(bad, fmt.Sprintf("frame %d (a game has frames 1 to %d)", f.Frame, bowling.NumFrames))
	}
	if f.Ball < 1 || f.Ball > 3 {
		bad = append(bad, fmt.Sprintf("ball %d (a frame has balls 1 to 3)", f.Ball))
	}
	if f.Pins < 0 || f.Pins > 10 {
		bad = append(bad, fmt.Sprintf("%d pins (a ball knocks down 0 to 10)", f.Pins))
	}
	if len(bad) > 0 {
		return nil, 0, "", fmt.Errorf("%w: %s", bowling.ErrInvalidCorrection, strings.Join(bad, ", "))
	}
	if n.score(i, f.Game-1, l.s.GamesPerNight) < 0 {
		return nil, 0, "", fmt.Errorf("%w: %q's game %d of week %d has no score yet: a game in play is corrected on its lane", bowling.ErrInvalidCorrection, name, f.Game, f.Week)
	}
	if err := n.correctable(i, f.Game, l.s.GamesPerNight, name); err != nil {
		return nil, 0, "", err
	}
	return n, i, name, nil
}

// CorrectBall decides the correction of a ball of a game already scored,
// on the night in play or a closed one: bowled is the game as its lane
// kept it, ball by ball. The league's earlier corrections of that game's
// balls are made on it again first, then this one, by the rules of
// [bowling.Game.Correct]; the game's score is what its balls then add up
// to, and everything after it follows as after [League.Score]. A game
// [League.Bowled] refuses, one not over, or a correction the rules refuse
// is refused, and nothing changes.
func (l *League) CorrectBall(f BallFix, bowled bowling.Game) (Event, error) {
	n, i, name, err := l.scored(f)
	if err != nil {
		return Event{}, err
	}
	g := bowled
	if !g.Over() {
		return Event{}, fmt.Errorf("%w: %q's game %d of week %d was not bowled to its end", bowling.ErrInvalidCorrection, name, f.Game, f.Week)
	}
	for _, fx := range n.fixes[fixKey{i, f.Game}] {
		if _, err := g.Correct(fx.frame, fx.ball, fx.pins); err != nil {
			// The lane's game is not the one the earlier corrections
			// were made on: never guess which ball is which.
			return Event{}, fmt.Errorf("%w: %q's game %d of week %d is not the game its earlier corrections were made on", bowling.ErrInvalidCorrection, name, f.Game, f.Week)
		}
	}
	ballWas, err := g.Correct(f.Frame, f.Ball, f.Pins)
	if err != nil {
		return Event{}, err
	}
	return Event{Kind: Corrected, Week: f.Week, Bowler: name, Game: f.Game, Pins: g.Total(), Was: n.score(i, f.Game-1, l.s.GamesPerNight),
		Frame: f.Frame, Ball: f.Ball, BallWas: ballWas, BallPins: f.Pins}, nil
}

// place returns the place of the night the name bowls in, and the name as
// the league spells it, or why it bowls in none.
func (l *League) place(n *night, name string) (int, string, error) {
	// Events spell names as the league does: look for that first.
	m, ok := l.names.exact[name]
	if !ok {
		if i, ok := n.sub(name, true); ok {
			return i, name, nil
		}
		m, ok = l.names.alike(name)
	}
	if ok {
		mb := l.members[m]
		i := mb.team*l.size + mb.place
		switch p := n.places[i]; p.kind {
		case absent:
			return 0, "", fmt.Errorf("%w: %q is absent in week %d: their place scores their average less %d", ErrInvalidScore, mb.name, n.week, l.s.AbsentMinus)
		case substitute:
			return 0, "", fmt.Errorf("%w: %q is absent in week %d: %q bowls in their place", ErrInvalidScore, mb.name, n.week, p.sub.Name)
		}
		return i, mb.name, nil
	}
	if i, ok := n.sub(name, false); ok {
		return i, n.places[i].sub.Name, nil
	}
	return 0, "", fmt.Errorf("%w: %q bowls in no place of week %d", ErrUnknownBowler, name, n.week)
}

// Close decides the closing of week's night: once every game of it is
// scored, its averages stand for the nights after it.
func (l *League) Close(week int) (Event, error) {
	if next, open := l.Night(); !open || week != next {
		return Event{}, fmt.Errorf("%w: week %d's night is not open", ErrWeek, week)
	}
	n := l.nights[week-1]
	games := l.s.GamesPerNight
	var missing []string
	for i, p := range n.places {
		if p.kind != present && p.kind != substitute {
			continue
		}
		for g := range games {
			if n.score(i, g, games) < 0 {
				missing = append(missing, fmt.Sprintf("%q's game %d", l.placeName(p), g+1))
			}
		}
	}
	if len(missing) > 0 {
		more := ""
		if len(missing) > 3 {
			more = fmt.Sprintf(" and %d more", len(missing)-3)
			missing = missing[:3]
		}
		return Event{}, fmt.Errorf("%w: week %d still needs %s%s", ErrIncomplete, week, strings.Join(missing, ", "), more)
	}
	return Event{Kind: Closed, Week: week}, nil
}

func (l *League) placeName(p place) string {
	if p.kind == substitute {
		return p.sub.Name
	}
	return l.members[p.member].name
}

// Apply applies an event the league decided. It cannot fail: an event
// that does not fit the league (one it did not decide, or out of order)
// is ignored, so a stored log always replays, to the same league.
func (l *League) Apply(e Event) {
	switch e.Kind {
	case Opened:
		if next, open := l.Night(); open || e.Week != next || next > len(l.schedule) {
			return
		}
		n := l.newNight(e.Week, e.Absent)
		l.nights = append(l.nights, n)
		l.prepare(n, &l.base)
	case Scored, Corrected:
		if e.Week < 1 || e.Week > len(l.nights) || e.Game < 1 || e.Game > l.s.GamesPerNight || e.Pins < 0 || e.Pins > bowling.MaxScore {
			return
		}
		n := l.nights[e.Week-1]
		i, _, err := l.place(n, e.Bowler)
		if err != nil {
			return
		}
		n.scores[i*l.s.GamesPerNight+e.Game-1] = int16(e.Pins)
		if k := i*l.s.GamesPerNight + e.Game - 1; e.Kind == Corrected && n.corrected[k] < math.MaxUint16 {
			n.corrected[k]++ // a log written before MaxCorrections may hold more
		}
		if e.Kind == Corrected && e.Frame > 0 {
			k := fixKey{i, e.Game}
			if n.fixes == nil {
				n.fixes = make(map[fixKey][]ballFix)
			}
			n.fixes[k] = append(n.fixes[k], ballFix{e.Frame, e.Ball, e.BallPins})
		}
		if n.closed {
			l.replay()
			return
		}
		l.result(n, n.matchOf[i/l.size])
	case Closed:
		if next, open := l.Night(); !open || e.Week != next {
			return
		}
		n := l.nights[e.Week-1]
		n.closed = true
		l.fold(n, &l.base)
	}
}
