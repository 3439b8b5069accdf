package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

const (
	// dialTimeout bounds a handshake, on a server busy with thousands.
	dialTimeout = 15 * time.Second
	// fanWindow is how many seqs back a lane follows for the fan-out
	// latency: older ones no roll will claim (joins, starts, spectators
	// coming and going).
	fanWindow = 256
)

// fanEntry follows one seq of a lane until every spectator has seen it.
type fanEntry struct {
	seen   int
	doneAt time.Time // when the last spectator saw it
	sentAt time.Time // when the roll that made it was sent, once acked
}

// lane is one lane of the run and its simulated clients.
type lane struct {
	run  *run
	n    int
	seed uint64
	id   string

	games atomic.Int64 // games finished

	mu  sync.Mutex
	fan map[uint64]*fanEntry // by seq
}

// playerName is the i-th player's name: AAA, AAB, …
func playerName(i int) string {
	return string([]byte{'A' + byte(i/676%26), 'A' + byte(i/26%26), 'A' + byte(i%26)})
}

// play creates the lane at the time at, opens its connections, seats its
// players, starts the game and waits for the run's end.
func (l *lane) play(ctx context.Context, at time.Time) {
	select {
	case <-time.After(time.Until(at)):
	case <-ctx.Done():
		return
	}
	r := l.run
	sum, err := r.client(l.n).CreateLane(ctx, fmt.Sprintf("load %d", l.n))
	if err != nil {
		if ctx.Err() == nil {
			r.connectFailures.Add(1)
			r.fail("lane %d: create: %v", l.n, err)
		}
		return
	}
	l.id = sum.ID

	var users, players []*user
	defer func() { l.wait(ctx, users) }()
	for i := range r.cfg.Spectators + r.cfg.Players {
		c := &user{lane: l, seat: -1, rng: rand.New(rand.NewPCG(l.seed, uint64(i)))}
		if i >= r.cfg.Spectators {
			c.name = playerName(i - r.cfg.Spectators)
			players = append(players, c)
		}
		if !c.dial(ctx, l.n+i) {
			if c.name != "" {
				return // a lane short of a player plays no game
			}
			continue
		}
		users = append(users, c)
	}
	for _, p := range players {
		w, err := p.conn.Join(ctx, p.name)
		if err != nil {
			if ctx.Err() == nil {
				r.fail("lane %d %s: join: %v", l.n, p.name, err)
			}
			return
		}
		p.mu.Lock()
		p.seat = w.Seat
		p.mu.Unlock()
	}
	if len(players) > 0 {
		if _, err := players[0].conn.Start(ctx); err != nil && ctx.Err() == nil {
			r.fail("lane %d %s: start: %v", l.n, players[0].name, err)
		}
	}
}

// wait waits for the run to end, then closes the lane's connections and
// waits for them to end. A connection that ends before the run is an
// error. It selects on every connection's end at once, so that a lane
// needs no goroutine a connection for it.
func (l *lane) wait(ctx context.Context, users []*user) {
	r := l.run
	cases := []reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())}}
	open := map[int]*user{}
	for _, u := range users {
		open[len(cases)] = u
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(u.conn.Done())})
	}
	for len(open) > 0 {
		i, _, _ := reflect.Select(cases)
		if i == 0 {
			break
		}
		u := open[i]
		delete(open, i)
		cases[i].Chan = reflect.Value{} // a nil channel: never again
		r.connected.Add(-1)
		if ctx.Err() == nil {
			_, err := u.conn.Next(ctx) // why it ended
			r.fail("lane %d %s: connection closed: %v", l.n, u.who(), err)
		}
	}
	for _, u := range open {
		go u.conn.Close() // at once, as the run's end would close them
	}
	for _, u := range open {
		<-u.conn.Done()
		r.connected.Add(-1)
	}
}

// spectatorSaw records that one spectator has seen every seq up to seq.
func (l *lane) spectatorSaw(from, to uint64, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// Only the last fanWindow seqs are measured: a lane taken over by
	// another node starts a new epoch, and its seq jumps by 2^32 (see
	// protocol.Board.Seq), which walked seq by seq was a loop of billions.
	from = max(from, to-min(to, fanWindow))
	for s := from + 1; s <= to; s++ {
		e := l.fan[s]
		if e == nil {
			e = &fanEntry{}
			l.fan[s] = e
		}
		e.seen++
		if e.seen == l.run.cfg.Spectators {
			e.doneAt = now
			if !e.sentAt.IsZero() {
				l.run.fanout.add(e.doneAt.Sub(e.sentAt))
				delete(l.fan, s)
			}
		}
	}
	for s := range l.fan {
		if s+fanWindow < to {
			delete(l.fan, s)
		}
	}
}

