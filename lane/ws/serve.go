package ws

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/protocol"
)

// Serve attaches an accepted connection to to, a lane or a relay of one,
// and runs it with cfg's settings until either side ends it or ctx ends,
// then returns why it ended. Serve closes the connection. It is [Start]
// waiting for its end: a server of many connections calls Start.
func Serve(ctx context.Context, conn *Conn, to lane.Endpoint, cfg Config) error {
	ended := make(chan error, 1)
	Start(ctx, conn, to, cfg, func(err error) { ended <- err })
	return <-ended
}

// Start attaches an accepted connection to to, as [Serve] does, but returns
// at once: done is called, once, with what Serve would return when the
// connection is over.
//
// A reader goroutine reads the client's messages and hands them over;
// writes happen on writer goroutines that exist only while something is
// queued (see [Conn.writeOut]), and pings on a timer. With a poller
// (Config.Poller), on Linux, the reader too exits when the client has
// sent nothing more, and the poller starts one when it does: a connection
// at rest holds no goroutine. Elsewhere, with no poller, and for a
// connection that is not a socket (a pipe, TLS), the reader waits in a
// read for as long as the connection lasts.
func Start(ctx context.Context, conn *Conn, to lane.Endpoint, cfg Config, done func(error)) {
	cfg, log := cfg.withDefaults(), to.Logger()
	ws := conn.ws
	ws.SetReadLimit(protocol.MaxMessageSize)
	conn.bc.setTimeout(cfg.WriteTimeout)
	conn.pingInterval, conn.pongTimeout = cfg.PingInterval, cfg.PongTimeout
	conn.limit.setRate(cfg.MessageRate, cfg.MessageBurst, time.Now())
	if cfg.Poller != nil && conn.bc.raw != nil { // a socket: pipes (in synctest bubbles) have no poller
		cfg.Poller.track(conn)
	}
	session, ok := to.Attach(ctx, conn)
	if !ok {
		if conn.poller != nil {
			conn.poller.remove(conn.pollKey)
		}
		ws.Close(Closing(protocol.CodeLaneClosed))
		done(errDropped)
		return
	}
	log.Debug("connection opened")
	if p := conn.poller; p != nil {
		if err := p.add(conn); err != nil {
			if !errors.Is(err, errNoEpoll) {
				log.Debug("connection not polled", "err", err)
			}
			conn.mu.Lock()
			conn.unpolled = true
			conn.mu.Unlock()
		}
	}
	s := &serving{ctx: ctx, session: session, log: log, rate: cfg.MessageRate, done: done, limits: joinLimits{cfg.Joins, cfg.KeyGuesses, cfg.NewBowlers}, addr: cfg.Addr}
	if ctx.Done() != nil { // the lobby's never ends: it spares a connection the callback's state
		s.stop = context.AfterFunc(ctx, func() { conn.fail(context.Cause(ctx)) })
	}
	conn.mu.Lock()
	conn.serving = s
	conn.pinger = time.AfterFunc(conn.pingInterval, conn.ping)
	conn.mu.Unlock()
	conn.wake() // for what came with the handshake, and to arm the poller
}

// serving is what a connection's readers need of Start's arguments.
type serving struct {
	ctx     context.Context
	session lane.Session
	log     *slog.Logger
	rate    float64
	done    func(error)
	stop    func() bool // of the context.AfterFunc ending the connection with ctx; nil if ctx never ends

	limits joinLimits // what a join spends of its address's limits
	addr   string     // what limits count against
	// joining are the joins that spent an address's tokens, until each
	// is answered: under the Conn's mu (see Conn.answered). waiting is
	// their count, read without it.
	joining []joining
	waiting atomic.Int32
}

// joinLimits are the limits per address a join spends (see
// Config.Joins).
type joinLimits struct{ joins, guesses, bowlers AddrLimit }

func (l joinLimits) none() bool { return l.joins == nil && l.guesses == nil && l.bowlers == nil }

// joining is a join waiting for its answer, and the limits it spent.
type joining struct {
	ref                    string
	join, guess, newBowler bool
}

// maxJoining bounds the joins a connection may have unanswered at once:
// a page sends one and waits for its answer.
const maxJoining = 4

