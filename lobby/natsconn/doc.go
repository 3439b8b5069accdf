// Package natsconn opens NATS for tenpin: the server embedded in the
// process, alone or routed to the other nodes' into a cluster, or a
// connection to an external NATS server or cluster. The store
// (lobby/natsstore) keeps the lanes in its JetStream and the cluster
// (lobby/natspeers) joins the nodes over its core messaging; both take
// the one [Conn] a node opens, and neither reaches into the other.
//
// # Its parts
//
//   - [Open] and [Conn] (conn.go): the settings, the connection, and its
//     close, which stops the embedded server and releases its directory.
//   - The embedded server (server.go): its options, its log passed to
//     slog with its warnings rate-limited, and the cluster's routes.
//   - The data directory's lock (lock_unix.go, lock_other.go).
//   - Trust between nodes (secret.go): the cluster secret, and the route
//     password and TLS derived from it or given by the operator.
//   - Waiting for NATS (wait.go): [Conn.Take] creates a connection, a
//     stream or a bucket, and tries again while a cluster forms and
//     elects its leaders.
//
// # The data directory
//
// Two processes that embed a server on the same directory would both
// acknowledge writes and corrupt each other's files, so [Open] takes an
// exclusive lock on a file in the directory (flock) and fails with
// [ErrLocked] if another process holds it. [Conn.Close] releases it, and
// so does the end of the process, however it ends.
//
// # Durability
//
// The embedded server fsyncs its files every [Config.SyncInterval] (1 s
// by default, not NATS's own 2 minutes), or after every write with
// [Config.SyncAlways]. What it acknowledged survives the process being
// killed; a power failure can lose at least the writes of the last
// interval.
//
// # Trust between nodes
//
// The embedded servers of a cluster route to each other only with the
// cluster secret ([Config.Secret], read by [LoadSecret]): each route
// authenticates with a password derived from it, over TLS 1.3 with
// certificates of an authority derived from it too (or the operator's,
// [LoadRouteTLS]). A server without the secret is refused at the TLS
// handshake and logged; so it never hears the nodes' subjects, and is in
// no node's list. [Open] refuses a cluster address other machines can
// reach without a secret ([ErrNoSecret]).
package natsconn
