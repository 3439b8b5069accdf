package failover

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/cmd/tenpin/internal/cluster"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// laneState is one lane of the run and the rolls its player sent.
type laneState struct {
	n      int // from 1
	id     string
	node   string // where it was created
	player string // where its player connected first

	mu    sync.Mutex
	rolls []roll
}

// roll is one roll sent and its answer.
type roll struct {
	sent, answered time.Time
	acked          bool
}

func (l *laneState) record(r roll) {
	l.mu.Lock()
	l.rolls = append(l.rolls, r)
	l.mu.Unlock()
}

// disconnect is a connection that ended, not by its client.
type disconnect struct {
	at     time.Time
	node   string
	lane   int
	client string
	why    string
}

// startLanes creates the lanes on the nodes in turn, and starts each
// one's player, on the lane's node (on another with Relayed: see
// Config), and its watchers, on the others. It returns once every player
// has rolled once.
func (r *run) startLanes(ctx context.Context, wg *sync.WaitGroup) error {
	rolled := make(chan struct{}, r.cfg.Lanes)
	for i := range r.cfg.Lanes {
		at := i % len(r.nodes)
		id, err := r.createLane(ctx, fmt.Sprintf("failover %d", i+1), at)
		if err != nil {
			return err
		}
		seat := at
		if r.cfg.Relayed {
			seat = (at + 1 + i/len(r.nodes)%2) % len(r.nodes)
		}
		l := &laneState{n: i + 1, id: id, node: r.nodes[at].Name, player: r.nodes[seat].Name}
		r.lanes = append(r.lanes, l)
		p := &player{r: r, lane: l, node: seat, rolled: rolled}
		wg.Go(func() { p.play(ctx) })
		for k := 1; k < len(r.nodes); k++ {
			w := &watcher{r: r, lane: l, node: (seat + k) % len(r.nodes)}
			wg.Go(func() { w.watch(ctx) })
		}
	}
	for range r.cfg.Lanes {
		select {
		case <-rolled:
		case <-time.After(startTimeout):
			return fmt.Errorf("failover: not every lane's player rolled within %v of its start", startTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// disconnected records a connection through node that ended, and why,
// unless the run is ending it.
func (r *run) disconnected(ctx context.Context, node *cluster.Process, l *laneState, who string, conn *client.Conn, notice string) {
	if ctx.Err() != nil {
		return
	}
	// The reader has stopped: Next returns at once, with why.
	_, err := conn.Next(ctx)
	why := "connection lost"
	if s := websocket.CloseStatus(err); s != -1 {
		why = fmt.Sprintf("closed %d %s", int(s), s)
	}
	if notice != "" {
		why = notice + ", " + why
	}
	r.mu.Lock()
	r.disconnects = append(r.disconnects, disconnect{at: time.Now(), node: node.Name, lane: l.n, client: who, why: why})
	r.mu.Unlock()
	r.logf("lane %d's %s on %s: %s", l.n, who, node.Name, why)
}

// connect opens a WebSocket to the lane through node *at, the next node
// after each failure, until it is open and seated (if seat is set) or ctx
// ends. It waits a little between tries, longer each time, as a page
// does.
func (r *run) connect(ctx context.Context, l *laneState, at *int, handle func([]byte), seat func(context.Context, *client.Conn) error) (*client.Conn, *cluster.Process, error) {
	pause := 50 * time.Millisecond
	for {
		n := r.nodes[*at]
		cctx, cancel := context.WithTimeout(ctx, commandTimeout)
		conn, err := (&client.Client{URL: n.URL, HTTPClient: r.http}).DialFunc(cctx, l.id, handle)
		if err == nil && seat != nil {
			if err = seat(cctx, conn); err != nil {
				conn.CloseNow()
			}
		}
		cancel()
		if err == nil {
			return conn, n, nil
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		r.logf("lane %d: connect via %s: %v", l.n, n.Name, err)
		*at = (*at + 1) % len(r.nodes)
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		pause = min(2*pause, time.Second)
	}
}

// notices keeps the last notice (an error answering no command) a
// connection was sent: why the server is about to close it.
type notices struct {
	mu   sync.Mutex
	last string
}

// take reads a message that answers no command, and returns it if it is
// a board.
func (n *notices) take(data []byte) *protocol.Board {
	m, err := protocol.DecodeMessage(data)
	if err != nil {
		return nil
	}
	switch m := m.(type) {
	case *protocol.Board:
		return m
	case *protocol.Error:
		n.mu.Lock()
		n.last = "notice " + string(m.Code)
		n.mu.Unlock()
	}
	return nil
}

func (n *notices) reset() (last string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	last, n.last = n.last, ""
	return last
}

// watcher is a spectator of a lane, on a node its lane is relayed to.
type watcher struct {
	r    *run
	lane *laneState
	node int
	notices
}

func (w *watcher) watch(ctx context.Context) {
	for {
		conn, n, err := w.r.connect(ctx, w.lane, &w.node, func(data []byte) {
			if !protocol.IsBoard(data) {
				w.take(data)
			}
		}, nil)
		if err != nil {
			return
		}
		select {
		case <-conn.Done():
			w.r.disconnected(ctx, n, w.lane, "watcher", conn, w.reset())
		case <-ctx.Done():
			conn.CloseNow()
			return
		}
	}
}

// player is a lane's one player and host: it rolls a gutter ball at
// every tick while it is up, and starts and rematches its games.
type player struct {
	r      *run
	lane   *laneState
	node   int
	token  string
	seat   int
	rolled chan<- struct{} // a token at its first roll acked
	first  bool            // it has rolled
	notices

	mu     sync.Mutex
	latest *protocol.Board
}

func (p *player) play(ctx context.Context) {
	var after uint64 // act on no board older than the last command's ack
	for {
		conn, n, err := p.r.connect(ctx, p.lane, &p.node, func(data []byte) {
			if b := p.take(data); b != nil {
				p.mu.Lock()
				if p.latest == nil || b.Seq > p.latest.Seq {
					p.latest = b
				}
				p.mu.Unlock()
			}
		}, p.sit)
		if err != nil {
			return
		}
		after = p.turns(ctx, conn, after)
		if ctx.Err() != nil {
			conn.CloseNow()
			return
		}
		p.r.disconnected(ctx, n, p.lane, "player", conn, p.reset())
	}
}

// sit takes the player's seat: a join the first time, a resume after.
func (p *player) sit(ctx context.Context, conn *client.Conn) error {
	var w *protocol.Welcome
	var err error
	if p.token == "" {
		w, err = conn.Join(ctx, "AAA")
	} else {
		w, err = conn.Resume(ctx, p.token)
	}
	if err != nil {
		return err
	}
	p.token, p.seat = w.Token, w.Seat
	return nil
}

// turns plays on conn until it ends or ctx does, and returns the seq of
// the last command's ack.
func (p *player) turns(ctx context.Context, conn *client.Conn, after uint64) uint64 {
	tick := time.NewTicker(p.r.cfg.Every)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-conn.Done():
			return after
		case <-ctx.Done():
			return after
		}
		p.mu.Lock()
		b := p.latest
		p.mu.Unlock()
		if b == nil || b.Seq < after {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, commandTimeout)
		var a *protocol.Ack
		var err error
		switch {
		case b.Phase == protocol.PhaseWaiting:
			a, err = conn.Start(cctx)
		case b.Phase == protocol.PhaseFinished:
			a, err = conn.Rematch(cctx)
		case b.Up != nil && b.Up.Seat == p.seat:
			r := roll{sent: time.Now()}
			a, err = conn.Roll(cctx, b.Up.Frame, b.Up.Ball, 0)
			r.answered, r.acked = time.Now(), err == nil
			if ctx.Err() == nil {
				p.lane.record(r)
			}
			if r.acked && !p.first {
				p.first = true
				p.rolled <- struct{}{}
			}
		}
		cancel()
		var pe *protocol.Error
		switch {
		case err == nil && a != nil:
			after = a.Seq
		case errors.As(err, &pe) && pe.Code != protocol.CodeUnavailable:
			// Refused for a board the player has not seen yet (a roll
			// stored though its answer was lost): wait for a newer one.
			after = b.Seq + 1
		}
	}
}
