package natsstore

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/league"
)

// LeaguesBucket is the key-value bucket of leagues: each league's
// settings and secretary's key hash under l.ID, and its records under
// r.ID.N, N from 1 in the order they were appended. It is stored: never
// change its name, its keys or its records' field names.
const LeaguesBucket = "TENPIN_LEAGUES"

// Leagues is a [league.Store] in a JetStream key-value bucket on the
// journal's server (or cluster), as many copies as the lanes' stream. It
// is safe for concurrent use.
//
// A record is created at its place, never put: JetStream refuses to create
// a key that exists, so of two appends after the same n records one lands
// and the other is told ErrConflict, on one node or across a cluster. An
// append also reads the record before its place: an n past the league's
// last record is a conflict too, and leaves no gap.
type Leagues struct {
	kv      jetstream.KeyValue
	timeout time.Duration
}

var _ league.Store = (*Leagues)(nil)

// Leagues creates the bucket of leagues, or brings its settings up to
// date, and returns the store in it.
func (j *Journal) Leagues(ctx context.Context) (*Leagues, error) {
	kv, err := j.keyValue(ctx, &j.leagues, jetstream.KeyValueConfig{
		Bucket:      LeaguesBucket,
		Description: "tenpin: leagues, their settings and their records",
	})
	if err != nil {
		return nil, err
	}
	return &Leagues{kv: kv, timeout: j.cfg.Timeout}, nil
}

func headKey(id string) string                { return "l." + id }
func recordsKey(id string) string             { return "r." + id + "." }
func leagueRecordKey(id string, n int) string { return recordsKey(id) + strconv.Itoa(n) }

// validLeagueID refuses an id that is no key of the bucket (a dot or a
// wildcard would reach other leagues' keys): ids are drawn by the lobby,
// letters and digits.
func validLeagueID(id string) bool { return validID(bowler.ID(id)) }

// Create stores a new league with no records.
func (s *Leagues) Create(ctx context.Context, l league.Stored) error {
	if !validLeagueID(l.ID) {
		return fmt.Errorf("natsstore: league id %q: want 1 to 64 letters and digits", l.ID)
	}
	data, err := json.Marshal(headOf(l))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	_, err = s.kv.Create(ctx, headKey(l.ID), data)
	switch {
	case errors.Is(err, jetstream.ErrKeyExists):
		return fmt.Errorf("natsstore: league %s: %w", l.ID, league.ErrExists)
	case err != nil:
		return fmt.Errorf("natsstore: creating league %s: %w", l.ID, err)
	}
	return nil
}

// Load returns the league of id: its head, then its records, all read by
// one watch of their keys.
func (s *Leagues) Load(ctx context.Context, id string) (league.Stored, error) {
	if !validLeagueID(id) {
		return league.Stored{}, fmt.Errorf("natsstore: league %q: %w", id, league.ErrNotFound)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	e, err := s.kv.Get(ctx, headKey(id))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return league.Stored{}, fmt.Errorf("natsstore: league %s: %w", id, league.ErrNotFound)
	case err != nil:
		return league.Stored{}, fmt.Errorf("natsstore: reading league %s: %w", id, err)
	}
	var head leagueHead
	if err := json.Unmarshal(e.Value(), &head); err != nil {
		return league.Stored{}, fmt.Errorf("natsstore: league %s: %w", id, err)
	}
	l, err := head.stored()
	if err != nil {
		return league.Stored{}, fmt.Errorf("natsstore: league %s: %w", id, err)
	}
	if l.Records, err = s.records(ctx, id); err != nil {
		return league.Stored{}, fmt.Errorf("natsstore: reading league %s's records: %w", id, err)
	}
	return l, nil
}

