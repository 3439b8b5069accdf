package natsstore

import (
	"context"
	"crypto/cipher"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sync/errgroup"

	"github.com/tenpin/tenpin/lane/bowler"
)

// Names in the store of bowlers. They are stored: never change them.
const (
	// BowlersBucket is the key-value bucket of bowlers: their records
	// (b.ID), their games (g.ID.N, N from 1 in the order they ended), the
	// hashes of their keys (k.HASH, holding the bowler's id) and of their
	// shares (s.HASH), the one-time codes that link a device (c.HASH,
	// holding the id and the code's expiry) and those used (u.HASH, empty),
	// each dropped by JetStream once codeTTL old, and the tombstones of bowlers deleted (d.HASH of
	// the id, empty, dropped once tombTTL old). Records and games are sealed
	// under the bowler's data key (see seal.go); a value that starts with
	// '{' was written plain, before values were sealed, and is sealed
	// when next written. One bucket, one raft group in a cluster: each
	// more is another leader to elect when a node dies.
	BowlersBucket = "TENPIN_BOWLERS"
	// BowlerKeysStream is the stream of the bowlers' data keys: one
	// message of 32 random bytes a bowler, on subject BowlerKeyPrefix
	// followed by its id, written once when the bowler is made (or first
	// written after values were sealed), never updated, and erased with
	// JetStream's secure delete when the bowler is deleted. A stream of
	// its own, another raft group, because a bucket's denies deletes.
	BowlerKeysStream = "TENPIN_BOWLER_KEYS"
	BowlerKeyPrefix  = "tenpin.bowlerkey."
)

// codeTTL is how long the bucket keeps a code: longer than any code
// lives (its expiry is in it), so that JetStream drops only dead ones.
const codeTTL = 30 * time.Minute

// Bowlers is a [bowler.Service] in JetStream key-value buckets on the
// journal's server (or cluster), as many copies as the lanes' stream. It
// is safe for concurrent use: a record changes by compare-and-set, and
// the games of one bowler that end on this node are added one at a time.
//
// What a bowler holds of personal data — its name, in the record and in
// each game — is sealed under a data key of its own, which Delete erases
// for good (see seal.go): once it returns, no byte of the store's files
// tells the bowler's name or games. A bowler stored before values were
// sealed may leave older plain revisions of its record, and its games
// written then, until JetStream compacts those blocks.
type Bowlers struct {
	kv        jetstream.KeyValue
	stream    jetstream.Stream // the bucket's stream, to purge a bowler's games
	js        jetstream.JetStream
	keyStream jetstream.Stream // BowlerKeysStream
	budget    *budget          // the bowlers', which the data keys count against
	timeout   time.Duration
	seed      maphash.Seed
	locks     [64]sync.Mutex // bowlers' adds, by a hash of their id

	mu      sync.Mutex
	written map[bowler.ID]written     // guarded by mu: see change
	keys    map[bowler.ID]cipher.AEAD // guarded by mu: see dataKey
}

var _ bowler.Service = (*Bowlers)(nil)

// Bowlers creates the buckets of bowlers, or brings their settings up to
// date, and returns the store in them.
func (j *Journal) Bowlers(ctx context.Context) (*Bowlers, error) {
	b := &Bowlers{js: j.js, budget: &j.bowlers, timeout: j.cfg.Timeout, seed: maphash.MakeSeed()}
	var err error
	b.kv, err = j.keyValue(ctx, &j.bowlers, jetstream.KeyValueConfig{
		Bucket:      BowlersBucket,
		Description: "tenpin: bowlers, their games, keys, shares and one-time codes",
		// Keys may have a time to live of their own (the codes').
		LimitMarkerTTL: time.Minute,
	})
	if err != nil {
		return nil, err
	}
	if b.keyStream, err = j.keysStream(ctx); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, j.conn.TakeWait())
	defer cancel()
	if b.stream, err = j.js.Stream(ctx, "KV_"+BowlersBucket); err != nil {
		return nil, fmt.Errorf("natsstore: the stream of bucket %s: %w", BowlersBucket, err)
	}
	return b, nil
}

