package lobby

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/protocol"
)

// The leagues: a league's settings, schedule, standings and history for
// anyone with its id; its nights opened and closed and its scores entered
// or corrected by its secretary, who proves it with the key the league
// was created with (kept only as its hash). lobby/api serves them; their
// reference is package protocol's ("Leagues").
//
// A league is its settings and its records (package league, kept in a
// league.Store). The lobby keeps the leagues asked for lately loaded, and
// decides each change on the loaded league, one at a time a league: the
// record is appended after the records it was decided on, or refused if
// another writer (another node of a cluster) got there first; then the
// league is loaded again and the change decided again.

// Limits of the leagues.
const (
	// LeagueCreateRate and LeagueCreateBurst bound the leagues one
	// address creates: a house sets up its few leagues once a season; a
	// script must not fill the store.
	LeagueCreateRate  = 10.0 / 3600 // a second
	LeagueCreateBurst = 10

	// LimitLeagueCreations counts the creations LeagueCreateRate refused.
	LimitLeagueCreations = "league_creations"

	// leagueTries is how often a change is decided again after another
	// writer came first: each time is one writer's change landing, and a
	// league has one secretary and a lane a match.
	leagueTries = 5

	// maxLoadedLeagues bounds the leagues kept loaded; past it one is
	// dropped, to be loaded again when asked for. A house runs a few
	// dozen leagues.
	maxLoadedLeagues = 1000

	// leagueFresh is how long a node of a cluster answers a league's
	// reads from what it loaded: another node may have changed it since.
	// A lone server is its leagues' only writer and never reads again.
	leagueFresh = 2 * time.Second

	// bySecretary is the By of the records the secretary's requests make.
	bySecretary = "secretary"
)

// Errors of the leagues, each wrapped with the refusal a client is sent
// for it (see lane.ErrorFor).
var (
	// ErrNotSecretary: a secretary's key that is not the league's. The
	// API counts it as a key guessed (see Admission.AllowGuess).
	ErrNotSecretary = errors.New("lobby: not the league's secretary")
	// ErrLeaguesUnavailable: the leagues' store did not answer, or the
	// league was changed by other writers at each of leagueTries tries;
	// the client may try again in a moment.
	ErrLeaguesUnavailable = errors.New("lobby: leagues unavailable")
)

// leagueEntry is a league as the lobby keeps it loaded. Its mutex is
// held by whoever reads or changes it: one change of a league at a time
// on this node.
type leagueEntry struct {
	mu     sync.Mutex
	id     string
	stored league.Stored  // guarded by mu: settings, key hash, and the records l is made of
	l      *league.League // guarded by mu: nil until loaded, and after a change that may not have been stored
	loaded time.Time      // guarded by mu: when l was read from the store
}

// Leagues runs a lobby's leagues: their creation, settings and records,
// the weeks their secretaries open and close on the lobby's lanes, the
// scores and corrections of their nights, their standings and recaps,
// and the secretaries' commands on a night's lanes. Its leagues are
// kept in a league.Store (Config.Leagues), loaded once into its cache
// and changed one at a time each; a night's lanes are the lobby's.
type Leagues struct {
	lanes *Lobby // whose lanes the nights are bowled on
	store league.Store
	log   *slog.Logger
	cache leagueCache // the leagues loaded
}

// leagueCache is the leagues loaded, by id.
type leagueCache struct {
	mu sync.Mutex
	m  map[string]*leagueEntry
}

// withLeague runs f on league id, loaded and locked. An id the lobby
// never draws is not looked for.
func (lg *Leagues) withLeague(ctx context.Context, id string, f func(e *leagueEntry) error) error {
	if _, ok := idOrder(id); !ok { // drawn as a lane's: newID
		return fmt.Errorf("lobby: league %q: %w", id, league.ErrNotFound)
	}
	c := &lg.cache
	c.mu.Lock()
	e := c.m[id]
	if e == nil {
		if len(c.m) >= maxLoadedLeagues {
			for k := range c.m { // any: the map's order is random
				delete(c.m, k)
				break
			}
		}
		e = &leagueEntry{id: id}
		c.m[id] = e
	}
	c.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.l == nil || lg.lanes.cfg.Cluster != nil && time.Since(e.loaded) > leagueFresh {
		if err := e.load(ctx, lg.store); err != nil {
			if errors.Is(err, league.ErrNotFound) {
				c.mu.Lock()
				if c.m[id] == e {
					delete(c.m, id) // a flood of unknown ids keeps nothing
				}
				c.mu.Unlock()
			}
			return err
		}
	}
	return f(e)
}

