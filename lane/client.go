package lane

import (
	"context"
	"log/slog"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/protocol"
)

// Conn is a client's connection as a lane sees it, whatever carries it: a
// WebSocket of this server (package lane/ws), or one of another node of a
// cluster, which relays to it ([Lane.AttachRemote], [Relay]). A lane
// calls its methods on its own goroutine, a relay under its lock: they
// must not block. They queue what they are given, and the connection
// writes it on a goroutine of its own.
type Conn interface {
	// Board queues a board, seq its seq. A connection whose client fell
	// behind may drop older boards (each is a full snapshot, so the newest
	// is all the client needs): Board returns how many it dropped.
	Board(board []byte, seq uint64) (skipped int)
	// Reply queues a message meant for this client alone: a welcome, an
	// ack, an error. seq is that of the lane's board when it was sent: the
	// client must not get the message before that board. Replies are
	// never dropped; a connection whose client lets too many pile up
	// closes itself.
	Reply(msg []byte, seq uint64)
	// Close closes the connection once what was queued before has been
	// written, saying why: code, the refusal's a client would be sent,
	// and reason, words for a person. The transport maps the code to its
	// own close status (lane/ws: a WebSocket's). Only the first call
	// counts.
	Close(code protocol.Code, reason string)
}

// BoardWriter is a [Conn] that may also write a board itself, on the
// caller's goroutine, when it has nothing else to write and can do so
// without waiting; otherwise it queues the board as Board does. A lane
// writes each board so to its first clients (see directBoards): for a
// lane of a dozen, that spares waking a writer goroutine for each board.
// A reply, if not nil, follows the board as Reply would queue it, in the
// same write: the bowler's ack goes with the board of its ball.
type BoardWriter interface {
	Conn
	WriteBoard(board []byte, seq uint64, reply []byte) (skipped int)
}

// Endpoint is what a transport serves a connection to: a [Lane], or a
// [Relay] of a lane that another node runs.
type Endpoint interface {
	// Attach attaches conn and returns the session through which the
	// transport hands over what the client sends. It reports false if the
	// endpoint has stopped.
	Attach(ctx context.Context, conn Conn) (Session, bool)
	// Logger returns the endpoint's logger, which names its lane.
	Logger() *slog.Logger
}

// Session is a connection attached to an [Endpoint], as its transport
// holds it.
type Session interface {
	// Read hands over a message the client sent, as its connection read
	// it: the lane goroutine decodes it. It reports false if the endpoint
	// has stopped or ctx ended first.
	Read(ctx context.Context, data []byte) bool
	// Refuse answers a message the transport refused itself (over the rate
	// limit, or not text) with why, as a refusal of the message's id.
	Refuse(ctx context.Context, data []byte, why error) bool
	// Detach tells the endpoint the connection is over. It never waits on
	// an endpoint that has stopped.
	Detach()
}

// Client is a connection attached to a lane ([Lane.Attach],
// [Lane.AttachRemote]), and the [Session] its transport hands the lane
// what the client sends through.
type Client struct {
	l    *Lane
	conn Conn
	// relayed says the client is connected to another node: the lane
	// publishes each board once for all that node's clients
	// ([Config.Publish]) instead of queueing it on each connection, and
	// that node counts the connection.
	relayed bool
	// unwatch stops closing a local connection when the lane stops (see
	// Attach).
	unwatch func() bool

	// Owned by the lane goroutine.
	seat bowling.Name // "" for a spectator
	sent uint64       // the seq of the last board queued on conn alone (see reply)
}

// Attach attaches a connection of this server to the lane: see
// [Endpoint]. The lane sends it the board at once.
func (l *Lane) Attach(ctx context.Context, conn Conn) (Session, bool) {
	c := &Client{l: l, conn: conn}
	if !l.submit(ctx, request{op: opAttach, c: c}) {
		return nil, false
	}
	// A lane that stops closes its clients; this closes one whose attach
	// was still in the inbox when it stopped (at once if it has stopped
	// already). context.AfterFunc on the lane's own context costs no
	// goroutine.
	c.unwatch = context.AfterFunc(l.stopped, func() { conn.Close(protocol.CodeLaneClosed, "lane closed") })
	return c, true
}

// AttachRemote attaches a client connected to another node, whose node
// relays to it through conn: the lane counts it, seats it and answers it
// like any other, but queues boards on conn only when it arrives and
// before a reply, each board that conn has not been queued yet; the
// others reach its node through [Config.Publish]. So what conn carries
// comes in the order the client must see it: an ack after the board it
// follows. What the client sends reaches the lane as its relay forwards
// it ([Relay], [Upstream]): a join or a resume with the hashes of its
// token and host key in their place (a join's token is drawn by the
// relay). The lane welcomes conn with the hash where the token goes, for
// the relay to put the token back: no seat's token nor host key crosses
// between the nodes. It reports false if the lane has stopped.
func (l *Lane) AttachRemote(ctx context.Context, conn Conn) (*Client, bool) {
	c := &Client{l: l, conn: conn, relayed: true}
	if !l.submit(ctx, request{op: opAttach, c: c}) {
		return nil, false
	}
	return c, true
}

// Logger returns the lane's logger, which names the lane.
func (l *Lane) Logger() *slog.Logger { return l.log }

// Read hands the lane a message the client sent, as its connection read
// it. Its transport (or node) has applied the connection's rate limit.
// It reports false if the lane has stopped or ctx ended first.
func (c *Client) Read(ctx context.Context, data []byte) bool {
	return c.l.submit(ctx, request{op: opRead, c: c, data: data})
}

// Refuse has the lane refuse a message its transport refused already:
// see [Session].
func (c *Client) Refuse(ctx context.Context, data []byte, why error) bool {
	return c.l.submit(ctx, request{op: opRead, c: c, data: data, refusal: why})
}

// Detach tells the lane the client's connection is over.
func (c *Client) Detach() {
	if c.unwatch != nil {
		c.unwatch()
	}
	c.l.submit(context.Background(), request{op: opDetach, c: c})
}
