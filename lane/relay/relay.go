package relay

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/protocol"
)

// Upstream carries a relay's traffic to the node that runs its lane, where
// each of the relay's connections is a client of the lane ([Attach]). A relay numbers its connections; conn is that
// number, never used twice by one process. What the lane sends a
// connection comes back through [Relay.Deliver], each message once, in
// the order the lane sent it. An error means the lane's node did not take
// the message: one wrapping [ErrBusy] refuses that message alone, one
// wrapping [ErrConnGone] closes that connection alone, one wrapping
// [ErrTakingOver] keeps the connection for what the relay's node does
// next ([Relay.HandOver], [Relay.Follow] or [Relay.Close]), and any other
// closes the relay: its clients reconnect and find the lane where it runs
// now.
type Upstream interface {
	// Attach attaches connection conn to the lane.
	Attach(ctx context.Context, conn uint64) error
	// Read hands the lane a message connection conn sent, as the relay
	// forwards it: a join's, a resume's or a give's secrets hashed (see
	// [Attach]). It does not wait for the lane: the lane's answer, or the
	// refusal of its node, comes through Deliver.
	Read(ctx context.Context, conn uint64, data []byte) error
	// Detach tells the lane connection conn is over.
	Detach(conn uint64)
}

// Errors of an [Upstream].
var (
	// ErrBusy: the lane's node runs it, but the lane did not take the
	// message in time. The client is told to try again.
	ErrBusy = errors.New("relay: the lane is busy")
	// ErrConnGone: the lane does not know the connection (any more). It
	// is closed, to reconnect.
	ErrConnGone = errors.New("relay: connection unknown to the lane")
	// ErrTakingOver: no node runs the lane any more, and the relay's node
	// is taking it over, or finding the node that did. The connection
	// waits, attached to the relay alone, to be handed over with the
	// others, or sent away if the relay closes.
	ErrTakingOver = errors.New("relay: the lane's node is gone: it is being taken over")
)

// relayConns numbers the connections of every relay of the process. It
// starts at a random place: a node restarted under the same name must
// not reuse the numbers of the connections its lanes' nodes may still
// count as its clients.
var relayConns atomic.Uint64

func init() { relayConns.Store(rand.Uint64() >> 16) }

// Relay serves the local connections of a lane that runs on another node
// of a cluster: a [lane.Endpoint], as the lane is on its own node. It forwards
// what they send to the lane ([Upstream]), and fans out each board the
// lane publishes once ([Relay.Board]) to all of them, each through its
// [lane.Conn] as a lane's own connections are sent theirs. What the lane
// sends one connection alone ([Relay.Deliver]) it hands on as it comes:
// the lane's node sends a connection of another node the board a reply
// follows before the reply, unless it sent it that board already (see
// [Attach]),
// so an ack never reaches a client before the board it acknowledges, and
// the relay holds nothing back. No seat's token nor host key leaves the
// relay's node: it forwards their hashes, and keeps the tokens for the
// welcomes that answer them (see [Relay.Deliver]).
//
// A relay is safe for concurrent use: its connections' readers call the
// upstream themselves, and it keeps no goroutine of its own.
type Relay struct {
	id      string
	up      Upstream
	metrics *lane.Metrics
	log     *slog.Logger
	stopped context.Context
	stop    context.CancelFunc

	mu     sync.Mutex
	conns  map[uint64]*relayed
	seq    uint64 // the newest board relayed
	board  []byte // and its bytes
	closed bool
	// handing is made when the relay starts handing its connections over
	// to a lane of this node ([Relay.HandOver]), or to the lane's new
	// node ([Relay.Follow]), and closed once it has: what the
	// connections read meanwhile waits, and then goes to their new
	// session, or to the lane's new node. nil but while Follow runs, and
	// from the start of HandOver on.
	handing chan struct{}
}

// relayed is one connection of a relay, and its [Session].
type relayed struct {
	r    *Relay
	id   uint64
	conn lane.Conn
	seen uint64 // the seq of the newest board sent to it
	held []held // the tokens of its joins and resumes not yet welcomed (see hashSecrets)
	// fresh: the lane has not sent the connection its first board yet
	// (see Lane.attach). Until it has, the connection is sent none of the
	// boards published for all: the relay's newest may be older than one
	// the client saw before it reconnected here (from the lane's own node,
	// or a relay ahead of this one), and its seq would go back.
	fresh bool
	// token is the token of the seat the connection's latest welcome
	// gave it, "" for none (or none any more): the seat a handover
	// resumes (see HandOver).
	token string
	// unanswered are the messages forwarded to the lane that no reply
	// has answered yet, oldest first: a handover has the lane that takes
	// the connections read them again, for the lane's node may have died
	// before it answered them, or before it read them.
	unanswered []unanswered
	// to is the lane's client the connection became when the relay
	// handed it over, and the session its reads go to since.
	to lane.Session
	// following: the relay resumed the connection's seat on the lane's
	// new node (see Follow), and its answer has not come.
	following bool
}

