package lane

import (
	"context"
	"time"

	"github.com/tenpin/tenpin/lane/game"
)

// HandIn is what a relay hands a lane of this node with one of its
// connections, when this node took the lane over from a node that died
// (lane/relay's HandOver): the token of the seat the connection held, and
// the messages it sent that were never answered.
type HandIn struct {
	Token      string    // of the seat the connection's latest welcome gave it; "" for none
	Unanswered []Message // oldest first
}

// Message is a message a client sent, that its lane's node never
// answered.
type Message struct {
	ID   string // the message's
	Data []byte // as the client sent it, its secrets in plaintext
	// Token is, for a join, the seat's token its relay drew: the seat
	// the lane's node may have stored.
	Token string
}

// HandIn attaches conn, a connection that a relay of the lane served, as
// Attach does, but without welcoming it: the lane goroutine resumes its
// seat, sends it the board, and reads again what it sent unanswered (see
// handedIn). It reports false if the lane has stopped, or ctx ended.
func (l *Lane) HandIn(ctx context.Context, conn Conn, h HandIn) (Session, bool) {
	c := &Client{l: l, conn: conn}
	if !l.submit(ctx, request{op: opHandIn, c: c, handIn: &h}) {
		return nil, false
	}
	return l.watch(c), true
}

// handedIn attaches c, handed over by a relay, on the lane goroutine.
// The client was welcomed by the lane's old node, and holds its seat's
// token: the seat is resumed in silence (a second welcome would tell the
// page nothing, and a resume of its own, in flight, is read below). The
// seat's holder on this node, if it has one already, keeps it: c is a
// spectator then, as it would be resuming after it.
func (l *Lane) handedIn(ctx context.Context, c *Client, h *HandIn) {
	if !l.mayShowTo(ctx, c) {
		return
	}
	if h.Token != "" {
		if name, ok := l.tokenSeat(game.HashToken(h.Token)); ok && l.seats.holders[name] == nil {
			c.seat = name
			l.seats.holders[name] = c
			l.seats.returned(name, time.Now())
			// Before c is attached: the board of its coming back, if it
			// was skipped, is the one sent below.
			l.welcomeBack(ctx, name)
		}
	}
	if c.seat == "" && l.spectators() >= l.cfg.MaxSpectators {
		l.turnAway(c, "")
		return
	}
	l.enter(c)
	if !l.presenceChanged() {
		l.sendBoard(c)
	}
	for _, u := range h.Unanswered {
		if _, ok := l.conns.attached[c]; !ok {
			return // turned away by what it sent
		}
		if u.Token != "" && c.seat == "" {
			// A join whose welcome never came: the lane's old node may
			// have seated it.
			if name, ok := l.tokenSeat(game.HashToken(u.Token)); ok && l.seats.holders[name] == nil {
				l.seat(c, name, u.ID, u.Token, linked{}, true)
				continue
			}
		}
		l.read(ctx, c, u.Data, nil, nil)
	}
}
