package natsstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tenpin/tenpin/lane/game"
)

// Budgets bound in bytes what the store keeps of each kind of data, each
// set as the MaxBytes of its stream or bucket, with JetStream's
// discard-new policy: a write that would take a kind past its budget is
// refused (game.ErrStorageFull), and nothing already kept is dropped for
// it. So a flood of one kind (bowlers made by the thousand, kept nights)
// fills its own budget and no other: lanes keep playing while theirs has
// room. 0 leaves a kind unbounded. A budget lowered below what a store
// holds already refuses new writes of that kind until enough is deleted
// or expires; the store still opens and serves the rest.
type Budgets struct {
	// Lanes bounds the lanes' events, split evenly over the shards'
	// streams (each gets Lanes / shards): the first of them holds the
	// health probes too, a few hundred bytes.
	Lanes int64
	// Kept bounds the sheets of closed lanes (bucket ArchiveBucket).
	Kept int64
	// Bowlers bounds the bowlers: records, games, keys, shares and codes
	// (bucket BowlersBucket), and their data keys, a quarter of it more
	// (stream BowlerKeysStream).
	Bowlers int64
	// Leagues bounds the leagues and their records (bucket LeaguesBucket).
	Leagues int64
}

// The kinds of data with a budget, as /healthz and the errors name them.
const (
	KindLanes   = "lanes"
	KindKept    = "kept nights"
	KindBowlers = "bowlers"
	KindLeagues = "leagues"
)

// jsStoreFailed is the JetStream error code of a message the stream did
// not store (JSStreamStoreFailedF in nats-server), whose description is
// the store's error; errMaxBytes is that of a stream at its MaxBytes with
// the discard-new policy (nats-server's ErrMaxBytes, v2.15.2: filestore's
// storeMsg for a server alone, checkMsgHeadersPreClusteredProposal for a
// replicated stream; both answer 10077 with this text).
const (
	jsStoreFailed = 10077
	errMaxBytes   = "maximum bytes exceeded"
)

// budget is a kind's budget as the store keeps it: its bound, and whether
// the last write of that kind was refused for it.
type budget struct {
	kind  string
	bytes int64 // the bound; 0: none
	full  atomic.Bool
}

// maxBytes is the MaxBytes of a stream or bucket of b's kind, split over
// n streams: -1 (JetStream's "no limit") without a bound.
func (b *budget) maxBytes(n int) int64 {
	if b.bytes <= 0 {
		return -1
	}
	return max(b.bytes/int64(n), 1)
}

// note records the outcome of a write of b's kind, and returns err, made
// to wrap game.ErrStorageFull if the stream refused it for the budget. A
// write that succeeds says the kind has room again.
func (b *budget) note(err error) error {
	if err == nil {
		b.full.Store(false)
		return nil
	}
	if !isMaxBytes(err) {
		return err
	}
	b.full.Store(true)
	return &fullError{kind: b.kind, bytes: b.bytes, err: err}
}

// fullError is a write refused for a full budget. Its text is meant for
// the client (lane.ErrorFor sends what follows game.ErrStorageFull's),
// so it names the kind and its budget, not JetStream's answer, which it
// wraps for whoever asks.
type fullError struct {
	kind  string
	bytes int64
	err   error
}

func (e *fullError) Error() string {
	return fmt.Sprintf("%v: the server keeps no more %s: their budget of %s is full", game.ErrStorageFull, e.kind, bytesText(e.bytes))
}

func (e *fullError) Unwrap() []error { return []error{game.ErrStorageFull, e.err} }

// isMaxBytes reports whether err is a stream's refusal of a message that
// would take it past its MaxBytes.
func isMaxBytes(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && api.ErrorCode == jsStoreFailed && api.Description == errMaxBytes
}

// bytesText says a count of bytes as an operator sets it: 64 MiB.
func bytesText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// budgeted is a bucket whose writes count against a budget: their errors
// wrap game.ErrStorageFull when the bucket is full.
type budgeted struct {
	jetstream.KeyValue
	b *budget
}

func (kv budgeted) Put(ctx context.Context, key string, value []byte) (uint64, error) {
	rev, err := kv.KeyValue.Put(ctx, key, value)
	return rev, kv.b.note(err)
}

func (kv budgeted) Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error) {
	rev, err := kv.KeyValue.Create(ctx, key, value, opts...)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return rev, err // a write refused for its key, not for room
	}
	return rev, kv.b.note(err)
}

func (kv budgeted) Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	rev, err := kv.KeyValue.Update(ctx, key, value, revision)
	if isWrongLast(err) {
		return rev, err // a write refused for its revision, not for room
	}
	return rev, kv.b.note(err)
}

// Delete and Purge store a marker, a write like any other: on a full
// bucket of a server alone, JetStream takes it all the same when it
// replaces the key's value (a bucket keeps one value a key), and a
// replicated bucket may refuse it.
func (kv budgeted) Delete(ctx context.Context, key string, opts ...jetstream.KVDeleteOpt) error {
	return kv.b.note(kv.KeyValue.Delete(ctx, key, opts...))
}

func (kv budgeted) Purge(ctx context.Context, key string, opts ...jetstream.KVDeleteOpt) error {
	return kv.b.note(kv.KeyValue.Purge(ctx, key, opts...))
}

// Full returns the kinds of data whose budget is full, in the order of
// [Budgets]' fields: those whose last write was refused for the budget,
// or whose streams hold their bound already (a budget lowered below what
// the store holds, found when the journal opened).
func (j *Journal) Full() []string {
	var kinds []string
	if slices.ContainsFunc(j.shards, func(s *shard) bool { return s.lanes.full.Load() }) {
		kinds = append(kinds, KindLanes)
	}
	for _, b := range []*budget{&j.kept, &j.bowlers, &j.leagues} {
		if b.full.Load() {
			kinds = append(kinds, b.kind)
		}
	}
	return kinds
}

// checkFull marks b full if stream holds its bound already.
func checkFull(b *budget, info *jetstream.StreamInfo) {
	if info != nil && info.Config.MaxBytes > 0 && info.State.Bytes >= uint64(info.Config.MaxBytes) {
		b.full.Store(true)
	}
}

// roomForBowler is what a new bowler takes of the budget before their
// games: a record, its key and a first game, with JetStream's headers.
const roomForBowler = 4 << 10

// errNoRoom is the cause of a bowler refused by Room: the budget has
// room for less than another bowler.
var errNoRoom = errors.New("less than a bowler's room left")

// Room returns an error wrapping game.ErrStorageFull if the bowlers'
// budget holds too much for another bowler (and marks it full, as
// /healthz says), nil if it has room or the store does not say: a join
// asking to be remembered asks first, as its bowler is made only at its
// first ball, when the seat cannot be a guest's any more.
func (b *Bowlers) Room(ctx context.Context) error {
	if b.budget == nil || b.budget.bytes <= 0 {
		return nil
	}
	if b.budget.full.Load() {
		return &fullError{kind: b.budget.kind, bytes: b.budget.bytes, err: errNoRoom}
	}
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	info, err := b.stream.Info(ctx)
	if err != nil || info.Config.MaxBytes <= 0 {
		return nil // the store does not say: the bowler's creation will
	}
	if info.State.Bytes+roomForBowler > uint64(info.Config.MaxBytes) {
		b.budget.full.Store(true)
		return &fullError{kind: b.budget.kind, bytes: b.budget.bytes, err: errNoRoom}
	}
	return nil
}