func recordKey(id bowler.ID) string      { return "b." + string(id) }
func gameKey(id bowler.ID, n int) string { return "g." + string(id) + "." + strconv.Itoa(n) }
func keyKey(h bowler.KeyHash) string     { return "k." + h.String() }
func shareKey(h bowler.KeyHash) string   { return "s." + h.String() }
func codeKey(h bowler.KeyHash) string    { return "c." + h.String() }
func usedKey(h bowler.KeyHash) string    { return "u." + h.String() }
func tombKey(id bowler.ID) string        { return "d." + bowler.HashKey(string(id)).String() }
func (b *Bowlers) lock(id bowler.ID) *sync.Mutex {
	return &b.locks[maphash.String(b.seed, string(id))%uint64(len(b.locks))]
}

// validID refuses an id that is no key of the bucket: ids are drawn by
// bowler.NewID, letters and digits.
func validID(id bowler.ID) bool {
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

func (b *Bowlers) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, b.timeout)
}

// Create makes bowler id holding key, or returns it as it is if a try
// whose answer was lost made it already. A bowler deleted is never made
// again under its id (its lane, restored, may try): its tombstone says
// ErrUnknown.
func (b *Bowlers) Create(ctx context.Context, id bowler.ID, key bowler.KeyHash, name string, at time.Time) (*bowler.Record, error) {
	if !validID(id) {
		return nil, fmt.Errorf("natsstore: %q is no bowler's id", id)
	}
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	switch _, err := b.kv.Get(ctx, tombKey(id)); {
	case err == nil:
		return nil, bowler.ErrUnknown
	case !errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, fmt.Errorf("natsstore: reading bowlers: %w", err)
	}
	r := bowler.New(id, name, key, at)
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	// The key's entry first: a record no key finds (the entry refused
	// for a full budget after it) would hold games nobody could reach,
	// nor delete. An entry whose record was not made finds nobody.
	if _, err := b.kv.Put(ctx, keyKey(key), []byte(id)); err != nil {
		return nil, fmt.Errorf("natsstore: creating a bowler's key: %w", err)
	}
	if _, _, err := b.dataKey(ctx, id, true); err != nil {
		return nil, err
	}
	if data, err = b.seal(ctx, id, recordKey(id), data); err != nil {
		return nil, err
	}
	if _, err := b.kv.Create(ctx, recordKey(id), data); errors.Is(err, jetstream.ErrKeyExists) {
		// Made by a try whose answer was lost, or another bowler's id.
		if r, _, err = b.get(ctx, id); err != nil {
			return nil, err
		}
		if !r.HasKey(key) {
			return nil, bowler.ErrExists
		}
	} else if err != nil {
		return nil, fmt.Errorf("natsstore: creating a bowler: %w", err)
	}
	// A Delete of the bowler that ran between the tombstone's read and
	// now left its tombstone: what this made goes as the Delete's did.
	if _, err := b.kv.Get(ctx, tombKey(id)); err == nil {
		b.forget(id)
		_ = b.eraseKey(ctx, id)
		_ = b.kv.Purge(ctx, recordKey(id))
		_ = b.kv.Purge(ctx, keyKey(key))
		return nil, bowler.ErrUnknown
	}
	return r, nil
}

// Find returns the bowler holding key.
func (b *Bowlers) Find(ctx context.Context, key bowler.KeyHash) (*bowler.Record, error) {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	id, err := b.id(ctx, keyKey(key))
	if err != nil {
		return nil, err
	}
	r, _, err := b.get(ctx, id)
	if err == nil && !r.HasKey(key) {
		err = bowler.ErrUnknown // revoked while being read
	}
	return r, err
}

// id returns the bowler id stored at k, or ErrUnknown.
func (b *Bowlers) id(ctx context.Context, k string) (bowler.ID, error) {
	e, err := b.kv.Get(ctx, k)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return "", bowler.ErrUnknown
	case err != nil:
		return "", fmt.Errorf("natsstore: reading bowlers: %w", err)
	}
	return bowler.ID(e.Value()), nil
}

