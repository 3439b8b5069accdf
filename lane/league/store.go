package league

import (
	"context"
	"crypto/sha256"
	"errors"
	"time"
)

// Errors of a Store.
var (
	// ErrNotFound: no league of that id.
	ErrNotFound = errors.New("league: no such league")
	// ErrConflict: an append after other records than the caller read:
	// another writer got there first; load the league again and decide
	// again.
	ErrConflict = errors.New("league: changed meanwhile")
	// ErrExists: a league created under an id already taken.
	ErrExists = errors.New("league: id taken")
)

// KeyHash is the SHA-256 of a secretary's key: all a store keeps of it.
type KeyHash [sha256.Size]byte

// HashKey returns the hash a store keeps of a secretary's key.
func HashKey(key string) KeyHash { return sha256.Sum256([]byte(key)) }

// Record is an event as a store keeps it: the league's history says who
// changed what, and when.
type Record struct {
	Event Event
	At    time.Time // when, to the second, in UTC
	// By says who: "secretary", or "lane LANEID" for a score a lane's
	// game sent.
	By string
	// Lanes are the lanes an Opened night's matches bowl on, by their
	// ids, in the order of the week's schedule; none for other kinds. The
	// league does not need them (Apply ignores them): the night's page
	// and QR codes do.
	Lanes []string
}

// Stored is a league as a store holds it: its settings, its secretary's
// key's hash, when it was made, and its records, oldest first.
type Stored struct {
	ID        string
	Settings  Settings
	Secretary KeyHash
	Created   time.Time
	Records   []Record
}

// Store keeps leagues: each its settings and its log of records. The
// league's domain stays pure; implementations live beside the lanes'
// journals (lobby/memjournal, lobby/natsstore). All methods are safe for
// concurrent use.
type Store interface {
	// Create stores a new league with no records; ErrExists if the id is
	// taken.
	Create(ctx context.Context, l Stored) error
	// Load returns the league of id; ErrNotFound if there is none.
	Load(ctx context.Context, id string) (Stored, error)
	// Append adds r after the league's first n records, if it has exactly
	// n: otherwise ErrConflict, and nothing changes. ErrNotFound if there
	// is no such league.
	Append(ctx context.Context, id string, n int, r Record) error
}