// load reads the league from the store and replays it.
func (e *leagueEntry) load(ctx context.Context, s league.Store) error {
	e.l = nil
	st, err := s.Load(ctx, e.id)
	if err != nil {
		return err
	}
	events := make([]league.Event, len(st.Records))
	for i, r := range st.Records {
		events[i] = r.Event
	}
	l, err := league.Replay(st.Settings, events)
	if err != nil {
		// Not the client's invalid_league: settings that were stored
		// were taken once.
		return fmt.Errorf("lobby: league %s's stored settings: %v", e.id, err)
	}
	e.stored, e.l, e.loaded = st, l, time.Now()
	return nil
}

// changeLeague decides a change of the loaded league with decide, stores
// it as a record made by by, and applies it. lanes, if set, is called once
// the event is applied (to the loaded league, which is forgotten if the
// record is not stored) and returns the lanes the record keeps.
//
// If another writer appended first, the league is loaded again and the
// change decided again, up to leagueTries times. A refused change stores
// nothing. A correction to the score a game has already is no change:
// changed is false and nothing is stored.
func (lg *Leagues) changeLeague(ctx context.Context, e *leagueEntry, by string, decide func(*league.League) (league.Event, error), lanes func(*league.League, league.Event) ([]string, error)) (rec league.Record, changed bool, err error) {
	for try := 1; ; try++ {
		ev, err := decide(e.l)
		if err != nil {
			return league.Record{}, false, err
		}
		if ev.Kind == "" { // decided: no change
			return league.Record{}, false, nil
		}
		if ev.Kind == league.Corrected && ev.Was == ev.Pins && ev.Frame == 0 { // a ball's correction is kept even if the score stays
			return league.Record{Event: ev}, false, nil
		}
		rec := league.Record{Event: ev, At: time.Now().UTC().Truncate(time.Second), By: by}
		n := len(e.stored.Records)
		e.l.Apply(ev) // tentatively: the league is forgotten unless the record is stored
		if lanes != nil {
			if rec.Lanes, err = lanes(e.l, ev); err != nil {
				e.l = nil
				return league.Record{}, false, err
			}
		}
		err = lg.store.Append(ctx, e.id, n, rec)
		if err == nil {
			e.stored.Records = append(e.stored.Records, rec)
			return rec, true, nil
		}
		e.l = nil
		if !errors.Is(err, league.ErrConflict) || try == leagueTries {
			return league.Record{}, false, err
		}
		if err := e.load(ctx, lg.store); err != nil {
			return league.Record{}, false, err
		}
	}
}

// leagueError returns err, which a league's change or read failed with,
// as the error its client is told of (see lane.ErrorFor): a refusal of
// the league's or the lobby's as it is; a league changed by other
// writers at every try, or anything else — the store's failure —
// wrapping ErrLeaguesUnavailable with its refusal, the cause kept for
// the log.
func leagueError(err error) error {
	if err == nil {
		return nil
	}
	if _, known := lane.ErrorFor(err); known {
		return err
	}
	if errors.Is(err, league.ErrConflict) {
		return fmt.Errorf("%w: %w: %w", ErrLeaguesUnavailable, protocol.RefuseLeagueContended.Error(), err)
	}
	return fmt.Errorf("%w: %w: %w", ErrLeaguesUnavailable, protocol.RefuseLeaguesDown.Error(), err)
}

// CheckLeague returns nil if CreateLeague would take body, else why not
// (invalid_league, saying what is wrong; see lane.ErrorFor). It stores
// nothing: the API asks before it counts a creation against the address.
func CheckLeague(body protocol.CreateLeague) error {
	_, err := league.New(settingsOf(body))
	return err
}

