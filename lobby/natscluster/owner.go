package natscluster

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
	remotes map[remoteKey]*lane.Remote
}

// remoteKey names a connection of another node.
type remoteKey struct {
	node string
	conn uint64
}

// Claim announces that this node is taking lane id over: see
// lobby.Cluster.
func (c *Cluster) Claim(id string) (lobby.Claim, error) {
	if !token(id) {
		return nil, fmt.Errorf("natscluster: %q is no lane id", id)
	}
	o := &owned{c: c, id: id, remotes: make(map[remoteKey]*lane.Remote)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("natscluster: the node is leaving the cluster")
	}
	if c.owned[id] != nil {
		return nil, fmt.Errorf("%w: lane %s, by this node", lobby.ErrClaiming, id)
	}
	sub, err := c.nc.Subscribe(subjOwn+id+".>", o.handle)
	if err != nil {
		return nil, fmt.Errorf("natscluster: claiming lane %s: %w", id, err)
	}
	o.sub = sub
	c.owned[id] = o
	return o, nil
}

// Bind makes l the lane other nodes reach.
func (o *owned) Bind(l *lane.Lane) {
	o.mu.Lock()
	o.l = l
	o.mu.Unlock()
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
// requests alone.
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
	if l == nil {
		if op != opDetach {
			m.Respond([]byte(refusedClaiming))
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.c.cfg.RequestTimeout)
	defer cancel()
	k := remoteKey{node, conn}
	switch op {
	case opPing:
		m.Respond([]byte(o.c.cfg.Node))
	case opLane:
		data, _ := json.Marshal(lobby.Describe(l)) // plain values: cannot fail
		m.Respond(data)
	case opAttach:
		o.c.mu.Lock()
		if _, ok := o.c.seen[node]; !ok {
			o.c.seen[node] = time.Now() // not to be swept before its first heartbeat
		}
		o.c.mu.Unlock()
		rm, ok := l.AttachRemote(ctx, sink{c: o.c, node: node, lane: o.id, conn: conn})
		if !ok {
			m.Respond([]byte(refusedGone))
			return
		}
		o.mu.Lock()
		o.remotes[k] = rm
		o.mu.Unlock()
		m.Respond(nil)
	case opRead, opRefresh:
		o.mu.Lock()
		rm := o.remotes[k]
		o.mu.Unlock()
		ok := rm != nil
		if ok && op == opRead {
			ok = rm.Read(ctx, m.Data)
		} else if ok {
			ok = rm.Refresh(ctx)
		}
		if !ok {
			m.Respond([]byte(refusedGone))
			return
		}
		m.Respond(nil)
	case opDetach:
		o.mu.Lock()
		rm := o.remotes[k]
		delete(o.remotes, k)
		o.mu.Unlock()
		if rm != nil {
			rm.Detach()
		}
	}
}

// deadRemotes takes out, and returns, the clients of nodes no longer
// alive.
func (o *owned) deadRemotes(alive func(node string) bool) []*lane.Remote {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []*lane.Remote
	for k, rm := range o.remotes {
		if !alive(k.node) {
			delete(o.remotes, k)
			out = append(out, rm)
		}
	}
	return out
}

// sink sends what a lane sends a client of another node to that node:
// tenpin.to.<node>.<lane>.<conn>.<seq>.<kind>.
type sink struct {
	c    *Cluster
	node string
	lane string
	conn uint64
}

func (s sink) subject(seq uint64, kind string) string {
	return subjTo + s.node + "." + s.lane + "." + strconv.FormatUint(s.conn, 10) + "." + strconv.FormatUint(seq, 10) + "." + kind
}

func (s sink) Send(msg []byte, seq uint64, board bool) {
	kind := "msg"
	if board {
		kind = "board"
	}
	s.c.nc.Publish(s.subject(seq, kind), msg)
}

func (s sink) Close(status websocket.StatusCode, reason string) {
	s.c.nc.Publish(s.subject(uint64(status), "close"), []byte(reason))
}
