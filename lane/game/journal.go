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

// Journal stores the events of lanes, each lane's in order. Positions are
// the journal's own: they grow with every append, across all lanes, so a
// lane's positions increase but need not be consecutive. Implementations
// are in lobby/memjournal (in memory) and lobby/natsstore (NATS
// JetStream); they must be safe for concurrent use by many lanes, and one
// lane's append must not wait for another's.
type Journal interface {
	// Append stores e as the next event of lane, whose last stored event
	// is at position last (0: the lane has none yet), and returns e's
	// position. A [Snapshot] is stored like any event: replaying a log
	// from its last snapshot gives the same lane, and [Journal.Compact]
	// drops what came before.
	//
	// Append fails with [ErrConflict] if the lane's last event is not at
	// last, changing nothing. Any other error means the store failed or ctx
	// ended: e may or may not have been stored, so read the lane's log
	// before appending again.
	Append(ctx context.Context, lane string, last uint64, e Event) (uint64, error)

	// Read returns the events of lane stored after position after (0: all
	// of them), in order. The log's Last is the position of the last of
	// them, or after if there are none.
	Read(ctx context.Context, lane string, after uint64) (Log, error)

	// Lanes returns the logs of every lane stored, ordered by the position
	// of their first stored event, for a server that starts to restore its
	// lanes. A lane with an event that cannot be decoded (written by a
	// later version) comes with Err set and the events before that one,
	// so that one bad log does not keep the others from being restored.
	Lanes(ctx context.Context) ([]Log, error)

	// Last returns the position of the last event stored, of any lane (0
	// if none ever was). Positions never go back, not even after Compact
	// or a restart of the store.
	Last(ctx context.Context) (uint64, error)

	// Compact drops every event stored at a position below before, of
	// every lane; a lane left with no events is gone from Lanes. The
	// caller first makes sure that every lane still open has a snapshot at
	// or after before. Appends may run while it does.
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
