package memjournal

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tenpin/tenpin/lane/bowler"
)

// Bowlers is a bowler.Service in memory. Make one with [NewBowlers]; it
// is safe for concurrent use. Records are kept encoded, as a store keeps
// them, so that what runs against it runs the encoding too.
type Bowlers struct {
	mu      sync.Mutex
	records map[bowler.ID][]byte
	games   map[bowler.ID][][]byte // each bowler's history, oldest first
	keys    map[bowler.KeyHash]bowler.ID
	codes   map[bowler.KeyHash]code
	shares  map[bowler.KeyHash]bowler.ID
	deleted map[bowler.ID]bool // never made again (see Create)
}

type code struct {
	id      bowler.ID
	expires time.Time
	used    bool // kept until it expires, to say so when asked again
}

var _ bowler.Service = (*Bowlers)(nil)

// NewBowlers returns a store of no bowlers.
func NewBowlers() *Bowlers {
	return &Bowlers{
		records: map[bowler.ID][]byte{},
		games:   map[bowler.ID][][]byte{},
		keys:    map[bowler.KeyHash]bowler.ID{},
		codes:   map[bowler.KeyHash]code{},
		shares:  map[bowler.KeyHash]bowler.ID{},
		deleted: map[bowler.ID]bool{},
	}
}

// Create makes bowler id holding key, or returns it as it is if it
// holds key already.
func (b *Bowlers) Create(ctx context.Context, id bowler.ID, key bowler.KeyHash, name string, at time.Time) (*bowler.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.deleted[id] {
		return nil, bowler.ErrUnknown
	}
	if _, ok := b.records[id]; ok {
		r, err := b.getLocked(id)
		if err == nil && !r.HasKey(key) {
			err = bowler.ErrExists
		}
		return r, err
	}
	if _, ok := b.keys[key]; ok {
		return nil, fmt.Errorf("memjournal: a bowler holds that key already")
	}
	r := bowler.New(id, name, key, at)
	b.keys[key] = r.ID
	return r, b.putLocked(r)
}

// Room returns nil: memory has no budget.
func (b *Bowlers) Room(context.Context) error { return nil }

// Find returns the bowler holding key.
func (b *Bowlers) Find(ctx context.Context, key bowler.KeyHash) (*bowler.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	id, ok := b.keys[key]
	if !ok {
		return nil, bowler.ErrUnknown
	}
	return b.getLocked(id)
}

// Get returns bowler id.
func (b *Bowlers) Get(ctx context.Context, id bowler.ID) (*bowler.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.getLocked(id)
}

