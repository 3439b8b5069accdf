package nats

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/nats-io/nats.go"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
)

// owned is a lane this node runs, or is taking over: it answers the
// requests of other nodes about it.
type owned struct {
	c   *Cluster
	id  string
	sub *nats.Subscription

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
	rm    *lane.Client
	sink  *sink
	since time.Time // attached
}

// Claim announces that this node is taking lane id over: see
// lobby.Cluster.
func (c *Cluster) Claim(id string) (lobby.Claim, error) {
	if !token(id) {
		return nil, fmt.Errorf("nats: %q is no lane id", id)
	}
	o := &owned{c: c, id: id, remotes: make(map[remoteKey]*attachedConn)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("nats: the node is leaving the cluster")
	}
	if c.owned[id] != nil {
		return nil, fmt.Errorf("%w: lane %s, by this node", lobby.ErrClaiming, id)
	}
	sub, err := c.nc.Subscribe(subjOwn+id+".>", o.handle)
	if err != nil {
		return nil, fmt.Errorf("nats: claiming lane %s: %w", id, err)
	}
	o.sub = sub
	c.owned[id] = o
	return o, nil
}

// Bind makes l the lane other nodes reach. When it stops, the
// connections of other nodes it still counts are closed: those attached
// as it stopped never heard it close.
func (o *owned) Bind(l *lane.Lane) {
	o.mu.Lock()
	o.l = l
	o.mu.Unlock()
	go func() {
		<-l.Done()
		o.mu.Lock()
		remotes := o.remotes
		o.remotes = make(map[remoteKey]*attachedConn)
		o.mu.Unlock()
		for _, r := range remotes {
			r.sink.Close(websocket.StatusGoingAway, "the lane stopped here: reconnect, your seat is kept")
		}
	}()
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

// handle answers one request about the lane: tenpin.own.<lane>.<op>.<node>.<conn>.
// Requests of one lane are handled one at a time, in order, on the
// subscription's goroutine: a lane whose inbox is full holds up its own
// requests alone, and only for half a request's time, so that the asking
// node hears that it is busy rather than nothing.
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
	noAnswer := op == opDetach || op == opAlive
	respond := func(answer string) {
		if !noAnswer {
			m.Respond([]byte(answer))
		}
	}
	refuse := func(err error) {
		if !noAnswer {
			r := nats.NewMsg(m.Reply)
			r.Header.Set(hdrRefused, refusalCode(err))
			m.RespondMsg(r)
		}
	}
	switch {
	case l == nil:
		refuse(lobby.ErrClaiming)
		return
	case stopped(l):
		refuse(lobby.ErrNoOwner) // it is being released
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.c.cfg.RequestTimeout/2)
	defer cancel()
	k := remoteKey{node, conn}
	switch op {
	case opPing:
		respond(o.c.cfg.Node)
	case opLane:
		data, _ := json.Marshal(lobby.Describe(l)) // plain values: cannot fail
		m.Respond(data)
	case opAttach:
		o.c.mu.Lock()
		if _, ok := o.c.seen[node]; !ok {
			o.c.seen[node] = time.Now() // not to be swept before its first heartbeat
		}
		o.c.mu.Unlock()
		sk := &sink{c: o.c, node: node, lane: o.id, conn: conn}
		rm, ok := l.AttachRemote(ctx, sk)
		if !ok {
			refuse(busyOrGone(l))
			return
		}
		o.mu.Lock()
		old := o.remotes[k]
		o.remotes[k] = &attachedConn{rm: rm, sink: sk, since: time.Now()}
		o.mu.Unlock()
		if old != nil {
			old.rm.Detach() // never twice one number from one node: see lane.Relay
		}
		respond("")
	case opRead, opRefresh:
		o.mu.Lock()
		r := o.remotes[k]
		o.mu.Unlock()
		if r == nil {
			refuse(lane.ErrConnGone)
			return
		}
		ok := false
		if op == opRead {
			ok = r.rm.Read(ctx, m.Data)
		} else {
			ok = r.rm.Refresh(ctx)
		}
		if !ok {
			refuse(busyOrGone(l))
			return
		}
		respond("")
	case opDetach:
		o.mu.Lock()
		r := o.remotes[k]
		delete(o.remotes, k)
		o.mu.Unlock()
		if r != nil {
			r.rm.Detach()
		}
	case opAlive:
		o.alive(node, m.Data)
	}
}

// stopped reports whether l has stopped.
func stopped(l *lane.Lane) bool {
	select {
	case <-l.Done():
		return true
	default:
		return false
	}
}

// busyOrGone is the refusal of a message the lane did not take: it
// stopped, or its inbox stayed full.
func busyOrGone(l *lane.Lane) error {
	if stopped(l) {
		return lobby.ErrNoOwner
	}
	return lane.ErrBusy
}

// aliveGrace is how long a connection attached is kept even when its
// node's list of connections does not have it: the list may have been
// made just before it attached.
const aliveGrace = 2 * time.Second

// alive takes node's list of its connections to the lane (each a decimal
// number, separated by commas), and detaches the connections of node the
// lane counts that are not on it: their detach was lost on its way.
func (o *owned) alive(node string, list []byte) {
	live := make(map[uint64]bool)
	for _, f := range strings.Split(string(list), ",") {
		if n, err := strconv.ParseUint(f, 10, 64); err == nil {
			live[n] = true
		}
	}
	now := time.Now()
	var gone []*lane.Client
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
}

// deadRemotes takes out, and returns, the clients of nodes no longer
// alive.
func (o *owned) deadRemotes(alive func(node string) bool) []*lane.Client {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []*lane.Client
	for k, r := range o.remotes {
		if !alive(k.node) {
			delete(o.remotes, k)
			out = append(out, r.rm)
		}
	}
	return out
}

// sink sends what a lane sends a client of another node to that node:
// tenpin.to.<node>.<lane>.<conn>.<seq>.<kind>.<n>, n counting the
// messages sent to the connection, so that its node can tell one was lost
// (core NATS delivers at most once) and close the connection rather than
// leave it without, say, the welcome that held its seat's token. Its
// methods are called on the lane goroutine alone.
type sink struct {
	c    *Cluster
	node string
	lane string
	conn uint64
	n    uint64
}

func (s *sink) publish(seq uint64, kind string, data []byte) {
	s.n++
	subj := subjTo + s.node + "." + s.lane + "." + strconv.FormatUint(s.conn, 10) + "." +
		strconv.FormatUint(seq, 10) + "." + kind + "." + strconv.FormatUint(s.n, 10)
	s.c.nc.Publish(subj, data)
}

func (s *sink) Board(board []byte, seq uint64) int {
	s.publish(seq, "board", board)
	return 0 // dropped, if ever, by the client's node
}

func (s *sink) Reply(msg []byte, seq uint64) {
	s.publish(seq, "msg", msg)
}

func (s *sink) Close(status websocket.StatusCode, reason string) {
	s.publish(uint64(status), "close", []byte(reason))
}