// unanswered is a message a relayed connection sent, forwarded and not
// answered yet.
type unanswered struct {
	id   string // the message's, which its answer's ref names
	data []byte // as the client sent it: its secrets in plaintext
	sent []byte // as the relay forwarded it: its secrets hashed
	// token is, for a join, the seat's token the relay drew (see
	// hashSecrets): the seat the lane's node may have stored.
	token string
}

// maxUnanswered bounds the messages a relayed connection keeps for a
// handover: the connection's rate limit keeps well under it what a lane
// that answers leaves unanswered; past it the oldest go (a client that
// sends so many without waiting for answers resends what matters).
const maxUnanswered = 64

// New returns a relay of lane id whose traffic goes through up. Of cfg
// it reads the logger and the metrics.
func New(id string, up Upstream, cfg lane.Config) *Relay {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Metrics == nil {
		cfg.Metrics = new(lane.Metrics)
	}
	r := &Relay{
		id:      id,
		up:      up,
		metrics: cfg.Metrics,
		log:     cfg.Logger.With("lane", id, "relay", true),
		conns:   make(map[uint64]*relayed),
	}
	r.stopped, r.stop = context.WithCancel(context.Background())
	return r
}

// ID returns the lane's id.
func (r *Relay) ID() string { return r.id }

// Done is closed once the relay has closed ([Relay.Close]).
func (r *Relay) Done() <-chan struct{} { return r.stopped.Done() }

// AfterClose arranges to call f in its own goroutine once the relay has
// closed, as [context.AfterFunc] does, with no goroutine waiting
// meanwhile: a node keeps one such for each lane it relays. Calling stop
// cancels the call if it has not started.
func (r *Relay) AfterClose(f func()) (stop func() bool) { return context.AfterFunc(r.stopped, f) }

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
// see [lane.Endpoint]. A relay that has closed refuses it: find the lane again.
func (r *Relay) Attach(ctx context.Context, conn lane.Conn) (lane.Session, bool) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, false
	}
	rc := &relayed{r: r, id: relayConns.Add(1), conn: conn, fresh: true}
	r.conns[rc.id] = rc
	r.mu.Unlock()
	r.metrics.Connections.Add(1)
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

// Read forwards a message the client sent to the lane, its secrets
// hashed (see hashSecrets). One that does not decode is refused here, as
// the lane would refuse it: it may hold a secret where none belongs, and
// is not forwarded.
func (rc *relayed) Read(ctx context.Context, data []byte) bool {
	if s := rc.handedTo(ctx); s != nil {
		return s.Read(ctx, data)
	}
	if !rc.attached() {
		return false
	}
	out, msg, token, err := rc.hashSecrets(data)
	if err != nil {
		rc.r.metrics.Refused.Add(1)
		pe, _ := lane.ErrorFor(err) // protocol.Decode's errors are *protocol.Error
		pe.Ref = msg.ID
		rc.r.Deliver(rc.id, encodeReply(pe), 0, false)
		return true
	}
	for !rc.forwarding(msg.ID, data, out, token) {
		// The relay is handing its connections over, or closed: the
		// message goes where the handover takes the connection.
		if s := rc.handedTo(ctx); s != nil {
			return s.Read(ctx, data)
		}
		if !rc.attached() || ctx.Err() != nil {
			return false
		}
	}
	if err := rc.r.up.Read(ctx, rc.id, out); err != nil {
		rc.r.failed(rc.id, data, err)
	}
	return true
}

// Refuse answers a message the transport refused, here: the lane never
// hears of it.
func (rc *relayed) Refuse(ctx context.Context, data []byte, why error) bool {
	if s := rc.handedTo(ctx); s != nil {
		return s.Refuse(ctx, data, why)
	}
	if !rc.attached() {
		return false
	}
	msg, _ := protocol.Decode(data)
	pe, _ := lane.ErrorFor(why) // a transport's refusals are *protocol.Error
	pe.Ref = msg.ID
	rc.r.Deliver(rc.id, encodeReply(pe), 0, false)
	return true
}

