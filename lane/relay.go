package lane

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/protocol"
)

// Upstream carries a relay's traffic to the node that runs its lane, where
// each of the relay's connections is a client of the lane
// ([Lane.AttachRemote]). A
// relay numbers its connections; conn is that number, never used twice by
// one process. An error means the lane's node did not take the message:
// one wrapping [ErrBusy] refuses that message alone, one wrapping
// [ErrConnGone] closes that connection alone, and any other closes the
// relay: its clients reconnect and find the lane where it runs now.
type Upstream interface {
	// Attach attaches connection conn to the lane.
	Attach(ctx context.Context, conn uint64) error
	// Read hands the lane a message connection conn sent.
	Read(ctx context.Context, conn uint64, data []byte) error
	// Refresh asks the lane to send connection conn its board again.
	Refresh(ctx context.Context, conn uint64) error
	// Detach tells the lane connection conn is over.
	Detach(conn uint64)
}

// Errors of an [Upstream].
var (
	// ErrBusy: the lane's node runs it, but the lane did not take the
	// message in time. The client is told to try again.
	ErrBusy = errors.New("lane: the lane is busy")
	// ErrConnGone: the lane does not know the connection (any more). It
	// is closed, to reconnect.
	ErrConnGone = errors.New("lane: connection unknown to the lane")
)

// relayConns numbers the connections of every relay of the process. It
// starts at a random place: a node restarted under the same name must
// not reuse the numbers of the connections its lanes' nodes may still
// count as its clients.
var relayConns atomic.Uint64

func init() { relayConns.Store(rand.Uint64() >> 16) }

// maxHeld bounds the messages a relay holds for one connection while it
// waits for a board: past it, the connection is closed, to reconnect. A
// client's transport bounds the replies that wait for it alike.
const maxHeld = 64

// holdTimeout is how long a relay holds a message back for the board it
// follows before it asks the lane for the board again: boards between
// nodes travel at most once, and one may be lost.
const holdTimeout = time.Second

// Relay serves the local connections of a lane that runs on another node
// of a cluster: an [Endpoint], as the lane is on its own node. It forwards
// what they send to the lane ([Upstream]), and fans out each board the
// lane publishes once ([Relay.Board]) to all of them, each through its
// [Conn] as a lane's own connections are sent theirs. A
// connection's own messages ([Relay.Deliver]) reach it only after a board
// at least as new as the lane's when it sent them: an ack never arrives
// before the board it acknowledges.
//
// A relay is safe for concurrent use: its connections' readers call the
// upstream themselves, and it keeps no goroutine of its own.
type Relay struct {
	id      string
	up      Upstream
	cfg     Config
	log     *slog.Logger
	stopped context.Context
	stop    context.CancelFunc

	mu     sync.Mutex
	conns  map[uint64]*relayed
	seq    uint64 // the newest board relayed
	board  []byte // and its bytes
	closed bool
}

// relayed is one connection of a relay, and its [Session].
type relayed struct {
	r     *Relay
	id    uint64
	conn  Conn
	seen  uint64      // the seq of the newest board sent to it
	held  []heldMsg   // messages waiting for a board at least as new as theirs
	timer *time.Timer // asks for the board again when a message waits too long
	armed bool        // timer runs
}

type heldMsg struct {
	data []byte
	seq  uint64
}

// NewRelay returns a relay of lane id whose traffic goes through up. Of
// cfg it reads the logger, the metrics and AppendTimeout, which bounds a
// request to the lane's node for a board.
func NewRelay(id string, up Upstream, cfg Config) *Relay {
	cfg = cfg.withDefaults()
	r := &Relay{
		id:    id,
		up:    up,
		cfg:   cfg,
		log:   cfg.Logger.With("lane", id, "relay", true),
		conns: make(map[uint64]*relayed),
	}
	r.stopped, r.stop = context.WithCancel(context.Background())
	return r
}

// ID returns the lane's id.
func (r *Relay) ID() string { return r.id }

// Done is closed once the relay has closed ([Relay.Close]).
func (r *Relay) Done() <-chan struct{} { return r.stopped.Done() }