// Add adds a finished game to bowler id, once, or puts a later version
// of it in its place.
func (b *Bowlers) Add(ctx context.Context, id bowler.ID, g bowler.Game) (*bowler.Record, bowler.News, error) {
	if err := ctx.Err(); err != nil {
		return nil, bowler.News{}, err
	}
	data, err := json.Marshal(g)
	if err != nil {
		return nil, bowler.News{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	r, err := b.getLocked(id)
	if err != nil {
		return nil, bowler.News{}, err
	}
	if place, ok := r.Replaces(g); ok {
		history := make([]bowler.Game, len(b.games[id]))
		for i, data := range b.games[id] {
			if err := json.Unmarshal(data, &history[i]); err != nil {
				return nil, bowler.News{}, fmt.Errorf("memjournal: bowler %s's game %d: %w", id, i+1, err)
			}
		}
		news, ok := r.Correct(history, g)
		if !ok {
			return r, bowler.News{}, nil
		}
		data, err := json.Marshal(history[place-1]) // as Correct put it: bowled when it was
		if err != nil {
			return nil, bowler.News{}, err
		}
		games := slices.Clone(b.games[id]) // Games reads the old slice unlocked
		games[place-1] = data
		b.games[id] = games
		return r, news, b.putLocked(r)
	}
	news, added := r.Add(g)
	if !added {
		return r, bowler.News{}, nil
	}
	b.games[id] = append(b.games[id], data)
	return r, news, b.putLocked(r)
}

// Games returns a page of bowler id's history, newest first.
func (b *Bowlers) Games(ctx context.Context, id bowler.ID, before, limit int) ([]bowler.Game, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	if _, ok := b.records[id]; !ok {
		b.mu.Unlock()
		return nil, bowler.ErrUnknown
	}
	all := b.games[id]
	b.mu.Unlock()
	if before <= 0 || before > len(all)+1 {
		before = len(all) + 1
	}
	var out []bowler.Game
	for n := before - 1; n >= 1 && len(out) < limit; n-- {
		var g bowler.Game
		if err := json.Unmarshal(all[n-1], &g); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// AddKey gives bowler id another key.
func (b *Bowlers) AddKey(ctx context.Context, id bowler.ID, key bowler.KeyHash) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.addKeyLocked(id, key, bowler.KeyHash{})
}

// addKeyLocked gives bowler id key, keeping keep past MaxKeys.
func (b *Bowlers) addKeyLocked(id bowler.ID, key, keep bowler.KeyHash) error {
	r, err := b.getLocked(id)
	if err != nil {
		return err
	}
	if other, ok := b.keys[key]; ok && other != id {
		return fmt.Errorf("memjournal: another bowler holds that key")
	}
	revoked, codes := r.AddKey(key, keep)
	for _, k := range revoked {
		delete(b.keys, k)
	}
	for _, c := range codes {
		delete(b.codes, c)
	}
	b.keys[key] = id
	return b.putLocked(r)
}

// Revoke takes a key from its bowler.
func (b *Bowlers) Revoke(ctx context.Context, key bowler.KeyHash) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	id, ok := b.keys[key]
	if !ok {
		return bowler.ErrUnknown
	}
	delete(b.keys, key)
	r, err := b.getLocked(id)
	if err != nil {
		return err
	}
	for _, c := range r.RemoveKey(key) {
		delete(b.codes, c)
	}
	return b.putLocked(r)
}

// Delete erases bowler id.
func (b *Bowlers) Delete(ctx context.Context, id bowler.ID) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	r, err := b.getLocked(id)
	if err != nil {
		return err
	}
	for _, k := range r.Keys {
		delete(b.keys, k)
	}
	delete(b.shares, r.Share)
	for h, c := range b.codes {
		if c.id == id {
			delete(b.codes, h)
		}
	}
	delete(b.games, id)
	delete(b.records, id)
	b.deleted[id] = true
	return nil
}

// AddCode stores a one-time code for bowler id.
func (b *Bowlers) AddCode(ctx context.Context, id bowler.ID, c, by bowler.KeyHash, expires time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	r, err := b.getLocked(id)
	if err != nil {
		return err
	}
	now := time.Now()
	expired, err := r.AddCode(bowler.Code{Hash: c, By: by, Expires: expires}, now)
	for _, h := range expired {
		delete(b.codes, h)
	}
	for h, cd := range b.codes {
		if cd.used && !now.Before(cd.expires) {
			delete(b.codes, h)
		}
	}
	if err != nil {
		return err
	}
	b.codes[c] = code{id: id, expires: expires}
	return b.putLocked(r)
}

// Redeem uses a code once.
func (b *Bowlers) Redeem(ctx context.Context, c, key bowler.KeyHash, now time.Time) (*bowler.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	cd, ok := b.codes[c]
	if ok && cd.used {
		return nil, bowler.ErrCodeUsed
	}
	delete(b.codes, c)
	if !ok || !now.Before(cd.expires) {
		return nil, bowler.ErrCode
	}
	b.codes[c] = code{cd.id, cd.expires, true}
	r, err := b.getLocked(cd.id)
	if err != nil {
		return nil, err
	}
	made, ok := r.UseCode(c)
	if !ok {
		return nil, bowler.ErrCode // its maker's key was revoked meanwhile
	}
	if err := b.putLocked(r); err != nil {
		return nil, err
	}
	if err := b.addKeyLocked(cd.id, key, made.By); err != nil {
		return nil, err
	}
	return b.getLocked(cd.id)
}

// Share makes share the link to bowler id's page.
func (b *Bowlers) Share(ctx context.Context, id bowler.ID, share bowler.KeyHash) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	r, err := b.getLocked(id)
	if err != nil {
		return err
	}
	delete(b.shares, r.Share)
	r.Share = share
	if !share.IsZero() {
		b.shares[share] = id
	}
	return b.putLocked(r)
}

// Shared returns the bowler share links to.
func (b *Bowlers) Shared(ctx context.Context, share bowler.KeyHash) (*bowler.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	id, ok := b.shares[share]
	if !ok || share.IsZero() {
		return nil, bowler.ErrUnknown
	}
	return b.getLocked(id)
}

func (b *Bowlers) getLocked(id bowler.ID) (*bowler.Record, error) {
	data, ok := b.records[id]
	if !ok {
		return nil, bowler.ErrUnknown
	}
	r := new(bowler.Record)
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("memjournal: bowler %s: %w", id, err)
	}
	return r, nil
}

func (b *Bowlers) putLocked(r *bowler.Record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b.records[r.ID] = data
	return nil
}
