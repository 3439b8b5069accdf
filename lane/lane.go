package lane

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

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

// Lane is one lane: a goroutine ([Lane.Run]) that owns the lane's game and
// every connection attached to it. See the package documentation.
type Lane struct {
	id, name string
	private  bool
	league   bool // a league night's match (Config.League)
	cfg      Config
	log      *slog.Logger

	inbox   chan request       // commands for the lane goroutine
	stopped context.Context    // done when Run returns
	stop    context.CancelFunc // ends stopped

	view atomic.Pointer[view] // the latest board, for readers outside the goroutine

	// Owned by the lane goroutine, but for what tenure and stored say.
	state  *game.State
	stored storedLog   // its log: see journal.go
	tenure tenure      // whether it may decide, and show a board: see tenure.go
	conns  connections // the connections attached, and waiting to be: see seats.go
	seats  seating     // who holds each seat, and since when none has: see seats.go
	shown  showing     // the boards it showed, and the board it owes: see board.go
	enc    boardCache  // what the board's encoding reuses: see boardjson.go
	bw     bowlers     // the bowlers linked seats hold: see bowlers.go
	lg     leagueState // a league night's lane's league: see league.go
}

// view is what a lane last showed: read by the lobby and the HTTP API
// without asking the lane goroutine.
type view struct {
	board       []byte // the encoded board message
	seq         uint64 // its seq
	summary     protocol.LaneSummary
	players     []bowling.Player
	series      []game.Result // the finished games before this one
	number      int           // the lane's number of the game in play (see game.State.GameNumber)
	corrections []game.Event  // this game's
	phase       game.Phase
	stats       tally // the night's numbers, as the board shows them
}

type op uint8

const (
	opAttach op = iota + 1
	opDetach
	opMessage     // msg, decoded, with k
	opRead        // data, as a connection read it
	opSnapshot    // store a snapshot, answer on result
	opExpire      // a waiting connection's grace is over (see attach)
	opWake        // Wake: wake the tenure, and read the log back
	opRetry       // a woken lane tries again to read its log back: see retryLater
	opRecorded    // a game's end was recorded in its bowlers' histories: see recordWaiting
	opLeagueSheet // a league night's sheet came: recorded.sheet (see league.go)
	opHandIn      // a relay hands the lane a connection: handIn (see handover.go)
	opSecretary   // a league's secretary's command: msg, answered on result (see league.go)
)

type request struct {
	op op
	c  *Client
	// For opMessage, a message decoded already (see [Client.ReadRequest]),
	// and the hashes of its secrets: pointers, as every slot of every
	// lane's inbox pays for what a request holds.
	msg *protocol.Request
	k   *Secrets

	// For opRead: a message as a connection read it, for the lane
	// goroutine to decode (see lane/ws), and why the reader refused it
	// already, if it did.
	data    []byte
	refusal error

	result chan<- error // for opSnapshot, opSecretary

	recorded *recorded // for opRecorded

	handIn *HandIn // for opHandIn
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
	if cfg.League != nil {
		if err := cfg.League.Check(); err != nil {
			return nil, err // stored, its opening could not be read back
		}
	}
	e := opening(id, name, cfg)
	pos, err := appendEvent(ctx, cfg, id, 0, e)
	if err != nil {
		return nil, err
	}
	l := newLane(game.Replay([]game.Event{e}), pos, cfg)
	l.stored.keep.Store(pos)
	return l, nil
}

// opening returns the event that opens a lane with cfg's settings.
func opening(id, name string, cfg Config) game.Event {
	e := game.Open(id, name, cfg.MaxPlayers)
	if cfg.Private {
		e = game.OpenPrivate(id, name, cfg.MaxPlayers)
	}
	e.HostKey, e.Invite = cfg.HostKey, cfg.Invite
	e.League = cfg.League
	return e
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
	l := newLane(st, pos, cfg)
	l.stored.keep.Store(log.First)
	l.loadBowlers(ctx)
	l.bw.again = true // once it runs: see offerAgain
	l.buildBoard()    // with the bowlers' averages
	return l, nil
}