// Get returns bowler id.
func (b *Bowlers) Get(ctx context.Context, id bowler.ID) (*bowler.Record, error) {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	r, _, err := b.get(ctx, id)
	return r, err
}

// get returns bowler id's record and its revision.
func (b *Bowlers) get(ctx context.Context, id bowler.ID) (*bowler.Record, uint64, error) {
	r, rev, _, err := b.read(ctx, id)
	return r, rev, err
}

// read returns bowler id's record, its revision, and whether it was
// stored plain, before values were sealed.
func (b *Bowlers) read(ctx context.Context, id bowler.ID) (*bowler.Record, uint64, bool, error) {
	if !validID(id) {
		return nil, 0, false, bowler.ErrUnknown
	}
	e, err := b.kv.Get(ctx, recordKey(id))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, 0, false, bowler.ErrUnknown
	case err != nil:
		return nil, 0, false, fmt.Errorf("natsstore: reading bowler %s: %w", id, err)
	}
	data, err := b.open(ctx, id, recordKey(id), e.Value())
	if err != nil {
		return nil, 0, false, err
	}
	r := new(bowler.Record)
	if err := json.Unmarshal(data, r); err != nil {
		return nil, 0, false, fmt.Errorf("natsstore: bowler %s: %w", id, err)
	}
	return r, e.Revision(), isPlain(e.Value()), nil
}

// change applies f to bowler id's record and stores it, reading it again
// and trying again if another change came first. f returns false to
// store nothing.
//
// It starts from the record as this node last wrote it, if it did, rather
// than read it: the compare-and-set refuses it if another node wrote
// since, and the record is read then. A game's end so costs a bowler two
// writes, not a read and two writes.
//
// A record stored plain, before values were sealed, gets its data key
// here, and only here and in Create: a bowler deleted on another node
// while this one held its record must not get a new key, which would
// leave the values written meanwhile readable (see seal).
func (b *Bowlers) change(ctx context.Context, id bowler.ID, f func(r *bowler.Record) (bool, error)) (*bowler.Record, error) {
	for cached := true; ; cached = false {
		r, rev, err := b.lastWritten(id)
		if !cached || r == nil {
			var plain bool
			r, rev, plain, err = b.read(ctx, id)
			if err == nil && plain {
				_, _, err = b.dataKey(ctx, id, true)
			}
		}
		if err != nil {
			return nil, err
		}
		ok, err := f(r)
		if errors.Is(err, errTaken) {
			b.forget(id)
			continue
		}
		if err != nil || !ok {
			return r, err
		}
		data, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		sealed, err := b.seal(ctx, id, recordKey(id), data)
		if err != nil {
			return nil, err
		}
		rev, err = b.kv.Update(ctx, recordKey(id), sealed, rev)
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			b.forget(id)
			continue
		}
		if err != nil {
			b.forget(id)
			return nil, fmt.Errorf("natsstore: storing bowler %s: %w", id, err)
		}
		b.wrote(id, data, rev)
		return r, nil
	}
}

// maxWritten bounds the records a store remembers it wrote: the bowlers
// of the games ending on this node lately.
const maxWritten = 4096

// written is a record as this node last wrote it, and its revision.
type written struct {
	data []byte
	rev  uint64
}

// lastWritten returns bowler id's record as this node last wrote it, or
// nil.
func (b *Bowlers) lastWritten(id bowler.ID) (*bowler.Record, uint64, error) {
	b.mu.Lock()
	w, ok := b.written[id]
	b.mu.Unlock()
	if !ok {
		return nil, 0, nil
	}
	r := new(bowler.Record)
	if err := json.Unmarshal(w.data, r); err != nil {
		return nil, 0, nil // read it from the store
	}
	return r, w.rev, nil
}

func (b *Bowlers) wrote(id bowler.ID, data []byte, rev uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written == nil || len(b.written) >= maxWritten {
		b.written = make(map[bowler.ID]written)
	}
	b.written[id] = written{data, rev}
}

func (b *Bowlers) forget(id bowler.ID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.written, id)
}

