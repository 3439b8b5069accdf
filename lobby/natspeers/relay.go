package natspeers

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/relay"
	"github.com/tenpin/tenpin/lobby/peers"
	"github.com/tenpin/tenpin/protocol"
)

// relayEntry is a lane another node runs, that this node has clients of.
type relayEntry struct {
	r         *relay.Relay
	owner     string             // the node that runs the lane
	boards    *nats.Subscription // the lane's boards
	idleSince time.Time          // since when it has had no connection; guarded by Cluster.mu
	aliveAt   time.Time          // when the lane's node was last told the relay's connections; guarded by Cluster.mu
	// orphaned: the lane's node is gone, and the relay is being handed
	// over to the lane taken over here, or closed (see takeOver); guarded
	// by Cluster.mu.
	orphaned bool

	// got is the number of the last message to each connection (see
	// Cluster.delivered), read and written by the subscription to the
	// node's messages alone.
	got map[uint64]uint64
}

// Relay returns a relay of lane id, which another node runs: see
// peers.Cluster. This node's connections to one lane share one relay,
// and its boards' subscription.
func (c *Cluster) Relay(ctx context.Context, id string) (*relay.Relay, error) {
	if !token(id) {
		return nil, fmt.Errorf("%w: %q is no lane id", peers.ErrNoOwner, id)
	}
	if r := c.relayOf(id); r != nil {
		return r, nil
	}
	v, err, _ := c.relaid.Do(id, func() (any, error) {
		if r := c.relayOf(id); r != nil {
			return r, nil
		}
		return c.newRelay(ctx, id)
	})
	if err != nil {
		return nil, err
	}
	return v.(*relay.Relay), nil
}

// relayOf returns the open relay of lane id, if there is one.
func (c *Cluster) relayOf(id string) *relay.Relay {
	c.mu.Lock()
	defer c.mu.Unlock()
	rl := c.relays[id]
	if rl == nil {
		return nil
	}
	select {
	case <-rl.r.Done():
		return nil
	default:
		return rl.r
	}
}

func (c *Cluster) newRelay(ctx context.Context, id string) (*relay.Relay, error) {
	rl := &relayEntry{got: make(map[uint64]uint64)}
	rl.r = relay.New(id, upstream{c: c, id: id, rl: rl}, c.cfg.Lane)
	// Subscribed before the lane's node hears of this one: no board it
	// publishes for the relay's first connection is missed.
	c.relaying.Store(id, rl)
	unsubscribe := func(sub *nats.Subscription) {
		if sub != nil {
			sub.Unsubscribe()
		}
		c.relaying.CompareAndDelete(id, rl)
	}
	sub, err := c.nc.ChanSubscribe(subjBoard+id+".*", c.boards)
	if err != nil {
		unsubscribe(nil)
		return nil, fmt.Errorf("natspeers: relaying lane %s: %w", id, err)
	}
	owner, err := c.request(ctx, id, opPing, 0, nil)
	if err != nil {
		unsubscribe(sub)
		return nil, err
	}
	rl.owner, rl.boards = string(owner), sub
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		unsubscribe(sub)
		return nil, fmt.Errorf("natspeers: the node is leaving the cluster")
	}
	c.relays[id] = rl
	c.members.met(rl.owner, time.Now())
	c.mu.Unlock()
	rl.r.AfterClose(func() {
		unsubscribe(sub)
		c.mu.Lock()
		if c.relays[id] == rl {
			delete(c.relays, id)
		}
		c.mu.Unlock()
	})
	return rl.r, nil
}

// relayBacklog is how many boards of relayed lanes may wait for the
// node's relayers (see relayBoards); the connection drops those that come
// on a full backlog (a slow consumer, logged): boards are whole, the next
// repairs a lost one, and a relay's alive asks for the newest.
const relayBacklog = 8192

// relayBoards hands the boards of the lanes this node relays to their
// relays, until c.stop closes (Run starts a few, and its end stops them).
// Every relayed lane's subscription delivers to the one channel c.boards,
// and these goroutines serve them all: with a goroutine of the client's
// for each subscription, a node relaying a thousand lanes kept a thousand
// goroutines parked. Two goroutines may take two boards of one lane: a
// relay keeps the newer (Relay.Board), and never relays a board older
// than one it relayed.
func (c *Cluster) relayBoards() {
	for {
		select {
		case <-c.stop:
			return
		case m := <-c.boards:
			c.relayBoard(m)
		}
	}
}

// relayBoard hands m, a board on tenpin.board.<lane>.<seq>, to the lane's
// relay.
func (c *Cluster) relayBoard(m *nats.Msg) {
	rest := strings.TrimPrefix(m.Subject, subjBoard)
	dot := strings.LastIndexByte(rest, '.')
	if dot < 0 {
		return
	}
	seq, err := strconv.ParseUint(rest[dot+1:], 10, 64)
	if err != nil {
		return
	}
	if v, ok := c.relaying.Load(rest[:dot]); ok {
		v.(*relayEntry).r.Board(m.Data, seq)
	}
}

