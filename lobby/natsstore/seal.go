package natsstore

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tenpin/tenpin/lane/bowler"
)

// A bowler's values that hold personal data — the record and each game —
// are sealed with AES-256-GCM under a data key of the bowler's own, kept
// in a stream apart, once. Deleting the bowler erases that one message
// with JetStream's secure delete (its bytes overwritten with random
// ones): every sealed revision of the record and every game, wherever
// JetStream's files still hold them, is noise from then on. Superseded
// and purged messages are only marked deleted in JetStream's block files
// until the block is compacted, which may be never, and a secure delete
// reaches only a message still stored, so nothing less would do.
//
// The keys cannot live in the bowlers' bucket: a key-value bucket's
// stream denies message deletes (nats.go makes it with DenyDelete, and
// the server refuses to lift that, v2.15.2), and a purge leaves the
// bytes in place.
//
// On a replicated stream the key is also in the raft log of the stream's
// group, which the secure delete does not reach. JetStream snapshots a
// group every 2–3 minutes and then compacts its log, which drops whole
// blocks of 4 MB; the head of a block is rewritten away only once the
// block holds over 2 MB, half of it dropped (nats-server v2.15.2,
// jetstream_cluster.go monitorStream, filestore.go compact; read, not
// measured). On a quiet store the key's bytes may so stay in the log's
// files until thousands of later keys have been written.

// sealV1 starts a sealed value: the nonce follows, then the ciphertext
// and its tag. No JSON text starts with it, so a value written plain
// before values were sealed ('{') is told apart.
const sealV1 = 0x01

// dataKeySize is a data key's size: AES-256.
const dataKeySize = 32

// maxKeys bounds the data keys a store remembers, as maxWritten bounds
// the records: the bowlers read or written lately. An AES-GCM cipher
// takes about a kilobyte.
const maxKeys = 4096

// errNoKey: a bowler with no data key (deleted, or stored before values
// were sealed and not written since).
var errNoKey = errors.New("natsstore: the bowler has no data key")

// keysStream creates the stream of the bowlers' data keys, or brings its
// settings up to date: as many copies as the lanes' stream, message
// deletes allowed, within a quarter of the bowlers' budget more. A key
// takes 161 bytes of the stream, a bowler who never bowled 832 of the
// bucket (its record and key entry): the bucket fills first.
func (j *Journal) keysStream(ctx context.Context) (jetstream.Stream, error) {
	ctx, cancel := context.WithTimeout(ctx, j.conn.TakeWait())
	defer cancel()
	cfg := jetstream.StreamConfig{
		Name:        BowlerKeysStream,
		Description: "tenpin: the bowlers' data keys, a subject a bowler, erased when the bowler is deleted",
		Subjects:    []string{BowlerKeyPrefix + "*"},
		Storage:     jetstream.FileStorage,
		Replicas:    j.cfg.Replicas,
		MaxBytes:    j.bowlers.maxBytes(4),
		Discard:     jetstream.DiscardNew,
		// No direct gets: a key is read from the leader, so that a key
		// just made on another node is never missed on a stale follower
		// (a record sealed under it would read as deleted). Keys are
		// cached, so reads are few.
		AllowDirect: false,
	}
	var s jetstream.Stream
	err := j.conn.Take(ctx, "stream "+cfg.Name, func(ctx context.Context) (err error) {
		ctx, cancel := context.WithTimeout(ctx, max(j.cfg.Timeout, 5*time.Second))
		defer cancel()
		s, err = j.js.CreateOrUpdateStream(ctx, cfg)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("natsstore: create or update stream %s: %w", cfg.Name, err)
	}
	checkFull(&j.bowlers, s.CachedInfo())
	return s, nil
}

func dataKeySubject(id bowler.ID) string { return BowlerKeyPrefix + string(id) }

// dataKey returns bowler id's data key as a cipher, and whether it was
// cached. Without one it returns errNoKey, or with create makes one: the
// first of two makers wins, the other reads it.
func (b *Bowlers) dataKey(ctx context.Context, id bowler.ID, create bool) (aead cipher.AEAD, cached bool, err error) {
	b.mu.Lock()
	aead, ok := b.keys[id]
	b.mu.Unlock()
	if ok {
		return aead, true, nil
	}
	key, err := b.readKey(ctx, id)
	if errors.Is(err, errNoKey) && create {
		key, err = b.makeKey(ctx, id)
	}
	if err != nil {
		return nil, false, err
	}
	if aead, err = newAEAD(key); err != nil {
		return nil, false, fmt.Errorf("natsstore: bowler %s's data key: %w", id, err)
	}
	b.mu.Lock()
	if b.keys == nil || len(b.keys) >= maxKeys {
		b.keys = make(map[bowler.ID]cipher.AEAD)
	}
	b.keys[id] = aead
	b.mu.Unlock()
	return aead, false, nil
}

// readKey reads bowler id's data key from the store, or errNoKey.
func (b *Bowlers) readKey(ctx context.Context, id bowler.ID) ([]byte, error) {
	m, err := b.keyStream.GetLastMsgForSubject(ctx, dataKeySubject(id))
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return nil, errNoKey
	case err != nil:
		return nil, fmt.Errorf("natsstore: reading bowler %s's data key: %w", id, err)
	case len(m.Data) != dataKeySize:
		return nil, fmt.Errorf("natsstore: bowler %s's data key is %d bytes, want %d", id, len(m.Data), dataKeySize)
	}
	return m.Data, nil
}

