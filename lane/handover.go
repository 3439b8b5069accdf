package lane

import (
	"context"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// handIn is what a relay hands a lane of this node with one of its
// connections ([Relay.HandOver]): the token of the seat the connection
// held, and the messages it sent that were never answered.
type handIn struct {
	token      string
	unanswered []unanswered
}

// handIn attaches conn, a connection a relay of the lane served, as
// Attach does, but without welcoming it: the lane goroutine resumes its
// seat, sends it the board, and reads again what it sent unanswered (see
// handedIn). It reports false if the lane has stopped, or ctx ended.
func (l *Lane) handIn(ctx context.Context, conn Conn, h *handIn) (*Client, bool) {
	c := &Client{l: l, conn: conn}
	if !l.submit(ctx, request{op: opHandIn, c: c, handIn: h}) {
		return nil, false
	}
	c.unwatch = context.AfterFunc(l.stopped, func() { conn.Close(protocol.CodeLaneClosed, "lane closed") })
	return c, true
}

// handedIn attaches c, handed over by a relay, on the lane goroutine.
// The client was welcomed by the lane's old node, and holds its seat's
// token: the seat is resumed in silence (a second welcome would tell the
// page nothing, and a resume of its own, in flight, is read below). The
// seat's holder on this node, if it has one already, keeps it: c is a
// spectator then, as it would be resuming after it.
func (l *Lane) handedIn(ctx context.Context, c *Client, h *handIn) {
	if !l.mayShowTo(ctx, c) {
		return
	}
	if h.token != "" {
		if name, ok := l.tokenSeat(game.HashToken(h.token)); ok && l.seats.holders[name] == nil {
			c.seat = name
			l.seats.holders[name] = c
			delete(l.seats.offline, name)
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
	for _, u := range h.unanswered {
		if _, ok := l.conns.attached[c]; !ok {
			return // turned away by what it sent
		}
		if u.token != "" && c.seat == "" {
			// A join whose welcome never came: the lane's old node may
			// have seated it.
			if name, ok := l.tokenSeat(game.HashToken(u.token)); ok && l.seats.holders[name] == nil {
				l.seat(c, name, u.id, u.token, "", true)
				continue
			}
		}
		l.read(ctx, c, u.data, nil)
	}
}