// Keep returns the first position of the lane's log that a compaction
// must keep: that of the last snapshot the lane stored, or before it
// stored one, of the first event of the log it was opened or restored
// from. Everything before it may be dropped.
func (l *Lane) Keep() uint64 { return l.stored.keep.Load() }

// ErrNotRestorable is returned by [Restore] for a log that holds no lane
// to restore.
var ErrNotRestorable = errors.New("lane: not restorable")

func newLane(st *game.State, last uint64, cfg Config) *Lane {
	cfg = cfg.withDefaults()
	l := &Lane{
		id:      st.ID(),
		name:    st.Name(),
		private: st.Private(),
		league:  st.League() != nil,
		cfg:     cfg,
		log:     cfg.Logger.With("lane", st.ID()),
		inbox:   make(chan request, inboxSize),
		state:   st,
		stored:  storedLog{journal: cfg.Journal, last: last},
		conns: connections{
			attached: make(map[*Client]struct{}),
			waiting:  make(map[*Client]*time.Timer),
		},
		seats: seating{
			holders: make(map[bowling.Name]*Client),
			offline: make(map[bowling.Name]absence),
			born:    time.Now(),
		},
	}
	l.tenure.epoch = st.Epoch()
	if cfg.Wakes != nil {
		l.tenure.wakes.Store(cfg.Wakes())
	}
	l.shown.presence = time.NewTimer(time.Hour)
	l.shown.presence.Stop()
	l.seats.skippable = time.NewTimer(time.Hour)
	l.seats.skippable.Stop()
	l.stopped, l.stop = context.WithCancel(context.Background())
	l.buildBoard()
	return l
}

// ID returns the lane's id, the last part of its URL.
func (l *Lane) ID() string { return l.id }

// Name returns the lane's name, as its creator gave it.
func (l *Lane) Name() string { return l.name }

// Private reports whether the lane is unlisted: the lobby does not list
// it, and only its link leads to it.
func (l *Lane) Private() bool { return l.private }

// League reports whether the lane is a league night's match: it stays
// open while its week is (see [Config.League]).
func (l *Lane) League() bool { return l.league }

// Done is closed when the lane has stopped.
func (l *Lane) Done() <-chan struct{} { return l.stopped.Done() }

// Stopped reports whether the lane has stopped: Done is closed.
func (l *Lane) Stopped() bool { return l.stopped.Err() != nil }

// AfterStop arranges to call f in its own goroutine once the lane has
// stopped, as [context.AfterFunc] does, with no goroutine waiting
// meanwhile: a node keeps one such for each lane it runs. Calling stop
// cancels the call if it has not started.
func (l *Lane) AfterStop(f func()) (stop func() bool) { return context.AfterFunc(l.stopped, f) }

// Summary returns the lane as the lobby lists it.
func (l *Lane) Summary() protocol.LaneSummary { return l.view.Load().summary }

// BoardJSON returns the lane's latest board message.
func (l *Lane) BoardJSON() []byte { return l.view.Load().board }

// Board returns the lane's latest board message and its seq, from any
// goroutine: for a node that relays the lane and may have lost it. It
// returns nil and 0 while the lane's server was found paused and the lane
// has not claimed it again since: another server may run the lane now,
// and a relay of it must not be shown an older board (see changed).
func (l *Lane) Board() (board []byte, seq uint64) {
	if l.unsure() {
		return nil, 0
	}
	v := l.view.Load()
	return v.board, v.seq
}

// Unsure reports whether the lane may be behind its log: its server was
// found paused, and the lane has not claimed it again since (see the
// package documentation), so that another server may run it now. It
// shows no board meanwhile (see Board), and what else it shows of itself
// (BoardJSON, Games, Game, Stats, BoardText) is what it last showed, from
// before the pause: its log may hold more, a game over that the lane read
// back but may not show yet, or that the server that took the lane over
// showed, and whose bowlers' histories may hold it already. Whoever
// answers for the lane should not answer from it until it is sure again.
// Safe on any goroutine.
func (l *Lane) Unsure() bool { return l.unsure() }

// BoardText returns the lane's text scoreboard.
func (l *Lane) BoardText() string { return bowling.Board(l.view.Load().players...) }
