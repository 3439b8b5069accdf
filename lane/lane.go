package lane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// ErrIdle is returned by [Lane.Run] when the lane closed itself because
// nobody was connected to it for its idle timeout.
var ErrIdle = errors.New("lane: closed after being idle")

// ErrMoved is returned by [Lane.Run] when another server took the lane
// over: its claim is in the lane's log, after this lane's, so this lane
// may not write any more. Its clients are told to reconnect, and find the
// lane where it is now.
var ErrMoved = errors.New("lane: taken over by another server")

// ErrPanic is wrapped by the error [Lane.Run] returns when handling a
// command panicked: the lane is closed, its clients told, and the rest of
// the server goes on.
var ErrPanic = errors.New("lane: internal error")

// Config holds a lane's settings. The zero value gives the defaults.
type Config struct {
	MaxPlayers     int           // seats; default MaxPlayers
	MaxSpectators  int           // watchers; default MaxSpectators
	ResumeGrace    time.Duration // to resume a seat when watchers are full; default ResumeGrace
	IdleTimeout    time.Duration // nobody connected, no game in play; default IdleTimeout
	AbandonTimeout time.Duration // nobody connected, game in play; default AbandonTimeout
	AwayAfter      time.Duration // offline before the player up may be skipped; default AwayAfter
	WriteTimeout   time.Duration // per write to a client; default WriteTimeout
	PingInterval   time.Duration // heartbeat; default PingInterval
	PongTimeout    time.Duration // how long a pong may take; default PongTimeout
	MessageRate    float64       // messages per second per connection; default MessagesPerSecond
	MessageBurst   int           // default MessageBurst
	Logger         *slog.Logger  // default: discard
	Metrics        *Metrics      // may be nil

	// Journal stores every event before the lane applies it; lanes made
	// with [Open] and [Restore] need one, those made with [New] keep
	// nothing. AppendTimeout bounds one append (default AppendTimeout).
	Journal       game.Journal
	AppendTimeout time.Duration
	// Durable says the journal outlives the process: on shutdown clients
	// are told the server is restarting (and will find their lane again),
	// not that the lane closed.
	Durable bool
	// Node names this server in the claims it writes, for the logs.
	Node string

	// Private opens the lane unlisted ([Open], [New]): the lobby does not
	// list it, and only its link leads to it.
	Private bool

	// Publish, if set, is given every board of a lane that has clients
	// connected to other nodes ([Lane.AttachRemote]), once: their nodes
	// relay it to them ([Relay.Board]). It is called on the lane
	// goroutine and must not block.
	Publish func(lane string, board []byte, seq uint64)

	// Wakes, if set, counts the times this server was found paused (its
	// process stopped, its machine frozen: see lobby/nats). When
	// the count changes, the lane reads its log back before its next
	// decision: another server may have taken it over meanwhile, and a
	// decision on what the lane was would be wrong even where the fence
	// keeps it from being stored.
	Wakes func() uint64
}

