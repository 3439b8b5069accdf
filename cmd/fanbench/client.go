package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// lane is one lane of the run: its clients, and the rolls whose boards are
// still on their way to them.
type lane struct {
	r       *runner
	n       int
	id      string
	clients int

	mu    sync.Mutex
	rolls map[uint64]*rollTrack // by the seq of the board showing the roll
}

// rollTrack follows one board until every client of the lane has it.
type rollTrack struct {
	sentAt   time.Time // when the roll was sent; known once acknowledged
	acked    bool
	measured bool        // sent in the steady-state window
	early    []time.Time // arrivals before the ack named the board
	got      int         // clients that have the board
}

// play creates the lane, connects its spectators and players, seats the
// players and starts the game; the clients' readers play on from there.
func (l *lane) play(ctx context.Context, players, spectators int, seed uint64) {
	r := l.r
	if err := l.create(ctx); err != nil {
		r.fail("lane %d: create: %v", l.n, err)
		return
	}
	var seated []*conn
	for i := range spectators + players {
		c := &conn{l: l, seat: -1, pending: map[uint32]pending{}, rng: rand.New(rand.NewPCG(seed, uint64(i)))}
		if i >= spectators {
			c.name = string([]byte{'A', 'A', 'A' + byte(i-spectators)}) // AAA, AAB, …
			seated = append(seated, c)
		}
		if err := c.dial(ctx); err != nil {
			r.fail("lane %d: connect: %v", l.n, err)
			return
		}
		for _, o := range r.proto.hello() {
			if _, err := c.call(ctx, o); err != nil {
				r.fail("lane %d: hello: %v", l.n, err)
				return
			}
		}
	}
	for _, p := range seated {
		if _, err := p.call(ctx, opJoin); err != nil {
			r.fail("lane %d: join: %v", l.n, err)
			return
		}
	}
	if _, err := seated[0].call(ctx, opStart); err != nil {
		r.fail("lane %d: start: %v", l.n, err)
		return
	}
	r.playing.Add(1)
}

func (l *lane) create(ctx context.Context) error {
	// A tenpin lane made with a host key waits for its creator's join; given
	// away, its first player seated hosts it; open, anyone joins with no
	// invitation: as on the peers, which ignore both fields.
	body := fmt.Sprintf(`{"name":"lane %d","give_away":true,"open":true}`, l.n)
	req, _ := http.NewRequestWithContext(ctx, "POST", l.r.httpBase+"/api/lanes", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := l.r.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var created struct{ ID string }
	if err := json.NewDecoder(res.Body).Decode(&created); err != nil || created.ID == "" || res.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %v", res.Status, err)
	}
	l.id = created.ID
	return nil
}

// received records that one client has the board showing seqs from to to: a
// board shows every change since the client's last one.
func (l *lane) received(from, to uint64, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if to-from > 64 { // a client far behind: only recent boards can still be waited for
		from = to - 64
	}
	for s := from; s <= to; s++ {
		t := l.track(s)
		if !t.acked {
			t.early = append(t.early, at)
			continue
		}
		if t.measured {
			l.r.fanout.add(at.Sub(t.sentAt))
		}
		if t.got++; t.got == l.clients {
			delete(l.rolls, s)
		}
	}
}

// acked records that the roll sent at sentAt shows first on board seq.
func (l *lane) acked(seq uint64, sentAt time.Time, measured bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.track(seq)
	t.sentAt, t.acked, t.measured = sentAt, true, measured
	for _, at := range t.early {
		if measured {
			l.r.fanout.add(at.Sub(sentAt))
		}
	}
	t.got, t.early = t.got+len(t.early), nil
	if t.got >= l.clients {
		delete(l.rolls, seq)
	}
	for s := range l.rolls { // boards of no roll (joins, starts, rematches) and of clients gone
		if s+64 < seq {
			delete(l.rolls, s)
		}
	}
}

func (l *lane) track(seq uint64) *rollTrack {
	t := l.rolls[seq]
	if t == nil {
		t = &rollTrack{}
		l.rolls[seq] = t
	}
	return t
}

// conn is one simulated client: a player if it has a name, else a spectator.
// Its reader goroutine drives it; a player's rolls are sent from timers.
type conn struct {
	l       *lane
	ws      *websocket.Conn
	name    string
	rng     *rand.Rand
	lastSeq uint64 // the reader's own

	mu       sync.Mutex // guards what the reader, the timers and play share
	seat     int
	last     msg    // the last board
	inflight bool   // a roll sent and not answered
	after    uint64 // roll only on a board at least this new: the last roll's
	asked    bool   // a rematch was asked for the finished game
	nextID   uint32
	pending  map[uint32]pending
}

// pending is a request waiting for its answer.
type pending struct {
	op       op
	sentAt   time.Time
	measured bool
	done     chan msg // play's calls wait on it
}

func (c *conn) dial(ctx context.Context) error {
	r := c.l.r
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(dctx, r.cfg.URL+r.proto.path(c.l.id), &websocket.DialOptions{HTTPClient: r.http})
	if err != nil {
		return err
	}
	ws.SetReadLimit(1 << 20)
	c.ws = ws
	r.connected.Add(1)
	r.wg.Go(func() { c.read(ctx) })
	return nil
}

