package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

const (
	// commandTimeout bounds a command's wait for its answer. A roll not
	// answered by then has an unknown outcome, and its client connects
	// again elsewhere: its node may be paused.
	commandTimeout = 5 * time.Second
	// quiet is how long a player waits for a board before it connects
	// again elsewhere: a lane in play sends one at every roll, and a node
	// that took the lane over sends one when the player resumes.
	quiet = 4 * time.Second
	// spectatorQuiet is quiet for a spectator, which sees nothing while
	// a game waits for its rematch; it reconnects mostly when its
	// connection closes.
	spectatorQuiet = 15 * time.Second
)

// recorder keeps what every client sent and saw.
type recorder struct {
	mu       sync.Mutex
	rolls    []Roll
	seqBacks []SeqBack
	// earlyAcks are acks that named a board without their roll: the
	// board of that seq, or a later one, seen without it.
	earlyAcks []Violation
	lanes     []string
	// remembered are the players whose welcome carried a bowler's key.
	remembered []Remembered
	counts     Counts
}

// Counts are a run's figures.
type Counts struct {
	Lanes       int `json:"lanes"`
	Games       int `json:"games"` // finished, as stored
	Acked       int `json:"acked"`
	Unknown     int `json:"unknown"`
	Refused     int `json:"refused"`
	Boards      int `json:"boards"`
	Connections int `json:"connections"`
	Reconnects  int `json:"reconnects"` // connections after a client's first
	Stalls      int `json:"stalls"`     // reconnects because no board came in time
	Notices     int `json:"notices"`    // errors that answered no command (seat taken over, server restarting, …)
}

func (rec *recorder) roll(r Roll) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.rolls = append(rec.rolls, r)
	switch r.Outcome {
	case Acked:
		rec.counts.Acked++
	case Unknown:
		rec.counts.Unknown++
	case Refused:
		rec.counts.Refused++
	}
}

func (rec *recorder) count(f func(c *Counts)) {
	rec.mu.Lock()
	f(&rec.counts)
	rec.mu.Unlock()
}

// clientState is one simulated client's connection and what it saw: a
// player (name set) or a spectator.
type clientState struct {
	run   *Run
	who   string // for messages: "lane 3.0 AAA", slot 3's first lane
	lane  string
	name  string // a player's; "" for a spectator
	token string
	// remember: a player joins asking to be remembered (Config.Guests
	// unset); its history is checked against its lane's sheet.
	remember bool
	rng      *rand.Rand
	node     int // the node it dials next

	conn     *client.Conn
	connNode string
	opened   int       // WebSockets opened so far, seated or not: SeqBack.Conn counts them
	conns    int       // connections made (a player's seated)
	since    time.Time // when conn was made
	backoff  time.Duration
	after    uint64 // a player acts on no board older than its last command's ack

	mu       sync.Mutex
	current  int // the connection whose boards count: the newest
	latest   *protocol.Board
	fresh    chan struct{} // a board came since the client last looked
	lastSeq  uint64        // of the last board it saw, on any connection
	lastNode string
	acked    *ackedBall // a roll acked whose board has not come yet
}

// ackedBall is an acked roll, until a board of its ack's seq or later
// comes: that board must show it.
type ackedBall struct {
	seq   uint64
	game  int
	frame int
	ball  int
}

// shows reports whether b, a board of the player's, breaks nothing an ack
// promised: it shows the acked ball, or has moved on to a later game.
func (a *ackedBall) shows(name string, b *protocol.Board) bool {
	if boardGame(name, b) != a.game {
		return true
	}
	i := slices.IndexFunc(b.Players, func(pl protocol.Player) bool { return pl.Name == name })
	return i >= 0 && len(b.Players[i].Frames) >= a.frame && len(b.Players[i].Frames[a.frame-1].Rolls) >= a.ball
}

// earlyAck records an ack that named a board without its roll.
func (c *clientState) earlyAck(a *ackedBall, b *protocol.Board) {
	v := Violation{Kind: "ack before its board", Detail: fmt.Sprintf("%s (lane %s): game %d frame %d ball %d acked with seq %s, but board %s does not show it",
		c.who, c.lane, a.game, a.frame, a.ball, FormatSeq(a.seq), FormatSeq(b.Seq))}
	c.run.rec.mu.Lock()
	c.run.rec.earlyAcks = append(c.run.rec.earlyAcks, v)
	c.run.rec.mu.Unlock()
	c.run.logf("%v", v)
}