func (c Config) withDefaults() Config {
	if c.MaxPlayers <= 0 {
		c.MaxPlayers = MaxPlayers
	}
	if c.MaxSpectators <= 0 {
		c.MaxSpectators = MaxSpectators
	}
	if c.ResumeGrace <= 0 {
		c.ResumeGrace = ResumeGrace
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = IdleTimeout
	}
	if c.AbandonTimeout <= 0 {
		c.AbandonTimeout = AbandonTimeout
	}
	if c.AwayAfter <= 0 {
		c.AwayAfter = AwayAfter
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = WriteTimeout
	}
	if c.PingInterval <= 0 {
		c.PingInterval = PingInterval
	}
	if c.PongTimeout <= 0 {
		c.PongTimeout = PongTimeout
	}
	if c.MessageRate <= 0 {
		c.MessageRate = MessagesPerSecond
	}
	if c.MessageBurst <= 0 {
		c.MessageBurst = MessageBurst
	}
	if c.AppendTimeout <= 0 {
		c.AppendTimeout = AppendTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Metrics == nil {
		c.Metrics = new(Metrics)
	}
	return c
}

// Metrics counts what lanes do, for the server's /debug/vars. Its fields are
// updated atomically and may be read at any time.
type Metrics struct {
	Connections   atomic.Int64 // connections attached now
	BoardsSent    atomic.Int64 // boards queued to clients
	BoardsSkipped atomic.Int64 // boards dropped for clients that fell behind
	Refused       atomic.Int64 // client messages refused with an error
	Changes       atomic.Int64 // accepted changes of any lane
	Appends       atomic.Int64 // events stored in the journal
	AppendErrors  atomic.Int64 // appends that failed or timed out
}

// Lane is one lane: a goroutine ([Lane.Run]) that owns the lane's game and
// every connection attached to it. See the package documentation.
type Lane struct {
	id, name string
	private  bool
	cfg      Config
	log      *slog.Logger

	inbox   chan request       // commands for the lane goroutine
	stopped context.Context    // done when Run returns
	stop    context.CancelFunc // ends stopped

	view atomic.Pointer[view] // the latest board, for readers outside the goroutine

	// Owned by the lane goroutine.
	state   *game.State
	journal game.Journal  // nil: nothing is stored
	last    uint64        // the journal's position of the lane's last event
	stale   bool          // an append's outcome is unknown: read the log before the next
	pending []pendingJoin // joins refused while their outcome was unknown
	retryAt time.Time     // a failed read-back: not before then again
	epoch   uint64        // the epoch this lane holds: a later claim in the log is another server's
	moved   bool          // the log holds a later claim: stop
	wakes   uint64        // Config.Wakes when the lane last read its log back for it
	seq     uint64        // changes shown in this epoch
	clients map[*client]struct{}
	remotes int                        // clients in clients connected to other nodes
	holders map[bowling.Name]*client   // the connection holding each seat
	offline map[bowling.Name]time.Time // since when each seat has had no connection, once it had one
	born    time.Time                  // when this lane came up: seats never held since are offline since then
	waiting map[*client]*time.Timer    // not attached yet: see attach
	idle    *time.Timer

	// Presence alone (a connection coming or going) shows at most one
	// board every presenceEvery: see presenceChanged.
	lastBoard time.Time
	presence  *time.Timer
	due       bool // a presence change waits for the timer

	// skippable fires when the player up, offline, may be skipped: the
	// board then says so (see skipIn).
	skippable *time.Timer
}

// view is what a lane last showed: read by the lobby and the HTTP API
// without asking the lane goroutine.
type view struct {
	board       []byte // the encoded board message
	summary     protocol.LaneSummary
	players     []bowling.Player
	series      []game.Result // the finished games before this one
	corrections []game.Event  // this game's
	phase       game.Phase
}

type op uint8

const (
	opAttach op = iota + 1
	opDetach
	opMessage  // msg, decoded
	opRead     // data, as a connection read it
	opSnapshot // store a snapshot, answer on result
	opExpire   // a waiting connection's grace is over (see attach)
	opRefresh  // send a remote client the board again
	opVerify   // read the log back before the next decision
)

type request struct {
	op  op
	c   *client
	msg protocol.Request

	// For opRead: a message as a connection read it, for the lane
	// goroutine to decode (see readLoop), and why the reader refused it
	// already, if it did.
	data    []byte
	refusal error

	result chan<- error // for opSnapshot
}

// New returns a lane kept in memory only: cfg.Journal is not used. Call
// [Lane.Run] to bring it to life.
func New(id, name string, cfg Config) *Lane {
	cfg.Journal = nil
	return newLane(game.Replay([]game.Event{opening(id, name, cfg)}), 0, cfg)
}

// Open opens a new lane, storing its opening in cfg.Journal first: once
// Open returns, the lane survives a restart.
func Open(ctx context.Context, id, name string, cfg Config) (*Lane, error) {
	cfg = cfg.withDefaults()
	e := opening(id, name, cfg)
	pos, err := appendEvent(ctx, cfg, id, 0, e)
	if err != nil {
		return nil, err
	}
	return newLane(game.Replay([]game.Event{e}), pos, cfg), nil
}

// opening returns the event that opens a lane with cfg's settings.
func opening(id, name string, cfg Config) game.Event {
	if cfg.Private {
		return game.OpenPrivate(id, name, cfg.MaxPlayers)
	}
	return game.Open(id, name, cfg.MaxPlayers)
}

// Restore rebuilds a lane from its stored log and takes it up: a claim,
// stored in cfg.Journal, starts a new epoch, so that the boards' seq goes
// on growing for clients who saw the lane before. A closed lane, or a log
// with no opening, is refused with [ErrNotRestorable].
func Restore(ctx context.Context, log game.Log, cfg Config) (*Lane, error) {
	cfg = cfg.withDefaults()
	st := game.Replay(log.Events)
	switch {
	case st.ID() == "":
		return nil, fmt.Errorf("%w: lane %s has no opening in its log", ErrNotRestorable, log.Lane)
	case st.Closed():
		return nil, fmt.Errorf("%w: lane %s is closed", ErrNotRestorable, log.Lane)
	}
	claim := st.Claim(cfg.Node)
	pos, err := appendEvent(ctx, cfg, st.ID(), log.Last, claim)
	if err != nil {
		return nil, err
	}
	st.Apply(claim)
	return newLane(st, pos, cfg), nil
}

// ErrNotRestorable is returned by [Restore] for a log that holds no lane
// to restore.
var ErrNotRestorable = errors.New("lane: not restorable")

// appendEvent stores one event of lane id within cfg.AppendTimeout.
func appendEvent(ctx context.Context, cfg Config, id string, last uint64, e game.Event) (uint64, error) {
	if cfg.Journal == nil {
		return 0, errors.New("lane: no journal to store the lane in")
	}
	// An append that has been sent may land even if its caller gives up,
	// so shutdown must not cancel it halfway: only the timeout bounds it,
	// and the client then hears the outcome, not "nothing changed".
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.AppendTimeout)
	defer cancel()
	pos, err := cfg.Journal.Append(ctx, id, last, e)
	if err != nil {
		cfg.Metrics.AppendErrors.Add(1)
		return 0, fmt.Errorf("lane %s: storing %s: %w", id, e.Kind, err)
	}
	cfg.Metrics.Appends.Add(1)
	return pos, nil
}

