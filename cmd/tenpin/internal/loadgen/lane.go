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
	// reconnectFor bounds how long a client whose connection the server
	// closed tries to connect again (to its node, then the others): a
	// cluster's node dying, a lane moving between nodes.
	reconnectFor = 30 * time.Second
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
	for i, p := range players {
		// A friend joins with the invitation the creator shares.
		join := func(ctx context.Context, name string) (*protocol.Welcome, error) {
			return p.conn.JoinInvited(ctx, name, sum.Invite)
		}
		if i == 0 {
			// The first player is the lane's creator: the lane waits for
			// them, and they host it.
			join = func(ctx context.Context, name string) (*protocol.Welcome, error) {
				return p.conn.JoinHost(ctx, name, sum.HostKey)
			}
		}
		w, err := join(ctx, p.name)
		if err != nil {
			if ctx.Err() == nil {
				r.fail("lane %d %s: join: %v", l.n, p.name, err)
			}
			return
		}
		p.mu.Lock()
		p.seat, p.token = w.Seat, w.Token
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
		r.connected.Add(-1)
		if ctx.Err() == nil && u.reconnect(ctx) {
			cases[i].Chan = reflect.ValueOf(u.conn.Done())
			continue
		}
		delete(open, i)
		cases[i].Chan = reflect.Value{} // a nil channel: never again
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

	mu         sync.Mutex // guards what the reader and the roll timers share
	node       int        // the client (node, source address) it dials: see run.client
	token      string     // a player's seat's
	rejoined   bool       // connected again: the next board may repeat the last seq
	resync     bool       // connected again: a roll sent may not have counted
	rematchDue bool       // the rematch was cut off by the connection closing
	failover   bool       // connected again, a roll not stored in time, or the lane taken over: boards may lag an event
	seat       int
	rolls      []int // this player's rolls in the current game
	inflight   bool  // a roll sent and not yet acknowledged
	last       *seen // the last board that concerned this player
	checked    bool  // the current game's end has been checked
	lastSeq    uint64
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
	c.node = n
	c.conn = conn
	return true
}

// reconnect connects again after the server closed the connection before
// the run's end (a node of a cluster going down, a lane moving), to its
// node and then the others in turn, and a player resumes its seat. The
// time from the close to the seat resumed is the run's reconnect latency.
func (c *user) reconnect(ctx context.Context) bool {
	r := c.lane.run
	start := time.Now()
	pause := 50 * time.Millisecond
	for try := 0; ctx.Err() == nil && time.Since(start) < reconnectFor; try++ {
		n := c.node + try/3 // three tries a node
		// Before the dial: the lane sends its board as the connection
		// attaches, which the reader may hand on while Resume still waits
		// for its answer. That board may repeat the last seq, and the
		// player acts on it, not on the last the old connection had,
		// taking its rolls from it.
		c.mu.Lock()
		c.rejoined, c.resync, c.inflight, c.failover = true, true, false, true
		c.last = nil // the old connection's: a roll ending now must not act on it
		c.mu.Unlock()
		dctx, cancel := context.WithTimeout(ctx, dialTimeout)
		conn, err := r.client(n).DialFunc(dctx, c.lane.id, func(data []byte) { c.handle(ctx, data) })
		if err == nil && c.name != "" {
			c.mu.Lock()
			token := c.token
			c.mu.Unlock()
			if _, err = conn.Resume(dctx, token); err != nil {
				conn.CloseNow()
			}
		}
		cancel()
		if err == nil {
			c.mu.Lock()
			c.conn, c.node = conn, n
			c.mu.Unlock()
			r.connected.Add(1)
			r.reconnects.Add(1)
			r.reconnect.add(time.Since(start))
			return true
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
		}
		pause = min(2*pause, time.Second)
	}
	return false
}

// failedOver reports whether the user lived through a failover: its
// connection closed, or a roll of its was not stored in time.
func (c *user) failedOver() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failover
}