// Add adds a finished game to bowler id, once, or puts a later version
// of it in its place (see correct).
//
// The game is stored at its place in the history (the record's count of
// games once it is in) before the record that counts it: a failure
// between the two leaves a game no record counts, which the next add
// writes over. Adds of one bowler on this node take turns, so that two
// never write the same place; across nodes (a bowler's games ending on
// two nodes in the same moment) the place is created, not overwritten,
// and the one that finds it taken reads the record again.
func (b *Bowlers) Add(ctx context.Context, id bowler.ID, g bowler.Game) (*bowler.Record, bowler.News, error) {
	mu := b.lock(id)
	mu.Lock()
	defer mu.Unlock()
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	data, err := json.Marshal(g)
	if err != nil {
		return nil, bowler.News{}, err
	}
	var news bowler.News
	// A game written whose record's update fails stays where it was
	// written: the update may have been stored all the same (its answer
	// lost as the bucket's leader died), and then the record counts the
	// game and only that place holds it. If the update was not stored,
	// the retry finds the game there (see putGame), or, should nobody
	// retry, the next game of the bowler takes the place.
	r, err := b.change(ctx, id, func(r *bowler.Record) (bool, error) {
		if place, ok := r.Replaces(g); ok {
			return b.correct(ctx, id, r, place, g, &news)
		}
		n, added := r.Add(g)
		if !added {
			return false, nil
		}
		news = n
		_, err := b.putGame(ctx, id, r.Stats.Games, g, data)
		return true, err
	})
	return r, news, err
}

// correct puts g, a later version of the game at place of bowler id's
// history, in its place, and counts r's numbers again from the whole
// history (see bowler.Record.Correct): a correction of a finished game
// comes once in many games, and reads every game the bowler bowled. The
// game is written before the record: a failure between the two leaves
// the new version in a history whose record counts the old one, and the
// retry counts it again.
func (b *Bowlers) correct(ctx context.Context, id bowler.ID, r *bowler.Record, place int, g bowler.Game, news *bowler.News) (bool, error) {
	history, err := b.games(ctx, id, 1, r.Stats.Games)
	if err != nil {
		return false, err
	}
	n, ok := r.Correct(history, g)
	if !ok {
		return false, nil
	}
	*news = n
	data, err := json.Marshal(history[place-1]) // as Correct put it: bowled when it was
	if err != nil {
		return false, err
	}
	k := gameKey(id, place)
	sealed, err := b.seal(ctx, id, k, data)
	if err != nil {
		return false, err
	}
	if _, err := b.kv.Put(ctx, k, sealed); err != nil {
		return false, fmt.Errorf("natsstore: storing bowler %s's corrected game %d: %w", id, place, err)
	}
	return true, nil
}

// putGame stores game g (encoded, data) at place n of bowler id's
// history, unless another game is there that a record counts, and says
// whether it wrote there.
func (b *Bowlers) putGame(ctx context.Context, id bowler.ID, n int, g bowler.Game, data []byte) (bool, error) {
	k := gameKey(id, n)
	sealed, err := b.seal(ctx, id, k, data)
	if err != nil {
		return false, err
	}
	_, err = b.kv.Create(ctx, k, sealed)
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return err == nil, err
	}
	// Taken: by this very game (an add whose record was not stored), by
	// a game no record counts (one whose add failed there), or by another
	// node's add of this bowler, whose record will count it.
	e, err := b.kv.Get(ctx, k)
	if err != nil {
		return false, fmt.Errorf("natsstore: reading bowler %s's game %d: %w", id, n, err)
	}
	var there bowler.Game
	if v, err := b.open(ctx, id, k, e.Value()); err == nil && json.Unmarshal(v, &there) == nil && there.Lane == g.Lane && there.Game == g.Game {
		return true, nil
	}
	r, _, err := b.get(ctx, id)
	if err != nil {
		return false, err
	}
	if r.Stats.Games >= n {
		return false, errTaken // counted: the caller reads the record again
	}
	// Another node's add writes its record within its timeout; a game
	// older than that no record will count.
	if time.Since(e.Created()) < b.timeout {
		time.Sleep(10 * time.Millisecond)
		return false, errTaken
	}
	_, err = b.kv.Update(ctx, k, sealed, e.Revision())
	return err == nil, err
}