// CreateLeague creates the league body describes, under an id of its
// own, and returns the id and its secretary's key: the one time the key
// is told, as the league keeps only its hash. The error says what the
// client is told (see lane.ErrorFor): the league's refusal of body, or
// ErrLeaguesUnavailable.
func (lg *Leagues) CreateLeague(ctx context.Context, body protocol.CreateLeague) (protocol.CreatedLeague, error) {
	l, err := league.New(settingsOf(body))
	if err != nil {
		return protocol.CreatedLeague{}, err
	}
	key := rand.Text()
	st := league.Stored{Settings: l.Settings(), Secretary: league.HashKey(key), Created: time.Now().UTC().Truncate(time.Second)}
	for range 3 { // an id taken: draw again
		st.ID = newID()
		if err = lg.store.Create(ctx, st); !errors.Is(err, league.ErrExists) {
			break
		}
	}
	if err != nil {
		return protocol.CreatedLeague{}, leagueError(err)
	}
	lg.log.Info("league created", "league", st.ID, "teams", len(st.Settings.Teams))
	// In a cluster the node that made it knows it: a read of the store at
	// once may be served by a follower of the replicated bucket that has
	// not taken it yet (a direct get), and answer that there is no such
	// league. A lone server's store has no followers.
	if made, err := league.Replay(st.Settings, nil); err == nil && lg.lanes.cfg.Cluster != nil {
		c := &lg.cache
		c.mu.Lock()
		if len(c.m) >= maxLoadedLeagues {
			for k := range c.m { // any: the map's order is random
				delete(c.m, k)
				break
			}
		}
		c.m[st.ID] = &leagueEntry{id: st.ID, stored: st, l: made, loaded: time.Now()}
		c.mu.Unlock()
	}
	return protocol.CreatedLeague{ID: st.ID, SecretaryKey: key}, nil
}

// settingsOf is a league's settings as the API sends them.
func settingsOf(b protocol.CreateLeague) league.Settings {
	s := league.Settings{
		Name: b.Name, GamesPerNight: b.GamesPerNight,
		Points:      league.Points{PerGame: b.Points.PerGame, PerSeries: b.Points.PerSeries},
		AbsentMinus: b.AbsentMinus, VacancyScore: b.VacancyScore, Weeks: b.Weeks,
	}
	if b.Handicap != nil {
		s.Handicap = league.Handicap{Basis: b.Handicap.Basis, Percent: b.Handicap.Percent}
	}
	for _, t := range b.Teams {
		team := league.Team{Name: t.Name}
		for _, p := range t.Bowlers {
			team.Bowlers = append(team.Bowlers, league.Bowler{Name: p.Name, Average: p.Average})
		}
		s.Teams = append(s.Teams, team)
	}
	return s
}

// asSecretary runs f on league id if key is its secretary's, or returns
// why not: ErrNotSecretary for another key. The key is compared by its
// hash, in constant time, and never logged.
func (lg *Leagues) asSecretary(ctx context.Context, id, key string, f func(*leagueEntry) error) error {
	hash := league.HashKey(key)
	return lg.withLeague(ctx, id, func(e *leagueEntry) error {
		if !e.secretary(hash) {
			return fmt.Errorf("%w: %w", ErrNotSecretary, protocol.RefuseNotSecretary.Error())
		}
		return f(e)
	})
}

// secretary reports whether hash is the hash of the league's secretary's
// key, compared in constant time. e.mu must be held.
func (e *leagueEntry) secretary(hash league.KeyHash) bool {
	return subtle.ConstantTimeCompare(hash[:], e.stored.Secretary[:]) == 1
}

// CheckSecretary returns nil if key is league id's secretary's key (a
// page asks before it shows the secretary's controls), or why not, as
// any of the secretary's calls is refused: ErrNotSecretary for another
// key. It changes nothing.
func (lg *Leagues) CheckSecretary(ctx context.Context, id, key string) error {
	return leagueError(lg.asSecretary(ctx, id, key, func(*leagueEntry) error { return nil }))
}

