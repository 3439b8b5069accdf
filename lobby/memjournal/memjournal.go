// Package memjournal is a [game.Journal] in memory, and an archive of
// closed lanes (a lobby.Archive) beside it, for tests and for a server
// started with -memory: what they hold is gone when the process ends.
//
// It keeps every event in its stored form ([game.Marshal]), so the code
// that runs against it also runs the encoding that a real journal stores.
package memjournal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/tenpin/tenpin/lane/game"
)

// Journal is a [game.Journal] in memory. Its zero value is not usable:
// make one with [New]. It is safe for concurrent use; every call holds
// its mutex only to copy, never to encode or decode.
type Journal struct {
	mu    sync.Mutex
	pos   uint64           // the last position given, to any lane; never goes back
	lanes map[string]*lane // the lanes with at least one event
}

type lane struct {
	events []stored // oldest first; never empty
}

type stored struct {
	pos  uint64
	data []byte
}

// New returns an empty journal.
func New() *Journal {
	return &Journal{lanes: map[string]*lane{}}
}

var _ game.Journal = (*Journal)(nil)

// Append stores e as the next event of the lane, as [game.Journal] says.
func (j *Journal) Append(ctx context.Context, id string, last uint64, e game.Event) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("memjournal: append to lane %q: %w", id, err)
	}
	if id == "" {
		return 0, errors.New("memjournal: append to a lane with an empty id")
	}
	data, err := game.Marshal(e)
	if err != nil {
		return 0, fmt.Errorf("memjournal: append to lane %q: %w", id, err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	l := j.lanes[id]
	if at := l.last(); at != last {
		return 0, fmt.Errorf("memjournal: append to lane %q after %d: its last event is at %d: %w", id, last, at, game.ErrConflict)
	}
	if l == nil {
		l = new(lane)
		j.lanes[id] = l
	}
	j.pos++
	l.events = append(l.events, stored{j.pos, data})
	return j.pos, nil
}

// Read returns the lane's events after position after.
func (j *Journal) Read(ctx context.Context, id string, after uint64) (game.Log, error) {
	if err := ctx.Err(); err != nil {
		return game.Log{}, fmt.Errorf("memjournal: read lane %q: %w", id, err)
	}
	j.mu.Lock()
	var events []stored
	if l := j.lanes[id]; l != nil {
		i, _ := slices.BinarySearchFunc(l.events, after+1, func(s stored, pos uint64) int { return cmp.Compare(s.pos, pos) })
		events = l.events[i:]
	}
	j.mu.Unlock()
	return decode(id, after, events)
}

// Lanes returns every lane's log, ordered by the position of its first
// stored event.
func (j *Journal) Lanes(ctx context.Context) ([]game.Log, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memjournal: read every lane: %w", err)
	}
	type snap struct {
		id     string
		events []stored
	}
	j.mu.Lock()
	all := make([]snap, 0, len(j.lanes))
	for id, l := range j.lanes {
		if len(l.events) > 0 {
			all = append(all, snap{id, l.events})
		}
	}
	j.mu.Unlock()
	slices.SortFunc(all, func(a, b snap) int { return cmp.Compare(a.events[0].pos, b.events[0].pos) })
	logs := make([]game.Log, len(all))
	for i, s := range all {
		var err error
		if logs[i], err = decode(s.id, 0, s.events); err != nil {
			logs[i] = game.Log{Lane: s.id, First: s.events[0].pos, Last: s.events[len(s.events)-1].pos, Err: err}
		}
	}
	return logs, nil
}

// Last returns the position of the last event stored, of any lane: the
// last position given, even if [Journal.Compact] has dropped its event.
func (j *Journal) Last(ctx context.Context) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("memjournal: last position: %w", err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.pos, nil
}

// Compact drops every event stored at a position below before, of every
// lane, and the lanes left with none. Positions go on from where they
// were.
func (j *Journal) Compact(ctx context.Context, before uint64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memjournal: compact before %d: %w", before, err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	for id, l := range j.lanes {
		if l.events[0].pos >= before {
			continue
		}
		i, _ := slices.BinarySearchFunc(l.events, before, func(s stored, pos uint64) int { return cmp.Compare(s.pos, pos) })
		if i == len(l.events) {
			delete(j.lanes, id)
			continue
		}
		// A new array, so that the dropped events can be freed; a Read
		// may still be decoding the old one, which stays as it is.
		l.events = slices.Clone(l.events[i:])
	}
	return nil
}

// last returns the position of the lane's last event; 0 for a lane with
// none (nil).
func (l *lane) last() uint64 {
	if l == nil {
		return 0
	}
	return l.events[len(l.events)-1].pos
}

// decode decodes a lane's stored events. It needs no lock: a stored
// event is never overwritten (appends write past the end of the slice the
// caller took, and Compact makes a new one).
func decode(id string, after uint64, events []stored) (game.Log, error) {
	log := game.Log{Lane: id, Last: after}
	if len(events) == 0 {
		return log, nil
	}
	log.Events = make([]game.Event, len(events))
	for i, s := range events {
		e, err := game.Unmarshal(s.data)
		if err != nil {
			return game.Log{}, fmt.Errorf("memjournal: lane %q, event at %d: %w", id, s.pos, err)
		}
		log.Events[i] = e
	}
	log.First, log.Last = events[0].pos, events[len(events)-1].pos
	return log, nil
}