// records returns league id's records, in order: every key under r.ID.,
// read by a watch that ends once it has had the values there were.
func (s *Leagues) records(ctx context.Context, id string) ([]league.Record, error) {
	w, err := s.kv.Watch(ctx, recordsKey(id)+"*", jetstream.IgnoreDeletes())
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	type numbered struct {
		n int
		r league.Record
	}
	var got []numbered
	for {
		var e jetstream.KeyValueEntry
		select {
		case e = <-w.Updates():
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e == nil {
			break // every value there was
		}
		n, err := strconv.Atoi(strings.TrimPrefix(e.Key(), recordsKey(id)))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("a record under the key %q", e.Key())
		}
		var r leagueRecord
		if err := json.Unmarshal(e.Value(), &r); err != nil {
			return nil, fmt.Errorf("record %d: %w", n, err)
		}
		got = append(got, numbered{n, r.record()})
	}
	slices.SortFunc(got, func(a, b numbered) int { return a.n - b.n })
	out := make([]league.Record, 0, len(got))
	for i, g := range got {
		if g.n != i+1 {
			// Appends leave no gap (each reads its place's predecessor):
			// one here is a store that lost a record.
			return nil, fmt.Errorf("record %d is missing (record %d follows %d)", i+1, g.n, i)
		}
		out = append(out, g.r)
	}
	return out, nil
}

// Append adds r after the league's first n records, if it has exactly n.
func (s *Leagues) Append(ctx context.Context, id string, n int, r league.Record) error {
	if !validLeagueID(id) {
		return fmt.Errorf("natsstore: league %q: %w", id, league.ErrNotFound)
	}
	data, err := json.Marshal(recordOf(r))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	// The record before r's place must be there: the league's head for
	// the first.
	before := headKey(id)
	if n > 0 {
		before = leagueRecordKey(id, n)
	}
	if n < 0 {
		err = jetstream.ErrKeyNotFound
	} else {
		_, err = s.kv.Get(ctx, before)
	}
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound) && n == 0:
		return fmt.Errorf("natsstore: league %s: %w", id, league.ErrNotFound)
	case errors.Is(err, jetstream.ErrKeyNotFound):
		if _, err := s.kv.Get(ctx, headKey(id)); errors.Is(err, jetstream.ErrKeyNotFound) {
			return fmt.Errorf("natsstore: league %s: %w", id, league.ErrNotFound)
		}
		return fmt.Errorf("natsstore: league %s: an append after %d records, which it has not: %w", id, n, league.ErrConflict)
	case err != nil:
		return fmt.Errorf("natsstore: appending to league %s: %w", id, err)
	}
	_, err = s.kv.Create(ctx, leagueRecordKey(id, n+1), data)
	switch {
	case errors.Is(err, jetstream.ErrKeyExists):
		return fmt.Errorf("natsstore: league %s: an append after %d records, which has more: %w", id, n, league.ErrConflict)
	case err != nil:
		return fmt.Errorf("natsstore: appending to league %s: %w", id, err)
	}
	return nil
}

// The stored forms of a league: the domain has no JSON of its own (it is
// pure), so the names are the store's, and stored: never rename one.
type (
	leagueHead struct {
		ID        string         `json:"id"`
		Settings  leagueSettings `json:"settings"`
		Secretary string         `json:"secretary"` // the SHA-256 of the key, in hex
		Created   time.Time      `json:"created"`
	}
	leagueSettings struct {
		Name          string         `json:"name"`
		GamesPerNight int            `json:"games_per_night"`
		Handicap      leagueHandicap `json:"handicap"`
		Points        leaguePoints   `json:"points"`
		AbsentMinus   int            `json:"absent_minus"`
		VacancyScore  int            `json:"vacancy_score"`
		Teams         []leagueTeam   `json:"teams"`
		Weeks         int            `json:"weeks,omitempty"`
	}
	leagueHandicap struct {
		Basis   int `json:"basis"`
		Percent int `json:"percent"`
	}
	leaguePoints struct {
		PerGame   int `json:"per_game"`
		PerSeries int `json:"per_series"`
	}
	leagueTeam struct {
		Name    string         `json:"name"`
		Bowlers []leagueBowler `json:"bowlers"`
	}
	leagueBowler struct {
		Name    string `json:"name"`
		Average int    `json:"average,omitempty"`
	}
	leagueRecord struct {
		Kind   string          `json:"kind"`
		Week   int             `json:"week"`
		Absent []leagueAbsence `json:"absent,omitempty"`
		Bowler string          `json:"bowler,omitempty"`
		Game   int             `json:"game,omitempty"`
		Pins   int             `json:"pins,omitempty"`
		Was    int             `json:"was,omitempty"`
		// A ball's correction: which ball, and its pins before and after.
		Frame    int       `json:"frame,omitempty"`
		Ball     int       `json:"ball,omitempty"`
		BallWas  int       `json:"ball_was,omitempty"`
		BallPins int       `json:"ball_pins,omitempty"`
		At       time.Time `json:"at"`
		By       string    `json:"by"`
		Lanes    []string  `json:"lanes,omitempty"`
	}
	leagueAbsence struct {
		Bowler     string `json:"bowler"`
		Sub        string `json:"sub,omitempty"` // who bowls in their place; none for nobody
		SubAverage int    `json:"sub_average,omitempty"`
	}
)