// upstream carries a relay's traffic to the lane's node.
type upstream struct {
	c  *Cluster
	id string
	rl *relayEntry
}

// Attach attaches the connection on the lane's node. If no node runs the
// lane, its node is gone, as the heartbeats will say in a moment, and if
// one is claiming it, it is taking it over: this node takes the lane over
// at once, or follows it to that node (see takeOver), and the connection
// waits to be handed over with the relay's others.
func (u upstream) Attach(ctx context.Context, conn uint64) error {
	_, err := u.c.request(ctx, u.id, opAttach, conn, nil)
	if !errors.Is(err, peers.ErrNoOwner) && !errors.Is(err, peers.ErrClaiming) {
		return err
	}
	if u.c.orphan(u.rl) && !u.c.spawn(func(ctx context.Context) { u.c.takeOver(ctx, u.rl) }) {
		return err // the node is leaving the cluster: the relay closes
	}
	return fmt.Errorf("%w: %w", relay.ErrTakingOver, err)
}

// Read publishes what the connection sent to the lane's node: no answer
// but the lane's, on the connection's subject (see Cluster.delivered).
// Its reply subject is for NATS, which says there when no node listens
// for the lane (see Cluster.unread).
func (u upstream) Read(_ context.Context, conn uint64, data []byte) error {
	reply := subjUnread + u.c.cfg.Node + "." + u.id
	if err := u.c.nc.PublishRequest(u.subject(opRead, conn), reply, data); err != nil {
		return fmt.Errorf("natspeers: read for lane %s: %w", u.id, err)
	}
	return nil
}

func (u upstream) Detach(conn uint64) {
	u.c.nc.Publish(u.subject(opDetach, conn), nil)
}

func (u upstream) subject(op string, conn uint64) string {
	return subjOwn + u.id + "." + op + "." + u.c.cfg.Node + "." + strconv.FormatUint(conn, 10)
}

// tellAlive tells the lane's node which connections the relay has, and the
// seq of the newest board it relayed: its answer is a newer board, if one
// was lost on its way (boards travel at most once, and the last of a game
// has no next to repair it), which the relay relays. No node that runs
// the lane starts the take-over (see takeOver), as a read nobody hears
// does (see unread).
func (c *Cluster) tellAlive(ctx context.Context, rl *relayEntry) {
	conns := rl.r.Conns()
	msg := make([]byte, 0, 24+12*len(conns))
	msg = strconv.AppendUint(msg, rl.r.Seq(), 10)
	msg = append(msg, ';')
	for i, conn := range conns {
		if i > 0 {
			msg = append(msg, ',')
		}
		msg = strconv.AppendUint(msg, conn, 10)
	}
	answer, err := c.requestMsg(ctx, rl.r.ID(), opAlive, 0, msg)
	switch {
	case errors.Is(err, peers.ErrNoOwner), errors.Is(err, peers.ErrClaiming):
		// Its node stopped running it, or died and is not known dead
		// yet; or another node is taking it over.
		if c.orphan(rl) {
			c.takeOver(ctx, rl)
		}
	case err != nil:
		// Slow, or gone: the heartbeats tell.
	case answer.Header.Get(hdrSeq) != "":
		if seq, err := strconv.ParseUint(answer.Header.Get(hdrSeq), 10, 64); err == nil {
			rl.r.Board(answer.Data, seq)
		}
	}
}

// orphan marks rl's lane as having lost its node, and reports whether it
// was the first to: the one to take it over.
func (c *Cluster) orphan(rl *relayEntry) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rl.orphaned {
		return false
	}
	rl.orphaned = true
	return true
}

// takeOver takes over the lane of rl, whose node is gone, for the
// relay's connections, and hands them to it (relay.Relay.HandOver): its
// clients here are not disconnected. Another node may run the lane
// already, or claim it first (the log's fence lets one in): then the
// relay follows the lane there (relay.Relay.Follow) once that node
// answers for it. While the store cannot take the claim (a new stream
// leader being elected when the dead node led it), or the node that
// claimed the lane does not run it yet, it tries again, for up to
// takeOverFor: as long as the relay's clients would wait reconnecting.
// If nothing works by then, or the relay has no connection left to keep,
// the relay closes, and its clients reconnect.
func (c *Cluster) takeOver(ctx context.Context, rl *relayEntry) {
	id := rl.r.ID()
	lanes := c.nodeLanes()
	if lanes == nil {
		rl.r.Close(protocol.CodeServerRestarting, protocol.NoticeServerGone)
		return
	}
	deadline := time.Now().Add(takeOverFor)
	pause := 20 * time.Millisecond
	for {
		l, err := lanes.TakeOver(ctx, id)
		switch {
		case err == nil:
			if rl.r.HandOver(ctx, l) {
				c.log.Info("the node of a lane is gone: the lane was taken over here, with its clients", "lane", id, "owner", rl.owner)
			}
			return
		case errors.Is(err, peers.ErrClaiming), errors.Is(err, game.ErrConflict):
			// Another node runs it, or is taking it: follow it there
			// once it answers for the lane. This node, if it took the
			// lane meanwhile for a client that came, takes it above.
			owner, perr := c.request(ctx, id, opPing, 0, nil)
			if err = perr; perr == nil && string(owner) != c.cfg.Node {
				c.follow(ctx, rl, string(owner))
				return
			}
		case errors.Is(err, peers.ErrUnavailable):
		default:
			c.log.Warn("the node of a lane is gone, and the lane was not taken over here: its clients here reconnect", "lane", id, "owner", rl.owner, "err", err)
			rl.r.Close(protocol.CodeServerRestarting, protocol.NoticeServerGone)
			return
		}
		if time.Now().Add(pause).After(deadline) || rl.r.Len() == 0 {
			c.log.Warn("the node of a lane is gone, and no node took it over in time: its clients here reconnect", "lane", id, "owner", rl.owner, "err", err)
			rl.r.Close(protocol.CodeServerRestarting, protocol.NoticeServerGone)
			return
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			rl.r.Close(protocol.CodeServerRestarting, protocol.NoticeRestarting)
			return
		case <-rl.r.Done():
			return
		}
		pause = min(2*pause, time.Second)
	}
}