// connect connects to a node, the next in turn after each failure, and
// seats a player again, until it succeeds or ctx ends.
func (c *clientState) connect(ctx context.Context) error {
	pause := 50 * time.Millisecond
	for {
		err := c.dial(ctx)
		var pe *protocol.Error
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case c.token == "" && c.name != "" && errors.As(err, &pe) && pe.Code != protocol.CodeUnavailable:
			// A join refused (its name taken by a join whose answer was
			// lost): the seat is nobody's to resume.
			return err
		}
		c.run.logf("%s: connect via %s: %v", c.who, c.run.nodes[c.node].Name, err)
		c.node = (c.node + 1) % len(c.run.nodes)
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return ctx.Err()
		}
		pause = min(2*pause, time.Second)
	}
}

func (c *clientState) dial(ctx context.Context) error {
	n := c.run.nodes[c.node]
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	api := &client.Client{URL: n.URL, HTTPClient: c.run.http}
	no := c.opened + 1
	c.mu.Lock()
	c.current = no
	c.latest = nil
	c.mu.Unlock()
	first := true // the reading goroutine's own
	conn, err := api.DialFunc(ctx, c.lane, func(data []byte) {
		if c.handle(n.Name, no, first, data) {
			first = false
		}
	})
	if err != nil {
		return err
	}
	c.opened = no
	if c.name != "" {
		var w *protocol.Welcome
		switch {
		case c.token != "":
			w, err = conn.Resume(ctx, c.token)
		case c.remember:
			w, err = conn.JoinRemember(ctx, c.name, "") // an open lane
		default:
			w, err = conn.Join(ctx, c.name)
		}
		if err != nil {
			conn.CloseNow()
			return err
		}
		c.token = w.Token
		if w.BowlerKey != "" {
			// A welcome without a key is a player the bowlers' store did
			// not answer: a guest, whose history there is none to check.
			c.run.rec.mu.Lock()
			c.run.rec.remembered = append(c.run.rec.remembered, Remembered{Lane: c.lane, Player: c.name, Key: w.BowlerKey})
			c.run.rec.mu.Unlock()
		}
	}
	c.conn, c.connNode, c.after, c.since = conn, n.Name, 0, time.Now()
	c.conns++
	c.run.rec.count(func(k *Counts) {
		k.Connections++
		if c.conns > 1 {
			k.Reconnects++
		}
	})
	return nil
}

// drop closes the connection and moves to the next node: the client
// connects there next. After a connection that lasted under a second (a
// lane sending its clients away while it cannot read its log) it waits a
// little first, longer each time, as a page would: not to reconnect in a
// tight loop.
func (c *clientState) drop(ctx context.Context) {
	if c.conn != nil {
		c.conn.CloseNow()
		c.conn = nil
	}
	c.node = (c.node + 1) % len(c.run.nodes)
	if time.Since(c.since) > time.Second {
		c.backoff = 0
		return
	}
	c.backoff = min(max(2*c.backoff, 50*time.Millisecond), time.Second)
	select {
	case <-time.After(c.backoff):
	case <-ctx.Done():
	}
}

// handle takes a message that answers no command, on the connection's
// reading goroutine: a board, checked and kept as the latest, or a notice.
// first says whether no board came on the connection before; handle
// reports whether this message is a board.
func (c *clientState) handle(node string, no int, first bool, data []byte) (board bool) {
	m, err := protocol.DecodeMessage(data)
	if err != nil {
		c.run.logf("%s: %v", c.who, err)
		return false
	}
	b, ok := m.(*protocol.Board)
	if !ok {
		c.run.rec.count(func(k *Counts) { k.Notices++ })
		return false
	}
	c.run.rec.count(func(k *Counts) { k.Boards++ })
	c.mu.Lock()
	defer c.mu.Unlock()
	if no != c.current {
		return true // a connection the client has left
	}
	if back := b.Seq < c.lastSeq || (!first && b.Seq == c.lastSeq); back {
		sb := SeqBack{Client: c.who, Lane: c.lane, Conn: no, Node: node, Reconnect: first,
			Last: c.lastSeq, LastNode: c.lastNode, Seq: b.Seq, At: time.Now()}
		c.run.rec.mu.Lock()
		c.run.rec.seqBacks = append(c.run.rec.seqBacks, sb)
		c.run.rec.mu.Unlock()
		c.run.logf("seq backwards: %v", sb)
	}
	c.lastSeq, c.lastNode = b.Seq, node
	c.latest = b
	if a := c.acked; a != nil && b.Seq >= a.seq {
		if !a.shows(c.name, b) {
			c.earlyAck(a, b)
		}
		c.acked = nil
	}
	select {
	case c.fresh <- struct{}{}:
	default:
	}
	return true
}