// connection returns the user's connection now.
func (c *user) connection() *client.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn
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
	if c.rejoined && seq == last {
		c.rejoined = false
		return last, true // the board it had before it connected again
	}
	c.rejoined = false
	if seq < last || (seq == last && last != 0) {
		r.fail("lane %d %s: board seq %d after %d", c.lane.n, c.who(), seq, last)
		return last, false
	}
	// A lane taken over starts a new epoch, in seq's high 32 bits: what
	// it skips then is no board a slow reader missed. And a roll in
	// flight when the lane's node died may have been stored there: the
	// node that took the lane over, reading it again, answers it as the
	// ball bowled, or as stale if the ball up changed meanwhile (see
	// roll).
	switch {
	case last != 0 && seq>>32 > last>>32:
		c.failover = true
	case last != 0 && seq > last+1:
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
		if e.Code == protocol.CodeServerRestarting {
			return // the connection closes next, and connects again
		}
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
	if c.resync {
		// A roll sent before the connection closed, or that the lane
		// could not store in time, may have counted or not — and one
		// stored as its node died may show only once the store has
		// elected a new leader. The board is the truth: this player's
		// rolls are those it shows.
		c.resync = false
		c.rolls = c.rolls[:0]
		for _, f := range me.Frames {
			c.rolls = append(c.rolls, f.Rolls...)
		}
	}
	if bowled == 0 && b.phase == protocol.PhasePlaying {
		c.rolls, c.checked = c.rolls[:0], false // a new game
	}
	switch b.phase {
	case protocol.PhaseFinished:
		if c.checked {
			if c.rematchDue && ctx.Err() == nil {
				c.rematchDue = false
				go c.rematch(ctx)
			}
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
	conn := c.connection()
	a, err := conn.Roll(ctx, up.Frame, up.Ball, pins)
	if err != nil {
		var pe *protocol.Error
		switch {
		case ctx.Err() != nil:
		case isClosed(conn):
			// The connection closed under the roll: reconnect (see wait)
			// looks at the board again.
		case errors.As(err, &pe) && pe.Code == protocol.CodeStaleRoll && c.failedOver():
			// Decided on a board from before an event that showed late
			// (see resync): the next board says where the game is.
			c.mu.Lock()
			c.resync, c.inflight = true, false
			c.mu.Unlock()
		case errors.As(err, &pe) && pe.Code == protocol.CodeUnavailable:
			c.mu.Lock()
			c.failover = true
			c.mu.Unlock()
			// The lane could not store it in time (a lane moving between
			// nodes, its store electing a leader); it may be stored all
			// the same. The same roll again tells: counted once,
			// acknowledged as the ball bowled if the first was stored.
			time.AfterFunc(100*time.Millisecond, func() { c.rollAgain(ctx, up, pins) })
		default:
			r.fail("lane %d %s: roll: %v", c.lane.n, c.name, err)
		}
		return // and roll no more: the game is not the one this player knows
	}
	r.ack.add(time.Since(sentAt))
	c.lane.rollAcked(a.Seq, sentAt)
	c.settled(ctx)
}

// settled ends a roll: the player looks at the last board again, as the
// boards that came while the roll was in flight were not acted on.
func (c *user) settled(ctx context.Context) {
	c.mu.Lock()
	c.inflight = false
	board := c.last
	c.mu.Unlock()
	if board != nil {
		c.onBoard(ctx, board)
	}
}

// rollAgain sends again a roll the lane could not store in time: see roll.
func (c *user) rollAgain(ctx context.Context, up protocol.Up, pins int) {
	r := c.lane.run
	conn := c.connection()
	sentAt := time.Now()
	a, err := conn.Roll(ctx, up.Frame, up.Ball, pins)
	var pe *protocol.Error
	switch {
	case ctx.Err() != nil, err != nil && isClosed(conn):
		return // the run is over, or reconnect looks at the board again
	case errors.As(err, &pe) && pe.Code == protocol.CodeUnavailable:
		time.AfterFunc(100*time.Millisecond, func() { c.rollAgain(ctx, up, pins) })
		return
	case errors.As(err, &pe) && pe.Code == protocol.CodeStaleRoll:
		// A roll was stored for that ball: this one, or one before it
		// that showed late. The next board says which.
		c.mu.Lock()
		c.resync = true
		c.mu.Unlock()
	case err != nil:
		r.fail("lane %d %s: roll again: %v", c.lane.n, c.name, err)
		return
	default:
		r.ack.add(time.Since(sentAt))
		c.lane.rollAcked(a.Seq, sentAt)
	}
	c.settled(ctx)
}

// rematch asks for a new game and starts it: a server that keeps a series
// seats the players again for a game that waits for the host's start; an
// older one started it already, and refuses the start as game_started.
func (c *user) rematch(ctx context.Context) {
	r := c.lane.run
	conn := c.connection()
	if _, err := conn.Rematch(ctx); err != nil {
		switch {
		case ctx.Err() != nil:
		case isClosed(conn):
			c.mu.Lock()
			c.rematchDue = true // asked again on the board after reconnecting
			c.mu.Unlock()
		default:
			r.fail("lane %d %s: rematch: %v", c.lane.n, c.name, err)
		}
		return
	}
	var pe *protocol.Error
	if _, err := c.connection().Start(ctx); err != nil && ctx.Err() == nil && !(errors.As(err, &pe) && pe.Code == protocol.CodeGameStarted) {
		r.fail("lane %d %s: start after the rematch: %v", c.lane.n, c.name, err)
	}
}

// isClosed reports whether conn has ended.
func isClosed(conn *client.Conn) bool {
	select {
	case <-conn.Done():
		return true
	default:
		return false
	}
}
