// Package ws is the WebSocket transport of a lane: it accepts a client's
// connection ([Accept]), attaches it to a [lane.Endpoint] (a lane, or a
// relay of a lane another node runs) and serves it ([Serve]) until either
// side ends it. A [Conn] is the [lane.Conn] the lane sends to.
//
// A connection turned away before it reaches a lane (its address holds
// its limit) is refused here too ([Refuse]): upgraded, sent the error and
// closed, within [RefuseTimeout]. What a closed connection is told, its
// close status and reason, comes from its refusal's protocol code alone
// ([Closing], [Status]): the one place where a code meets a close.
//
// # A connection's goroutines
//
// A connection at rest holds no goroutine. Its reader reads the client's
// messages while they come, applies the connection's rate limit and hands
// them to the endpoint undecoded (the lane goroutine decodes them), then
// exits; on Linux its server's [Poller] waits on epoll for every
// connection at rest and starts a reader when its client sends something,
// or hangs up. Writing happens on a writer started when something is
// queued for an idle connection, which drains the outbox and exits.
// Readers and writers of sockets run on the poller's few kept workers,
// whose stacks have grown already. Pings are queued on a timer.
//
// The client's pongs are taken out of the stream below the WebSocket
// library (see read.go): the library would handle a pong inside a read
// and wait there for the next message, keeping a spectator's reader, who
// answers pings and sends nothing else, parked for good. The server so
// writes its pings itself, as two bytes between the writer's messages.
// A client that pings the server itself (browsers do not) keeps its
// reader waiting after each ping, as the library answers it inside a
// read and reads on. Elsewhere than Linux, and for connections that are
// not sockets, the reader waits in a read for as long as the connection
// lasts.
//
// A failed write or a missed pong closes the connection, which ends the
// reader (one is started to end a connection closed at rest), and the
// connection detaches.
//
// # Who owns the poller and the workers
//
// Nothing here is the process's: a [Poller] (its epoll instance, the
// goroutine waiting on it and its workers) is a value its server makes
// with [NewPoller], gives its connections in [Config].Poller, and runs:
// lobby/server's Server runs its own while it runs, and stops it once its
// lobby's connections have closed; two servers in one process have two.
// [Poller.Run] returns only when the poller's goroutines have ended. If
// epoll fails, Run returns the error rather than panic: the poller closes
// the connections it served (their clients reconnect), and its server
// decides what to do (lobby/server logs it and serves on without it).
// Connections with no poller, or started after it stopped, are served as
// where there is no epoll: a reader waits in a read for each.
//
// # Fan-out never blocks the lane
//
// The lane encodes each board once and hands the same bytes to every
// connection ([Conn.Board]), which appends them to its outbox: a slice
// under the connection's own mutex, held only to append or to take, never
// across a write. A writer sends everything it took in one system call
// (its frames, which it frames itself, gathered in a pooled buffer, see
// batchConn), under a write deadline. To a connection with nothing
// queued and no writer running, a lane writes the board itself
// ([Conn.WriteBoard]), and to the bowler the ack of the ball after it: one
// write that does not wait, on the lane's goroutine; what the socket does
// not take then waits for a writer, ahead of anything written after it.
// A client that falls behind has its older boards dropped
// (boards are full snapshots, the newest is all it needs); a client that
// stops reading altogether is dropped when a write to it times out.
// Replies meant for one client (welcome, ack, error) are never dropped; a
// client that lets too many pile up is disconnected.
//
// The connection goes under coder/websocket's public API in four places,
// the hijacked connection's buffers, the batching of its writes, the
// frames of its messages and the pongs it reads and pings it writes
// itself; the contract tests and the
// ping tests (pings every few milliseconds while boards flow) fence them
// against the version go.mod pins.
package ws
