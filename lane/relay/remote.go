package relay

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/protocol"
)

// Attach attaches to l, on the lane's node, a connection of a relay of
// another node: conn carries what the lane sends that connection alone to
// its relay ([Relay.Deliver]), and pub publishes each board once for all
// the relays of the lane's connections on other nodes ([Relay.Board]); a
// nil pub publishes nothing. The session decodes
// what the relay forwards ([Decode]) before the lane goroutine sees it.
//
// Boards published and what conn carries travel apart, and a published
// board may be lost, so conn is sent a board of its own twice: the first,
// which the relay waits for before it shows the connection any board
// published (its newest may be older than one its client saw elsewhere),
// and the board a reply follows, unless conn was sent that one already.
// Then the relay hands on what conn carries in the order it comes: an ack
// never reaches a client before the board it acknowledges. Every other
// board is left to the publication. It reports false if the lane has
// stopped.
//
// The lane does not count the connection (its relay's node does), nor
// closes it when it stops: whoever attached it does ([lane.Lane.AfterStop]).
func Attach(ctx context.Context, l *lane.Lane, conn lane.Conn, pub *Publication) (lane.Session, bool) {
	c, ok := l.AttachRemote(ctx, &remoteConn{conn: conn, pub: pub})
	if !ok {
		return nil, false
	}
	return remote{c}, true
}

// remote is the session of a relayed connection on the lane's node.
type remote struct{ *lane.Client }

// Read decodes what the relay forwarded, on the caller's goroutine, and
// hands it to the lane.
func (r remote) Read(ctx context.Context, data []byte) bool {
	m, k, err := Decode(data)
	return r.ReadRequest(ctx, m, k, err)
}

// remoteConn is a relayed connection as its lane sees it: see Attach.
type remoteConn struct {
	conn lane.Conn
	pub  *Publication

	mu      sync.Mutex
	started bool   // conn was sent its first board
	sent    uint64 // the seq of the newest board sent on conn itself
	board   []byte // the newest board the lane gave, for a reply to follow
	seq     uint64 // and its seq
}

func (r *remoteConn) Board(board []byte, seq uint64) (skipped int) {
	r.pub.board(board, seq)
	r.mu.Lock()
	defer r.mu.Unlock()
	if seq > r.seq {
		r.board, r.seq = board, seq
	}
	if r.started {
		return 0 // its node relays the board published for all
	}
	r.started, r.sent = true, seq
	return r.conn.Board(board, seq)
}

func (r *remoteConn) Reply(msg []byte, seq uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sent < seq && r.seq == seq {
		r.started, r.sent = true, seq
		r.conn.Board(r.board, seq)
	}
	r.conn.Reply(msg, seq)
}

func (r *remoteConn) Close(code protocol.Code, reason string) { r.conn.Close(code, reason) }

// encodeReply encodes a message to one client.
func encodeReply(msg any) []byte {
	data, err := json.Marshal(msg)
	if err != nil {
		panic(fmt.Sprintf("relay: encoding a reply: %v", err)) // only plain values: cannot fail
	}
	return data
}

// boardTo gives conn a board: to write at once if now and it can (see
// [lane.BoardWriter]), else to queue.
func boardTo(conn lane.Conn, board []byte, seq uint64, now bool) (skipped int) {
	if w, ok := conn.(lane.BoardWriter); ok && now {
		return w.WriteBoard(board, seq, nil)
	}
	return conn.Board(board, seq)
}
