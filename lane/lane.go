package lane

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/protocol"
)

// ErrIdle is returned by [Lane.Run] when the lane closed itself because
// nobody was connected to it for its idle timeout.
var ErrIdle = errors.New("lane: closed after being idle")

// ErrPanic is wrapped by the error [Lane.Run] returns when handling a
// command panicked: the lane is closed, its clients told, and the rest of
// the server goes on.
var ErrPanic = errors.New("lane: internal error")

// Config holds a lane's settings. The zero value gives the defaults.
type Config struct {
	MaxPlayers     int           // seats; default MaxPlayers
	MaxSpectators  int           // watchers; default MaxSpectators
	IdleTimeout    time.Duration // nobody connected, no game in play; default IdleTimeout
	AbandonTimeout time.Duration // nobody connected, game in play; default AbandonTimeout
	WriteTimeout   time.Duration // per write to a client; default WriteTimeout
	PingInterval   time.Duration // heartbeat; default PingInterval
	PongTimeout    time.Duration // how long a pong may take; default PongTimeout
	MessageRate    float64       // messages per second per connection; default MessagesPerSecond
	MessageBurst   int           // default MessageBurst
	Logger         *slog.Logger  // default: discard
	Metrics        *Metrics      // may be nil
}

func (c Config) withDefaults() Config {
	if c.MaxPlayers <= 0 {
		c.MaxPlayers = MaxPlayers
	}
	if c.MaxSpectators <= 0 {
		c.MaxSpectators = MaxSpectators
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = IdleTimeout
	}
	if c.AbandonTimeout <= 0 {
		c.AbandonTimeout = AbandonTimeout
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
}

// Lane is one lane: a goroutine ([Lane.Run]) that owns the lane's game and
// every connection attached to it. See the package documentation.
type Lane struct {
	id, name string
	cfg      Config
	log      *slog.Logger

	inbox   chan request       // commands for the lane goroutine
	stopped context.Context    // done when Run returns
	stop    context.CancelFunc // ends stopped

	view atomic.Pointer[view] // the latest board, for readers outside the goroutine

	// Owned by the lane goroutine.
	state   State
	events  []Event
	seq     uint64
	clients map[*client]struct{}
	tokens  map[bowling.Name]string  // each seat's resume token
	holders map[bowling.Name]*client // the connection holding each seat
	idle    *time.Timer
}

// view is what a lane last showed: read by the lobby and the HTTP API
// without asking the lane goroutine.
type view struct {
	board   []byte // the encoded board message
	summary protocol.Lane
	players []bowling.Player
}

type op uint8

const (
	opAttach op = iota + 1
	opDetach
	opMessage // msg, decoded
	opRead    // data, as a connection read it
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
}

// New returns a lane; call [Lane.Run] to bring it to life.
func New(id, name string, cfg Config) *Lane {
	cfg = cfg.withDefaults()
	l := &Lane{
		id:      id,
		name:    name,
		cfg:     cfg,
		log:     cfg.Logger.With("lane", id),
		inbox:   make(chan request, inboxSize),
		clients: make(map[*client]struct{}),
		tokens:  make(map[bowling.Name]string),
		holders: make(map[bowling.Name]*client),
	}
	l.stopped, l.stop = context.WithCancel(context.Background())
	l.state.maxPlayers = cfg.MaxPlayers
	l.publish()
	return l
}

// ID returns the lane's id, the last part of its URL.
func (l *Lane) ID() string { return l.id }

// Name returns the lane's name, as its creator gave it.
func (l *Lane) Name() string { return l.name }

// Done is closed when the lane has stopped.
func (l *Lane) Done() <-chan struct{} { return l.stopped.Done() }

// Summary returns the lane as the lobby lists it.
func (l *Lane) Summary() protocol.Lane { return l.view.Load().summary }

// BoardJSON returns the lane's latest board message.
func (l *Lane) BoardJSON() []byte { return l.view.Load().board }

// BoardText returns the lane's text scoreboard.
func (l *Lane) BoardText() string { return bowling.Board(l.view.Load().players...) }

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
			l.closeAll(websocket.StatusGoingAway, protocol.CodeLaneClosed, "the server is shutting down")
			return ctx.Err()
		case <-l.idle.C:
			if len(l.clients) == 0 {
				l.closeAll(websocket.StatusGoingAway, protocol.CodeLaneClosed, "the lane was idle")
				return ErrIdle
			}
		case r := <-l.inbox:
			l.handle(r)
			l.armIdle()
		}
	}
}