func newLane(st *game.State, last uint64, cfg Config) *Lane {
	cfg = cfg.withDefaults()
	l := &Lane{
		id:      st.ID(),
		name:    st.Name(),
		private: st.Private(),
		cfg:     cfg,
		log:     cfg.Logger.With("lane", st.ID()),
		inbox:   make(chan request, inboxSize),
		state:   st,
		journal: cfg.Journal,
		last:    last,
		clients: make(map[*client]struct{}),
		holders: make(map[bowling.Name]*client),
		offline: make(map[bowling.Name]time.Time),
		born:    time.Now(),
		waiting: make(map[*client]*time.Timer),
	}
	l.epoch = st.Epoch()
	if cfg.Wakes != nil {
		l.wakes = cfg.Wakes()
	}
	l.presence = time.NewTimer(time.Hour)
	l.presence.Stop()
	l.skippable = time.NewTimer(time.Hour)
	l.skippable.Stop()
	l.stopped, l.stop = context.WithCancel(context.Background())
	l.publish()
	return l
}

// ID returns the lane's id, the last part of its URL.
func (l *Lane) ID() string { return l.id }

// Name returns the lane's name, as its creator gave it.
func (l *Lane) Name() string { return l.name }

// Private reports whether the lane is unlisted: the lobby does not list
// it, and only its link leads to it.
func (l *Lane) Private() bool { return l.private }

// Done is closed when the lane has stopped.
func (l *Lane) Done() <-chan struct{} { return l.stopped.Done() }

// Summary returns the lane as the lobby lists it.
func (l *Lane) Summary() protocol.LaneSummary { return l.view.Load().summary }

// BoardJSON returns the lane's latest board message.
func (l *Lane) BoardJSON() []byte { return l.view.Load().board }

// BoardText returns the lane's text scoreboard.
func (l *Lane) BoardText() string { return bowling.Board(l.view.Load().players...) }

// Games returns the games of the lane's series, oldest first: the
// finished ones, and the one in play or waiting for a rematch.
func (l *Lane) Games() protocol.Games {
	v := l.view.Load()
	out := protocol.Games{Games: make([]protocol.Game, 0, len(v.series)+1)}
	for i, r := range v.series {
		g := protocol.Game{Game: i + 1, Finished: true, Players: make([]protocol.GamePlayer, len(r.Players)), Corrections: corrections(r.Corrections)}
		marks := correctedFrames(r.Corrections)
		for j, p := range r.Players {
			g.Players[j] = gamePlayer(p.Name, &p.Game, p.Left, marks[p.Name])
		}
		out.Games = append(out.Games, g)
	}
	if len(v.players) > 0 {
		g := protocol.Game{Game: len(v.series) + 1, Finished: v.phase == game.Finished, Players: make([]protocol.GamePlayer, len(v.players)), Corrections: corrections(v.corrections)}
		marks := correctedFrames(v.corrections)
		for j, p := range v.players {
			g.Players[j] = gamePlayer(p.Name, &p.Game, p.Left, marks[p.Name])
		}
		out.Games = append(out.Games, g)
	}
	return out
}

// gamePlayer is one player's line of a game in the series: their frames
// as on the board, and how many frames were strikes, spares and open.
func gamePlayer(name bowling.Name, g *bowling.Game, left bool, corrected uint16) protocol.GamePlayer {
	view := playerView(bowling.Player{Name: name, Game: *g, Left: left}, false, corrected)
	var stats bowling.Stats
	stats.Add(g)
	out := protocol.GamePlayer{Name: string(name), Frames: view.Frames, Total: view.Total, Left: left, Stats: playerStats(name, stats)}
	for _, f := range g.Frames() {
		switch r := f.Rolls; {
		case len(r) == 0:
		case r[0] == bowling.NumPins:
			out.Strikes++
		case len(r) >= 2 && r[0]+r[1] == bowling.NumPins:
			out.Spares++
		case f.Complete():
			out.Opens++
		}
	}
	return out
}