// errTaken: a place in a history that another add took; read the record
// again (see change).
var errTaken = errors.New("natsstore: the place in the history was taken")

// Games returns a page of bowler id's history, newest first: each game
// is one direct get, the page's asked at once.
func (b *Bowlers) Games(ctx context.Context, id bowler.ID, before, limit int) ([]bowler.Game, error) {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	r, _, err := b.get(ctx, id)
	if err != nil {
		return nil, err
	}
	last := r.Stats.Games
	if before <= 0 || before > last+1 {
		before = last + 1
	}
	n := min(limit, before-1)
	if n <= 0 {
		return nil, nil
	}
	out, err := b.games(ctx, id, before-n, before-1)
	if err != nil {
		return nil, err
	}
	slices.Reverse(out)
	return out, nil
}

// games reads bowler id's games at places first to last, oldest first,
// eight at once.
func (b *Bowlers) games(ctx context.Context, id bowler.ID, first, last int) ([]bowler.Game, error) {
	if last < first {
		return nil, nil
	}
	out := make([]bowler.Game, last-first+1)
	var g errgroup.Group
	g.SetLimit(8)
	for i := range out {
		g.Go(func() error {
			k := gameKey(id, first+i)
			e, err := b.kv.Get(ctx, k)
			if err != nil {
				return fmt.Errorf("natsstore: reading bowler %s's game %d: %w", id, first+i, err)
			}
			v, err := b.open(ctx, id, k, e.Value())
			if err != nil {
				return err
			}
			return json.Unmarshal(v, &out[i])
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// AddKey gives bowler id another key.
func (b *Bowlers) AddKey(ctx context.Context, id bowler.ID, key bowler.KeyHash) error {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	_, err := b.addKey(ctx, id, key, bowler.KeyHash{})
	return err
}

// addKey gives bowler id key, keeping keep past MaxKeys, and forgets the
// keys that go, with the codes their devices made.
func (b *Bowlers) addKey(ctx context.Context, id bowler.ID, key, keep bowler.KeyHash) (*bowler.Record, error) {
	var revoked, codes []bowler.KeyHash
	r, err := b.change(ctx, id, func(r *bowler.Record) (bool, error) {
		if r.HasKey(key) {
			return false, nil
		}
		revoked, codes = r.AddKey(key, keep)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if _, err := b.kv.Put(ctx, keyKey(key), []byte(id)); err != nil {
		return nil, fmt.Errorf("natsstore: storing a key of bowler %s: %w", id, err)
	}
	if err := b.purge(ctx, revoked, keyKey, codes); err != nil {
		return nil, fmt.Errorf("natsstore: revoking bowler %s's oldest keys: %w", id, err)
	}
	return r, nil
}

// purge forgets keys, made entries by entry, and codes.
func (b *Bowlers) purge(ctx context.Context, keys []bowler.KeyHash, entry func(bowler.KeyHash) string, codes []bowler.KeyHash) error {
	for _, k := range keys {
		if err := b.kv.Purge(ctx, entry(k)); err != nil {
			return err
		}
	}
	for _, c := range codes {
		if err := b.kv.Purge(ctx, codeKey(c)); err != nil {
			return err
		}
	}
	return nil
}

// Revoke takes a key from its bowler.
func (b *Bowlers) Revoke(ctx context.Context, key bowler.KeyHash) error {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	id, err := b.id(ctx, keyKey(key))
	if err != nil {
		return err
	}
	if err := b.kv.Purge(ctx, keyKey(key)); err != nil {
		return fmt.Errorf("natsstore: revoking a key: %w", err)
	}
	var codes []bowler.KeyHash
	_, err = b.change(ctx, id, func(r *bowler.Record) (bool, error) {
		n, m := len(r.Keys), len(r.Codes)
		codes = r.RemoveKey(key)
		return len(r.Keys) != n || len(r.Codes) != m, nil
	})
	if errors.Is(err, bowler.ErrUnknown) {
		return nil // the bowler went too
	}
	if err != nil {
		return err
	}
	if err := b.purge(ctx, nil, keyKey, codes); err != nil {
		return fmt.Errorf("natsstore: revoking the codes a key made: %w", err)
	}
	return nil
}

// Delete erases bowler id: its keys, codes and share first, so that
// nobody finds it meanwhile, then its data key for good (every sealed
// byte of its record and games, wherever JetStream's files hold them, is
// noise from then on), then its games, then its record. An add of this
// node's waits for it (or it for the add).
func (b *Bowlers) Delete(ctx context.Context, id bowler.ID) error {
	mu := b.lock(id)
	mu.Lock()
	defer mu.Unlock()
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	r, _, err := b.get(ctx, id)
	if err != nil {
		return err
	}
	// The tombstone first: once the keys go, the bowler cannot ask
	// again, and a lane still holding their seat may try to make them
	// (see Create) whatever fails below. Named by the id's hash: no entry
	// names a bowler deleted.
	if _, err := b.kv.Create(ctx, tombKey(id), nil, jetstream.KeyTTL(tombTTL)); err != nil && !errors.Is(err, jetstream.ErrKeyExists) {
		return fmt.Errorf("natsstore: marking bowler %s deleted: %w", id, err)
	}
	for _, k := range r.Keys {
		if err := b.kv.Purge(ctx, keyKey(k)); err != nil {
			return fmt.Errorf("natsstore: deleting bowler %s's keys: %w", id, err)
		}
	}
	for _, c := range r.Codes {
		if err := b.kv.Purge(ctx, codeKey(c.Hash)); err != nil {
			return fmt.Errorf("natsstore: deleting bowler %s's codes: %w", id, err)
		}
	}
	if err := b.purgeExpiredCodes(ctx, id); err != nil {
		return err
	}
	if !r.Share.IsZero() {
		if err := b.kv.Purge(ctx, shareKey(r.Share)); err != nil {
			return fmt.Errorf("natsstore: deleting bowler %s's share: %w", id, err)
		}
	}
	if err := b.eraseKey(ctx, id); err != nil {
		return err
	}
	if err := b.stream.Purge(ctx, jetstream.WithPurgeSubject("$KV."+BowlersBucket+"."+"g."+string(id)+".>")); err != nil {
		return fmt.Errorf("natsstore: deleting bowler %s's games: %w", id, err)
	}
	b.forget(id)
	if err := b.kv.Purge(ctx, recordKey(id)); err != nil {
		return fmt.Errorf("natsstore: deleting bowler %s: %w", id, err)
	}
	return nil
}

// tombTTL is how long a deleted bowler's tombstone is kept: longer than
// a lane that linked a seat to them stays open (a league night's lane,
// its week open, a few days).
const tombTTL = 30 * 24 * time.Hour

// purgeExpiredCodes purges the entries of id's codes that the record no
// longer lists: it drops a code once expired, while its entry, which
// names the bowler's id, stays until its own time to live. Codes live
// minutes, so their entries are few: Delete reads them all.
func (b *Bowlers) purgeExpiredCodes(ctx context.Context, id bowler.ID) error {
	keys, err := b.kv.ListKeysFiltered(ctx, "c.>")
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("natsstore: deleting bowler %s's expired codes: %w", id, err)
	}
	defer keys.Stop()
	var named []string
	for k := range keys.Keys() {
		e, err := b.kv.Get(ctx, k)
		if err != nil {
			continue // gone by its time to live meanwhile
		}
		var cd code
		if json.Unmarshal(e.Value(), &cd) == nil && cd.ID == id {
			named = append(named, k)
		}
	}
	for _, k := range named {
		if err := b.kv.Purge(ctx, k); err != nil {
			return fmt.Errorf("natsstore: deleting bowler %s's expired codes: %w", id, err)
		}
	}
	return nil
}

// code is a one-time code as the codes bucket keeps it.
type code struct {
	ID      bowler.ID `json:"id"`
	Expires time.Time `json:"expires"`
}

// AddCode stores a one-time code for bowler id.
func (b *Bowlers) AddCode(ctx context.Context, id bowler.ID, c, by bowler.KeyHash, expires time.Time) error {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	now := time.Now()
	if _, err := b.change(ctx, id, func(r *bowler.Record) (bool, error) {
		// The expired codes' entries go by their own time to live.
		_, err := r.AddCode(bowler.Code{Hash: c, By: by, Expires: expires}, now)
		return err == nil, err
	}); err != nil {
		return err
	}
	data, _ := json.Marshal(code{id, expires}) // plain values: cannot fail
	if _, err := b.kv.Create(ctx, codeKey(c), data, jetstream.KeyTTL(codeTTL)); err != nil {
		return fmt.Errorf("natsstore: storing a code: %w", err)
	}
	return nil
}

// Redeem uses a code once: its deletion, fenced by its revision, is
// what makes it once.
func (b *Bowlers) Redeem(ctx context.Context, c, key bowler.KeyHash, now time.Time) (*bowler.Record, error) {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	e, err := b.kv.Get(ctx, codeKey(c))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		if _, err := b.kv.Get(ctx, usedKey(c)); err == nil {
			return nil, bowler.ErrCodeUsed
		} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
			return nil, fmt.Errorf("natsstore: reading a code: %w", err)
		}
		return nil, bowler.ErrCode
	case err != nil:
		return nil, fmt.Errorf("natsstore: reading a code: %w", err)
	}
	if err := b.kv.Purge(ctx, codeKey(c), jetstream.LastRevision(e.Revision())); err != nil {
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || isWrongLast(err) {
			return nil, bowler.ErrCodeUsed // redeemed by another request first
		}
		return nil, fmt.Errorf("natsstore: using a code: %w", err)
	}
	var cd code
	if err := json.Unmarshal(e.Value(), &cd); err != nil || !now.Before(cd.Expires) {
		return nil, bowler.ErrCode
	}
	// The code asked again says it was used, not that it is unknown. The
	// mark only words a later refusal: the code is used whether or not it
	// is written, and a failed write does not fail the device linked now.
	b.kv.Create(ctx, usedKey(c), nil, jetstream.KeyTTL(codeTTL))
	var made bowler.Code
	used := false
	if _, err := b.change(ctx, cd.ID, func(r *bowler.Record) (bool, error) {
		made, used = r.UseCode(c)
		return used, nil
	}); err != nil {
		return nil, err
	}
	if !used {
		return nil, bowler.ErrCode // its maker's key was revoked meanwhile
	}
	return b.addKey(ctx, cd.ID, key, made.By)
}

// isWrongLast reports whether err is JetStream's refusal of a fenced
// write whose expected last sequence was not the subject's.
func isWrongLast(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}

// Share makes share the link to bowler id's page.
func (b *Bowlers) Share(ctx context.Context, id bowler.ID, share bowler.KeyHash) error {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	var old bowler.KeyHash
	if _, err := b.change(ctx, id, func(r *bowler.Record) (bool, error) {
		old, r.Share = r.Share, share
		return true, nil
	}); err != nil {
		return err
	}
	if !old.IsZero() && old != share {
		if err := b.kv.Purge(ctx, shareKey(old)); err != nil {
			return fmt.Errorf("natsstore: revoking bowler %s's share: %w", id, err)
		}
	}
	if !share.IsZero() {
		if _, err := b.kv.Put(ctx, shareKey(share), []byte(id)); err != nil {
			return fmt.Errorf("natsstore: storing bowler %s's share: %w", id, err)
		}
	}
	return nil
}

// Shared returns the bowler share links to.
func (b *Bowlers) Shared(ctx context.Context, share bowler.KeyHash) (*bowler.Record, error) {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	if share.IsZero() {
		return nil, bowler.ErrUnknown
	}
	id, err := b.id(ctx, shareKey(share))
	if err != nil {
		return nil, err
	}
	r, _, err := b.get(ctx, id)
	if err == nil && r.Share != share {
		err = bowler.ErrUnknown
	}
	return r, err
}
