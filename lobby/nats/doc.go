// Package nats is the [Journal] of lanes in JetStream and its lease, and
// the [Cluster] of nodes that share it — membership and heartbeats, where
// each lane runs, boards and commands relayed between nodes — both on a
// connection that lobby/natsconn opens.
//
// # The journal
//
// [Open] opens a [game.Journal] in NATS JetStream on a natsconn.Conn: by
// default a NATS server embedded in the process and storing in a data
// directory, or an external NATS server or cluster.
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
// An acknowledged append is in the server's files: see lobby/natsconn
// for how often the embedded server syncs them, and for the data
// directory's lock and the trust between the nodes' servers.
//
// # The cluster
//
// [Cluster] joins the lobbies of several tenpin nodes through NATS core
// messaging: a [lobby.Cluster]. The nodes share one journal (a [Journal]
// on one NATS cluster); each lane runs on one of them, and the others
// reach it through the cluster:
//
//   - A node that runs a lane listens on tenpin.own.<lane>.<op>.<node>.<conn>
//     for what the other nodes send about it. Requests are answered once:
//     a client of another node attaching (answered when the lane has it),
//     the lane's HTTP views, and a relay's alive (below). No responders
//     there means no node runs the lane: the node that looked takes it
//     over (see lobby.Lobby). What a client sends (read) and its going
//     away (detach) are published, not requests: nothing answers them but
//     the lane. A join or a resume crosses with the SHA-256 of its token
//     and host key in their place, and its welcome back with the hash
//     where the token goes: the relay keeps the token, and puts it back
//     (see lane.Relay). No seat's token nor host key crosses between
//     nodes.
//   - It publishes each board of a lane that has clients elsewhere once,
//     on tenpin.board.<lane>.<seq>; every node with clients of that lane
//     relays it to them (lane.Relay), as a lane sends its own clients
//     theirs: written at once to the first, queued for the others.
//   - What a lane sends one client of another node alone goes to that
//     node on the connection's subject, tenpin.to.<node>.<lane>.<conn>,
//     each message framed with its kind (board, reply, close), its number
//     and the seq of the board it follows. The lane sends a board there
//     before a reply unless it sent that board there already, so the ack
//     of a roll follows its board on one subject from one publisher,
//     which NATS delivers in order: the relay hands each on as it comes,
//     and holds nothing back. (Boards published for all come on another
//     subject and subscription, and may be overtaken: see
//     lane.Relay.Deliver for what the relay does with a board ahead.)
//     A refusal of a read the lane did not take
//     (busy) comes the same way, from the lane's node; a read of a
//     connection the lane does not know closes it (it reconnects).
//   - Every node says it is alive on tenpin.node.<node> every
//     [ClusterConfig.Heartbeat]. A node silent for [ClusterConfig.NodeTimeout] is dead:
//     the lanes it ran close their relays (the clients reconnect, and the
//     node they reach takes the lane over), and its clients leave the
//     lanes they were on.
//   - Every 5 seconds, a relay with connections asks the lane's node
//     (alive) with the seq of the newest board it relayed and its
//     connections: the lane detaches those of its clients on that node
//     that are not listed (their detach was lost), and answers with its
//     board if it is newer. No responders closes the relay: a read is
//     published, and a lane gone from its node would not say so.
//   - A lobby's list asks every node on tenpin.lanes.<node>.
//
// Core NATS delivers at most once. A lost board is repaired by the next
// (boards are whole); for the clients who would not see another, the
// last of a game say, by the answer to the relay's next alive; and for
// the roller, by the board sent before the ack. A lost message to one
// connection (its number skips) closes the connection, which reconnects
// and resumes its seat. Which node may write a lane's log is never
// decided here: the log's fence decides (see lane.Restore).
package nats
