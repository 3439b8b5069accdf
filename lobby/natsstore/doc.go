// Package natsstore keeps tenpin's lanes, and what outlives them, in NATS
// JetStream: the [Journal] of every lane's events (a [game.Journal]), the
// [Archive] of closed lanes' sheets, the [Bowlers] remembered and their
// games, and the [Leagues]. It stores on the connection that
// lobby/natsconn opens — the server embedded in the process, alone or in
// a cluster of the nodes' servers, or NATS at a URL — and knows nothing
// of the cluster of nodes (lobby/natspeers) that may share it.
//
// # Its parts
//
//   - The journal (journal.go): [Open] makes the streams of lanes, and
//     [Journal.Append] appends behind the lane's fence; shard.go spreads
//     the lanes over the streams and their leaders over the servers;
//     publish.go sends an append without the jetstream package's costs;
//     read.go reads a lane back, or every lane at once.
//   - Its health (health.go): [Journal.Check], and on an embedded server
//     alone a probe every few seconds that restarts JetStream when the
//     store stops taking writes.
//   - The lease (lease.go) on a stream at a URL that one tenpin server
//     uses alone.
//   - Key-value buckets (archive.go, bowlers.go, leagues.go), as many
//     copies as the stream, and the stream of the bowlers' data keys
//     (seal.go).
//   - The budgets (budget.go): [Config.Budgets] bounds in bytes the
//     lanes' streams and each bucket, with the discard-new policy; a
//     write past one fails with [game.ErrStorageFull], and
//     [Journal.Full] names the full ones.
//
// # Layout
//
// The lanes are spread over [Config.Shards] streams, one subject a lane:
// shard 0's stream is [StreamName], its subjects [SubjectPrefix] followed
// by the lane's id (which must therefore be a single subject token: no
// '.', '*', '>' or white space); shard k's is StreamName_k, its subjects
// tenpin.shard.k.lane.<id>. A lane's shard is a hash of its id modulo the
// count, which the store keeps in shard 0's metadata from the day it is
// made: a journal opened with another count would look for lanes in the
// wrong streams, and is refused ([ErrShards]). A store made before there
// were shards is one shard of one.
//
// One stream for every lane would be cheapest — a stream costs memory,
// goroutines and start-up time of its own, and in a cluster a raft group
// of its own — but then the death of the server that leads it stalls
// every lane for the 4–9 s its followers take to elect another. With a
// stream led by each server, one death stalls only the lanes of the
// streams it led. JetStream picks a new stream's leader at random, so
// [Open] asks a server that leads two streams more than another to hand
// one over (spreadLeaders), and the journal looks again every minute or
// so: after a failover the survivors lead the dead server's streams, and
// once it is back one is handed to it.
//
// A lane's position is its stream sequence times the count of shards,
// plus its shard: it grows with the lane's appends and names one event,
// and with one shard it is the stream sequence itself.
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
// # A lane's tenure, from here
//
// A lane's tenure is one state of six, changed by the events of one
// table, in package lane's documentation ("A lane's tenure"). Of those
// events the store's answers give three, and the fence above decides
// who holds a lane:
//
//   - lose: an append with no answer (a timeout, a leader electing): the
//     event may be in, so the lane is behind, and reads its log back
//     before it decides again.
//   - caughtUp or fail: that read back, done or not. A log that holds a
//     claim of a later epoch than the lane's (appended by another
//     server, behind the fence) says it moved.
//   - took: the claim of a lane taken over, stored behind the fence.
//
// [game.ErrConflict] is the fence's refusal: another server appended
// first, and the lane reads its log back to learn who.
//
// # Compaction
//
// A [game.Snapshot] is a message like any other: no subject rollup, which
// would purge the lane's subject, scanning every message stored since the
// lane's first (all lanes' messages interleave). [Journal.Compact] purges
// each stream up to a sequence instead, of every lane at once: the blocks
// below it are removed whole. With one shard, [Journal.Last] is the
// stream's last sequence, which JetStream keeps after a purge, even of
// every message, and across restarts: positions never go back. With
// several, a quiet shard's appends get positions below those a busy one
// gave earlier, so Last returns a mark (see markOf) and the journal
// remembers the sequence each stream stood at when it handed it out:
// Compact(mark+1) purges each stream up to there, and never drops the
// snapshots the lanes stored after Last, whatever their positions. A read
// that runs into a compaction returns what the stream holds after it.
//
// # A bowler's deletion
//
// What a bowler holds of personal data — its name, in its record and in
// each game of its history — is sealed with AES-256-GCM under a data key
// of its own, stored once in [BowlerKeysStream]. [Bowlers.Delete] purges
// the bowler's keys, codes and share, then erases that key with
// JetStream's secure delete (the message overwritten with random bytes,
// on every replica), then purges its games and record. JetStream leaves
// purged and superseded messages in its block files until it compacts
// the blocks, which may be never; sealed, they are noise once the key is
// gone. The key cannot be an entry of the bowlers' bucket: a bucket's
// stream denies message deletes, for good.
//
// What is left: the bowler's id (random) in subject names; on a cluster,
// the key in the keys stream's raft log until JetStream snapshots the
// group and drops the log's block that holds it (see seal.go); for a
// bowler stored before values were sealed, its plain older revisions and
// the games recorded then, until their blocks are compacted; and the
// names as they appeared on the sheets of the nights the bowler bowled,
// in the lanes' logs and the kept nights, which are the lanes' and not
// the bowler's.
//
// # Durability
//
// An acknowledged append is in the server's files. The embedded server
// fsyncs them every natsconn.Config.SyncInterval (1 s by default, not
// NATS's own 2 minutes), or after every write with SyncAlways. An
// acknowledged event survives the process being killed; a power failure
// can lose at least the events of the last interval.
package natsstore