func headOf(l league.Stored) leagueHead {
	s := l.Settings
	out := leagueHead{ID: l.ID, Secretary: hex.EncodeToString(l.Secretary[:]), Created: l.Created, Settings: leagueSettings{
		Name: s.Name, GamesPerNight: s.GamesPerNight,
		Handicap:    leagueHandicap{s.Handicap.Basis, s.Handicap.Percent},
		Points:      leaguePoints{s.Points.PerGame, s.Points.PerSeries},
		AbsentMinus: s.AbsentMinus, VacancyScore: s.VacancyScore, Weeks: s.Weeks,
	}}
	for _, t := range s.Teams {
		team := leagueTeam{Name: t.Name, Bowlers: make([]leagueBowler, len(t.Bowlers))}
		for i, b := range t.Bowlers {
			team.Bowlers[i] = leagueBowler{b.Name, b.Average}
		}
		out.Settings.Teams = append(out.Settings.Teams, team)
	}
	return out
}

func (h leagueHead) stored() (league.Stored, error) {
	s := h.Settings
	out := league.Stored{ID: h.ID, Created: h.Created, Settings: league.Settings{
		Name: s.Name, GamesPerNight: s.GamesPerNight,
		Handicap:    league.Handicap{Basis: s.Handicap.Basis, Percent: s.Handicap.Percent},
		Points:      league.Points{PerGame: s.Points.PerGame, PerSeries: s.Points.PerSeries},
		AbsentMinus: s.AbsentMinus, VacancyScore: s.VacancyScore, Weeks: s.Weeks,
	}}
	if k, err := hex.DecodeString(h.Secretary); err != nil || len(k) != len(out.Secretary) {
		return league.Stored{}, fmt.Errorf("the secretary's key hash %q is not %d hex digits", h.Secretary, 2*len(out.Secretary))
	} else {
		copy(out.Secretary[:], k)
	}
	for _, t := range s.Teams {
		team := league.Team{Name: t.Name, Bowlers: make([]league.Bowler, len(t.Bowlers))}
		for i, b := range t.Bowlers {
			team.Bowlers[i] = league.Bowler{Name: b.Name, Average: b.Average}
		}
		out.Settings.Teams = append(out.Settings.Teams, team)
	}
	return out, nil
}

func recordOf(r league.Record) leagueRecord {
	e := r.Event
	out := leagueRecord{Kind: string(e.Kind), Week: e.Week, Bowler: e.Bowler, Game: e.Game, Pins: e.Pins, Was: e.Was,
		Frame: e.Frame, Ball: e.Ball, BallWas: e.BallWas, BallPins: e.BallPins, At: r.At, By: r.By, Lanes: r.Lanes}
	for _, a := range e.Absent {
		out.Absent = append(out.Absent, leagueAbsence{Bowler: a.Bowler, Sub: a.Sub.Name, SubAverage: a.Sub.Average})
	}
	return out
}

func (r leagueRecord) record() league.Record {
	out := league.Record{At: r.At, By: r.By, Lanes: r.Lanes, Event: league.Event{
		Kind: league.Kind(r.Kind), Week: r.Week, Bowler: r.Bowler, Game: r.Game, Pins: r.Pins, Was: r.Was,
		Frame: r.Frame, Ball: r.Ball, BallWas: r.BallWas, BallPins: r.BallPins,
	}}
	for _, a := range r.Absent {
		out.Event.Absent = append(out.Event.Absent, league.Absence{Bowler: a.Bowler, Sub: league.Substitute{Name: a.Sub, Average: a.SubAverage}})
	}
	return out
}