// League returns league id as the API shows it: its settings, its teams
// and its schedule, with the lanes of the nights opened.
func (lg *Leagues) League(ctx context.Context, id string) (protocol.League, error) {
	var out protocol.League
	err := lg.withLeague(ctx, id, func(e *leagueEntry) error {
		s := e.l.Settings()
		out = protocol.League{
			ID: e.id, Name: s.Name, GamesPerNight: s.GamesPerNight,
			Handicap:    protocol.LeagueHandicap{Basis: s.Handicap.Basis, Percent: s.Handicap.Percent},
			Points:      protocol.LeaguePoints{PerGame: s.Points.PerGame, PerSeries: s.Points.PerSeries},
			AbsentMinus: s.AbsentMinus, VacancyScore: s.VacancyScore,
			Teams: make([]protocol.LeagueTeam, len(s.Teams)), Schedule: []protocol.LeagueWeek{},
		}
		for i, t := range s.Teams {
			out.Teams[i] = protocol.LeagueTeam{Name: t.Name, Bowlers: make([]protocol.LeagueBowler, len(t.Bowlers))}
			for k, b := range t.Bowlers {
				out.Teams[i].Bowlers[k] = protocol.LeagueBowler{Name: b.Name, Average: b.Average}
			}
		}
		lanes := nightLanes(e.stored.Records)
		for i := range e.l.Schedule() {
			out.Schedule = append(out.Schedule, protocol.LeagueWeek{Week: i + 1, Matches: e.matches(i+1, lanes[i+1])})
		}
		out.Week, out.Open = e.l.Night()
		return nil
	})
	return out, leagueError(err)
}

// matches returns the week's matches, by the teams' names, with the
// lanes they bowl on if the night has them.
func (e *leagueEntry) matches(week int, lanes []string) []protocol.LeagueMatch {
	teams := e.l.Settings().Teams
	sched := e.l.Schedule()[week-1]
	out := make([]protocol.LeagueMatch, len(sched))
	for i, m := range sched {
		out[i] = protocol.LeagueMatch{Home: teams[m.Home].Name, Away: teams[m.Away].Name}
		if i < len(lanes) {
			out[i].Lane = lanes[i]
		}
	}
	return out
}

// nightLanes returns each opened night's lanes, by week.
func nightLanes(recs []league.Record) map[int][]string {
	out := map[int][]string{}
	for _, r := range recs {
		if r.Event.Kind == league.Opened {
			out[r.Event.Week] = r.Lanes
		}
	}
	return out
}

// Standings returns league id's standings, as of its last night closed.
func (lg *Leagues) Standings(ctx context.Context, id string) (protocol.LeagueStandings, error) {
	var out protocol.LeagueStandings
	err := lg.withLeague(ctx, id, func(e *leagueEntry) error {
		st := e.l.Standings()
		out = protocol.LeagueStandings{Week: st.Closed, Teams: make([]protocol.LeagueTeamStanding, len(st.Teams)), Bowlers: make([]protocol.LeagueBowlerStanding, len(st.Bowlers))}
		for i, t := range st.Teams {
			out.Teams[i] = protocol.LeagueTeamStanding{Name: t.Name, PointsWon: t.PointsWon, PointsLost: t.PointsLost, PinsScratch: t.PinsScratch, PinsHandicap: t.PinsHandicap, HighGame: t.HighGame, HighSeries: t.HighSeries}
		}
		for i, b := range st.Bowlers {
			out.Bowlers[i] = protocol.LeagueBowlerStanding{Name: b.Name, Team: b.Team, Games: b.Games, Pins: b.Pins, Average: b.Average, Handicap: b.Handicap, HighGame: b.HighGame, HighSeries: b.HighSeries}
		}
		return nil
	})
	return out, leagueError(err)
}

