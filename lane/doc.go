// Package lane runs one bowling lane: a goroutine that owns the lane's game
// and every client attached to it, and broadcasts the board after every
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
// attach, detach and hand in the messages they read (the lane goroutine
// decodes them), a waiting connection's timer says when its grace is
// over, and the lobby hands in a league secretary's commands
// ([Lane.Secretary]), decided as a client's are; nothing else touches
// that state. A connection's outbox and
// goroutines are its transport's; a relay of the lane on another node
// (lane/relay) keeps its connections under its own lock, and has no
// goroutine.
//
// Clients reach the lane through one small interface, [Conn]: Board
// queues a board, Reply a message for that client alone, Close closes
// it; none may block. The lane neither knows nor asks what carries a
// client. A WebSocket of this server is a lane/ws.Conn, which the lane
// attaches with [Lane.Attach]; a client of another node of a cluster is
// attached with [Lane.AttachRemote] (by lane/relay's Attach), its Conn
// carrying what the lane sends it to that node. The lane never tells
// the two apart: each is given every board, and each reply after the
// board it follows. What a relayed client is sent on its own way, and
// what is published once for the relays of every node, is its Conn's
// business (see lane/relay); that its node counts it and closes it is
// its transport's.
//
// # A roll's path
//
// On the lane's node: the client's WebSocket reader (lane/ws, one
// goroutine a connection) reads the roll, applies the connection's rate
// limit and hands the bytes to the lane's inbox through the connection's
// [Session] (a [Client]). The lane goroutine decodes it, decides it
// (lane/game), stores the event in the journal and applies it, builds
// the board and encodes it once, and hands the same bytes to every
// client's Conn (a relayed client's publishes it for its node); then it
// replies the ack to the roller. A lane/ws.Conn with nothing queued
// writes the board at once, on the lane goroutine, if its socket takes
// it without waiting (for a lane's first 128 clients, see
// [BoardWriter]); otherwise it queues what it is handed in
// its outbox, and a writer goroutine, started only while something is
// queued, writes the outbox out in one system call.
//
// Across nodes: a client whose lane runs on another node is served by a
// relay of the lane on its own node (lane/relay), the [Endpoint] its
// WebSocket is attached to in the lane's stead, which forwards the roll
// to the lane's node, where it reaches the lane as any roll does. When
// the lane's node dies, a node that relayed it takes the lane over and
// hands the relay's connections to it ([Lane.HandIn]): no connection is
// closed. The whole story is in lane/relay's documentation.
//
// # Fan-out never blocks the lane
//
// After every change the lane builds one board, encodes it once, and
// hands the same bytes to every client: a Conn queues them and returns.
// A client that falls behind has its older boards dropped (boards are
// full snapshots, the newest is all it needs), one that stops reading is
// closed by its transport, and replies (welcome, ack, error) are never
// dropped: a client that lets too many pile up is closed. See lane/ws
// for how a WebSocket does it.
//
// # Events and the journal
//
// A lane's game is decided and applied by package lane/game: each command
// is decided into an event, stored in the lane's journal ([Config.Journal])
// and only then applied, shown on the board and acknowledged. If the
// journal does not take it within [AppendTimeout], nothing changes and the
// client is told unavailable (storage_full if the lanes' budget is full:
// [game.ErrStorageFull]). One append per lane is in flight: the lane
// goroutine waits for its own appends, never for another lane's.
// [Lane.Snapshot] stores the whole lane as one event, so that the journal
// can drop what came before (the lobby compacts the journal that way).
//
// [Open] stores a new lane's opening; [Restore] rebuilds a lane from its
// log and claims it with a new epoch, the high half of every board's seq,
// so that seq never goes back for a client across a restart. A lane whose
// server was found paused ([Config.Wakes]) claims it again the same way
// before it decides anything or shows a board: a read of the log may come
// from a store that was paused too, and only a fenced append tells the
// lane that no other server took it over meanwhile. Connections,
// the connected flags and the count of spectators are transport, kept
// beside the state and never stored. Seats are resumed with tokens whose
// SHA-256 alone is stored, and alone crosses between nodes: a relay sends
// the lane a join's or a resume's hashes, never the token or the host
// key.
//
// # A lane's tenure
//
// Whether a lane may decide a command (store its event) and whether it may
// show a board is up to its tenure: one state of six, which the lane
// goroutine changes on what its appends, its reads of the log and its
// server's pauses tell it. The lane asks it before it decides and before
// it shows a board; [Lane.Board] asks it too, on other goroutines, for a
// relay must not be shown a board that another server may have
// overtaken, and so does [Lane.Unsure], for the lobby, which answers
// nothing of the lane (its board, its series) while the lane may not
// show its board. A game a lane reads back as over goes into its
// bowlers' histories only once the lane may decide again: a woken lane's
// waits for its claim, and the board that shows it. One line of the
// table is one transition, named for its event:
//
//	state      decide  show  event     when                                   next
//	holding    yes     yes   lose      an append had no answer                behind
//	                         wake      its server was found paused            woken
//	                                   (Config.Wakes), or Lane.Wake
//	behind     no      yes   caughtUp  it read its log back                   holding
//	                         fail      it could not                           behind, reading again after a pause
//	                         wake                                             woken, reading at once
//	woken      no      no    caughtUp  it read its log back                   unclaimed
//	                         fail      it could not                           woken, reading again after a pause
//	                         wake                                             woken, reading at once
//	unclaimed  no      no    claim     it sends a claim of the next epoch     claiming
//	                         lose, fail, wake                                 woken
//	claiming   no      no    took      the claim is stored                    holding, in the claim's epoch
//	                         caughtUp  the log holds the claim                holding, in the claim's epoch
//	                         caughtUp  the log holds no claim since its epoch unclaimed
//	                         lose      the claim had no answer                claiming
//	                         fail      it could not read its log back         claiming, reading again after a pause
//	                         wake                                             claiming, reading at once
//	any                      caughtUp  the log holds a later claim than the   moved
//	                                   lane's epoch, not the one it is claiming
//	moved      no      no                                                     the lane stops: ErrMoved
//
// An event the table does not list for a state leaves the tenure as it
// is. A lane behind reads its log back at its next message, as it must
// before it decides; a woken, unclaimed or claiming one also tries again
// on its own, after a pause, as its clients may all have gone to the
// server that took the lane over. Once it has taken the lane up again,
// the lane shows the first board of its new epoch, and the acks it held
// meanwhile: an ack names the seq of the first board that shows its
// command. Lanes kept in memory alone ([New]) are always holding.
//
// # Lifetime
//
// Run returns when its context ends (the server is shutting down: every
// client is closed with status 1001), when nobody has been connected for
// the idle timeout while no game is in play (or the abandon timeout while
// one is) and no game waits to go into its bowlers' histories, or when
// handling a command panicked: the panic is recovered and
// logged with the lane's id, the lane's clients are told and closed with
// status 1011, and every other lane goes on. A league night's lane does
// not close for idleness while its league says its week is open, or does
// not answer ([LeagueNight.WeekOpen]): it asks again an idle timeout
// later. Its log stays open, so that a restart or another node brings it
// back; the lobby reopens one that panicked.
package lane