// rollAcked records the seq of the board that carries a roll sent at sentAt.
func (l *lane) rollAcked(seq uint64, sentAt time.Time) {
	if l.run.cfg.Spectators == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.fan[seq]
	if e == nil {
		e = &fanEntry{}
		l.fan[seq] = e
	}
	e.sentAt = sentAt
	if e.seen == l.run.cfg.Spectators {
		l.run.fanout.add(e.doneAt.Sub(sentAt))
		delete(l.fan, seq)
	}
}

// user is one simulated client: a spectator, or a player if it has a
// name. Its Conn's reading goroutine drives it (handle); a player's rolls
// are sent from timers, whose goroutines wait for their acks.
type user struct {
	lane *lane
	name string
	conn *client.Conn
	rng  *rand.Rand
	head []byte // a board's head, for DecodeBoardHead; the reader's own

	mu       sync.Mutex // guards what the reader and the roll timers share
	seat     int
	rolls    []int // this player's rolls in the current game
	inflight bool  // a roll sent and not yet acknowledged
	last     *seen // the last board that concerned this player
	checked  bool  // the current game's end has been checked
	lastSeq  uint64
}

// seen is what a player takes from a board: the phase, who is up, and its
// own line (nil if it did not need it).
type seen struct {
	phase protocol.Phase
	up    *protocol.Up
	me    *protocol.Player
}

func (c *user) dial(ctx context.Context, n int) bool {
	r := c.lane.run
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	start := time.Now()
	conn, err := r.client(n).DialFunc(dctx, c.lane.id, func(data []byte) { c.handle(ctx, data) })
	if err != nil {
		if ctx.Err() == nil {
			r.connectFailures.Add(1)
			r.fail("lane %d: connect: %v", c.lane.n, err)
		}
		return false
	}
	r.connect.add(time.Since(start))
	r.connected.Add(1)
	c.conn = conn
	return true
}

func (c *user) who() string {
	if c.name == "" {
		return "spectator"
	}
	return c.name
}

// handle handles a message on the Conn's reading goroutine: a board, or a
// message that answers no command (a notice).
func (c *user) handle(ctx context.Context, data []byte) {
	r := c.lane.run
	now := time.Now()
	r.bytes.Add(int64(len(data)))
	if c.name == "" {
		seq, ok := protocol.BoardSeq(data) // a spectator needs no more
		if !ok {
			c.other(ctx, data)
			return
		}
		last, ok := c.seen(seq)
		if ok && r.cfg.Spectators > 0 {
			from := last // a board stands for the seqs skipped before it too
			if from == 0 {
				from = seq - 1
			}
			c.lane.spectatorSaw(from, seq, now)
		}
		return
	}
	var h protocol.BoardHead
	if !protocol.DecodeBoardHead(data, &c.head, &h) {
		c.other(ctx, data)
		return
	}
	if _, ok := c.seen(h.Seq); !ok {
		return
	}
	b := &seen{phase: h.Phase, up: h.Up}
	c.mu.Lock()
	seat, checked := c.seat, c.checked
	c.mu.Unlock()
	// Its own line matters to a player when it is up, and when a game it
	// has not checked yet is over.
	mine := (h.Phase == protocol.PhasePlaying && h.Up != nil && h.Up.Seat == seat) ||
		(h.Phase == protocol.PhaseFinished && !checked)
	if mine && seat >= 0 {
		b.me = new(protocol.Player)
		if err := protocol.DecodeBoardPlayer(data, seat, b.me); err != nil {
			r.fail("lane %d %s: %v", c.lane.n, c.name, err)
			return
		}
	}
	c.onBoard(ctx, b)
}

// seen counts a board and checks that its seq grew; it returns the seq
// before it.
func (c *user) seen(seq uint64) (last uint64, ok bool) {
	r := c.lane.run
	r.boards.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	last = c.lastSeq
	if seq < last || (seq == last && last != 0) {
		r.fail("lane %d %s: board seq %d after %d", c.lane.n, c.who(), seq, last)
		return last, false
	}
	if last != 0 && seq > last+1 {
		r.skipped.Add(int64(seq - last - 1))
	}
	c.lastSeq = seq
	return last, true
}