// LeagueHistory returns a page of league id's records, oldest first: up
// to limit records after the record numbered after, the number as the
// client wrote it ("" from the first). A number that is no record's of
// the league (0 to how many it has) is refused saying how many.
func (lg *Leagues) LeagueHistory(ctx context.Context, id, after string, limit int) (protocol.LeagueHistory, error) {
	var out protocol.LeagueHistory
	err := lg.withLeague(ctx, id, func(e *leagueEntry) error {
		recs, from := e.stored.Records, 0
		if after != "" {
			n, err := strconv.Atoi(after)
			if err != nil || n < 0 || n > len(recs) {
				return refused(protocol.RefuseLeagueAfter, len(recs), after)
			}
			from = n
		}
		end := min(len(recs), from+limit)
		out = protocol.LeagueHistory{Records: make([]protocol.LeagueRecord, 0, end-from)}
		for i := from; i < end; i++ {
			out.Records = append(out.Records, recordOf(i+1, recs[i]))
		}
		if end < len(recs) {
			out.Next = strconv.Itoa(end)
		}
		return nil
	})
	return out, leagueError(err)
}

// recordOf is record n of a league's history as the API shows it.
func recordOf(n int, r league.Record) protocol.LeagueRecord {
	e := r.Event
	out := protocol.LeagueRecord{N: n, At: r.At, By: r.By, Kind: string(e.Kind), Week: e.Week, Lanes: r.Lanes}
	switch e.Kind {
	case league.Opened:
		for _, a := range e.Absent {
			out.Absent = append(out.Absent, a.Bowler)
			if a.Sub != (league.Substitute{}) {
				out.Substitutes = append(out.Substitutes, protocol.LeagueSubstitute{For: a.Bowler, Name: a.Sub.Name, Average: a.Sub.Average})
			}
		}
	case league.Scored, league.Corrected:
		pins := e.Pins
		out.Bowler, out.Game, out.Score = e.Bowler, e.Game, &pins
		if e.Kind == league.Corrected {
			was := e.Was
			out.Was = &was
		}
		if e.Frame > 0 {
			ballWas, ballPins := e.BallWas, e.BallPins
			out.Frame, out.Ball, out.PinsWas, out.Pins = e.Frame, e.Ball, &ballWas, &ballPins
		}
	}
	return out
}

// OpenWeek opens week's night of league id for its secretary, whose key
// is key: the league decides it, a lane is opened for each of its
// matches, and the night is recorded with its lanes, which the matches
// returned name. Nothing is opened for a night the league refuses, nor
// for body's absences if they are not a night's (refused before the key
// is checked). If the record cannot be stored after its lanes were
// opened, they are left to close as any lane nobody joins does, after
// the idle time.
func (lg *Leagues) OpenWeek(ctx context.Context, id, key string, week int, body protocol.OpenWeek) (protocol.OpenedWeek, error) {
	absent, err := absences(body)
	if err != nil {
		return protocol.OpenedWeek{}, err
	}
	var out protocol.OpenedWeek
	err = lg.asSecretary(ctx, id, key, func(e *leagueEntry) error {
		s := e.l.Settings()
		var opened []string // the night's lanes, opened once however often it is decided
		rec, _, err := lg.changeLeague(ctx, e, bySecretary, func(l *league.League) (league.Event, error) {
			ev, err := l.Open(week, absent)
			if errors.Is(err, league.ErrUnknownBowler) { // at an opening, a name no bowler has is the night's fault
				err = fmt.Errorf("%w: %s", league.ErrInvalidNight, strings.TrimPrefix(err.Error(), league.ErrUnknownBowler.Error()+": "))
			}
			return ev, err
		}, func(l *league.League, ev league.Event) ([]string, error) {
			if opened != nil {
				return opened, nil
			}
			sheet, _ := l.Sheet(ev.Week)
			for i, m := range sheet.Matches {
				ln, err := lg.lanes.openLeagueLane(ctx, leagueLane{League: e.id, LeagueName: s.Name, Week: ev.Week, Match: i, Home: m.Home, Away: m.Away, GamesPerNight: s.GamesPerNight,
					Invites: hashInvites(teamInvites(key, e.id, ev.Week, i))})
				if err != nil {
					return nil, fmt.Errorf("lobby: league %s, week %d: opening match %d's lane (%d opened, left to idle out): %w", e.id, ev.Week, i+1, len(opened), err)
				}
				opened = append(opened, ln.ID())
			}
			return opened, nil
		})
		if err != nil {
			return err
		}
		lg.log.Info("league night opened", "league", e.id, "week", week, "lanes", rec.Lanes)
		out = protocol.OpenedWeek{Week: week, Matches: withInvites(e.matches(week, rec.Lanes), key, e.id, week)}
		return nil
	})
	return out, leagueError(err)
}

