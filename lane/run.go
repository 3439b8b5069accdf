package lane

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// Run runs the lane until ctx ends (returning ctx's error), the lane has
// been idle for its timeout ([ErrIdle]), or handling a command panicked
// (an error wrapping [ErrPanic]). Every client is disconnected on the way
// out.
func (l *Lane) Run(ctx context.Context) (err error) {
	l.conns.idle = time.NewTimer(l.cfg.IdleTimeout)
	defer l.conns.idle.Stop()
	defer l.bw.wg.Wait() // after stop: a recording then makes one last try
	defer l.stop()
	defer func() {
		if p := recover(); p != nil {
			l.log.Error("lane panicked", "panic", p, "stack", string(debug.Stack()))
			l.closeAll(protocol.CodeInternal, protocol.NoticeFailed)
			err = fmt.Errorf("%w: %v", ErrPanic, p)
		}
	}()
	l.leagueSheet()
	if l.bw.again {
		l.bw.again = false
		l.offerAgain()
		l.leagueReportAgain()
	}
	for {
		select {
		case <-ctx.Done():
			if l.cfg.Durable {
				l.closeAll(protocol.CodeServerRestarting, protocol.NoticeRestarting)
			} else {
				l.closeAll(protocol.CodeLaneClosed, protocol.NoticeShuttingDown)
			}
			return ctx.Err()
		case <-l.shown.presence.C:
			if l.shown.due {
				l.changed()
			}
		case <-l.seats.skippable.C:
			l.changed() // the board says the player up may be skipped now
		case <-l.conns.idle.C:
			if len(l.conns.attached) > 0 {
				break
			}
			if err := l.closeIdle(ctx); err != nil {
				return err
			}
		case r := <-l.inbox:
			l.handle(ctx, r)
			if l.tenure.moved() {
				l.log.Warn("another server took the lane over", "epoch", l.state.Epoch())
				l.closeAll(protocol.CodeServerRestarting, protocol.NoticeMoved)
				return ErrMoved
			}
			if r.op != opSnapshot && r.op != opRetry && r.op != opRecorded && r.op != opLeagueSheet { // the journal's compaction, or the lane itself, is not someone using the lane
				l.armIdle()
			}
		}
	}
}

// closeIdle keeps the lane's night (Config.Keep), records that the lane
// closed, so that it is not restored, and closes it. If the journal cannot
// take the closing, the lane closes all the same and comes back, idle,
// after a restart. If the night cannot be kept, a game waits to go into
// its bowlers' histories, or the lane is a league night's whose week is
// open (see leagueOpen), the lane stays open: it returns nil, and asks
// again after its idle timeout. But if the kept nights' budget is full,
// the lane closes unkept and says why: waiting would hold it, and its
// place among the server's lanes, until room is made, which may be
// never, and lanes must not be refused for a budget that is not theirs.
func (l *Lane) closeIdle(ctx context.Context) error {
	err := l.sync(ctx)
	if l.tenure.moved() { // the lane lives on with another server: it is not closed
		l.closeAll(protocol.CodeServerRestarting, protocol.NoticeMoved)
		return ErrMoved
	}
	if l.leagueOpen(ctx) {
		// Its link is on the league's page, and a closed lane would
		// leave the rest of the night to be entered by hand.
		l.conns.idle.Reset(l.cfg.IdleTimeout)
		return nil
	}
	if l.bw.rec.busy() {
		// A closed lane is not restored: nobody would offer its games to
		// their bowlers again (see offerAgain).
		l.log.Warn("the lane stays open: a game waits to go into its bowlers' histories")
		l.conns.idle.Reset(l.cfg.IdleTimeout)
		return nil
	}
	notice := protocol.NoticeIdle
	if l.cfg.Keep != nil && l.bowled() {
		if err == nil {
			err = l.cfg.Keep(ctx, l)
		}
		if errors.Is(err, game.ErrStorageFull) {
			l.log.Warn("the lane closes, its night not kept", "err", err)
			pe, _ := ErrorFor(err)
			notice = fmt.Sprintf(protocol.NoticeIdleNotKept, pe.Message)
			err = nil
		}
		if err != nil {
			l.log.Warn("the lane stays open: its night could not be kept", "err", err)
			l.conns.idle.Reset(l.cfg.IdleTimeout)
			return nil
		}
	}
	if err == nil {
		err = l.store(ctx, l.state.Close("idle"))
	}
	if err != nil {
		l.log.Warn("could not record the lane's closing", "err", err)
	}
	l.closeAll(protocol.CodeLaneIdle, notice)
	return ErrIdle
}

// armIdle (re)starts the idle clock whenever nobody is connected.
func (l *Lane) armIdle() {
	if len(l.conns.attached) > 0 {
		l.conns.idle.Stop()
		return
	}
	// A game that has had a ball is worth waiting for; one only started
	// is not: otherwise joining, starting and leaving keeps a lane (and
	// its place in the lobby) for an hour.
	timeout := l.cfg.IdleTimeout
	if l.state.Phase() == game.Playing && l.state.Match().Started() {
		timeout = l.cfg.AbandonTimeout
	}
	l.conns.idle.Reset(timeout)
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
		l.attach(ctx, r.c)
	case opHandIn:
		l.handedIn(ctx, r.c, r.handIn)
	case opDetach:
		l.detach(r.c)
	case opMessage:
		l.message(ctx, r.c, *r.msg, r.k)
	case opRead:
		l.read(ctx, r.c, r.data, r.msg, r.refusal)
	case opExpire:
		if _, ok := l.conns.waiting[r.c]; ok {
			l.turnAway(r.c, "")
		}
	case opRetry:
		l.tenure.retried()
		l.sync(ctx)
	case opRecorded:
		l.recordedGames(r.recorded)
	case opLeagueSheet:
		l.lg.sheet = r.recorded.sheet
		l.changed()
	case opSecretary:
		r.result <- l.secretary(ctx, *r.msg)
	case opWake:
		if l.stored.journal != nil {
			l.tenure.wake()
			l.sync(ctx)
		}
	case opSnapshot:
		err := l.sync(ctx)
		if err == nil {
			err = l.store(ctx, l.state.Snapshot())
		}
		if err == nil && l.stored.journal != nil {
			l.stored.keep.Store(l.stored.last) // the snapshot's position
		}
		r.result <- err
	}
}

