package lane

import (
	"context"

	"github.com/coder/websocket"
)

// Sink carries what a lane sends one of its clients that is connected to
// another node of a cluster: the client's own node delivers it (see
// [Relay]). Its methods are called on the lane goroutine and must not
// block.
type Sink interface {
	// Send sends the client a message. seq is the seq of the lane's board
	// when it was sent: the client's node holds a message back until it
	// has relayed that board or a later one, so that an ack never
	// reaches a client before the board it acknowledges. board says the
	// message is the board itself, sent to a client that just arrived or
	// asked for it again ([Remote.Refresh]).
	Send(msg []byte, seq uint64, board bool)
	// Close closes the client's connection with status and reason once
	// what was sent before has been written.
	Close(status websocket.StatusCode, reason string)
}

// Remote is a client of a lane that is connected to another node: the
// lane counts it, seats it and answers it like any other, through its
// [Sink], but sends it no boards of its own: those are published once for
// every node ([Config.Publish]).
type Remote struct {
	l *Lane
	c *client
}

// AttachRemote attaches a client connected to another node, as
// [Lane.Serve] attaches a local connection. It reports false if the lane
// has stopped.
func (l *Lane) AttachRemote(ctx context.Context, sink Sink) (*Remote, bool) {
	c := &client{sink: sink}
	if !l.submit(ctx, request{op: opAttach, c: c}) {
		return nil, false
	}
	return &Remote{l: l, c: c}, true
}

// Read hands the lane a message the client sent, as its connection read
// it. Its node has applied the connection's rate limit. It reports false
// if the lane has stopped or ctx ended first.
func (r *Remote) Read(ctx context.Context, data []byte) bool {
	return r.l.submit(ctx, request{op: opRead, c: r.c, data: data})
}

// Refresh sends the client the lane's current board through its sink: for
// a node that holds back a message for a board that did not come (boards
// between nodes may be lost).
func (r *Remote) Refresh(ctx context.Context) bool {
	return r.l.submit(ctx, request{op: opRefresh, c: r.c})
}

// Detach tells the lane the client's connection is over.
func (r *Remote) Detach() {
	r.l.submit(context.Background(), request{op: opDetach, c: r.c})
}