// absences are the opening's absent bowlers, with their substitutes: a
// substitute's "for" names the bowler whose place they take, who is absent
// then whether listed in "absent" or not.
func absences(b protocol.OpenWeek) ([]league.Absence, error) {
	out := make([]league.Absence, 0, len(b.Absent)+len(b.Substitutes))
	at := map[string]int{}
	for _, name := range b.Absent {
		at[name] = len(out)
		out = append(out, league.Absence{Bowler: name})
	}
	for _, s := range b.Substitutes {
		i, ok := at[s.For]
		if !ok {
			i = len(out)
			at[s.For] = i
			out = append(out, league.Absence{Bowler: s.For})
		}
		switch {
		case s.Name == "":
			return nil, refused(protocol.RefuseSubstituteName, s.For)
		case out[i].Sub != (league.Substitute{}):
			return nil, refused(protocol.RefuseSubstitutes, s.For, out[i].Sub.Name, s.Name)
		}
		out[i].Sub = league.Substitute{Name: s.Name, Average: s.Average}
	}
	return out, nil
}

// CloseWeek closes week's night of league id for its secretary, whose
// key is key: its averages stand. It returns the record made.
func (lg *Leagues) CloseWeek(ctx context.Context, id, key string, week int) (protocol.LeagueRecord, error) {
	var out protocol.LeagueRecord
	err := lg.asSecretary(ctx, id, key, func(e *leagueEntry) error {
		rec, _, err := lg.changeLeague(ctx, e, bySecretary, func(l *league.League) (league.Event, error) { return l.Close(week) }, nil)
		if err != nil {
			return err
		}
		out = recordOf(len(e.stored.Records), rec)
		return nil
	})
	return out, leagueError(err)
}

// ScoreGame enters or corrects a game's score in league id for its
// secretary, whose key is key, and returns the record made; changed is
// false, and nothing recorded, if the game has that score already.
func (lg *Leagues) ScoreGame(ctx context.Context, id, key string, body protocol.LeagueScore) (rec protocol.LeagueRecord, changed bool, err error) {
	g := league.GameScore{Week: body.Week, Bowler: body.Bowler, Game: body.Game, Pins: body.Score}
	err = lg.asSecretary(ctx, id, key, func(e *leagueEntry) error {
		r, ch, err := lg.changeLeague(ctx, e, bySecretary, func(l *league.League) (league.Event, error) { return l.Score(g) }, nil)
		if err != nil {
			return err
		}
		if changed = ch; changed {
			rec = recordOf(len(e.stored.Records), r)
		}
		return nil
	})
	return rec, changed, leagueError(err)
}

// CorrectBall corrects a ball of a game of league id already scored, for
// its secretary, whose key is key: the game's balls are read from the
// night's lane — running, on another node, or kept — and the league
// counts the game again from them. It returns the record made.
//
// The lane is read without the league's lock: reading it may ask another
// node or the archive, and the league's pages, its lanes' reports and
// its other changes must not wait for that. So the lane is found under
// the lock, read after it, and the correction decided under it again —
// on the same lane and bowler, or the lane is read again.
func (lg *Leagues) CorrectBall(ctx context.Context, id, key string, body protocol.LeagueBall) (protocol.LeagueRecord, error) {
	fix := league.BallFix{Week: body.Week, Bowler: body.Bowler, Game: body.Game, Frame: body.Frame, Ball: body.Ball, Pins: body.Pins}
	var at ballLane
	err := lg.asSecretary(ctx, id, key, func(e *leagueEntry) (err error) {
		at, err = e.ballLane(fix)
		return err
	})
	if err != nil {
		return protocol.LeagueRecord{}, leagueError(err)
	}
	for try := 1; ; try++ {
		bowled, err := lg.bowled(ctx, at, fix)
		if err != nil {
			return protocol.LeagueRecord{}, leagueError(err)
		}
		var (
			out   protocol.LeagueRecord
			moved bool
		)
		err = lg.asSecretary(ctx, id, key, func(e *leagueEntry) error {
			now, err := e.ballLane(fix)
			if err != nil {
				return err
			}
			if now != at { // the league changed meanwhile: the ball is another lane's, or another bowler's
				at, moved = now, true
				return nil
			}
			rec, _, err := lg.changeLeague(ctx, e, bySecretary, func(l *league.League) (league.Event, error) { return l.CorrectBall(fix, bowled) }, nil)
			if err != nil {
				return err
			}
			out = recordOf(len(e.stored.Records), rec)
			return nil
		})
		if moved && try < leagueTries {
			continue
		}
		if moved {
			err = league.ErrConflict
		}
		return out, leagueError(err)
	}
}