// read decodes a message as a connection read it, and handles it, or
// refuses it: undecodable, or refused already by the reader (answered by
// its id alone; m, if not nil, is the message as its relay decoded it).
func (l *Lane) read(ctx context.Context, c *Client, data []byte, m *protocol.Request, refusal error) {
	var msg protocol.Request
	var err error
	if m != nil {
		msg = *m
	} else {
		msg, err = protocol.Decode(data)
	}
	if refusal != nil {
		msg, err = protocol.Request{ID: msg.ID}, refusal
	}
	if err != nil {
		if _, ok := l.conns.attached[c]; ok { // not sent just before the connection went away
			l.refuse(c, msg.ID, err)
		} else if _, ok := l.conns.waiting[c]; ok {
			l.turnAway(c, msg.ID)
		}
		return
	}
	l.message(ctx, c, msg, nil)
}

// message handles one decoded client message; k holds the secrets of a
// join, a resume or a give as its relay hashed them (nil: the lane takes
// them from m: see localSecrets).
func (l *Lane) message(ctx context.Context, c *Client, m protocol.Request, k *Secrets) {
	if k == nil && HasSecrets(m.Type) {
		k = localSecrets(m)
	}
	if _, ok := l.conns.waiting[c]; ok {
		l.admit(ctx, c, m, k)
		return
	}
	if _, ok := l.conns.attached[c]; !ok {
		return // sent just before the connection went away
	}
	if err := l.sync(ctx); err != nil {
		l.refuse(c, m.ID, err) // a decision on a state that may be behind the log could be wrong
		return
	}
	l.leagueNext(ctx) // a league night's next game, if its start was not stored
	if m.Type == protocol.TypeJoin || m.Type == protocol.TypeResume {
		if c.seat != "" {
			l.refuse(c, m.ID, protocol.RefuseHoldsSeat.Error(c.seat))
			return
		}
		if m.Type == protocol.TypeJoin {
			l.join(ctx, c, m, k)
		} else {
			l.resume(ctx, c, m, k)
		}
		return
	}
	var e game.Event
	var err error
	switch {
	case m.Type == protocol.TypeGive:
		// The creator need not be seated: a lane made for others is
		// given away by a page that never joins it.
		e, err = l.state.Give(k.HostKey)
	case c.seat == "":
		l.refuse(c, m.ID, protocol.RefuseNotSeated.Error(m.Type))
		return
	}
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
	case protocol.TypeNewInvite:
		e, err = l.state.Invite(c.seat, k.Invite)
	case protocol.TypeCorrect, protocol.TypeSkip, protocol.TypeRemove, protocol.TypeReadmit, protocol.TypeFree:
		e, err = l.decideFairPlay(c, m)
	}
	if errors.Is(err, game.ErrRolledAlready) {
		// The roll sent again: acknowledged with the board the lane
		// shows, which has it, or the game after its own (the lane holds
		// it: see sync).
		l.ack(c, m.ID)
		return
	}
	if err == nil {
		err = l.record(ctx, e)
	}
	if err != nil {
		l.refuse(c, m.ID, err)
		return
	}
	l.leagueNext(ctx)
	if e.Kind == game.Rolled && l.seats.holders[e.Player] != nil {
		delete(l.seats.offline, e.Player) // a ball bowled ends the absence: the next is a new one
	}
	if e.Kind == game.Invited {
		l.seats.invited, l.seats.invitedRef, l.seats.invite = c, m.ID, k.NewInvite
	}
	var left *Client
	if e.Kind == game.PlayerLeft || (e.Kind == game.SeatClaimed && e.Token == (game.TokenHash{})) {
		left = l.removed(e) // the player who left, or whom the host removed, or who gave a league place back
	}
	l.changedAcking(c, m.ID)
	if left != nil {
		l.overflow(left)
	}
}

// closeAll tells every client, waiting ones too, why the lane is closing
// and disconnects it.
func (l *Lane) closeAll(code protocol.Code, why string) {
	for c, timer := range l.conns.waiting {
		timer.Stop()
		l.reply(c, protocol.Errorf(code, "%s", why))
		c.conn.Close(code, why)
		delete(l.conns.waiting, c)
	}
	for c := range l.conns.attached {
		l.reply(c, protocol.Errorf(code, "%s", why)) // a notice, not a refused message
		c.conn.Close(code, why)
		l.exit(c)
	}
}

// bowled reports whether a ball was bowled on the lane, in the game in
// play or in a finished one: a lane only opened, or joined and left, has
// no night to keep.
func (l *Lane) bowled() bool {
	v := l.view.Load()
	if len(v.series) > 0 {
		return true
	}
	for _, p := range v.players {
		if p.Game.NumRolls() > 0 {
			return true
		}
	}
	return false
}