// armIdle (re)starts the idle clock whenever nobody is connected.
func (l *Lane) armIdle() {
	if len(l.clients) > 0 {
		l.idle.Stop()
		return
	}
	timeout := l.cfg.IdleTimeout
	if l.state.Phase() == protocol.PhasePlaying {
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

func (l *Lane) handle(r request) {
	switch r.op {
	case opAttach:
		l.attach(r.c)
	case opDetach:
		l.detach(r.c)
	case opMessage:
		l.message(r.c, r.msg)
	case opRead:
		l.read(r.c, r.data, r.refusal)
	}
}

// read decodes a message as a connection read it and handles it, or
// refuses it: undecodable, or refused already by the reader (answered by
// its id alone).
func (l *Lane) read(c *client, data []byte, refusal error) {
	msg, err := protocol.Decode(data)
	if refusal != nil {
		msg, err = protocol.Request{ID: msg.ID}, refusal
	}
	if err != nil {
		if _, ok := l.clients[c]; ok { // not sent just before the connection went away
			l.refuse(c, msg.ID, err)
		}
		return
	}
	l.message(c, msg)
}

func (l *Lane) spectators() int {
	return len(l.clients) - len(l.holders)
}

func (l *Lane) attach(c *client) {
	if l.spectators() >= l.cfg.MaxSpectators {
		l.refuse(c, "", protocol.Errorf(protocol.CodeSpectatorsFull, "the lane has its %d watchers already", l.cfg.MaxSpectators))
		c.drop(websocket.StatusTryAgainLater, "lane full")
		return
	}
	l.clients[c] = struct{}{}
	l.cfg.Metrics.Connections.Add(1)
	l.changed() // the spectator count changed; the newcomer gets the board at once
}

func (l *Lane) detach(c *client) {
	if _, ok := l.clients[c]; !ok {
		return
	}
	delete(l.clients, c)
	l.cfg.Metrics.Connections.Add(-1)
	if c.seat != "" && l.holders[c.seat] == c {
		delete(l.holders, c.seat) // the player is shown disconnected but keeps the seat
	}
	l.changed()
}

// message handles one decoded client message.
func (l *Lane) message(c *client, m protocol.Request) {
	if _, ok := l.clients[c]; !ok {
		return // sent just before the connection went away
	}
	if m.Type == protocol.TypeJoin || m.Type == protocol.TypeResume {
		if c.seat != "" {
			l.refuse(c, m.ID, protocol.Errorf(protocol.CodeAlreadySeated, "this connection already holds %s's seat", c.seat))
			return
		}
		if m.Type == protocol.TypeJoin {
			l.join(c, m)
		} else {
			l.resume(c, m)
		}
		return
	}
	if c.seat == "" {
		l.refuse(c, m.ID, protocol.Errorf(protocol.CodeNotSeated, "only a seated player may %s; join first", m.Type))
		return
	}
	var e Event
	switch m.Type {
	case protocol.TypeStart:
		e = Event{Kind: GameStarted}
	case protocol.TypeRoll:
		e = Event{Kind: Rolled, Name: c.seat, Pins: *m.Pins}
	case protocol.TypeLeave:
		e = Event{Kind: PlayerLeft, Name: c.seat}
	case protocol.TypeRematch:
		e = Event{Kind: Rematched}
	}
	if err := l.apply(e); err != nil {
		l.refuse(c, m.ID, err)
		return
	}
	if e.Kind == PlayerLeft {
		delete(l.tokens, c.seat)
		delete(l.holders, c.seat)
		c.seat = ""
	}
	l.changed()
	l.ack(c, m.ID)
}

func (l *Lane) join(c *client, m protocol.Request) {
	name, err := bowling.ParseName(m.Name)
	if err == nil {
		err = l.apply(Event{Kind: SeatTaken, Name: name})
	}
	if err != nil {
		l.refuse(c, m.ID, err)
		return
	}
	token := uuid.NewString()
	l.tokens[name] = token
	l.seat(c, name, m.ID)
}

func (l *Lane) resume(c *client, m protocol.Request) {
	var name bowling.Name
	for n, token := range l.tokens {
		// Compare every token in constant time, so that timing says nothing
		// about how close a guess came.
		if subtle.ConstantTimeCompare([]byte(token), []byte(m.Token)) == 1 {
			name = n
		}
	}
	if name == "" || !l.state.Seated(name) {
		l.refuse(c, m.ID, protocol.Errorf(protocol.CodeBadToken, "that token holds no seat on this lane"))
		return
	}
	if old := l.holders[name]; old != nil {
		old.seat = ""
		l.reply(old, protocol.Errorf(protocol.CodeNotSeated, "%s's seat was resumed by another connection", name))
	}
	l.seat(c, name, m.ID)
}

// seat gives name's seat to c, welcomes it, and shows everyone the change.
func (l *Lane) seat(c *client, name bowling.Name, ref string) {
	c.seat = name
	l.holders[name] = c
	l.changed()
	seat := 0
	for i, p := range l.state.Match().Players() {
		if p.Name == name {
			seat = i
		}
	}
	l.reply(c, protocol.Welcome{Type: protocol.TypeWelcome, Ref: ref, Seat: seat, Name: string(name), Token: l.tokens[name]})
}

// apply applies an event to the state and records it.
func (l *Lane) apply(e Event) error {
	if err := l.state.Apply(e); err != nil {
		return err
	}
	if e.Kind == Rematched {
		l.events = l.compacted()
	} else {
		l.events = append(l.events, e)
	}
	l.cfg.Metrics.Changes.Add(1)
	return nil
}

// compacted returns the events of the current state alone: after a
// rematch, earlier games no longer matter, and the log stays bounded.
func (l *Lane) compacted() []Event {
	events := l.events[:0]
	for _, p := range l.state.Match().Players() {
		events = append(events, Event{Kind: SeatTaken, Name: p.Name})
	}
	return append(events, Event{Kind: GameStarted})
}

// changed marks a change of the lane: the next seq, one board built and
// encoded once, and the same bytes queued for every client.
func (l *Lane) changed() {
	l.seq++
	v := l.publish()
	for c := range l.clients {
		if n := c.sendBoard(v.board); n > 0 {
			l.cfg.Metrics.BoardsSkipped.Add(int64(n))
		}
	}
	l.cfg.Metrics.BoardsSent.Add(int64(len(l.clients)))
}

// publish builds the current board and makes it the lane's view.
func (l *Lane) publish() *view {
	players := l.state.Match().Players()
	board := protocol.Board{
		Type:       protocol.TypeBoard,
		Lane:       l.id,
		Name:       l.name,
		Seq:        l.seq,
		Phase:      l.state.Phase(),
		Players:    make([]protocol.Player, len(players)),
		Spectators: l.spectators(),
	}
	if seat, frame, ok := l.state.Match().Up(); ok && board.Phase == protocol.PhasePlaying {
		board.Up = &protocol.Up{Seat: seat, Frame: frame, Standing: players[seat].Game.Standing()}
	}
	summary := protocol.Lane{ID: l.id, Name: l.name, Phase: board.Phase, Players: make([]string, len(players)), Spectators: board.Spectators}
	if board.Up != nil {
		summary.Frame = board.Up.Frame
	} else if board.Phase == protocol.PhaseFinished {
		summary.Frame = bowling.NumFrames
	}
	for i, p := range players {
		board.Players[i] = playerView(p, l.holders[p.Name] != nil)
		summary.Players[i] = string(p.Name)
	}
	data, err := json.Marshal(board)
	if err != nil {
		panic(fmt.Sprintf("lane: encoding a board: %v", err)) // only plain values: cannot fail
	}
	v := &view{board: data, summary: summary, players: players}
	l.view.Store(v)
	return v
}

func playerView(p bowling.Player, connected bool) protocol.Player {
	out := protocol.Player{Name: string(p.Name), Connected: connected, Left: p.Left, Total: p.Game.Total()}
	for _, f := range p.Game.Frames() {
		if len(f.Rolls) == 0 {
			break
		}
		pf := protocol.Frame{Marks: f.Marks(), Rolls: f.Rolls}
		if s, ok := f.Score(); ok {
			pf.Score = &s
		}
		out.Frames = append(out.Frames, pf)
	}
	if out.Frames == nil {
		out.Frames = []protocol.Frame{}
	}
	return out
}

// reply queues a message for one client.
func (l *Lane) reply(c *client, msg any) {
	c.sendReply(encodeReply(msg))
}

func (l *Lane) ack(c *client, ref string) {
	if ref != "" {
		l.reply(c, protocol.Ack{Type: protocol.TypeAck, Ref: ref, Seq: l.seq})
	}
}

// refuse answers a refused message with its error code.
func (l *Lane) refuse(c *client, ref string, err error) {
	pe := ErrorFor(err)
	pe.Ref = ref
	l.cfg.Metrics.Refused.Add(1)
	l.log.Info("message refused", "code", pe.Code)
	l.reply(c, pe)
}

// closeAll tells every client why the lane is closing and disconnects it.
func (l *Lane) closeAll(status websocket.StatusCode, code protocol.Code, why string) {
	for c := range l.clients {
		l.reply(c, protocol.Errorf(code, "%s", why)) // a notice, not a refused message
		c.drop(status, why)
		delete(l.clients, c)
		l.cfg.Metrics.Connections.Add(-1)
	}
}

// errorCodes maps the domain's errors to protocol error codes: the one
// place where that mapping lives.
var errorCodes = []struct {
	err  error
	code protocol.Code
}{
	{bowling.ErrInvalidName, protocol.CodeInvalidName},
	{bowling.ErrNameTaken, protocol.CodeNameTaken},
	{ErrLaneFull, protocol.CodeLaneFull},
	{ErrGameStarted, protocol.CodeGameStarted},
	{bowling.ErrStarted, protocol.CodeGameStarted},
	{ErrNotPlaying, protocol.CodeNotPlaying},
	{bowling.ErrGameOver, protocol.CodeNotPlaying},
	{bowling.ErrNotYourTurn, protocol.CodeNotYourTurn},
	{bowling.ErrInvalidPins, protocol.CodeInvalidPins},
	{bowling.ErrTooManyPins, protocol.CodeInvalidPins},
	{bowling.ErrUnknownPlayer, protocol.CodeNotSeated},
	{bowling.ErrNoPlayers, protocol.CodeNotSeated},
	{ErrNotFinished, protocol.CodeNotFinished},
}

// ErrorFor returns the protocol error a client is sent for err.
func ErrorFor(err error) *protocol.Error {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		cp := *pe
		return &cp
	}
	for _, ec := range errorCodes {
		if errors.Is(err, ec.err) {
			return protocol.Errorf(ec.code, "%s", strings.TrimPrefix(err.Error(), ec.err.Error()+": "))
		}
	}
	return protocol.Errorf(protocol.CodeInternal, "the server could not handle that")
}

// encodeReply encodes a message meant for one client.
func encodeReply(msg any) []byte {
	data, err := json.Marshal(msg)
	if err != nil {
		panic(fmt.Sprintf("lane: encoding a reply: %v", err)) // only plain values: cannot fail
	}
	return data
}
