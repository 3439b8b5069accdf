package natscluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// relayEntry is a lane another node runs, that this node has clients of.
type relayEntry struct {
	r         *lane.Relay
	owner     string             // the node that runs the lane
	boards    *nats.Subscription // the lane's boards
	idleSince time.Time          // since when it has had no connection; guarded by Cluster.mu
	aliveAt   time.Time          // when the lane's node was last told the relay's connections; guarded by Cluster.mu

	// got is the number of the last message to each connection (see
	// Cluster.delivered), read and written by the subscription to the
	// node's messages alone.
	got map[uint64]uint64
}

// Relay returns a relay of lane id, which another node runs: see
// lobby.Cluster. This node's connections to one lane share one relay,
// and its boards' subscription.
func (c *Cluster) Relay(ctx context.Context, id string) (*lane.Relay, error) {
	if !token(id) {
		return nil, fmt.Errorf("%w: %q is no lane id", lobby.ErrNoOwner, id)
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
	return v.(*lane.Relay), nil
}

// relayOf returns the open relay of lane id, if there is one.
func (c *Cluster) relayOf(id string) *lane.Relay {
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

func (c *Cluster) newRelay(ctx context.Context, id string) (*lane.Relay, error) {
	rl := &relayEntry{got: make(map[uint64]uint64)}
	rl.r = lane.NewRelay(id, upstream{c: c, id: id}, c.cfg.Lane)
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
		return nil, fmt.Errorf("natscluster: relaying lane %s: %w", id, err)
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
		return nil, fmt.Errorf("natscluster: the node is leaving the cluster")
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
}

func (u upstream) Attach(ctx context.Context, conn uint64) error {
	_, err := u.c.request(ctx, u.id, opAttach, conn, nil)
	return err
}

// Read publishes what the connection sent to the lane's node: no answer
// but the lane's, on the connection's subject (see Cluster.delivered).
func (u upstream) Read(_ context.Context, conn uint64, data []byte) error {
	if err := u.c.nc.Publish(u.subject(opRead, conn), data); err != nil {
		return fmt.Errorf("natscluster: read for lane %s: %w", u.id, err)
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
// the lane closes the relay: a read is published, and would go nowhere.
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
	case errors.Is(err, lobby.ErrNoOwner), errors.Is(err, lobby.ErrClaiming):
		rl.r.Close(protocol.CodeServerRestarting, "the lane's server went away: reconnect, your seat is kept")
	case err != nil:
		// Slow, or gone: the heartbeats tell.
	case answer.Header.Get(hdrSeq) != "":
		if seq, err := strconv.ParseUint(answer.Header.Get(hdrSeq), 10, 64); err == nil {
			rl.r.Board(answer.Data, seq)
		}
	}
}
