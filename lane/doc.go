// Package lane runs one bowling lane: a goroutine that owns the lane's game
// and every connection attached to it, and broadcasts the board after every
// change.
//
// # Who owns what
//
// [Lane.Run] is the lane goroutine. It alone reads and writes the lane's
// state (a game.State: the players' games, the seats and their token
// hashes), its position in the journal, seq, the set of attached clients,
// which connection holds each seat, and the connections waiting to resume
// a seat on a lane full of spectators (see [Config.ResumeGrace]).
// Everything else reaches it through one channel, the inbox: connections
// attach, detach and hand in decoded messages, and a waiting connection's
// timer says when its grace is over; nothing else touches that state.
//
// Each WebSocket connection ([Lane.Serve]) has one goroutine for good: a
// reader, which decodes messages (refusing malformed ones itself) and sends
// them to the inbox. Writing happens on a writer goroutine started when
// something is queued for an idle connection, which drains the outbox and
// exits, and pings run on a timer. A connection at rest so costs a reader's
// stack and a few small buffers: the server holds many of them. A failed
// write or a missed pong closes the connection, which ends the reader, and
// the connection detaches.
//
// # Fan-out never blocks the lane
//
// After every change the lane builds one board, encodes it once, and
// appends the same bytes to every client's outbox: a slice under the
// client's own mutex, held only to append or to take, never across a
// write. A writer sends everything it took in one system call (its frames
// gathered in a pooled buffer), under a write deadline. A client that falls
// behind has its older boards dropped (boards are full snapshots, the
// newest is all it needs); a client that stops reading altogether is
// dropped when a write to it times out. Replies meant for one client
// (welcome, ack, error) are never dropped; a client that lets too many
// pile up is disconnected.
//
// # Events and the journal
//
// A lane's game is decided and applied by package lane/game: each command
// is decided into an event, stored in the lane's journal ([Config.Journal])
// and only then applied, shown on the board and acknowledged. If the
// journal does not take it within [AppendTimeout], nothing changes and the
// client is told unavailable. One append per lane is in flight: the lane
// goroutine waits for its own appends, never for another lane's.
// [Lane.Snapshot] stores the whole lane as one event, so that the journal
// can drop what came before (the lobby compacts the journal that way).
//
// [Open] stores a new lane's opening; [Restore] rebuilds a lane from its
// log and claims it with a new epoch, the high half of every board's seq,
// so that seq never goes back for a client across a restart. Connections,
// the connected flags and the count of spectators are transport, kept
// beside the state and never stored. Seats are resumed with tokens whose
// SHA-256 alone is stored.
//
// # Lifetime
//
// Run returns when its context ends (the server is shutting down: every
// client is closed with status 1001), when nobody has been connected for
// the idle timeout while no game is in play (or the abandon timeout while
// one is), or when handling a command panicked: the panic is recovered and
// logged with the lane's id, the lane's clients are told and closed with
// status 1011, and every other lane goes on.
package lane
