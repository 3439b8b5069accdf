package memjournal

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/tenpin/tenpin/lane/league"
)

// Leagues is a league.Store in memory. Make one with [NewLeagues]; it is
// safe for concurrent use. What it is given and what it returns are
// copies: a caller that changes a league it loaded changes nothing kept.
type Leagues struct {
	mu      sync.Mutex
	leagues map[string]*league.Stored
}

var _ league.Store = (*Leagues)(nil)

// NewLeagues returns a store of no leagues.
func NewLeagues() *Leagues {
	return &Leagues{leagues: map[string]*league.Stored{}}
}

// Create stores a new league with no records.
func (s *Leagues) Create(ctx context.Context, l league.Stored) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !validLeagueID(l.ID) {
		return fmt.Errorf("memjournal: league id %q: want 1 to 64 letters and digits", l.ID)
	}
	l = clone(l)
	l.Records = nil
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.leagues[l.ID]; ok {
		return fmt.Errorf("memjournal: league %s: %w", l.ID, league.ErrExists)
	}
	s.leagues[l.ID] = &l
	return nil
}

// Load returns the league of id.
func (s *Leagues) Load(ctx context.Context, id string) (league.Stored, error) {
	if err := ctx.Err(); err != nil {
		return league.Stored{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.leagues[id]
	if !ok {
		return league.Stored{}, fmt.Errorf("memjournal: league %q: %w", id, league.ErrNotFound)
	}
	return clone(*l), nil
}

// Append adds r after the league's first n records, if it has exactly n.
func (s *Leagues) Append(ctx context.Context, id string, n int, r league.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r = cloneRecord(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.leagues[id]
	switch {
	case !ok:
		return fmt.Errorf("memjournal: league %q: %w", id, league.ErrNotFound)
	case len(l.Records) != n:
		return fmt.Errorf("memjournal: league %s: an append after %d records to %d: %w", id, n, len(l.Records), league.ErrConflict)
	}
	l.Records = append(l.Records, r)
	return nil
}

// validLeagueID reports whether id can name a league in a store: 1 to 64
// ASCII letters and digits, as the lobby draws them. JetStream's keys
// take no more (a dot or a wildcard would reach other keys), and memory
// refuses what JetStream would, so that a test in memory fails as a server
// would.
func validLeagueID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !('A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

func clone(l league.Stored) league.Stored {
	l.Settings.Teams = slices.Clone(l.Settings.Teams)
	for i := range l.Settings.Teams {
		l.Settings.Teams[i].Bowlers = slices.Clone(l.Settings.Teams[i].Bowlers)
	}
	recs := make([]league.Record, len(l.Records))
	for i, r := range l.Records {
		recs[i] = cloneRecord(r)
	}
	l.Records = recs
	return l
}

func cloneRecord(r league.Record) league.Record {
	r.Event.Absent = slices.Clone(r.Event.Absent)
	r.Lanes = slices.Clone(r.Lanes)
	return r
}