// ballLane is where a ball's correction reads its game: the lane of the
// bowler's match that week, and the bowler's name there.
type ballLane struct {
	lane, name string
}

// ballLane returns the lane of the match fix's bowler bowled in that
// week, from the record that opened the night, or why the league refuses
// the correction. e.mu must be held.
func (e *leagueEntry) ballLane(fix league.BallFix) (ballLane, error) {
	match, name, err := e.l.Bowled(fix)
	if err != nil {
		return ballLane{}, err
	}
	lanes := nightLanes(e.stored.Records)[fix.Week]
	if match >= len(lanes) {
		return ballLane{}, refused(protocol.RefuseFixNoLanes, fix.Week)
	}
	return ballLane{lane: lanes[match], name: name}, nil
}

// bowled returns the game a ball's correction is of, ball by ball, as
// lane at has it. The lane runs while its night's pages are open, and is
// kept for the server's -keep after.
func (lg *Leagues) bowled(ctx context.Context, at ballLane, fix league.BallFix) (bowling.Game, error) {
	name := at.name
	l, err := lg.lanes.laneOf(ctx, at.lane)
	switch {
	case errors.Is(err, ErrNoLane):
		return bowling.Game{}, refused(protocol.RefuseFixLaneGone, name, fix.Week, at.lane)
	case err != nil:
		return bowling.Game{}, err
	}
	g, ok := l.Game(fix.Game)
	if !ok {
		return bowling.Game{}, refused(protocol.RefuseFixNotBowled, name, fix.Game, fix.Week, at.lane)
	}
	if !g.Finished {
		return bowling.Game{}, refused(protocol.RefuseFixInPlay, name, fix.Game, fix.Week)
	}
	for _, p := range g.Players {
		if p.Name == name && !p.Left {
			return gameOfFrames(p.Frames)
		}
	}
	return bowling.Game{}, refused(protocol.RefuseFixNotBowler, name, fix.Game, fix.Week, at.lane)
}

// gameOfFrames bowls again a game as a lane showed it: each ball's pins,
// its deck if it named one, and whether it was a foul. A frame the rules
// refuse is the server's own failure (the lane showed it), not the
// secretary's: its error wraps no rule's.
func gameOfFrames(frames []protocol.Frame) (bowling.Game, error) {
	var balls []bowling.Ball
	for _, f := range frames {
		for i, pins := range f.Rolls {
			b := bowling.Ball{Pins: pins, Foul: slices.Contains(f.Fouls, i+1)}
			if i < len(f.Decks) && f.Decks[i] != nil {
				d, err := bowling.NewDeck(*f.Decks[i]...)
				if err != nil {
					return bowling.Game{}, fmt.Errorf("lobby: a lane's frame %q: %v", f.Marks, err)
				}
				b.Deck, b.HasDeck = d, true
			}
			balls = append(balls, b)
		}
	}
	g, err := bowling.ReplayBalls(balls)
	if err != nil {
		return bowling.Game{}, fmt.Errorf("lobby: a lane's game does not bowl again: %v", err)
	}
	return g, nil
}
