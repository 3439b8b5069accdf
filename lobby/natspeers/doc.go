// Package natspeers is the [Cluster] that joins the lobbies of several
// tenpin nodes through NATS core messaging: a [peers.Cluster]. It talks
// over the connection that lobby/natsconn opens, and knows nothing of
// the store the nodes share (lobby/natsstore) but its fence.
//
// # Its parts
//
//   - Membership and heartbeats (cluster.go, members.go): [Cluster.Run]
//     says this node is alive, hears the others, asks a silent one before
//     taking it for dead, and has the lobby adopt a dead node's lanes;
//     the leader's compaction asks every node for snapshots, and a
//     lobby's list asks every node for its lanes.
//   - Ownership (owner.go): a lane this node runs answers the other
//     nodes about it, and sends what it has for their clients.
//   - Relays (relay.go): the lanes of other nodes that this node has
//     clients of, their boards and their clients' messages.
//
// Every goroutine the cluster starts — the relays' board handlers, a
// ping of a silent node, a lane told its relay's connections, a client
// detached, the lanes adopted or verified, snapshots asked by another
// node — belongs to [Cluster.Run], which waits for them all before it
// returns; none is started before Run, nor once it is returning.
//
// # How the nodes talk
//
// The nodes share one journal (lobby/natsstore, on one NATS cluster);
// each lane runs on one of them, and the others reach it through the
// cluster:
//
//   - A node that runs a lane listens on tenpin.own.<lane>.<op>.<node>.<conn>
//     for what the other nodes send about it. Requests are answered once:
//     a client of another node attaching (answered when the lane has it),
//     the lane's HTTP views, a league secretary's command on a league
//     night's lane (checked by the asking node, answered with the lane's
//     board once stored or the lane's refusal), and a relay's alive
//     (below). No responders
//     there means no node runs the lane: the node that looked takes it
//     over (see lobby.Lobby). What a client sends (read) and its going
//     away (detach) are published, not requests: nothing answers them but
//     the lane. A read carries a reply subject all the same,
//     tenpin.unread.<node>.<lane>, for NATS alone: when no node listens
//     for the lane it says so there (no responders), and the relay starts
//     the take-over below at once. A join or a resume crosses with the SHA-256 of its token
//     and host key in their place, and its welcome back with the hash
//     where the token goes: the relay keeps the token, and puts it back
//     (see relay.Relay). No seat's token nor host key crosses between
//     nodes.
//   - It publishes each board of a lane that has clients elsewhere once,
//     on tenpin.board.<lane>.<seq>; every node with clients of that lane
//     relays it to them (relay.Relay), as a lane sends its own clients
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
//     relay.Relay.Deliver for what the relay does with a board ahead.)
//     A refusal of a read the lane did not take
//     (busy) comes the same way, from the lane's node; a read of a
//     connection the lane does not know closes it (it reconnects).
//   - Every node says it is alive on tenpin.node.<node> every
//     [Config.Heartbeat]. A node silent for [Config.NodeTimeout] is
//     pinged on tenpin.ping.<node>, and if it does not answer it is dead,
//     and its clients leave the lanes they were on. A lane it ran that
//     this node relays to clients is taken over here, from the log
//     (peers.Lanes.TakeOver, the claim a client's find makes), and the
//     relay hands its connections to the lane (relay.Relay.HandOver): they
//     are not closed, their seats are resumed, and the messages the dead
//     node left unanswered are read again. Several nodes may try at once:
//     the log's fence lets one in, and the others' relays follow the lane
//     to it (relay.Relay.Follow: each connection attached there again,
//     its seat resumed with its token's hash, its unanswered messages
//     forwarded again). A relay closes, and its clients reconnect, only
//     if neither works (the store stays unavailable for 20 s, or the
//     node that claimed the lane never answers for it). A connection that
//     attaches while no node answers for the lane starts the same
//     take-over at once, before the heartbeats tell. Where each node stands (heard, asked, not
//     answering, dead) is one state a node, in members.go.
//   - A node that claimed a lane says so once it has claimed it, on
//     tenpin.held.<lane> (its name the body), whatever had it claim the
//     lane (a client's find, a view of the lane, a relay's take-over):
//     its own relay of the lane hands its connections over to it, and
//     the other nodes' relays of the lane follow it there, at once
//     rather than at their heartbeats' verdict on the lane's old node.
//     A relay so told asks where the lane runs (the take-over above),
//     rather than trusting the announcement: the log's fence alone
//     decides who runs a lane, and a later claim may have overtaken it.
//     A lost announcement leaves the relay to the heartbeats, or its
//     alive, as before.
//   - Every 5 seconds, a relay with connections asks the lane's node
//     (alive) with the seq of the newest board it relayed and its
//     connections: the lane detaches those of its clients on that node
//     that are not listed (their detach was lost), and answers with its
//     board if it is newer. No responders starts the take-over above,
//     for a relay whose clients send nothing.
//   - A lobby's list asks every node on tenpin.lanes.<node>.
//
// Core NATS delivers at most once. A lost board is repaired by the next
// (boards are whole); for the clients who would not see another, the
// last of a game say, by the answer to the relay's next alive; and for
// the roller, by the board sent before the ack. A lost message to one
// connection (its number skips) closes the connection, which reconnects
// and resumes its seat. Which node may write a lane's log is never
// decided here: the log's fence decides (see lane.Restore).
//
// # A lane's tenure, from here
//
// A lane's tenure is one state of six, changed by the events of one
// table, in package lane's documentation ("A lane's tenure"). Of those
// events the cluster causes two, and decides none:
//
//   - wake: a node that finds it was paused past the others' patience,
//     or is heard again after the others took it for dead, wakes its
//     lanes ([Lanes.Wake]): each reads its log back before it decides
//     or shows anything again (woken), for another node may have taken
//     it over meanwhile.
//   - claim: a node that takes over a dead node's lane, or a woken lane
//     nobody else claimed, restores it from the log and appends a claim
//     of the next epoch (claiming, then took or moved): the store's
//     fence lets one claim of an epoch in, and a lane that finds a later
//     claim than its own epoch in its log has moved, and stops.
package natspeers