// Run runs the lane until ctx ends (returning ctx's error), the lane has
// been idle for its timeout ([ErrIdle]), or handling a command panicked
// (an error wrapping [ErrPanic]). Every client is disconnected on the way
// out.
func (l *Lane) Run(ctx context.Context) (err error) {
	l.idle = time.NewTimer(l.cfg.IdleTimeout)
	defer l.idle.Stop()
	defer l.stop()
	defer func() {
		if p := recover(); p != nil {
			l.log.Error("lane panicked", "panic", p, "stack", string(debug.Stack()))
			l.closeAll(websocket.StatusInternalError, protocol.CodeInternal, "the lane failed and was closed")
			err = fmt.Errorf("%w: %v", ErrPanic, p)
		}
	}()
	for {
		select {
		case <-ctx.Done():
			if l.cfg.Durable {
				l.closeAll(websocket.StatusGoingAway, protocol.CodeServerRestarting, "the server is restarting: reconnect in a moment, your seat is kept")
			} else {
				l.closeAll(websocket.StatusGoingAway, protocol.CodeLaneClosed, "the server is shutting down")
			}
			return ctx.Err()
		case <-l.presence.C:
			if l.due {
				l.changed()
			}
		case <-l.skippable.C:
			l.changed() // the board says the player up may be skipped now
		case <-l.idle.C:
			if len(l.clients) == 0 {
				return l.closeIdle(ctx)
			}
		case r := <-l.inbox:
			l.handle(ctx, r)
			if l.moved {
				l.log.Warn("another server took the lane over", "epoch", l.state.Epoch())
				l.closeAll(websocket.StatusGoingAway, protocol.CodeServerRestarting, "the lane moved to another server: reconnect, your seat is kept")
				return ErrMoved
			}
			if r.op != opSnapshot { // the journal's compaction is not someone using the lane
				l.armIdle()
			}
		}
	}
}

// closeIdle records that the lane closed, so that it is not restored, and
// closes it. If the journal cannot take that, the lane closes all the same
// and comes back, idle, after a restart.
func (l *Lane) closeIdle(ctx context.Context) error {
	err := l.sync(ctx)
	if l.moved { // the lane lives on with another server: it is not closed
		l.closeAll(websocket.StatusGoingAway, protocol.CodeServerRestarting, "the lane moved to another server: reconnect, your seat is kept")
		return ErrMoved
	}
	if err == nil {
		err = l.store(ctx, l.state.Close("idle"))
	}
	if err != nil {
		l.log.Warn("could not record the lane's closing", "err", err)
	}
	l.closeAll(websocket.StatusGoingAway, protocol.CodeLaneIdle, "the lane was idle and has closed")
	return ErrIdle
}

// armIdle (re)starts the idle clock whenever nobody is connected.
func (l *Lane) armIdle() {
	if len(l.clients) > 0 {
		l.idle.Stop()
		return
	}
	// A game that has had a ball is worth waiting for; one only started
	// is not: otherwise joining, starting and leaving keeps a lane (and
	// its place in the lobby) for an hour.
	timeout := l.cfg.IdleTimeout
	if l.state.Phase() == game.Playing && l.state.Match().Started() {
		timeout = l.cfg.AbandonTimeout
	}
	l.idle.Reset(timeout)
}

// submit hands a request to the lane goroutine. It reports false if the
// lane has stopped or ctx ended first.
func (l *Lane) submit(ctx context.Context, r request) bool {
	select {
	case <-l.stopped.Done(): // checked first: a buffered inbox would take the request
		return false
	default:
	}
	select {
	case l.inbox <- r:
		return true
	case <-l.stopped.Done():
		return false
	case <-ctx.Done():
		return false
	}
}

func (l *Lane) handle(ctx context.Context, r request) {
	switch r.op {
	case opAttach:
		l.attach(r.c)
	case opDetach:
		l.detach(r.c)
	case opMessage:
		l.message(ctx, r.c, r.msg)
	case opRead:
		l.read(ctx, r.c, r.data, r.refusal)
	case opExpire:
		if _, ok := l.waiting[r.c]; ok {
			l.turnAway(r.c, "")
		}
	case opRefresh:
		if _, ok := l.clients[r.c]; ok {
			l.sendBoard(r.c, l.view.Load().board)
		}
	case opVerify:
		if l.journal != nil {
			l.stale, l.retryAt = true, time.Time{}
			l.sync(ctx)
		}
	case opSnapshot:
		err := l.sync(ctx)
		if err == nil {
			err = l.store(ctx, l.state.Snapshot())
		}
		r.result <- err
	}
}

// read decodes a message as a connection read it and handles it, or
// refuses it: undecodable, or refused already by the reader (answered by
// its id alone).
func (l *Lane) read(ctx context.Context, c *client, data []byte, refusal error) {
	msg, err := protocol.Decode(data)
	if refusal != nil {
		msg, err = protocol.Request{ID: msg.ID}, refusal
	}
	if err != nil {
		if _, ok := l.clients[c]; ok { // not sent just before the connection went away
			l.refuse(c, msg.ID, err)
		} else if _, ok := l.waiting[c]; ok {
			l.turnAway(c, msg.ID)
		}
		return
	}
	l.message(ctx, c, msg)
}

// spectators counts the attached connections that hold no seat. Waiting
// connections are not attached, and seated players are never spectators.
func (l *Lane) spectators() int {
	return len(l.clients) - len(l.holders)
}