// board waits for a board the client has not looked at yet, the newest,
// for at most wait.
func (c *clientState) board(ctx context.Context, wait time.Duration) (*protocol.Board, error) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		c.mu.Lock()
		b := c.latest
		c.latest = nil
		c.mu.Unlock()
		if b != nil {
			return b, nil
		}
		select {
		case <-c.fresh:
		case <-c.conn.Done():
			return nil, client.ErrClosed
		case <-timer.C:
			return nil, errQuiet
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

var errQuiet = errors.New("no board in time")

// follow keeps a client connected to its lane until ctx ends or, for a
// player, until act says it is done: it hands every newest board to act.
func (c *clientState) follow(ctx context.Context, act func(ctx context.Context, b *protocol.Board) (done bool)) {
	wait := quiet
	if c.name == "" {
		wait = spectatorQuiet
	}
	defer func() {
		if c.conn != nil {
			c.conn.CloseNow()
		}
	}()
	for ctx.Err() == nil {
		if c.conn == nil {
			if c.connect(ctx) != nil {
				return
			}
		}
		b, err := c.board(ctx, wait)
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, errQuiet):
			c.run.rec.count(func(k *Counts) { k.Stalls++ })
			c.drop(ctx)
			continue
		case err != nil:
			c.drop(ctx)
			continue
		}
		if act != nil && act(ctx, b) {
			return
		}
	}
}

// player is a seated client's game: it rolls when it is up, and the
// lane's host (seat 0) starts each game and asks for the rematch until
// the lane has played its games.
type player struct {
	*clientState
	seat    int
	players int // the lane's
	games   int // to play on the lane
}

// act reacts to the newest board; it reports whether the player is done:
// its lane has finished its last game.
func (p *player) act(ctx context.Context, b *protocol.Board) bool {
	if b.Seq < p.after {
		return false // older than the effect of its last command
	}
	game := p.game(b)
	switch b.Phase {
	case protocol.PhaseWaiting:
		if p.seat == 0 && len(b.Players) == p.players {
			p.command(ctx, "start", func(ctx context.Context) (*protocol.Ack, error) { return p.conn.Start(ctx) })
		}
	case protocol.PhaseFinished:
		if game >= p.games {
			return true
		}
		if p.seat == 0 {
			p.command(ctx, "rematch", func(ctx context.Context) (*protocol.Ack, error) { return p.conn.Rematch(ctx) })
		}
	case protocol.PhasePlaying:
		if b.Up == nil || b.Up.Seat != p.seat {
			return false
		}
		p.roll(ctx, game, b.Up)
	}
	return false
}

// game is the game of the lane's series that the board shows, 1 for the
// first: one more than the games the player has finished, which the
// board's series counts with this one once it has a ball of it.
func (p *player) game(b *protocol.Board) int { return boardGame(p.name, b) }

// boardGame is player.game for the player named name.
func boardGame(name string, b *protocol.Board) int {
	i := slices.IndexFunc(b.Players, func(pl protocol.Player) bool { return pl.Name == name })
	if i < 0 {
		return 1
	}
	bowled := 0
	for _, f := range b.Players[i].Frames {
		bowled += len(f.Rolls)
	}
	for _, s := range b.Series {
		if s.Name == name {
			if bowled > 0 {
				return s.Games
			}
			return s.Games + 1
		}
	}
	return 1
}

// command sends start or rematch. Their refusals are expected (a start
// the lane took before a failover, a rematch asked twice); the next board
// says where the lane is.
func (p *player) command(ctx context.Context, what string, do func(ctx context.Context) (*protocol.Ack, error)) {
	cctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	a, err := do(cctx)
	if err == nil {
		p.after = a.Seq
		return
	}
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code == protocol.CodeUnavailable {
		p.drop(ctx) // no answer: its node may be paused
	}
	if ctx.Err() == nil {
		p.run.logf("%s: %s: %v", p.who, what, err)
	}
}

