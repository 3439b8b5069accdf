package natspeers

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/relay"
	"github.com/tenpin/tenpin/lobby/peers"
	"github.com/tenpin/tenpin/protocol"
)

// owned is a lane this node runs, or is taking over: it answers the
// requests of other nodes about it.
type owned struct {
	c   *Cluster
	id  string
	sub *nats.Subscription

	// pub publishes the lane's boards for the nodes that relay it, by
	// way of their connections attached: one attached, the lane has
	// someone to publish for.
	pub *relay.Publication

	mu      sync.Mutex
	l       *lane.Lane // nil while the lane is being taken over
	remotes map[remoteKey]*attachedConn
}

// remoteKey names a connection of another node.
type remoteKey struct {
	node string
	conn uint64
}

// attachedConn is a client of the lane on another node.
type attachedConn struct {
	rm    lane.Session
	sink  *sink
	since time.Time // attached
}

// Claim announces that this node is taking lane id over: see
// peers.Cluster.
func (c *Cluster) Claim(id string) (peers.Claim, error) {
	if !token(id) {
		return nil, fmt.Errorf("natspeers: %q is no lane id", id)
	}
	o := &owned{c: c, id: id, remotes: make(map[remoteKey]*attachedConn)}
	o.pub = relay.NewPublication(func(board []byte, seq uint64) {
		c.nc.Publish(subjBoard+id+"."+strconv.FormatUint(seq, 10), board)
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("natspeers: the node is leaving the cluster")
	}
	if c.owned[id] != nil {
		return nil, fmt.Errorf("%w: lane %s, by this node", peers.ErrClaiming, id)
	}
	sub, err := c.nc.Subscribe(subjOwn+id+".>", o.handle)
	if err != nil {
		return nil, fmt.Errorf("natspeers: claiming lane %s: %w", id, err)
	}
	o.sub = sub
	c.owned[id] = o
	return o, nil
}

// Bind makes l the lane other nodes reach, and says so: a relay of the
// lane on this node hands its connections to l, and the other nodes'
// relays follow it here (see Cluster.heldHere). When it stops, the
// connections of other nodes it still counts are closed: those attached
// as it stopped never heard it close.
func (o *owned) Bind(l *lane.Lane) {
	o.mu.Lock()
	o.l = l
	o.mu.Unlock()
	o.c.heldHere(o.id)
	l.AfterStop(func() {
		o.mu.Lock()
		remotes := o.remotes
		o.remotes = make(map[remoteKey]*attachedConn)
		o.mu.Unlock()
		for _, r := range remotes {
			r.sink.Close(protocol.CodeServerRestarting, protocol.NoticeStoppedHere)
		}
	})
}

// Release withdraws the claim: other nodes find no responders for the
// lane from then on.
func (o *owned) Release() {
	o.sub.Unsubscribe()
	o.c.mu.Lock()
	if o.c.owned[o.id] == o {
		delete(o.c.owned, o.id)
	}
	o.c.mu.Unlock()
}

func (o *owned) lane() *lane.Lane {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.l
}

// handle handles one message about the lane:
// tenpin.own.<lane>.<op>.<node>.<conn>. A request (ping, lane, attach,
// alive) is answered once; what a connection sends (read) and its going
// away (detach) are published, not requests, and have no answer here: the
// lane answers a read on the connection's subject (see sink), and so does
// this node when the lane did not take it. Messages of one lane are
// handled one at a time, in order, on the subscription's goroutine: a
// lane whose inbox is full holds up its own messages alone, and only for
// half a request's time, after which the client is told the lane is busy.
func (o *owned) handle(m *nats.Msg) {
	f := strings.Split(m.Subject, ".")
	if len(f) != 6 {
		return
	}
	op, node := f[3], f[4]
	conn, err := strconv.ParseUint(f[5], 10, 64)
	if err != nil {
		return
	}
	l := o.lane()
	published := op == opRead || op == opDetach
	refuse := func(err error) {
		r := nats.NewMsg(m.Reply)
		r.Header.Set(hdrRefused, refusalCode(err))
		m.RespondMsg(r)
	}
	switch {
	case l != nil && !l.Stopped():
	case published:
		// Nothing to answer: a node taking the lane over knows no
		// connection yet, and a lane that stopped has closed those it had.
		return
	case l == nil:
		refuse(peers.ErrClaiming)
		return
	default:
		refuse(peers.ErrNoOwner) // it is being released
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.c.cfg.RequestTimeout/2)
	defer cancel()
	k := remoteKey{node, conn}
	switch op {
	case opPing:
		m.Respond([]byte(o.c.cfg.Node))
	case opLane:
		data, _ := json.Marshal(peers.Describe(l)) // plain values: cannot fail
		m.Respond(data)
	case opSecretary:
		o.secretary(ctx, l, m, refuse)
	case opAttach:
		o.c.mu.Lock()
		o.c.members.met(node, time.Now())
		o.c.mu.Unlock()
		sk := newSink(o.c, node, o.id, conn)
		rm, ok := relay.Attach(ctx, l, sk, o.pub)
		if !ok {
			refuse(busyOrGone(l))
			return
		}
		o.mu.Lock()
		old := o.remotes[k]
		o.remotes[k] = &attachedConn{rm: rm, sink: sk, since: time.Now()}
		o.mu.Unlock()
		if old != nil {
			old.rm.Detach() // never twice one number from one node: see relay.Relay
		}
		m.Respond(nil)
	case opRead:
		o.mu.Lock()
		r := o.remotes[k]
		o.mu.Unlock()
		switch {
		case r == nil:
			// Its attach was refused, or it was detached (its node did
			// not list it): it reconnects, and resumes its seat.
			o.c.sendTo(node, o.id, conn, frame(nil, kindClose, 0, 0, closing(protocol.CodeServerRestarting, protocol.NoticeConnLost)))
		case !r.rm.Read(ctx, m.Data) && !l.Stopped():
			msg, _ := protocol.Decode(m.Data)
			pe := protocol.RefuseBusy.Error()
			pe.Ref = msg.ID
			data, _ := json.Marshal(pe) // plain values: cannot fail
			r.sink.Reply(data, 0)
		}
	case opDetach:
		o.mu.Lock()
		r := o.remotes[k]
		delete(o.remotes, k)
		o.mu.Unlock()
		if r != nil {
			r.rm.Detach()
		}
	case opAlive:
		o.alive(l, node, m)
	}
}

// busyOrGone is the refusal of a message the lane did not take: it
// stopped, or its inbox stayed full.
func busyOrGone(l *lane.Lane) error {
	if l.Stopped() {
		return peers.ErrNoOwner
	}
	return relay.ErrBusy
}

// aliveGrace is how long a connection attached is kept even when its
// node's list of connections does not have it: the list may have been
// made just before it attached.
const aliveGrace = 2 * time.Second

// alive answers node's alive: the seq of the newest board its relay has
// relayed, a semicolon, and its connections to the lane (each a decimal
// number, separated by commas). It detaches the connections of node the
// lane counts that are not on the list (their detach was lost on its
// way), and answers with the lane's board if the relay's is older (the
// board was lost on its way), or with nothing.
func (o *owned) alive(l *lane.Lane, node string, m *nats.Msg) {
	seen, list, _ := strings.Cut(string(m.Data), ";")
	live := make(map[uint64]bool)
	for _, f := range strings.Split(list, ",") {
		if n, err := strconv.ParseUint(f, 10, 64); err == nil {
			live[n] = true
		}
	}
	now := time.Now()
	var gone []lane.Session
	o.mu.Lock()
	for k, r := range o.remotes {
		if k.node == node && !live[k.conn] && now.Sub(r.since) > aliveGrace {
			delete(o.remotes, k)
			gone = append(gone, r.rm)
		}
	}
	o.mu.Unlock()
	for _, rm := range gone {
		rm.Detach()
	}
	answer := nats.NewMsg(m.Reply)
	if theirs, err := strconv.ParseUint(seen, 10, 64); err == nil {
		if board, seq := l.Board(); seq > theirs {
			answer.Header.Set(hdrSeq, strconv.FormatUint(seq, 10))
			answer.Data = board
		}
	}
	m.RespondMsg(answer)
}

// deadRemotes takes out, and returns, the clients of nodes no longer
// alive.
func (o *owned) deadRemotes(alive func(node string) bool) []lane.Session {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []lane.Session
	for k, r := range o.remotes {
		if !alive(k.node) {
			delete(o.remotes, k)
			out = append(out, r.rm)
		}
	}
	return out
}

// sink sends what a lane sends a client of another node to that node, on
// the connection's subject, tenpin.to.<node>.<lane>.<conn>, each message
// framed (see frame) and numbered from 1, so that its node can tell one
// was lost (core NATS delivers at most once) and close the connection
// rather than leave it without, say, the welcome that held its seat's
// token, or a board an ack follows. One subject, one publisher (this
// node's connection): NATS delivers them in the order they were sent.
// The lane goroutine calls its methods, and so does the lane's
// subscription to refuse a message the lane did not take: mu keeps the
// numbers in the order of the messages.
type sink struct {
	c    *Cluster
	node string
	subj string

	mu  sync.Mutex
	n   uint64
	buf []byte
}

func newSink(c *Cluster, node, lane string, conn uint64) *sink {
	return &sink{c: c, node: node, subj: subjTo + node + "." + lane + "." + strconv.FormatUint(conn, 10)}
}

func (s *sink) publish(kind byte, seq uint64, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	s.buf = frame(s.buf[:0], kind, s.n, seq, data)
	s.c.nc.Publish(s.subj, s.buf) // copied before it returns
}

func (s *sink) Board(board []byte, seq uint64) int {
	s.publish(kindBoard, seq, board)
	return 0 // dropped, if ever, by the client's node
}

func (s *sink) Reply(msg []byte, seq uint64) {
	s.publish(kindReply, seq, msg)
}

func (s *sink) Close(code protocol.Code, reason string) {
	s.publish(kindClose, 0, closing(code, reason))
}

// closing is what a close frame carries: the code a lane closed the
// connection with, a newline, and the reason.
func closing(code protocol.Code, reason string) []byte {
	return []byte(string(code) + "\n" + reason)
}

// closed reads what closing wrote. A frame without the code's newline is
// a node's of an older version, which sent a WebSocket status in the
// seq's place: its reason alone counts, and the client reconnects.
func closed(data []byte) (protocol.Code, string) {
	code, reason, ok := strings.Cut(string(data), "\n")
	if !ok {
		return protocol.CodeServerRestarting, string(data)
	}
	return protocol.Code(code), reason
}

// Kinds of the messages to one connection of another node (see frame).
const (
	kindBoard = 'b' // a board, of seq
	kindReply = 'm' // a message for the client alone, after the board of seq
	kindClose = 'c' // close the connection: the bytes say why (see closing)
)

// frame appends to dst a message to one connection of another node: its
// kind, its number n (0 for one sent outside the connection's sink: a
// close) and seq, each a uvarint, then data.
func frame(dst []byte, kind byte, n, seq uint64, data []byte) []byte {
	dst = append(dst, kind)
	dst = binary.AppendUvarint(dst, n)
	dst = binary.AppendUvarint(dst, seq)
	return append(dst, data...)
}

// unframe reads a message framed by frame.
func unframe(b []byte) (kind byte, n, seq uint64, data []byte, ok bool) {
	if len(b) == 0 {
		return 0, 0, 0, nil, false
	}
	kind, b = b[0], b[1:]
	n, i := binary.Uvarint(b)
	if i <= 0 {
		return 0, 0, 0, nil, false
	}
	b = b[i:]
	seq, i = binary.Uvarint(b)
	if i <= 0 {
		return 0, 0, 0, nil, false
	}
	return kind, n, seq, b[i:], true
}

// sendTo sends connection conn of node, a client of lane id, a message
// framed outside its sink.
func (c *Cluster) sendTo(node, id string, conn uint64, msg []byte) {
	c.nc.Publish(subjTo+node+"."+id+"."+strconv.FormatUint(conn, 10), msg)
}

// secretary hands l a league secretary's command that another node
// checked (its lobby asked the league), and answers the lane's board once
// the lane has stored it, or the lane's refusal as a protocol.Error.
func (o *owned) secretary(ctx context.Context, l *lane.Lane, m *nats.Msg, refuse func(error)) {
	req, err := protocol.Decode(m.Data)
	if err == nil {
		err = l.Secretary(ctx, req)
	}
	switch {
	case err == nil:
		m.Respond(l.BoardJSON())
		return
	case errors.Is(err, lane.ErrStopped):
		refuse(peers.ErrNoOwner)
		return
	case errors.Is(err, context.DeadlineExceeded):
		refuse(relay.ErrBusy)
		return
	}
	pe, known := lane.ErrorFor(err)
	if !known {
		o.c.log.Error("a secretary's command failed", "lane", o.id, "err", err)
	}
	data, _ := json.Marshal(pe) // plain values: cannot fail
	r := nats.NewMsg(m.Reply)
	r.Header.Set(hdrLaneRefusal, "1")
	r.Data = data
	m.RespondMsg(r)
}
