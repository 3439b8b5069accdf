package memjournal

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Archive is a lobby.Archive in memory: the sheets of closed lanes,
// each kept for its keep time. Make one with [NewArchive]; it is safe for
// concurrent use.
type Archive struct {
	keep time.Duration
	now  func() time.Time

	mu     sync.Mutex
	sheets map[string]keptSheet
	swept  time.Time // when expired sheets were last dropped
}

type keptSheet struct {
	data []byte
	at   time.Time
}

// NewArchive returns an empty archive that keeps each sheet for keep
// after it was stored (0: forever).
func NewArchive(keep time.Duration) *Archive {
	return &Archive{keep: keep, now: time.Now, sheets: make(map[string]keptSheet)}
}

// sweepEvery is how often, at most, Keep drops the expired sheets: Kept
// never answers one, and dropping them is what bounds the memory.
const sweepEvery = time.Minute

// Keep stores the sheet of lane id.
func (a *Archive) Keep(ctx context.Context, id string, sheet []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sheets[id] = keptSheet{data: slices.Clone(sheet), at: now}
	if a.keep > 0 && now.Sub(a.swept) >= sweepEvery {
		a.swept = now
		for id, s := range a.sheets {
			if a.expired(s, now) {
				delete(a.sheets, id)
			}
		}
	}
	return nil
}

// Kept returns the sheet of lane id, or nil if it keeps none.
func (a *Archive) Kept(ctx context.Context, id string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sheets[id]
	if !ok || a.expired(s, now) {
		return nil, nil
	}
	return slices.Clone(s.data), nil
}

func (a *Archive) expired(s keptSheet, now time.Time) bool {
	return a.keep > 0 && now.Sub(s.at) >= a.keep
}
