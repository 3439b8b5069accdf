// Package natsstore keeps tenpin's lanes, and what outlives them, in NATS
// JetStream: the [Journal] of every lane's events (a [game.Journal]), the
// [Archive] of closed lanes' sheets, the [Bowlers] remembered and their
// games, and the [Leagues]. It stores on the connection that
// lobby/natsconn opens — the server embedded in the process, alone or in
// a cluster of the nodes' servers, or NATS at a URL — and knows nothing
// of the cluster of nodes (lobby/natscluster) that may share it.
//
// # Its parts
//
//   - The journal (journal.go): [Open] makes the stream of lanes, and
//     [Journal.Append] appends behind the lane's fence; publish.go sends
//     an append without the jetstream package's costs; read.go reads a
//     lane back, or every lane at once.
//   - Its health (health.go): [Journal.Check], and on an embedded server
//     alone a probe every few seconds that restarts JetStream when the
//     store stops taking writes.
//   - The lease (lease.go) on a stream at a URL that one tenpin server
//     uses alone.
//   - Key-value buckets (archive.go, bowlers.go, leagues.go), as many
//     copies as the stream.
//
// # Layout
//
// One stream, [StreamName], holds every lane, one subject a lane:
// [SubjectPrefix] followed by the lane's id, which must therefore be a
// single subject token (no '.', '*', '>' or white space). A lane's
// positions are the stream's sequence numbers. One stream rather than one
// a lane because a stream costs memory, goroutines and start-up time of its
// own, and in a cluster a raft group of its own.
//
// # Appends
//
// An append is a publish that JetStream refuses unless the lane's subject
// ends at the sequence the caller expects: that is the fence between two
// servers that both believe they own a lane. Each append carries a message
// id, a hash of the lane, the expected position and the event, so that
// when its answer is lost and the store says "wrong last sequence" (or
// "duplicate"), reading the lane's last message tells whether that message
// is ours: then the append is in, otherwise the lane moved on and the
// append fails with [game.ErrConflict]. The stream remembers an id for its
// duplicates window (10 s, or five times an append's timeout), across
// purges: an append of the same event after the same position to a lane
// whose messages were all purged in the meantime is a new one, stored
// under an id with a suffix of its own.
//
// # Compaction
//
// A [game.Snapshot] is a message like any other: no subject rollup, which
// would purge the lane's subject, scanning every message stored since the
// lane's first (all lanes' messages interleave). [Journal.Compact] purges
// the stream up to a sequence instead, of every lane at once: the blocks
// below it are removed whole. [Journal.Last] is the stream's last
// sequence, which JetStream keeps after a purge, even of every message,
// and across restarts: positions never go back. A read that runs into a
// compaction returns what the stream holds after it.
//
// # Durability
//
// An acknowledged append is in the server's files. The embedded server
// fsyncs them every natsconn.Config.SyncInterval (1 s by default, not
// NATS's own 2 minutes), or after every write with SyncAlways. An
// acknowledged event survives the process being killed; a power failure
// can lose at least the events of the last interval.
package natsstore