// makeKey stores a new data key for bowler id, unless it has one (made
// meanwhile by another node): then it returns that one.
func (b *Bowlers) makeKey(ctx context.Context, id bowler.ID) ([]byte, error) {
	key := make([]byte, dataKeySize)
	rand.Read(key) // never fails (crypto/rand)
	_, err := b.js.Publish(ctx, dataKeySubject(id), key, jetstream.WithExpectLastSequencePerSubject(0))
	if isWrongLast(err) {
		return b.readKey(ctx, id)
	}
	if err := b.budget.note(err); err != nil {
		return nil, fmt.Errorf("natsstore: storing bowler %s's data key: %w", id, err)
	}
	return key, nil
}

// eraseKey erases bowler id's data key for good: its message overwritten
// in JetStream's files with random bytes, on every replica.
func (b *Bowlers) eraseKey(ctx context.Context, id bowler.ID) error {
	defer b.forgetKey(id)
	m, err := b.keyStream.GetLastMsgForSubject(ctx, dataKeySubject(id))
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return nil // never had one, or erased already
	case err != nil:
		return fmt.Errorf("natsstore: reading bowler %s's data key: %w", id, err)
	}
	if err := b.keyStream.SecureDeleteMsg(ctx, m.Sequence); err != nil {
		return fmt.Errorf("natsstore: erasing bowler %s's data key: %w", id, err)
	}
	return nil
}

func (b *Bowlers) forgetKey(id bowler.ID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.keys, id)
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	// The standard library's GCM keeps no state between calls: one
	// cipher serves every goroutine.
	return cipher.NewGCM(block)
}

// seal seals value v of entry k (e.g. "b.ID") of bowler id under its data
// key. The entry's name is the additional data: a value moved to another
// entry does not open. It makes no key: a bowler without one was
// deleted meanwhile (bowler.ErrUnknown), unless stored before values
// were sealed, whose key change makes when it reads the plain record.
func (b *Bowlers) seal(ctx context.Context, id bowler.ID, k string, v []byte) ([]byte, error) {
	aead, _, err := b.dataKey(ctx, id, false)
	if errors.Is(err, errNoKey) {
		return nil, bowler.ErrUnknown
	}
	if err != nil {
		return nil, err
	}
	ns := aead.NonceSize()
	out := make([]byte, 1+ns, 1+ns+len(v)+aead.Overhead())
	out[0] = sealV1
	rand.Read(out[1:]) // never fails (crypto/rand)
	return aead.Seal(out, out[1:], v, []byte(k)), nil
}

// isPlain reports whether v was written plain, before values were sealed:
// a JSON object.
func isPlain(v []byte) bool { return len(v) > 0 && v[0] == '{' }

// open returns value v of entry k of bowler id as it was before it was
// sealed; a plain value (written before values were sealed) as it is. A
// sealed value whose data key is gone reads as bowler.ErrUnknown: the
// bowler was deleted meanwhile.
func (b *Bowlers) open(ctx context.Context, id bowler.ID, k string, v []byte) ([]byte, error) {
	if isPlain(v) {
		return v, nil
	}
	if len(v) == 0 || v[0] != sealV1 {
		return nil, fmt.Errorf("natsstore: %s: a value neither sealed nor JSON (%d bytes)", k, len(v))
	}
	for fresh := false; ; fresh = true {
		aead, cached, err := b.dataKey(ctx, id, false)
		if errors.Is(err, errNoKey) {
			return nil, bowler.ErrUnknown
		}
		if err != nil {
			return nil, err
		}
		ns := aead.NonceSize()
		if len(v) < 1+ns+aead.Overhead() {
			return nil, fmt.Errorf("natsstore: %s: a sealed value of %d bytes, too short", k, len(v))
		}
		plain, err := aead.Open(nil, v[1:1+ns], v[1+ns:], []byte(k))
		if err == nil {
			return plain, nil
		}
		if cached && !fresh {
			// A key cached before the bowler was deleted and made again:
			// read the store's.
			b.forgetKey(id)
			continue
		}
		return nil, fmt.Errorf("natsstore: %s does not open under bowler %s's data key (sealed for another entry, or damaged): %w", k, id, err)
	}
}