// roll sends one roll for the ball up and records it with its outcome.
func (p *player) roll(ctx context.Context, game int, up *protocol.Up) {
	if p.run.cfg.Think > 0 {
		select {
		case <-time.After(time.Duration(p.rng.Int64N(int64(p.run.cfg.Think)))):
		case <-ctx.Done():
			return
		}
	}
	pins := p.rng.IntN(up.Standing + 1)
	if p.rng.IntN(4) == 0 {
		pins = up.Standing // strikes and spares: tenth frames of three balls
	}
	r := Roll{Ball: Ball{Lane: p.lane, Game: game, Player: p.name, Frame: up.Frame, Ball: up.Ball}, Pins: pins, Node: p.connNode, At: time.Now()}
	cctx, cancel := context.WithTimeout(ctx, commandTimeout)
	a, err := p.conn.Roll(cctx, up.Frame, up.Ball, pins)
	cancel()
	var pe *protocol.Error
	switch {
	case err == nil:
		r.Outcome, r.Seq = Acked, a.Seq
		p.after = a.Seq
		// The board of the ack's seq must show the roll: if it came
		// already, check it now; else check the first that comes.
		acked := &ackedBall{seq: a.Seq, game: game, frame: up.Frame, ball: up.Ball}
		p.mu.Lock()
		if b := p.latest; b != nil && b.Seq >= a.Seq {
			if !acked.shows(p.name, b) {
				p.earlyAck(acked, b)
			}
		} else {
			p.acked = acked
		}
		p.mu.Unlock()
	case errors.As(err, &pe) && pe.Code != protocol.CodeUnavailable && pe.Code != protocol.CodeInternal:
		r.Outcome, r.Err = Refused, err.Error()
	default:
		// Also when the run ended with the roll on its way: it may be
		// stored all the same.
		r.Outcome, r.Err = Unknown, err.Error()
		p.drop(ctx) // no answer, or no store: its node may be paused
	}
	p.run.rec.roll(r)
}

// playLane is one lane slot of the run: lane after lane, each created on
// a node in turn, its players and spectators connected to the nodes in
// turn, until ctx ends; each lane plays cfg.Games games.
func (r *Run) playLane(ctx context.Context, slot int) {
	rng := rand.New(rand.NewPCG(r.cfg.Seed, uint64(slot)))
	for n := 0; ctx.Err() == nil; n++ {
		id, err := r.createLane(ctx, fmt.Sprintf("nemesis %d.%d", slot, n), slot+n)
		if err != nil {
			return
		}
		r.rec.mu.Lock()
		r.rec.lanes = append(r.rec.lanes, id)
		r.rec.counts.Lanes++
		r.rec.mu.Unlock()

		laneCtx, stopLane := context.WithCancel(ctx)
		watchCtx, stopWatching := context.WithCancel(laneCtx)
		var watchers sync.WaitGroup
		for i := range r.cfg.Spectators {
			c := r.newClient(id, fmt.Sprintf("lane %d.%d spectator %d", slot, n, i+1), "", rng, slot+i)
			watchers.Go(func() { c.follow(watchCtx, nil) })
		}
		// Players join one after the other, so that the seats (and the
		// host, seat 0) are known; then each follows the lane on its own.
		var players sync.WaitGroup
		for i := range r.cfg.Players {
			name := playerName(i)
			c := r.newClient(id, fmt.Sprintf("lane %d.%d %s", slot, n, name), name, rng, slot+n+i)
			c.remember = !r.cfg.Guests
			if err := c.connect(laneCtx); err != nil {
				if ctx.Err() == nil {
					r.logf("%s: join: %v; the lane is left as it is", c.who, err)
				}
				stopLane()
				break
			}
			p := &player{clientState: c, seat: i, players: r.cfg.Players, games: r.cfg.Games}
			players.Go(func() { p.follow(laneCtx, p.act) })
		}
		players.Wait()
		stopWatching()
		watchers.Wait()
		stopLane()
	}
}

func (r *Run) newClient(lane, who, name string, rng *rand.Rand, node int) *clientState {
	return &clientState{run: r, who: who, lane: lane, name: name, node: node % len(r.nodes),
		rng: rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())), fresh: make(chan struct{}, 1)}
}

// createLane creates a lane on a node, the next one after each failure,
// until it succeeds or ctx ends. A creation whose answer was lost leaves
// a lane nobody plays: harmless.
func (r *Run) createLane(ctx context.Context, name string, node int) (string, error) {
	for try := 0; ; try++ {
		n := r.nodes[(node+try)%len(r.nodes)]
		cctx, cancel := context.WithTimeout(ctx, commandTimeout)
		// Given away and open: its players join in any order, with no
		// invitation, and the first seated hosts it, whichever node's
		// creation answered.
		l, err := (&client.Client{URL: n.URL, HTTPClient: r.http}).Create(cctx, protocol.CreateLane{Name: name, GiveAway: true, Open: true})
		cancel()
		if err == nil {
			return l.ID, nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		r.logf("create lane %q via %s: %v", name, n.Name, err)
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// playerName is the i-th player's name: AAA, BBB, …
func playerName(i int) string { return string([]byte{'A' + byte(i), 'A' + byte(i), 'A' + byte(i)}) }