// wake starts the connection's reader, unless one runs or the connection
// is not being served (not yet, or no more). The poller calls it when the
// client sent something, and batchConn once the connection is closed, so
// that a connection closed at rest still ends.
func (c *Conn) wake() {
	c.mu.Lock()
	if c.serving == nil || c.reading || c.finished {
		c.mu.Unlock()
		return
	}
	c.reading = true
	c.mu.Unlock()
	c.run(c.readOnFn)
}

// readOn reads the client's messages while it sends them; polled, it
// rests when nothing more has come (re-arming the poller), otherwise it
// reads until the connection ends. The reader that sees the end ends the
// connection's service.
func (c *Conn) readOn() {
	c.mu.Lock()
	s, polled := c.serving, c.pollKey != 0 && !c.unpolled
	c.mu.Unlock()
	if polled && !c.bc.prefetch() {
		c.rest()
		return
	}
	for {
		if over, err := readMessage(c, s); over {
			c.finish(s, err)
			return
		}
		if polled && c.bc.idle() {
			c.rest()
			return
		}
	}
}

// rest ends a polled reader: the poller reports the connection when the
// client sends more. If the poller cannot (the connection was closed
// meanwhile, or epoll refused), a reader is started that waits in a read
// as where there is no poller: one ends a closed connection at once.
func (c *Conn) rest() {
	c.mu.Lock()
	c.reading = false
	c.mu.Unlock()
	if err := c.poller.arm(c); err != nil {
		c.mu.Lock()
		c.unpolled = true
		c.mu.Unlock()
		c.wake()
	}
}

// finish ends the connection's service: err is what ended it, nil if it
// was dropped.
func (c *Conn) finish(s *serving, err error) {
	c.mu.Lock()
	c.finished = true
	c.mu.Unlock()
	if c.poller != nil {
		c.poller.remove(c.pollKey)
	}
	if s.stop != nil {
		s.stop()
	}
	if err == nil {
		c.wg.Wait()
		err = errDropped
	}
	c.end()
	c.ws.CloseNow()
	c.wg.Wait()
	if f := c.failure(); f != nil && errors.Is(err, net.ErrClosed) {
		err = f // the writer, or the end of ctx, closed the connection, and knows why
	} else if s.ctx.Err() != nil {
		err = context.Cause(s.ctx) // the reader saw ctx end first
	}
	s.session.Detach()
	s.log.Debug("connection closed", "status", websocket.CloseStatus(err), "skipped", c.skippedCount())
	s.done(err)
}

// joinType is in every join but one whose type is written escaped; the
// reader decodes those too (a roll has no escape).
var joinType = []byte(`"join"`)