// other handles a message that is not a board: a notice, or the answer
// to a command that stopped waiting for it.
func (c *user) other(ctx context.Context, data []byte) {
	r := c.lane.run
	if ctx.Err() != nil {
		return // the run is over: the answers to commands that stopped waiting, lanes closing
	}
	m, err := protocol.DecodeMessage(data)
	if err != nil {
		r.fail("lane %d %s: %v", c.lane.n, c.who(), err)
		return
	}
	if e, ok := m.(*protocol.Error); ok {
		r.fail("lane %d %s: error %s: %s", c.lane.n, c.who(), e.Code, e.Message)
		return
	}
	r.fail("lane %d %s: unexpected %s", c.lane.n, c.who(), data)
}

// onBoard is a player's reaction to a board: check a finished game, ask
// for a rematch, or roll when it is up.
func (c *user) onBoard(ctx context.Context, b *seen) {
	r := c.lane.run
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = b
	if b.me == nil {
		return
	}
	me := b.me
	bowled := 0
	for _, f := range me.Frames {
		bowled += len(f.Rolls)
	}
	if bowled == 0 && b.phase == protocol.PhasePlaying {
		c.rolls, c.checked = c.rolls[:0], false // a new game
	}
	switch b.phase {
	case protocol.PhaseFinished:
		if c.checked {
			return // later boards of the same finished game: spectators coming and going
		}
		c.checked = true
		g, err := bowling.Replay(c.rolls)
		if err != nil || g.Total() != me.Total || bowled != len(c.rolls) {
			r.fail("lane %d %s: finished with total %d from %d rolls; the %d rolls sent give %d (%v)", c.lane.n, c.name, me.Total, bowled, len(c.rolls), g.Total(), err)
		}
		if c.seat == 0 {
			r.games.Add(1)
			n := c.lane.games.Add(1)
			if ctx.Err() == nil && r.cfg.Strategy.Rematch(int(n)) {
				go c.rematch(ctx)
			}
		}
	case protocol.PhasePlaying:
		if b.up == nil || b.up.Seat != c.seat || c.inflight || bowled != len(c.rolls) || ctx.Err() != nil {
			return
		}
		up := *b.up
		pins := r.cfg.Strategy.Pins(c.rng, up)
		c.inflight = true
		c.rolls = append(c.rolls, pins)
		time.AfterFunc(r.cfg.Strategy.Think(c.rng), func() { c.roll(ctx, up, pins) })
	}
}

// roll sends a roll and waits for its ack, then looks at the last board
// again: those that came meanwhile were not acted on.
func (c *user) roll(ctx context.Context, up protocol.Up, pins int) {
	r := c.lane.run
	if ctx.Err() != nil {
		return // the run is over: no more rolls
	}
	sentAt := time.Now()
	r.rolls.Add(1)
	a, err := c.conn.Roll(ctx, up.Frame, up.Ball, pins)
	if err != nil {
		if ctx.Err() == nil {
			r.fail("lane %d %s: roll: %v", c.lane.n, c.name, err)
		}
		return // and roll no more: the game is not the one this player knows
	}
	r.ack.add(time.Since(sentAt))
	c.lane.rollAcked(a.Seq, sentAt)
	c.mu.Lock()
	c.inflight = false
	board := c.last
	c.mu.Unlock()
	if board != nil {
		c.onBoard(ctx, board)
	}
}

// rematch asks for a new game and starts it: a server that keeps a series
// seats the players again for a game that waits for the host's start; an
// older one started it already, and refuses the start as game_started.
func (c *user) rematch(ctx context.Context) {
	r := c.lane.run
	if _, err := c.conn.Rematch(ctx); err != nil {
		if ctx.Err() == nil {
			r.fail("lane %d %s: rematch: %v", c.lane.n, c.name, err)
		}
		return
	}
	var pe *protocol.Error
	if _, err := c.conn.Start(ctx); err != nil && ctx.Err() == nil && !(errors.As(err, &pe) && pe.Code == protocol.CodeGameStarted) {
		r.fail("lane %d %s: start after the rematch: %v", c.lane.n, c.name, err)
	}
}