// attach attaches a new connection as a spectator, if the lane has room
// for one more. If it has not, the connection may be a seated player
// coming back, who must get in however many watch: it waits, unattached
// (sent nothing, not counted), for cfg.ResumeGrace, and its one allowed
// message is resume (see [Lane.admit]). Anything else, or nothing in
// time, turns it away with spectators_full and close 1013. Waiting costs
// the lane nothing on a change: a waiting connection is sent no board.
func (l *Lane) attach(c *client) {
	if l.spectators() >= l.cfg.MaxSpectators {
		l.waiting[c] = time.AfterFunc(l.cfg.ResumeGrace, func() {
			l.submit(context.Background(), request{op: opExpire, c: c})
		})
		return
	}
	l.enter(c)
	if !l.presenceChanged() {
		l.sendBoard(c, l.view.Load().board) // the newcomer gets the board at once, everyone the count soon
	}
}

// enter counts c among the lane's clients, taking it out of the waiting.
func (l *Lane) enter(c *client) {
	if timer, ok := l.waiting[c]; ok {
		timer.Stop()
		delete(l.waiting, c)
	}
	l.clients[c] = struct{}{}
	if c.sink != nil {
		l.remotes++
		return // counted by its own node
	}
	l.cfg.Metrics.Connections.Add(1)
}

// exit takes an attached client out of the lane's clients.
func (l *Lane) exit(c *client) {
	delete(l.clients, c)
	if c.sink != nil {
		l.remotes--
		return
	}
	l.cfg.Metrics.Connections.Add(-1)
}

// admit handles the message of a waiting connection: a resume with a
// token that holds a seat attaches it, as that seat's player; anything
// else turns it away.
func (l *Lane) admit(ctx context.Context, c *client, m protocol.Request) {
	if m.Type != protocol.TypeResume {
		l.turnAway(c, m.ID)
		return
	}
	if err := l.sync(ctx); err != nil {
		l.refuse(c, m.ID, err)
		l.turnAway(c, "")
		return
	}
	if _, ok := l.tokenSeat(m.Token); !ok {
		l.refuse(c, m.ID, errBadToken)
		l.turnAway(c, "")
		return
	}
	l.enter(c)
	l.resume(ctx, c, m)
}

// turnAway tells a connection that the lane has no room for another
// spectator and closes it with 1013 (try again later), whether it is
// waiting or attached.
func (l *Lane) turnAway(c *client, ref string) {
	if timer, ok := l.waiting[c]; ok {
		timer.Stop()
		delete(l.waiting, c)
	}
	if _, ok := l.clients[c]; ok {
		l.exit(c) // a spectator: it holds no seat
	}
	l.refuse(c, ref, protocol.Errorf(protocol.CodeSpectatorsFull, "the lane has its %d watchers already", l.cfg.MaxSpectators))
	c.drop(websocket.StatusTryAgainLater, "lane full")
}

func (l *Lane) detach(c *client) {
	if timer, ok := l.waiting[c]; ok {
		timer.Stop()
		delete(l.waiting, c)
		return
	}
	if _, ok := l.clients[c]; !ok {
		return
	}
	l.exit(c)
	if c.seat != "" && l.holders[c.seat] == c {
		delete(l.holders, c.seat) // the player is shown disconnected but keeps the seat
		l.offline[c.seat] = time.Now()
	}
	l.presenceChanged()
}

// presenceEvery is the shortest time between two boards sent for
// presence alone. Connecting and disconnecting cost a client nothing but
// would send the board to every watcher, a 200-fold amplification: a
// churn of connections shows as at most ten boards a second, while a
// roll's board is never held back (and carries the presence too).
const presenceEvery = 100 * time.Millisecond

// presenceChanged shows a change of presence: at once if no board went
// out for presenceEvery, else with the next board, at the latest when the
// interval is over. It reports whether the board went out at once.
func (l *Lane) presenceChanged() (shown bool) {
	if l.due {
		return false
	}
	wait := presenceEvery - time.Since(l.lastBoard)
	if wait <= 0 {
		l.changed()
		return true
	}
	l.due = true
	l.presence.Reset(wait)
	return false
}