// Len returns how many connections the relay serves.
func (r *Relay) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.conns)
}

// Conns returns the numbers of the relay's connections (see Upstream).
func (r *Relay) Conns() []uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]uint64, 0, len(r.conns))
	for id := range r.conns {
		out = append(out, id)
	}
	return out
}

// Logger returns the relay's logger, which names its lane.
func (r *Relay) Logger() *slog.Logger { return r.log }

// Attach attaches a connection to the relay, and through it to the lane:
// see [Endpoint]. A relay that has closed refuses it: find the lane again.
func (r *Relay) Attach(ctx context.Context, conn Conn) (Session, bool) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, false
	}
	rc := &relayed{r: r, id: relayConns.Add(1), conn: conn}
	r.conns[rc.id] = rc
	r.mu.Unlock()
	r.cfg.Metrics.Connections.Add(1)
	if err := r.up.Attach(ctx, rc.id); err != nil {
		r.failed(rc.id, nil, err)
	}
	return rc, true
}

// attached reports whether rc is still one of the relay's connections,
// and the relay open.
func (rc *relayed) attached() bool {
	rc.r.mu.Lock()
	defer rc.r.mu.Unlock()
	return !rc.r.closed && rc.r.conns[rc.id] == rc
}

// Read forwards a message the client sent to the lane.
func (rc *relayed) Read(ctx context.Context, data []byte) bool {
	if !rc.attached() {
		return false
	}
	if err := rc.r.up.Read(ctx, rc.id, data); err != nil {
		rc.r.failed(rc.id, data, err)
	}
	return true
}

// Refuse answers a message the transport refused, here: the lane never
// hears of it.
func (rc *relayed) Refuse(ctx context.Context, data []byte, why error) bool {
	if !rc.attached() {
		return false
	}
	msg, _ := protocol.Decode(data)
	pe, _ := ErrorFor(why) // a transport's refusals are *protocol.Error
	pe.Ref = msg.ID
	rc.r.Deliver(rc.id, encodeReply(pe), 0, false)
	return true
}

// Detach takes the connection out of the relay, and tells the lane.
func (rc *relayed) Detach() {
	r := rc.r
	r.mu.Lock()
	ok := r.conns[rc.id] == rc
	if ok {
		r.forget(rc.id)
	}
	r.mu.Unlock()
	if ok {
		r.cfg.Metrics.Connections.Add(-1)
		r.up.Detach(rc.id)
	}
}

// forget takes connection id out of the relay. r.mu is held.
func (r *Relay) forget(id uint64) {
	rc := r.conns[id]
	if rc.timer != nil {
		rc.timer.Stop()
	}
	delete(r.conns, id)
}

// failed handles a failed request of connection id to the lane: see
// Upstream. data is the message it carried, if any.
func (r *Relay) failed(id uint64, data []byte, err error) {
	switch {
	case errors.Is(err, ErrBusy):
		msg, _ := protocol.Decode(data)
		pe := protocol.Errorf(protocol.CodeUnavailable, "the lane is busy; nothing changed, try again")
		pe.Ref = msg.ID
		r.Deliver(id, encodeReply(pe), 0, false)
	case errors.Is(err, ErrConnGone):
		r.log.Info("the lane does not know a connection", "err", err)
		r.Drop(id, websocket.StatusGoingAway, "the lane lost this connection: reconnect, your seat is kept")
	default:
		r.lost(err)
	}
}

// lost closes the relay after its upstream failed: the lane's node is
// gone or no longer runs it.
func (r *Relay) lost(err error) {
	r.log.Info("relay lost its lane", "err", err)
	r.Close(protocol.CodeServerRestarting, "the lane's server went away: reconnect, your seat is kept")
}

// Board relays a board the lane published, with its seq: every connection
// not sent it yet gets it, and then what was held for it. An older board
// than one relayed already (boards may cross) is dropped.
func (r *Relay) Board(board []byte, seq uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if seq <= r.seq {
		return
	}
	r.seq, r.board = seq, board
	for _, rc := range r.conns {
		r.catchUp(rc)
	}
}

