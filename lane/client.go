package lane

import (
	"context"
	"log/slog"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/protocol"
)

// Conn is a client's connection as a lane sees it, whatever carries it: a
// WebSocket of this server (package lane/ws), or one of another node of a
// cluster, which relays to it ([Lane.AttachRemote], lane/relay). A lane
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
// writes each board so to its first clients (see DirectBoards): for a
// lane of a dozen, that spares waking a writer goroutine for each board.
// A reply, if not nil, follows the board as Reply would queue it, in the
// same write: the bowler's ack goes with the board of its ball.
type BoardWriter interface {
	Conn
	WriteBoard(board []byte, seq uint64, reply []byte) (skipped int)
}

// Endpoint is what a transport serves a connection to: a [Lane], or a
// relay of a lane that another node runs (lane/relay).
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

	// Owned by the lane goroutine.
	seat bowling.Name // "" for a spectator
}

// local is the session of a connection of this server ([Lane.Attach]):
// the lane's client, counted among the server's connections while it is
// attached, and closed when the lane stops.
type local struct {
	*Client
	unwatch func() bool // stops closing the connection when the lane stops
}

// Attach attaches a connection of this server to the lane: see
// [Endpoint]. The lane sends it the board at once.
func (l *Lane) Attach(ctx context.Context, conn Conn) (Session, bool) {
	c := &Client{l: l, conn: conn}
	if !l.submit(ctx, request{op: opAttach, c: c}) {
		return nil, false
	}
	return l.watch(c), true
}

// watch counts c among the server's connections until it detaches, and
// closes its connection when the lane stops, if c's attach was still in
// the inbox then (at once if the lane has stopped already).
// context.AfterFunc on the lane's own context costs no goroutine.
func (l *Lane) watch(c *Client) *local {
	l.cfg.Metrics.Connections.Add(1)
	conn := c.conn
	return &local{Client: c, unwatch: context.AfterFunc(l.stopped, func() { conn.Close(protocol.CodeLaneClosed, protocol.CodeLaneClosed.CloseText()) })}
}

// Detach tells the lane the client's connection is over.
func (s *local) Detach() {
	s.unwatch()
	s.l.cfg.Metrics.Connections.Add(-1)
	s.Client.Detach()
}

// AttachRemote attaches a client whose connection is served elsewhere: by
// another node of a cluster, which relays the lane to it (lane/relay).
// The lane treats it as any other client. What differs is its
// transport's, not the lane's: the connection is counted by the node that
// serves it, not here, and closed by whoever attached it when the lane
// stops ([Lane.AfterStop]). Its conn is given every board, as any
// client's is, and sends its node what that node's relay needs (see
// lane/relay). What the client sends reaches the lane through
// [Client.ReadRequest], decoded by its relay's protocol, the secrets of a
// join or a resume as hashes: the lane welcomes the client with the hash
// where the token goes, for the relay to put the token back, so no seat's
// token nor host key crosses between the nodes. It reports false if the
// lane has stopped.
func (l *Lane) AttachRemote(ctx context.Context, conn Conn) (*Client, bool) {
	c := &Client{l: l, conn: conn}
	if !l.submit(ctx, request{op: opAttach, c: c}) {
		return nil, false
	}
	return c, true
}

// Logger returns the lane's logger, which names the lane.
func (l *Lane) Logger() *slog.Logger { return l.log }

// Read hands the lane a message the client sent, as its connection read
// it: the lane goroutine decodes it. Its transport (or node) has applied
// the connection's rate limit. It reports false if the lane has stopped
// or ctx ended first.
func (c *Client) Read(ctx context.Context, data []byte) bool {
	return c.l.submit(ctx, request{op: opRead, c: c, data: data})
}

// ReadRequest hands the lane a message decoded already, with the secrets
// of a join, a resume or a give: their hashes, and the token its welcome
// carries (see [Secrets]). If err is not nil the message did not decode,
// and the lane refuses m's id with err. It reports false if the lane has
// stopped or ctx ended first.
func (c *Client) ReadRequest(ctx context.Context, m protocol.Request, k *Secrets, err error) bool {
	if err != nil {
		return c.l.submit(ctx, request{op: opRead, c: c, msg: &protocol.Request{ID: m.ID}, refusal: err})
	}
	return c.l.submit(ctx, request{op: opMessage, c: c, msg: &m, k: k})
}

// Refuse has the lane refuse a message its transport refused already:
// see [Session].
func (c *Client) Refuse(ctx context.Context, data []byte, why error) bool {
	return c.l.submit(ctx, request{op: opRead, c: c, data: data, refusal: why})
}

// Detach tells the lane the client's connection is over.
func (c *Client) Detach() {
	c.l.submit(context.Background(), request{op: opDetach, c: c})
}