// heldHere tells the relays of lane id that this node runs it now, once
// it has claimed it (or created it): this node's relay of the lane, whose
// node is gone, hands its connections to the lane here, and the other
// nodes' follow it here (held), at once rather than at their heartbeats'
// verdict on the lane's old node. The claim was the log's fence's to
// decide, and it let this node in. The announcement travels at most
// once: a relay that misses it is handed over or follows when its
// alive, or its heartbeats, find the lane's node gone.
func (c *Cluster) heldHere(id string) {
	c.nc.Publish(subjHeld+id, []byte(c.cfg.Node))
	c.mu.Lock()
	rl := c.relays[id]
	c.mu.Unlock()
	if rl != nil {
		c.moved(rl)
	}
}

// held handles another node's announcement that it runs a lane it
// claimed (see heldHere): tenpin.held.<lane>, the node's name the body.
// A relay of the lane that reaches another node is taken over: the lane
// is found where it runs, and followed there (takeOver asks, rather than
// trusting an announcement that may have been overtaken by a later
// claim).
func (c *Cluster) held(m *nats.Msg) {
	node := string(m.Data)
	if node == c.cfg.Node {
		return // heldHere has seen to this node's relay
	}
	id := strings.TrimPrefix(m.Subject, subjHeld)
	c.mu.Lock()
	rl := c.relays[id]
	// owner is written under c.mu (follow): read it there too. A node
	// restarted under the same name within a node timeout is skipped
	// here: its relays' next read closes their connections, which
	// reconnect.
	skip := rl == nil || rl.owner == node
	c.mu.Unlock()
	if skip {
		return
	}
	c.moved(rl)
}

// unread handles what NATS answers a relay's read that no node listened
// for (no responders, a status with no body): tenpin.unread.<node>.<lane>.
// The lane's node is gone, and not known dead yet, or no longer runs the
// lane: the relay takes it over at once (see takeOver), as it does for
// an attach answered so, rather than leave the client's message
// unanswered until its alive, or the heartbeats, find the node gone.
// The read is not lost: the take-over reads or forwards again what the
// lane did not answer.
func (c *Cluster) unread(m *nats.Msg) {
	// "Status" and "503" are NATS's no-responders status (nats.go
	// answers a request with nats.ErrNoResponders for it).
	if len(m.Data) != 0 || m.Header.Get("Status") != "503" {
		return
	}
	id := strings.TrimPrefix(m.Subject, subjUnread+c.cfg.Node+".")
	c.mu.Lock()
	rl := c.relays[id]
	c.mu.Unlock()
	if rl != nil {
		c.moved(rl)
	}
}

// moved starts the take-over of rl's lane, which has moved from the node
// rl reaches: see takeOver. Nothing if one is under way.
func (c *Cluster) moved(rl *relayEntry) {
	if c.orphan(rl) && !c.spawn(func(ctx context.Context) { c.takeOver(ctx, rl) }) {
		rl.r.Close(protocol.CodeServerRestarting, protocol.NoticeServerGone) // the node is leaving the cluster
	}
}

// follow has rl follow its lane to owner, the node that took it over
// (see relay.Relay.Follow), and makes it the relay's lane's node.
func (c *Cluster) follow(ctx context.Context, rl *relayEntry, owner string) {
	if !rl.r.Follow(ctx) {
		return // the relay closed: its clients reconnect
	}
	c.mu.Lock()
	rl.owner, rl.orphaned = owner, false
	c.members.met(owner, time.Now())
	c.mu.Unlock()
	c.log.Info("the node of a lane is gone: its clients here follow it to the node that took it over", "lane", rl.r.ID(), "owner", owner)
}

// takeOverFor bounds how long a node tries to take over a lane whose
// node is gone, or to find the node that took it: longer than a
// replicated stream takes to elect a new leader (4–9 s) when the dead
// node led it, which is as long as the relay's clients would wait
// reconnecting.
const takeOverFor = 20 * time.Second
