package lane

import (
	"context"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// connections is a lane's connections: attached, and waiting to be.
type connections struct {
	attached map[*Client]struct{}
	waiting  map[*Client]*time.Timer // not attached yet: see attach
	idle     *time.Timer             // nobody attached: see armIdle
}

// seating is who holds a lane's seats, and since when nobody has.
type seating struct {
	holders map[bowling.Name]*Client // the connection holding each seat
	offline map[bowling.Name]absence // since when each seat has had no connection, once it had one
	born    time.Time                // when this lane came up: seats never held since are offline since then
	pending []pendingJoin            // joins refused while their outcome was unknown: see readBack
	// skippable fires when the player up, offline, may be skipped: the
	// board then says so (see skipIn).
	skippable *time.Timer
	// invited is the host whose new_invite was stored, invitedRef its id,
	// and invite the invitation its ack (and no other) carries (see
	// ackOf): one slot for the lane, not a field of every client, as one
	// host asks at a time.
	invited    *Client
	invitedRef string
	invite     string
}

// absence is a seat's time without a connection: since when, and, once
// the seat is held again, since when it has been back. A player back for
// less than the away time who goes again, having bowled nothing, goes on
// with the absence they had: a phone that resumes its seat every moment
// and drops it again holds the lane up once, for the away time, not
// once a resume.
type absence struct {
	since, back time.Time
}

// gone records that name's seat has lost its connection, now.
func (s *seating) gone(name bowling.Name, now time.Time, awayAfter time.Duration) {
	a, ok := s.offline[name]
	if !ok || a.back.IsZero() || now.Sub(a.back) >= awayAfter {
		a.since = now // a new absence
	}
	a.back = time.Time{}
	s.offline[name] = a
}

// returned records that name's seat has a connection again, now: its
// absence is kept, should it go again soon (see absence).
func (s *seating) returned(name bowling.Name, now time.Time) {
	if a, ok := s.offline[name]; ok {
		a.back = now
		s.offline[name] = a
	}
}

// spectators counts the attached connections that hold no seat. Waiting
// connections are not attached, and seated players are never spectators.
func (l *Lane) spectators() int {
	return len(l.conns.attached) - len(l.seats.holders)
}

// mayShowTo reports whether the lane may show c, a connection coming to
// it, a board: a lane whose server was found paused reads its log back
// first, and if it cannot, sends c away to reconnect (see attach), and
// reports false.
func (l *Lane) mayShowTo(ctx context.Context, c *Client) bool {
	if l.checkWakes(); l.tenure.mayShow() {
		return true
	}
	if err := l.sync(ctx); err != nil {
		// A notice (why the connection closes) without the board
		// that reply sends a client of another node first.
		pe, _ := ErrorFor(err)
		c.conn.Reply(encodeReply(pe), 0)
		c.conn.Close(pe.Code, pe.Message)
		return false
	}
	return true
}

// attach attaches a new connection as a spectator, if the lane has room
// for one more. If it has not, the connection may be a seated player
// coming back, or a friend come to play, who must get in however many
// watch: it waits, unattached (sent nothing, not counted), for
// cfg.ResumeGrace, and its one allowed message is a resume or a join (see
// [Lane.admit]). Anything else, or nothing in time, turns it away with
// spectators_full and close 1013. Waiting costs the lane nothing on a
// change: a waiting connection is sent no board.
//
// A lane whose server was found paused reads its log back first, and
// sends the connection away to reconnect if it cannot: another server may
// have taken the lane over meanwhile, and this lane's board may be older
// than one the newcomer saw there — its seq would go back (the nemesis
// test saw it: a node woken from a pause served its stale boards for
// seconds, while its store could not be read, to every client that came;
// see changed for the boards of its clients).
func (l *Lane) attach(ctx context.Context, c *Client) {
	if !l.mayShowTo(ctx, c) {
		return
	}
	if l.spectators() >= l.cfg.MaxSpectators {
		l.conns.waiting[c] = time.AfterFunc(l.cfg.ResumeGrace, func() {
			l.submit(context.Background(), request{op: opExpire, c: c})
		})
		return
	}
	l.enter(c)
	// The newcomer gets the board at once, everyone the count soon.
	if !l.presenceChanged() {
		l.sendBoard(c)
	}
}

// enter counts c among the lane's clients, taking it out of the waiting.
func (l *Lane) enter(c *Client) {
	if timer, ok := l.conns.waiting[c]; ok {
		timer.Stop()
		delete(l.conns.waiting, c)
	}
	l.conns.attached[c] = struct{}{}
}

// exit takes an attached client out of the lane's clients.
func (l *Lane) exit(c *Client) {
	delete(l.conns.attached, c)
}

// admit handles the message of a waiting connection: a resume with a
// token that holds a seat attaches it, as that seat's player, and so does
// a join the lane takes (seats have their own count: a lane full of
// watchers still seats a player); anything else turns it away.
func (l *Lane) admit(ctx context.Context, c *Client, m protocol.Request, k *Secrets) {
	if m.Type != protocol.TypeResume && m.Type != protocol.TypeJoin {
		l.turnAway(c, m.ID)
		return
	}
	if err := l.sync(ctx); err != nil {
		l.refuse(c, m.ID, err)
		l.turnAway(c, "")
		return
	}
	if m.Type == protocol.TypeJoin {
		l.enter(c)
		l.join(ctx, c, m, k)
		if c.seat == "" && !l.joinPending(c) {
			l.turnAway(c, "") // refused: no room to watch instead
		}
		return
	}
	if _, ok := l.tokenSeat(k.Token); !ok {
		l.refuse(c, m.ID, errBadToken)
		l.turnAway(c, "")
		return
	}
	l.enter(c)
	// It was sent nothing while it waited, and its coming back may be
	// shown only later (see presenceChanged): the board comes before its
	// welcome, as it does for a newcomer.
	l.sendBoard(c)
	l.resume(ctx, c, m, k)
}

// turnAway tells a connection that the lane has no room for another
// spectator and closes it with 1013 (try again later), whether it is
// waiting or attached.
func (l *Lane) turnAway(c *Client, ref string) {
	if timer, ok := l.conns.waiting[c]; ok {
		timer.Stop()
		delete(l.conns.waiting, c)
	}
	if _, ok := l.conns.attached[c]; ok {
		l.exit(c) // a spectator: it holds no seat
	}
	l.refuse(c, ref, protocol.RefuseSpectatorsFull.Error(l.cfg.MaxSpectators))
	c.conn.Close(protocol.CodeSpectatorsFull, protocol.CodeSpectatorsFull.CloseText())
}

func (l *Lane) detach(c *Client) {
	if timer, ok := l.conns.waiting[c]; ok {
		timer.Stop()
		delete(l.conns.waiting, c)
		return
	}
	if _, ok := l.conns.attached[c]; !ok {
		return
	}
	l.exit(c)
	if l.seats.invited == c {
		l.seats.invited, l.seats.invitedRef, l.seats.invite = nil, "", "" // gone before its ack
	}
	if c.seat != "" && l.seats.holders[c.seat] == c {
		delete(l.seats.holders, c.seat) // the player is shown disconnected but keeps the seat
		l.seats.gone(c.seat, time.Now(), l.cfg.AwayAfter)
	}
	l.presenceChanged()
}

// presenceEvery is the shortest time between two boards sent for
// presence alone. Connecting and disconnecting cost a client nothing but
// would send the board to every watcher, a 200-fold amplification: a
// churn of connections shows as at most ten boards a second, while a
// roll's board is never held back (and carries the presence too).
//
// A lane with more than presenceClients clients waits longer, in
// proportion, up to presenceMost: on a league final's lane, 10,000 phones
// arriving would otherwise cost 100,000 writes a second for a count.
const (
	presenceEvery   = 100 * time.Millisecond
	presenceClients = 100
	presenceMost    = 5 * time.Second
)

// presenceInterval is the shortest time between two presence boards of a
// lane with clients clients: each costs a write a client.
func presenceInterval(clients int) time.Duration {
	return min(presenceMost, presenceEvery*time.Duration(max(1, clients/presenceClients)))
}

// presenceChanged shows a change of presence: at once if no board went
// out for the lane's presence interval, else with the next board, at the latest when the
// interval is over. It reports whether the board went out at once.
func (l *Lane) presenceChanged() (shown bool) {
	if l.shown.due {
		return false
	}
	wait := presenceInterval(len(l.conns.attached)) - time.Since(l.shown.at)
	if wait <= 0 {
		l.changed()
		return true
	}
	l.shown.due = true
	l.shown.presence.Reset(wait)
	return false
}

// upOffline reports whether the player up has no connection holding their
// seat: then any seated player may enter their ball.
func (l *Lane) upOffline() bool {
	seat, _, ok := l.state.Match().Up()
	if !ok {
		return false
	}
	return l.seats.holders[l.state.Match().At(seat).Name] == nil
}

func (l *Lane) join(ctx context.Context, c *Client, m protocol.Request, k *Secrets) {
	// A join whose token holds a seat already was stored, and its answer
	// lost: the lane's node died, and the client's relay sent the join
	// again, with the token it drew for it, to the node that took the
	// lane over (see lane/relay's Follow). The client takes its seat, as
	// if it had been answered the first time. A token is drawn for one
	// join alone: no other client can send it.
	if name, ok := l.tokenSeat(k.Token); ok && l.seats.holders[name] == nil {
		l.seat(c, name, m.ID, k.Welcome, linked{}, false) // shown at once: it may be a client let in that had no board yet
		return
	}
	var e game.Event
	var err error
	if k.HostKey != (game.TokenHash{}) {
		e, err = l.state.JoinHost(m.Name, k.Token, k.HostKey)
	} else {
		e, err = l.state.Join(m.Name, k.Token, k.Invite)
	}
	var b linked
	if err == nil {
		b, err = l.linkBowler(ctx, &e, k)
	}
	if err != nil {
		l.refuse(c, m.ID, err)
		return
	}
	if err := l.record(ctx, e); err != nil {
		// The seat may have been stored all the same, and only this
		// connection knows its token: if reading the log back shows the
		// seat, the connection is seated then (see readBack).
		l.seats.pending = append(l.seats.pending, pendingJoin{c: c, ref: m.ID, name: e.Player, token: k.Token, welcome: k.Welcome, bowler: b})
		l.refuse(c, m.ID, err)
		return
	}
	l.seat(c, e.Player, m.ID, k.Welcome, b, false)
}

// joinPending reports whether c's join waits for its append's outcome.
func (l *Lane) joinPending(c *Client) bool {
	for _, p := range l.seats.pending {
		if p.c == c {
			return true
		}
	}
	return false
}

// pendingJoin is a join whose append had no answer: the seat it asked for
// may be in the log.
type pendingJoin struct {
	c       *Client
	ref     string
	name    bowling.Name
	token   game.TokenHash // the hash of the seat's token
	welcome string         // what the welcome carries as its token: see secrets
	bowler  linked         // what the welcome says of the seat's bowler
}

var errBadToken = protocol.RefuseBadToken.Error()

// tokenSeat returns the seat the resume token of hash token holds, if it
// holds one.
func (l *Lane) tokenSeat(token game.TokenHash) (bowling.Name, bool) {
	name, ok := l.state.Holder(token)
	return name, ok && l.state.Seated(name)
}

func (l *Lane) resume(ctx context.Context, c *Client, m protocol.Request, k *Secrets) {
	name, ok := l.tokenSeat(k.Token)
	if !ok {
		l.refuse(c, m.ID, errBadToken)
		return
	}
	if old := l.seats.holders[name]; old != nil {
		old.seat = ""
		c.seat, l.seats.holders[name] = name, c
		l.reply(old, protocol.RefuseTakenOver.Error(name))
		// The old connection is a spectator now. A player who came back
		// while watchers were full did not count as one (see attach): with
		// no room left for it, the old connection goes, so that resuming a
		// seat over and over cannot add watchers past the limit.
		if l.spectators() > l.cfg.MaxSpectators {
			l.turnAway(old, "")
		}
	}
	l.seat(c, name, m.ID, k.Welcome, linked{}, true)
	l.welcomeBack(ctx, name)
}

// seat gives name's seat to c, shows everyone the change and welcomes c
// with the seat's token (a client of another node with its hash: see
// secrets), and what b says of its bowler. A resume is presence alone:
// two connections resuming one seat in turn must not send every watcher a
// board each time.
func (l *Lane) seat(c *Client, name bowling.Name, ref, token string, b linked, resumed bool) {
	c.seat = name
	l.seats.holders[name] = c
	if resumed {
		l.seats.returned(name, time.Now())
	} else {
		delete(l.seats.offline, name)
	}
	if resumed {
		l.presenceChanged()
	} else {
		l.changed()
	}
	seat, _ := l.state.Seat(name)
	l.reply(c, protocol.Welcome{Type: protocol.TypeWelcome, Ref: ref, Seat: seat, Name: string(name), Token: token, BowlerKey: b.key, Guest: b.guest})
}
