package natsstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ArchiveBucket is the key-value bucket of the sheets of closed lanes,
// a key a lane. It is stored: never change it.
const ArchiveBucket = "TENPIN_KEPT"

// Archive keeps the nights of closed lanes (the lobby's Archive) in a
// JetStream key-value bucket on the journal's server (or cluster), as
// many copies as the lanes' stream: a sheet is kept for the bucket's age
// limit, then JetStream drops it. It is safe for concurrent use.
type Archive struct {
	kv      jetstream.KeyValue
	timeout time.Duration
}

// Archive creates the bucket of closed lanes' sheets, or brings its
// settings up to date, and returns the archive in it: each sheet is kept
// for keep after it was stored (0: forever). Changing keep applies to the
// sheets kept already too.
func (j *Journal) Archive(ctx context.Context, keep time.Duration) (*Archive, error) {
	if keep < 0 {
		return nil, fmt.Errorf("natsstore: a negative keep time (%v)", keep)
	}
	kv, err := j.keyValue(ctx, &j.kept, jetstream.KeyValueConfig{
		Bucket:      ArchiveBucket,
		Description: "tenpin: the sheets of closed lanes, a key a lane",
		TTL:         keep,
	})
	if err != nil {
		return nil, err
	}
	return &Archive{kv: kv, timeout: j.cfg.Timeout}, nil
}

// keyValue creates a bucket of cfg, or brings its settings up to date,
// waiting as natsconn.Conn.Take does for NATS to take it: kept on file,
// as many copies as the lanes' stream, a key's latest value only, within
// budget b (its writes' errors wrap game.ErrStorageFull once it is full).
func (j *Journal) keyValue(ctx context.Context, b *budget, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	ctx, cancel := context.WithTimeout(ctx, j.conn.TakeWait())
	defer cancel()
	cfg.History, cfg.Storage, cfg.Replicas = 1, jetstream.FileStorage, j.cfg.Replicas
	cfg.MaxBytes = b.maxBytes(1) // a bucket is made with the discard-new policy
	var kv jetstream.KeyValue
	err := j.conn.Take(ctx, "bucket "+cfg.Bucket, func(ctx context.Context) (err error) {
		ctx, cancel := context.WithTimeout(ctx, max(j.cfg.Timeout, 5*time.Second))
		defer cancel()
		kv, err = j.js.CreateOrUpdateKeyValue(ctx, cfg)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("natsstore: create or update bucket %s: %w", cfg.Bucket, err)
	}
	if status, err := kv.Status(ctx); err == nil {
		if s, ok := status.(*jetstream.KeyValueBucketStatus); ok {
			checkFull(b, s.StreamInfo())
		}
	}
	return budgeted{kv, b}, nil
}

// Keep stores the sheet of lane id.
func (a *Archive) Keep(ctx context.Context, id string, sheet []byte) error {
	if err := checkLaneID(id); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	if _, err := a.kv.Put(ctx, id, sheet); err != nil { // wraps game.ErrStorageFull when the kept nights' budget is full
		return fmt.Errorf("natsstore: keeping lane %s: %w", id, err)
	}
	return nil
}

// Kept returns the sheet of lane id, or nil if it keeps none.
func (a *Archive) Kept(ctx context.Context, id string) ([]byte, error) {
	if checkLaneID(id) != nil {
		return nil, nil // never a lane's
	}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	e, err := a.kv.Get(ctx, id)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("natsstore: reading kept lane %s: %w", id, err)
	}
	return e.Value(), nil
}

// checkLaneID refuses an id that is not a valid key of the bucket: the
// lobby's ids are letters and digits, and anything else never was a lane.
func checkLaneID(id string) error {
	if id == "" || len(id) > 64 {
		return fmt.Errorf("%w: %q", ErrLaneID, id)
	}
	for _, r := range id {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("%w: %q has %q", ErrLaneID, id, r)
		}
	}
	return nil
}