// Detach takes the connection out of the relay, and tells the lane.
func (rc *relayed) Detach() {
	if s := rc.handedTo(context.Background()); s != nil {
		s.Detach()
		return
	}
	r := rc.r
	r.mu.Lock()
	ok := r.conns[rc.id] == rc
	if ok {
		delete(r.conns, rc.id)
	}
	r.mu.Unlock()
	if ok {
		r.metrics.Connections.Add(-1)
		r.up.Detach(rc.id)
	}
}

// forwarding notes a message the connection is about to forward, with
// its id, as unanswered (see HandOver); token is a join's (see
// hashSecrets). It reports false if the relay has closed, or is handing
// its connections over: the message is not to be forwarded.
func (rc *relayed) forwarding(id string, data, sent []byte, token string) bool {
	r := rc.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.handing != nil || r.conns[rc.id] != rc {
		return false
	}
	if id == "" {
		return true // no answer can name it: the client expects none
	}
	if len(rc.unanswered) == maxUnanswered {
		rc.unanswered = slices.Delete(rc.unanswered, 0, 1)
	}
	rc.unanswered = append(rc.unanswered, unanswered{id: id, data: data, sent: sent, token: token})
	return true
}

// errorPrefix are the first bytes of an error, as a lane encodes it.
var errorPrefix = []byte(`{"type":"error",`)

// answered takes the message that msg, a reply to the connection,
// answers out of its unanswered, and forgets the seat's token if msg
// says another connection took the seat. Only the message it names: a
// lane holds the acks of what it stored while it could not show its
// board, and refuses the messages that come meanwhile at once (see
// Lane.changedAcking). r.mu is held.
func (rc *relayed) answered(msg []byte) (ref string) {
	isErr := bytes.HasPrefix(msg, errorPrefix)
	if len(rc.unanswered) == 0 && !isErr && !rc.following {
		return ""
	}
	var a struct {
		Ref  string        `json:"ref"`
		Code protocol.Code `json:"code"`
	}
	if json.Unmarshal(msg, &a) != nil {
		return ""
	}
	if isErr && a.Code == protocol.CodeSeatTakenOver {
		rc.token = ""
	}
	if a.Ref == "" {
		return ""
	}
	if i := slices.IndexFunc(rc.unanswered, func(u unanswered) bool { return u.id == a.Ref }); i >= 0 {
		rc.unanswered = slices.Delete(rc.unanswered, i, i+1)
	}
	if a.Ref == followRef {
		rc.following = false
		if isErr {
			rc.token = "" // the seat is no longer the token's
		}
	}
	return a.Ref
}

// handedTo returns the lane's client the connection became in a
// handover, waiting for one under way (or ctx); nil if it was not handed
// over.
func (rc *relayed) handedTo(ctx context.Context) lane.Session {
	r := rc.r
	r.mu.Lock()
	to, handing := rc.to, r.handing
	r.mu.Unlock()
	if to != nil || handing == nil {
		return to
	}
	select {
	case <-handing:
	case <-ctx.Done():
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return rc.to
}

// HandOver hands the relay's connections over to l, its lane, which this
// node took over from the log once the lane's node was gone: each becomes
// a client of l as one attached to it ([lane.Lane.Attach]) is, and is
// not closed. l resumes the seat the connection's latest welcome gave it, if
// it is still the connection's (a spectator otherwise), sends it its
// board (of the epoch l claimed: a higher seq than any the relay sent),
// and reads again, in the order they were sent, the messages the lane's
// node did not answer: that node may have stored them before it died, or
// never read them, so they are answered as if resent: a roll stored
// already is acknowledged as the ball bowled, one not stored is stored. The token of a
// join not welcomed resumes the seat if it was stored. No token crosses
// between nodes: the relay kept them, and l is this node's.
//
// The relay closes: it takes no more connections, nor relays anything
// more from the lane's old node; its connections' reads go to l once
// each is handed over, and those read meanwhile wait for it. A connection
// l does not take (it stopped) is closed, to reconnect. HandOver reports
// false if the relay had closed already: its connections were sent away.
func (r *Relay) HandOver(ctx context.Context, l *lane.Lane) bool {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return false
	}
	r.closed = true
	handing := make(chan struct{})
	r.handing = handing
	// In the order they came: a seat's connection of two gets it back
	// as it would resuming.
	moving := slices.SortedFunc(maps.Values(r.conns), func(a, b *relayed) int { return cmp.Compare(a.id, b.id) })
	ins := make([]lane.HandIn, len(moving))
	for i, rc := range moving {
		ins[i].Token = rc.token
		for _, u := range rc.unanswered {
			ins[i].Unanswered = append(ins[i].Unanswered, lane.Message{ID: u.id, Data: u.data, Token: u.token})
		}
		rc.unanswered = nil
	}
	clear(r.conns)
	r.mu.Unlock()
	defer func() {
		close(handing)
		r.stop()
	}()
	r.metrics.Connections.Add(-int64(len(moving))) // the lane counts those it takes
	moved := 0
	for i, rc := range moving {
		c, ok := l.HandIn(ctx, rc.conn, ins[i])
		if !ok {
			rc.conn.Reply(encodeReply(protocol.Errorf(protocol.CodeServerRestarting, "%s", protocol.NoticeServerGone)), 0)
			rc.conn.Close(protocol.CodeServerRestarting, protocol.NoticeServerGone)
			continue
		}
		r.mu.Lock()
		rc.to = c
		r.mu.Unlock()
		moved++
	}
	r.log.Info("relay handed its connections over to the lane taken over here", "conns", moved, "closed", len(moving)-moved)
	return true
}

