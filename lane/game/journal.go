package game

import (
	"context"
	"errors"
)

// ErrConflict is returned by [Journal.Append] when the lane's last stored
// event is not the one the append expected: another writer got there
// first, or an earlier append whose answer was lost did land. Read the
// lane's log again before deciding anything more.
var ErrConflict = errors.New("game: journal: the lane's log moved on")

// ErrStorageFull is returned by a store (a [Journal], and the stores of
// kept nights, bowlers and leagues beside it) that refused a write because
// the budget in bytes of that kind of data is full: nothing was stored,
// and trying again will not help until room is made. The error that wraps
// it says which budget, in words meant for the client. Every store port
// returns this one sentinel, so that the lane and the lobby map it to
// protocol's storage_full in one place.
var ErrStorageFull = errors.New("game: storage full")

// Journal stores the events of lanes, each lane's in order. Positions are
// the journal's own: a lane's grow with each of its appends, and no two
// events have the same one. A journal may spread its lanes over shards,
// each in an order of its own (lobby/natsstore's streams): then the
// positions of two lanes of one shard say which event came first, and
// those of two lanes of different shards do not, for a quiet shard's
// appends get positions below those a busy one gave earlier. With one
// shard, positions grow with every append, across all lanes.
// Implementations are in lobby/memjournal (in memory, one shard) and
// lobby/natsstore (NATS JetStream); they must be safe for concurrent use
// by many lanes, and one lane's append must not wait for another's.
type Journal interface {
	// Append stores e as the next event of lane, whose last stored event
	// is at position last (0: the lane has none yet), and returns e's
	// position. A [Snapshot] is stored like any event: replaying a log
	// from its last snapshot gives the same lane, and [Journal.Compact]
	// drops what came before.
	//
	// Append fails with [ErrConflict] if the lane's last event is not at
	// last, and with [ErrStorageFull] if the lanes' budget has no room
	// for e, changing nothing. Any other error means the store failed or ctx
	// ended: e may or may not have been stored, so read the lane's log
	// before appending again.
	Append(ctx context.Context, lane string, last uint64, e Event) (uint64, error)

	// Read returns the events of lane stored at positions above after (0:
	// all of them), in order. The log's Last is the position of the last
	// of them, or after if there are none.
	Read(ctx context.Context, lane string, after uint64) (Log, error)

	// Lanes returns the logs of every lane stored, ordered by the position
	// of their first stored event, for a server that starts to restore its
	// lanes. A lane with an event that cannot be decoded (written by a
	// later version) comes with Err set and the events before that one,
	// so that one bad log does not keep the others from being restored.
	Lanes(ctx context.Context) ([]Log, error)

	// Last returns a mark of what is stored now, for Compact: at or above
	// the position of every event stored (0 if none ever was), greater
	// after any append, and never lower, not even after Compact or a
	// restart of the store. With one shard it is the position of the last
	// event stored, of any lane.
	Last(ctx context.Context) (uint64, error)

	// Compact drops stored events, of every lane; a lane left with no
	// events is gone from Lanes. Given before = m+1, m a mark that Last
	// returned, it drops every event stored before that call of Last and
	// none appended after it returned. Given a lower before (the mark
	// lowered to a position that a lane still needs), it drops no event
	// at a position at or above before, nor any appended after such a
	// mark, and may keep more than the events below before. A before
	// beyond the last mark plus one drops every event stored when Compact
	// is called. With one shard, Compact(before) drops exactly the events
	// at positions below before.
	// The caller first makes sure that every lane still open has a
	// snapshot stored after the Last it compacts by, or keeps its events
	// from a position it lowers before to. Appends may run while it does.
	Compact(ctx context.Context, before uint64) error
}

// Log is a lane's stored events.
type Log struct {
	Lane   string
	Events []Event
	Last   uint64 // the position of the lane's last stored event; 0 if it has none
	First  uint64 // the position of the first of Events; 0 if none
	Err    error  // set by Journal.Lanes for a log that could not be read whole
}