// request sends a request and returns its id; done, if not nil, gets the answer.
func (c *conn) request(ctx context.Context, o op, pins int, done chan msg) {
	c.requestBall(ctx, o, pins, 0, 0, done)
}

// requestBall is request for a roll that names the ball it is for.
func (c *conn) requestBall(ctx context.Context, o op, pins, frame, ball int, done chan msg) {
	r := c.l.r
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.pending[id] = pending{op: o, sentAt: time.Now(), measured: r.measuring.Load(), done: done}
	c.mu.Unlock()
	c.write(ctx, r.proto.encode(id, o, c.l.id, c.name, pins, frame, ball))
}

// call sends a request and waits for its answer.
func (c *conn) call(ctx context.Context, o op) (msg, error) {
	done := make(chan msg, 1)
	c.request(ctx, o, 0, done)
	select {
	case m := <-done:
		if m.kind == kindRefusal {
			return m, errors.New(m.text)
		}
		return m, nil
	case <-time.After(30 * time.Second):
		return msg{}, errors.New("no answer in 30s")
	case <-ctx.Done():
		return msg{}, ctx.Err()
	}
}

func (c *conn) write(ctx context.Context, data []byte) {
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.ws.Write(wctx, websocket.MessageText, data); err != nil && ctx.Err() == nil {
		c.l.r.fail("lane %d: write: %v", c.l.n, err)
	}
}

// read handles what the server sends until the connection ends.
func (c *conn) read(ctx context.Context) {
	r := c.l.r
	defer r.connected.Add(-1)
	var buf bytes.Buffer // one buffer a connection, reused for every message
	for {
		_, rd, err := c.ws.Reader(ctx)
		if err == nil {
			buf.Reset()
			_, err = buf.ReadFrom(rd)
		}
		if err != nil {
			if !r.stopping.Load() {
				r.fail("lane %d %s: connection lost: %v", c.l.n, c.who(), err)
			}
			return
		}
		at := time.Now()
		if err := r.proto.decode(buf.Bytes(), func(m msg) { c.handle(ctx, m, at) }); err != nil {
			r.fail("lane %d %s: %v", c.l.n, c.who(), err)
		}
	}
}

func (c *conn) who() string {
	if c.name == "" {
		return "spectator"
	}
	return c.name
}

func (c *conn) handle(ctx context.Context, m msg, at time.Time) {
	r := c.l.r
	switch m.kind {
	case kindPing:
		c.write(ctx, r.proto.pong())
	case kindBoard:
		r.boards.Add(1)
		r.bytes.Add(int64(m.size))
		last := c.lastSeq
		switch {
		case last != 0 && m.seq <= last:
			r.fail("lane %d %s: board seq %d after %d", c.l.n, c.who(), m.seq, last)
			return
		case last != 0 && m.seq > last+1:
			r.gaps.Add(int64(m.seq - last - 1))
		}
		c.lastSeq = m.seq
		from := m.seq
		if last != 0 {
			from = last + 1
		}
		c.l.received(from, m.seq, at)
		if c.name != "" {
			c.mu.Lock()
			c.last = m
			c.act(ctx)
			c.mu.Unlock()
		}
	case kindReply, kindRefusal:
		c.mu.Lock()
		p, ok := c.pending[m.id]
		delete(c.pending, m.id)
		c.mu.Unlock()
		switch {
		case !ok:
			r.fail("lane %d %s: answer to no request: %d", c.l.n, c.who(), m.id)
		case p.done != nil:
			if p.op == opJoin && m.kind == kindReply {
				c.mu.Lock()
				c.seat = m.seat
				c.mu.Unlock()
			}
			p.done <- m
		case m.kind == kindRefusal:
			r.fail("lane %d %s: refused: %s", c.l.n, c.who(), m.text)
			c.mu.Lock()
			c.inflight = false
			c.mu.Unlock()
		case p.op == opRoll:
			if p.measured {
				r.ack.add(at.Sub(p.sentAt))
			}
			c.l.acked(m.seq, p.sentAt, p.measured)
			c.mu.Lock()
			c.inflight, c.after = false, m.seq
			c.act(ctx)
			c.mu.Unlock()
		}
	}
}

// act is a player's move on the last board: ask for a rematch when the game
// is over (the first seat does), or roll after the think time when up. c.mu
// is held.
func (c *conn) act(ctx context.Context) {
	r, b := c.l.r, c.last
	if c.seat < 0 || c.inflight || b.seq < c.after || r.stopping.Load() {
		return
	}
	switch {
	case b.phase == "finished" && c.seat == 0 && !c.asked:
		c.asked = true
		go c.request(ctx, opRematch, 0, nil)
	case b.phase == "waiting" && c.seat == 0 && c.asked:
		// tenpin: a rematch waits for the host's start
		c.asked = false
		go c.request(ctx, opStart, 0, nil)
	case b.phase == "playing" && b.up == c.seat:
		c.asked = false
		pins := c.rng.IntN(b.standing + 1)
		if c.rng.IntN(4) == 0 {
			pins = b.standing // strikes and spares, often
		}
		frame, ball := b.frame, b.ball
		c.inflight = true
		time.AfterFunc(r.cfg.Think, func() {
			if ctx.Err() == nil && !r.stopping.Load() {
				r.rolls.Add(1)
				c.requestBall(ctx, opRoll, pins, frame, ball, nil)
			}
		})
	case b.phase == "playing":
		c.asked = false
	}
}