// followRef is the id of the resume a relay sends for a connection it
// attaches again on the lane's new node (see Follow): no client's, for
// the relay answers it itself.
const followRef = "\x00follow"

// Follow has the relay follow its lane to the node that took it over
// once the lane's node was gone, when that node is not this one: its
// upstream reaches the lane's new node now. Each connection is attached
// to the lane there again, not closed: the relay resumes for it the seat
// its latest welcome gave it (the hash of its token crosses, as in any
// resume, and the welcome is not the client's: it is not sent), and
// forwards again, in order, the messages the old node did not answer:
// they are answered as HandOver's are. What the connections read
// meanwhile waits, and follows. If the lane's node does not take a
// connection, the relay closes (its clients reconnect), and Follow
// reports false, as it does for a relay closed already.
func (r *Relay) Follow(ctx context.Context) bool {
	r.mu.Lock()
	if r.closed || r.handing != nil {
		r.mu.Unlock()
		return false
	}
	handing := make(chan struct{})
	r.handing = handing
	conns := slices.SortedFunc(maps.Values(r.conns), func(a, b *relayed) int { return cmp.Compare(a.id, b.id) })
	type resend struct {
		rc         *relayed
		resume     []byte
		unanswered [][]byte
	}
	all := make([]resend, len(conns))
	for i, rc := range conns {
		// As a newcomer: the lane there sends it its first board on
		// attaching, and the relay none before (see Attach).
		rc.fresh = true
		all[i].rc = rc
		if rc.token != "" {
			h := held{hash: hashText(rc.token), token: rc.token}
			if len(rc.held) == maxHeld {
				rc.held = slices.Delete(rc.held, 0, 1)
			}
			rc.held = append(rc.held, h)
			rc.following = true
			all[i].resume = encodeReply(Request{Type: protocol.TypeResume, ID: followRef, Token: h.hash})
		}
		for _, u := range rc.unanswered {
			all[i].unanswered = append(all[i].unanswered, u.sent)
		}
	}
	r.mu.Unlock()
	var err error
	for _, a := range all {
		if err = r.up.Attach(ctx, a.rc.id); err != nil {
			break
		}
		if a.resume != nil {
			err = r.up.Read(ctx, a.rc.id, a.resume)
		}
		for _, data := range a.unanswered {
			if err == nil {
				err = r.up.Read(ctx, a.rc.id, data)
			}
		}
		if err != nil {
			break
		}
	}
	r.mu.Lock()
	r.handing = nil
	r.mu.Unlock()
	close(handing)
	if err != nil {
		r.log.Warn("relay could not follow its lane to its new node", "err", err)
		r.Close(protocol.CodeServerRestarting, protocol.NoticeServerGone)
		return false
	}
	r.log.Info("relay follows its lane to its new node", "conns", len(all))
	return true
}

// failed handles a message of connection id the lane's node did not take:
// see Upstream. data is the message, if any.
func (r *Relay) failed(id uint64, data []byte, err error) {
	switch {
	case errors.Is(err, ErrBusy):
		msg, _ := protocol.Decode(data)
		pe := protocol.RefuseBusy.Error()
		pe.Ref = msg.ID
		r.Deliver(id, encodeReply(pe), 0, false)
	case errors.Is(err, ErrConnGone):
		r.log.Info("the lane does not know a connection", "err", err)
		r.Drop(id, protocol.CodeServerRestarting, protocol.NoticeConnLost)
	case errors.Is(err, ErrTakingOver):
		// Its node goes on: see Upstream.
	default:
		r.lost(err)
	}
}