// spendJoin spends what data, if it is a join, costs its connection's
// address: a join, a guess if it tries a bowler key, a new bowler if it
// asks to be remembered. It returns the refusal if one is missing, giving
// back what it spent, or if the connection has maxJoining joins
// unanswered already. What a join spent is given back once it is
// answered, if it cost nothing in the end (see AddrLimit and answered).
func (c *Conn) spendJoin(s *serving, data []byte) error {
	m, err := protocol.Decode(data)
	if err != nil || m.Type != protocol.TypeJoin {
		return nil // the lane refuses it, or it is no join
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(s.joining) >= maxJoining {
		return protocol.RefuseJoinsPending.Error(len(s.joining))
	}
	j := joining{ref: m.ID}
	now := time.Now()
	for _, spend := range []struct {
		lim   AddrLimit
		asks  bool
		spent *bool
	}{
		{s.limits.joins, true, &j.join},
		{s.limits.guesses, m.BowlerKey != "", &j.guess},
		{s.limits.bowlers, m.Remember && m.BowlerKey == "", &j.newBowler},
	} {
		if spend.lim == nil || !spend.asks {
			continue
		}
		if err := spend.lim.Spend(s.addr, now); err != nil {
			s.refund(j)
			return err
		}
		*spend.spent = true
	}
	// A join with no id is answered with none, as is any message's that
	// has none: its answer cannot be told apart, so what it spent is
	// not given back.
	if (j.join || j.guess || j.newBowler) && m.ID != "" {
		s.joining = append(s.joining, j)
		s.waiting.Store(int32(len(s.joining)))
	}
	return nil
}

// namesAJoin reports whether data, a client's message, carries the id
// of a join of the connection's that waits for its answer: a reply to it
// would carry that id, and give the join's tokens back (see answered).
// The id is read as the lane and a relay read it, from what decodes of
// the message. A connection with no join waiting is not decoded.
func (c *Conn) namesAJoin(s *serving, data []byte) bool {
	if s.waiting.Load() == 0 {
		return false
	}
	m, _ := protocol.Decode(data)
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.ContainsFunc(s.joining, func(j joining) bool { return j.ref == m.ID })
}

// refund gives back what j spent.
func (s *serving) refund(j joining) {
	if j.join {
		s.limits.joins.Refund(s.addr)
	}
	if j.guess {
		s.limits.guesses.Refund(s.addr)
	}
	if j.newBowler {
		s.limits.bowlers.Refund(s.addr)
	}
}

// answered gives back, once msg, a reply to the client, answers a join
// that spent its address's tokens, those the join did not cost in the
// end: a refused join stored nothing, a join whose key was known guessed
// nothing, and one whose welcome carries no new bowler key made none.
// c.mu is held.
func (c *Conn) answered(msg []byte) {
	s := c.serving
	if s == nil || len(s.joining) == 0 {
		return
	}
	var a struct {
		Type      protocol.Type `json:"type"`
		Ref       string        `json:"ref"`
		Code      protocol.Code `json:"code"`
		BowlerKey string        `json:"bowler_key"`
	}
	if json.Unmarshal(msg, &a) != nil || (a.Type != protocol.TypeWelcome && a.Type != protocol.TypeError) {
		return
	}
	i := slices.IndexFunc(s.joining, func(j joining) bool { return j.ref == a.Ref })
	if i < 0 {
		return
	}
	j := s.joining[i]
	s.joining = slices.Delete(s.joining, i, i+1)
	s.waiting.Store(int32(len(s.joining)))
	refused := a.Type == protocol.TypeError
	s.refund(joining{
		join:      j.join && refused,
		guess:     j.guess && a.Code != protocol.CodeUnknownBowler,
		newBowler: j.newBowler && (refused || a.BowlerKey == ""),
	})
}

// readMessage reads one message and hands it over. over reports the end of
// the connection: err says why, nil if it was dropped.
func readMessage(conn *Conn, s *serving) (over bool, err error) {
	ctx, log := s.ctx, s.log
	typ, data, err := read(ctx, conn.ws)
	if conn.limit.flooded() {
		log.Info("connection dropped for flooding")
		return true, nil
	}
	if err != nil {
		return true, err
	}
	var refusal error
	switch {
	case !conn.limit.allow(time.Now()):
		if conn.limit.flooded() {
			log.Info("connection dropped for flooding")
			return true, nil
		}
		refusal = protocol.RefuseMessagesFast.Error(s.rate)
	case typ != websocket.MessageText:
		data = nil
		refusal = protocol.RefuseBinary.Error()
	case conn.namesAJoin(s, data):
		// Its answer would carry a waiting join's id, and read as the
		// join's (see answered): it is refused without its id.
		data = nil
		refusal = protocol.Errorf(protocol.CodeBadMessage, "that id is a join's, which waits for its answer: give each message an id of its own")
	case !s.limits.none() && (bytes.Contains(data, joinType) || bytes.IndexByte(data, '\\') >= 0):
		// A type may be written escaped ("jo\u0069n"): a message with an
		// escape is decoded to be sure, as no roll has one.
		refusal = conn.spendJoin(s, data)
	}
	var ok bool
	if refusal != nil {
		ok = s.session.Refuse(ctx, data, refusal)
	} else {
		ok = s.session.Read(ctx, data)
	}
	if !ok {
		return true, errDropped
	}
	return false, nil
}

// messageBuffers hold a message while it is read, as the library's
// Conn.Read does with a 512-byte buffer of its own each time: a roll is
// under a hundred bytes, and is kept exactly.
var messageBuffers = sync.Pool{New: func() any { return new([readChunk]byte) }}

// read reads one message whole, as [websocket.Conn.Read] does, into a
// slice of its own length.
func read(ctx context.Context, ws *websocket.Conn) (websocket.MessageType, []byte, error) {
	typ, r, err := ws.Reader(ctx)
	if err != nil {
		return 0, nil, err
	}
	buf := messageBuffers.Get().(*[readChunk]byte)
	defer messageBuffers.Put(buf)
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		switch {
		case err == io.EOF:
			return typ, bytes.Clone(buf[:n]), nil
		case err != nil:
			return typ, nil, err
		}
	}
	rest, err := io.ReadAll(r) // a message longer than a roll's: rare
	return typ, slices.Concat(buf[:n], rest), err
}