// message handles one decoded client message.
func (l *Lane) message(ctx context.Context, c *client, m protocol.Request) {
	if _, ok := l.waiting[c]; ok {
		l.admit(ctx, c, m)
		return
	}
	if _, ok := l.clients[c]; !ok {
		return // sent just before the connection went away
	}
	if err := l.sync(ctx); err != nil {
		l.refuse(c, m.ID, err) // a decision on a state that may be behind the log could be wrong
		return
	}
	if m.Type == protocol.TypeJoin || m.Type == protocol.TypeResume {
		if c.seat != "" {
			l.refuse(c, m.ID, protocol.Errorf(protocol.CodeAlreadySeated, "this connection already holds %s's seat", c.seat))
			return
		}
		if m.Type == protocol.TypeJoin {
			l.join(ctx, c, m)
		} else {
			l.resume(ctx, c, m)
		}
		return
	}
	if c.seat == "" {
		l.refuse(c, m.ID, protocol.Errorf(protocol.CodeNotSeated, "only a seated player may %s; join first", m.Type))
		return
	}
	var e game.Event
	var err error
	switch m.Type {
	case protocol.TypeStart:
		e, err = l.state.Start(c.seat)
	case protocol.TypeRoll:
		var t game.Throw
		if t, err = requestBall(m); err == nil {
			t.By, t.For, t.Frame, t.Ball, t.UpOffline = c.seat, bowling.Name(m.Name), *m.Frame, *m.Ball, l.upOffline()
			e, err = l.state.Roll(t)
		}
	case protocol.TypeLeave:
		e, err = l.state.Leave(c.seat)
	case protocol.TypeRematch:
		e, err = l.state.NewGame(c.seat)
	case protocol.TypeCorrect, protocol.TypeSkip, protocol.TypeRemove, protocol.TypeReadmit:
		e, err = l.decideFairPlay(c, m)
	}
	if err == nil {
		err = l.record(ctx, e)
	}
	if err != nil {
		l.refuse(c, m.ID, err)
		return
	}
	if e.Kind == game.PlayerLeft {
		l.removed(e) // the player who left, or whom the host removed
	}
	l.changed()
	l.ack(c, m.ID)
}

// upOffline reports whether the player up has no connection holding their
// seat: then any seated player may enter their ball.
func (l *Lane) upOffline() bool {
	seat, _, ok := l.state.Match().Up()
	if !ok {
		return false
	}
	return l.holders[l.state.Match().At(seat).Name] == nil
}

func (l *Lane) join(ctx context.Context, c *client, m protocol.Request) {
	token := uuid.NewString()
	e, err := l.state.Join(m.Name, game.HashToken(token))
	if err != nil {
		l.refuse(c, m.ID, err)
		return
	}
	if err := l.record(ctx, e); err != nil {
		// The seat may have been stored all the same, and only this
		// connection knows its token: if reading the log back shows the
		// seat, the connection is seated then (see catchUp).
		l.pending = append(l.pending, pendingJoin{c: c, ref: m.ID, name: e.Player, token: token})
		l.refuse(c, m.ID, err)
		return
	}
	l.seat(c, e.Player, m.ID, token, false)
}

// pendingJoin is a join whose append had no answer: the seat it asked for
// may be in the log.
type pendingJoin struct {
	c     *client
	ref   string
	name  bowling.Name
	token string
}

var errBadToken = protocol.Errorf(protocol.CodeBadToken, "that token holds no seat on this lane")

// tokenSeat returns the seat a resume token holds, if it holds one.
func (l *Lane) tokenSeat(token string) (bowling.Name, bool) {
	name, ok := l.state.Holder(game.HashToken(token))
	return name, ok && l.state.Seated(name)
}

func (l *Lane) resume(ctx context.Context, c *client, m protocol.Request) {
	name, ok := l.tokenSeat(m.Token)
	if !ok {
		l.refuse(c, m.ID, errBadToken)
		return
	}
	if old := l.holders[name]; old != nil {
		old.seat = ""
		c.seat, l.holders[name] = name, c
		l.reply(old, protocol.Errorf(protocol.CodeSeatTakenOver, "%s's seat was resumed by another connection", name))
		// The old connection is a spectator now. A player who came back
		// while watchers were full did not count as one (see attach): with
		// no room left for it, the old connection goes, so that resuming a
		// seat over and over cannot add watchers past the limit.
		if l.spectators() > l.cfg.MaxSpectators {
			l.turnAway(old, "")
		}
	}
	l.seat(c, name, m.ID, m.Token, true)
	l.welcomeBack(ctx, name)
}

// seat gives name's seat to c, shows everyone the change and welcomes c
// with the seat's token. A resume is presence alone: two connections
// resuming one seat in turn must not send every watcher a board each time.
func (l *Lane) seat(c *client, name bowling.Name, ref, token string, resumed bool) {
	c.seat = name
	l.holders[name] = c
	delete(l.offline, name)
	if resumed {
		l.presenceChanged()
	} else {
		l.changed()
	}
	seat, _ := l.state.Seat(name)
	l.reply(c, protocol.Welcome{Type: protocol.TypeWelcome, Ref: ref, Seat: seat, Name: string(name), Token: token})
}

// record stores a decided event in the journal and applies it: the ack
// rule. If the journal does not take it, nothing changes and the error
// says the command may be tried again.
func (l *Lane) record(ctx context.Context, e game.Event) error {
	if err := l.store(ctx, e); err != nil {
		l.log.Warn("journal append failed", "event", e.Kind, "err", err)
		if errors.Is(err, game.ErrConflict) {
			// Someone else wrote to the lane's log: read it now, to stop
			// at once if it was another server's claim.
			l.sync(ctx)
		}
		return protocol.Errorf(protocol.CodeUnavailable, "the lane could not store that in time; nothing changed, try again")
	}
	l.state.Apply(e)
	l.cfg.Metrics.Changes.Add(1)
	return nil
}