// catchUp sends a connection the newest board if it has not had it, then
// the messages that waited for it. r.mu is held.
func (r *Relay) catchUp(rc *relayed) {
	if rc.seen < r.seq {
		rc.seen = r.seq
		if n := rc.conn.Board(r.board, r.seq); n > 0 {
			r.cfg.Metrics.BoardsSkipped.Add(int64(n))
		}
		r.cfg.Metrics.BoardsSent.Add(1)
	}
	i := 0
	for ; i < len(rc.held) && rc.held[i].seq <= rc.seen; i++ {
		rc.conn.Reply(rc.held[i].data, rc.held[i].seq)
	}
	rc.held = rc.held[:copy(rc.held, rc.held[i:])]
	if len(rc.held) == 0 && rc.timer != nil {
		rc.timer.Stop()
		rc.armed = false
	}
}

// Deliver delivers a message the lane sent connection conn alone: a board
// (see [Lane.AttachRemote]), which counts as the lane's newest if it is, or a message
// held until the connection has been sent a board of at least seq.
func (r *Relay) Deliver(conn uint64, msg []byte, seq uint64, board bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rc := r.conns[conn]
	if rc == nil {
		return
	}
	if board {
		if seq > r.seq {
			r.seq, r.board = seq, msg
			for _, other := range r.conns {
				r.catchUp(other)
			}
			return
		}
		r.catchUp(rc)
		return
	}
	if len(rc.held) >= maxHeld {
		r.flush(rc)
		rc.conn.Close(websocket.StatusPolicyViolation, "too many unread replies")
		return
	}
	rc.held = append(rc.held, heldMsg{data: msg, seq: seq})
	r.catchUp(rc)
	r.arm(rc)
}

// arm starts the clock on a connection's held messages, unless it runs
// already: messages held one after another do not put the refresh off.
// r.mu is held.
func (r *Relay) arm(rc *relayed) {
	if len(rc.held) == 0 || rc.armed {
		return
	}
	rc.armed = true
	if rc.timer == nil {
		conn := rc.id
		rc.timer = time.AfterFunc(holdTimeout, func() { r.refresh(conn) })
	} else {
		rc.timer.Reset(holdTimeout)
	}
}

// refresh asks the lane for the board a held message waits for.
func (r *Relay) refresh(conn uint64) {
	r.mu.Lock()
	rc := r.conns[conn]
	waiting := rc != nil && len(rc.held) > 0
	if rc != nil {
		rc.armed = false
	}
	r.mu.Unlock()
	if !waiting {
		return
	}
	ctx, cancel := context.WithTimeout(r.stopped, r.cfg.AppendTimeout)
	defer cancel()
	if err := r.up.Refresh(ctx, conn); err != nil {
		r.failed(conn, nil, err)
		return
	}
	// If this board is lost too, ask again.
	r.mu.Lock()
	if rc := r.conns[conn]; rc != nil {
		r.arm(rc)
	}
	r.mu.Unlock()
}

// Drop closes connection conn as the lane asked, after what it was sent
// and what is held for it.
func (r *Relay) Drop(conn uint64, status websocket.StatusCode, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rc := r.conns[conn]; rc != nil {
		r.flush(rc)
		rc.conn.Close(status, reason)
	}
}

// flush sends a connection what is held for it, the board it waits for
// having not come. r.mu is held.
func (r *Relay) flush(rc *relayed) {
	for _, m := range rc.held {
		rc.conn.Reply(m.data, m.seq)
	}
	rc.held = nil
}

// Close closes the relay: every connection is told why, with code, and
// closed so that it reconnects. Later connections are refused.
func (r *Relay) Close(code protocol.Code, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	notice := encodeReply(protocol.Errorf(code, "%s", why))
	for _, rc := range r.conns {
		r.flush(rc)
		rc.conn.Reply(notice, r.seq)
		rc.conn.Close(websocket.StatusGoingAway, why)
		if rc.timer != nil {
			rc.timer.Stop()
		}
	}
	r.stop()
}
