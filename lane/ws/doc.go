// Package ws is the WebSocket transport of a lane: it accepts a client's
// connection ([Accept]), attaches it to a [lane.Endpoint] (a lane, or a
// relay of a lane another node runs) and serves it ([Serve]) until either
// side ends it. A [Conn] is the [lane.Conn] the lane sends to.
//
// # A connection's goroutines
//
// Each connection has one goroutine for good: its reader, which reads the
// client's messages, applies the connection's rate limit and hands them
// to the endpoint undecoded (the lane goroutine decodes them, so that a
// reader keeps a small stack for as long as its connection lasts).
// Writing happens on a writer goroutine started when something is queued
// for an idle connection, which drains the outbox and exits, and pings
// run on a timer. A connection at rest so costs a reader's stack and a
// few small buffers: the server holds many of them. A failed write or a
// missed pong closes the connection, which ends the reader, and the
// connection detaches.
//
// # Fan-out never blocks the lane
//
// The lane encodes each board once and hands the same bytes to every
// connection ([Conn.Board]), which appends them to its outbox: a slice
// under the connection's own mutex, held only to append or to take, never
// across a write. A writer sends everything it took in one system call
// (its frames gathered in a pooled buffer, see batchConn), under a write
// deadline. A client that falls behind has its older boards dropped
// (boards are full snapshots, the newest is all it needs); a client that
// stops reading altogether is dropped when a write to it times out.
// Replies meant for one client (welcome, ack, error) are never dropped; a
// client that lets too many pile up is disconnected.
//
// The connection goes under coder/websocket's public API in two places,
// the hijacked connection's buffers and the batching of its writes, and
// the contract tests fence both against the version go.mod pins.
package ws