// Verify has the lane read its log back now, as before its next decision:
// for a server that was paused (its process stopped, its machine frozen)
// long enough for another to take its lanes over. A lane whose log holds
// another server's later claim stops, and its clients are sent to
// reconnect. It returns once the lane has the request, or has stopped.
func (l *Lane) Verify(ctx context.Context) {
	l.submit(ctx, request{op: opVerify})
}

// ErrStopped is returned by [Lane.Snapshot] for a lane that has stopped.
var ErrStopped = errors.New("lane: stopped")

// Snapshot stores the whole lane as one event, so that the journal may
// drop the lane's earlier events ([game.Journal.Compact]). It returns once
// the snapshot is stored, or fails with [ErrStopped] if the lane stopped
// first.
func (l *Lane) Snapshot(ctx context.Context) error {
	result := make(chan error, 1)
	if !l.submit(ctx, request{op: opSnapshot, result: result}) {
		if err := ctx.Err(); err != nil {
			return err
		}
		return ErrStopped
	}
	select {
	case err := <-result:
		return err
	case <-l.stopped.Done():
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

// store appends e, decided on a state in step with the log (see sync),
// to the lane's log.
func (l *Lane) store(ctx context.Context, e game.Event) error {
	if l.journal == nil {
		return nil
	}
	if l.moved {
		return errMoved // another server holds the lane
	}
	if l.stale {
		return errors.New("lane: the log is ahead of the lane: read it back before deciding") // sync was not called: a bug
	}
	pos, err := appendEvent(ctx, l.cfg, l.id, l.last, e)
	if err != nil {
		l.stale = true
		return err
	}
	l.last = pos
	return nil
}

// sync brings the lane's state in step with its log before anything is
// decided: after an append whose outcome was unknown, it reads back and
// applies what the log holds beyond the lane's last known event (the
// append may have landed, and the log is the truth). A roll whose ack was
// lost and which the client sends again is then refused as stale, never
// counted twice.
func (l *Lane) sync(ctx context.Context) error {
	if l.moved {
		return errMoved
	}
	if l.cfg.Wakes != nil && l.journal != nil {
		if w := l.cfg.Wakes(); w != l.wakes {
			l.wakes, l.stale, l.retryAt = w, true, time.Time{}
		}
	}
	if !l.stale {
		return nil
	}
	// While the store is down, every message would wait for a read that
	// fails, and the lane goroutine would fall behind its inbox (and its
	// readers behind their pongs): try the store again only after a pause.
	if now := time.Now(); now.Before(l.retryAt) {
		return errStoreDown
	}
	if err := l.catchUp(ctx); err != nil {
		if l.moved {
			return errMoved
		}
		l.retryAt = time.Now().Add(storeRetryPause)
		l.log.Warn("journal read failed", "err", err)
		return errStoreDown
	}
	return nil
}

var errMoved = protocol.Errorf(protocol.CodeServerRestarting, "the lane moved to another server: reconnect, your seat is kept")

var errStoreDown = protocol.Errorf(protocol.CodeUnavailable, "the lane could not read its log back in time; nothing changed, try again")

func (l *Lane) catchUp(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.cfg.AppendTimeout)
	defer cancel()
	log, err := l.journal.Read(ctx, l.id, l.last)
	if err != nil {
		return fmt.Errorf("lane %s: reading back the log: %w", l.id, err)
	}
	for _, e := range log.Events {
		l.state.Apply(e)
	}
	l.last, l.stale = log.Last, false
	if l.state.Epoch() > l.epoch {
		l.moved = true // another server claimed the lane: its log is not ours to write
		return errMoved
	}
	if len(log.Events) > 0 {
		l.log.Info("caught up with the journal", "events", len(log.Events))
		l.changed()
	}
	for _, p := range l.pending {
		_, attached := l.clients[p.c]
		if name, ok := l.state.Holder(game.HashToken(p.token)); ok && name == p.name && attached && p.c.seat == "" && l.holders[name] == nil {
			l.seat(p.c, name, p.ref, p.token, false) // its join was stored after all
		}
	}
	l.pending = l.pending[:0]
	return nil
}

// changed marks a change of the lane: the next seq, one board built and
// encoded once, and the same bytes queued for every client.
func (l *Lane) changed() {
	if l.due {
		l.due = false
		l.presence.Stop()
	}
	l.lastBoard = time.Now()
	l.seq++
	v := l.publish()
	for c := range l.clients {
		if c.sink != nil {
			continue // its node relays the board published below
		}
		if n := c.sendBoard(v.board); n > 0 {
			l.cfg.Metrics.BoardsSkipped.Add(int64(n))
		}
	}
	l.cfg.Metrics.BoardsSent.Add(int64(len(l.clients) - l.remotes))
	if l.remotes > 0 && l.cfg.Publish != nil {
		l.cfg.Publish(l.id, v.board, l.boardSeq())
	}
}

// sendBoard sends one client the current board, board.
func (l *Lane) sendBoard(c *client, board []byte) {
	if c.sink != nil {
		c.sink.Send(board, l.boardSeq(), true)
		return
	}
	c.sendBoard(board)
}

// publish builds the current board and makes it the lane's view.
func (l *Lane) publish() *view {
	players := l.state.Match().Players()
	board := protocol.Board{
		Type:       protocol.TypeBoard,
		Lane:       l.id,
		Name:       l.name,
		Seq:        l.boardSeq(),
		Phase:      protocol.Phase(l.state.Phase()),
		Players:    make([]protocol.Player, len(players)),
		Spectators: l.spectators(),
		Host:       string(l.state.Host()),
	}
	if seat, frame, ok := l.state.Match().Up(); ok && board.Phase == protocol.PhasePlaying {
		board.Up = &protocol.Up{Seat: seat, Frame: frame, Ball: players[seat].Game.Ball(), Standing: players[seat].Game.Standing(),
			Deck: rackPins(&players[seat].Game), SkipIn: l.skipIn(players[seat].Name)}
	} else {
		l.skippable.Stop()
	}
	summary := protocol.LaneSummary{ID: l.id, Name: l.name, Phase: board.Phase, Players: make([]string, len(players)), Spectators: board.Spectators}
	if board.Up != nil {
		summary.Frame = board.Up.Frame
	} else if board.Phase == protocol.PhaseFinished {
		summary.Frame = bowling.NumFrames
	}
	marks := correctedFrames(l.state.Corrections())
	for i, p := range players {
		board.Players[i] = playerView(p, l.holders[p.Name] != nil, marks[p.Name])
		board.Players[i].Removed = p.Left && l.state.Removed(p.Name)
		summary.Players[i] = string(p.Name)
	}
	board.Series = series(l.state.Totals(), players)
	data, err := json.Marshal(board)
	if err != nil {
		panic(fmt.Sprintf("lane: encoding a board: %v", err)) // only plain values: cannot fail
	}
	v := &view{board: data, summary: summary, players: players, series: l.state.Series(), corrections: l.state.Corrections(), phase: l.state.Phase()}
	l.view.Store(v)
	return v
}

// playerView is a player's line of a board; corrected holds a bit for
// each frame (1 to 10) with a corrected ball.
func playerView(p bowling.Player, connected bool, corrected uint16) protocol.Player {
	out := protocol.Player{Name: string(p.Name), Connected: connected, Left: p.Left, Away: p.Away, Late: p.Late, Total: p.Game.Total()}
	for _, f := range p.Game.Frames() {
		if len(f.Rolls) == 0 {
			break
		}
		out.Frames = append(out.Frames, frameView(f, corrected&(1<<f.Number) != 0))
	}
	if out.Frames == nil {
		out.Frames = []protocol.Frame{}
	}
	return out
}

// reply queues a message for one client.
func (l *Lane) reply(c *client, msg any) {
	if c.sink != nil {
		// Its node holds it until it has relayed this board or a later one.
		c.sink.Send(encodeReply(msg), l.boardSeq(), false)
		return
	}
	c.sendReply(encodeReply(msg))
}

func (l *Lane) ack(c *client, ref string) {
	if ref != "" {
		l.reply(c, protocol.Ack{Type: protocol.TypeAck, Ref: ref, Seq: l.boardSeq()})
	}
}

// boardSeq returns the seq of the lane's current board: the epoch in the
// high bits, so that a client never sees seq go back when the lane is
// restored, and the changes of this epoch in the low ones. Both fit a
// JavaScript number exactly (2^53) for two million epochs of four billion
// changes each.
func (l *Lane) boardSeq() uint64 { return l.state.Epoch()<<32 | l.seq }

// refuse answers a refused message with its error code. Refusals are
// counted in the metrics and logged at debug level only: a client may have
// dozens refused a second within its rate limit, and a line each at info
// would let any client flood the log (one writer shared by every lane).
func (l *Lane) refuse(c *client, ref string, err error) {
	pe, known := ErrorFor(err)
	pe.Ref = ref
	l.cfg.Metrics.Refused.Add(1)
	if !known {
		l.log.Error("message failed", "err", err)
	} else {
		l.log.Debug("message refused", "code", pe.Code)
	}
	l.reply(c, pe)
}

// closeAll tells every client, waiting ones too, why the lane is closing
// and disconnects it.
func (l *Lane) closeAll(status websocket.StatusCode, code protocol.Code, why string) {
	for c, timer := range l.waiting {
		timer.Stop()
		l.reply(c, protocol.Errorf(code, "%s", why))
		c.drop(status, why)
		delete(l.waiting, c)
	}
	for c := range l.clients {
		l.reply(c, protocol.Errorf(code, "%s", why)) // a notice, not a refused message
		c.drop(status, why)
		l.exit(c)
	}
}

// encodeReply encodes a message meant for one client.
func encodeReply(msg any) []byte {
	data, err := json.Marshal(msg)
	if err != nil {
		panic(fmt.Sprintf("lane: encoding a reply: %v", err)) // only plain values: cannot fail
	}
	return data
}