// lost closes the relay after its upstream failed: the lane's node is
// gone or no longer runs it.
func (r *Relay) lost(err error) {
	r.log.Info("relay lost its lane", "err", err)
	r.Close(protocol.CodeServerRestarting, protocol.NoticeServerGone)
}

// Board relays a board the lane published, with its seq: every connection
// not sent it yet gets it. An older board than one relayed already
// (boards may cross) is dropped, and so is any once the relay has closed.
func (r *Relay) Board(board []byte, seq uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.newest(board, seq, true)
}

// Seq returns the seq of the newest board the relay has relayed.
func (r *Relay) Seq() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// newest makes board the relay's newest, if it is newer, and sends it to
// every connection not sent it yet: written at once to the first of them
// if direct (see [lane.BoardWriter]). Not from Deliver, whose caller may carry
// the replies of many connections besides. r.mu is held.
func (r *Relay) newest(board []byte, seq uint64, direct bool) {
	if seq <= r.seq || r.closed {
		return
	}
	r.seq, r.board = seq, board
	n := 0
	for _, rc := range r.conns {
		if r.catchUp(rc, direct && n < lane.DirectBoards) {
			n++
		}
	}
}

// catchUp sends a connection the newest board if it has not had it (nor
// one newer, sent it alone), written at once if now and it can be (see
// [lane.BoardWriter]), and reports whether it sent it. r.mu is held.
func (r *Relay) catchUp(rc *relayed, now bool) bool {
	if rc.fresh || rc.seen >= r.seq {
		return false
	}
	rc.seen = r.seq
	if n := boardTo(rc.conn, r.board, r.seq, now); n > 0 {
		r.metrics.BoardsSkipped.Add(int64(n))
	}
	return true
}

// Deliver delivers what the lane sent connection conn alone, in the order
// the lane sent it: a board (see [Attach]), or a message, which
// follows the board of seq, sent before it. The message goes to the
// connection at once: its board has been, on its own or as the newest of
// all. A welcome carries the hash of the seat's token, which the relay
// sent the lane: the connection gets it with the token in its place. One
// with a hash the relay does not know (the connection sent more joins
// and resumes at once than the relay keeps) closes the connection: its
// client is never sent a hash for a token.
//
// A board sent one connection may overtake the boards published for all
// on their way here. The board next to the relay's newest is every
// connection's at once (the same board, published, is dropped when it
// comes); a board further ahead is that connection's alone, so that the
// others are not made to skip the boards still on their way.
func (r *Relay) Deliver(conn uint64, msg []byte, seq uint64, board bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rc := r.conns[conn]
	if rc == nil {
		return
	}
	var ref string
	if board {
		rc.fresh = false // its first board: now it follows the newest
	} else {
		ref = rc.answered(msg)
	}
	switch {
	case !board && bytes.HasPrefix(msg, welcomePrefix):
		w, ok := rc.welcome(msg)
		if !ok {
			r.log.Warn("a welcome for a token the relay does not hold", "conn", conn)
			rc.conn.Close(protocol.CodeInternal, protocol.NoticeTokenLost)
			return
		}
		if ref != followRef {
			rc.conn.Reply(w, seq)
		}
	case !board && bytes.HasPrefix(msg, ackPrefix) && bytes.Contains(msg, invitedAck):
		a, ok := rc.invited(msg)
		if !ok {
			r.log.Warn("an invitation the relay did not draw", "conn", conn)
			rc.conn.Close(protocol.CodeInternal, protocol.NoticeInviteLost)
			return
		}
		rc.conn.Reply(a, seq)
	case !board && ref == followRef:
		// The answer to the relay's own resume (see Follow): the client
		// holds its seat as it did, or lost it meanwhile.
	case !board:
		rc.conn.Reply(msg, seq)
	case seq <= r.seq:
		r.catchUp(rc, false)
	case r.seq == 0 || seq == r.seq+1:
		r.newest(msg, seq, false)
	case seq > rc.seen:
		rc.seen = seq
		if n := rc.conn.Board(msg, seq); n > 0 {
			r.metrics.BoardsSkipped.Add(int64(n))
		}
	}
}

// Drop closes connection conn as the lane asked, after what it was sent.
func (r *Relay) Drop(conn uint64, code protocol.Code, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rc := r.conns[conn]; rc != nil {
		rc.conn.Close(code, reason)
	}
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
		rc.conn.Reply(notice, r.seq)
		rc.conn.Close(code, why)
	}
	r.stop()
}
