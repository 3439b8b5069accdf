package lane

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// Games returns the games of the lane's series, oldest first: the
// finished ones, and the one in play or waiting for a rematch.
func (l *Lane) Games() protocol.Games {
	s := l.Series()
	out := protocol.Games{Games: make([]protocol.Game, 0, s.Finished()+1)}
	for n := 1; ; n++ {
		g, ok := s.Game(n)
		if !ok {
			return out
		}
		out.Games = append(out.Games, g)
	}
}

// Game returns game n of the lane's series as [Lane.Games] numbers and
// shows it (1 for the oldest the series holds), built alone: a scorecard
// asks for one game of a series of a hundred. False if the series holds
// no game n.
func (l *Lane) Game(n int) (protocol.Game, bool) { return l.Series().Game(n) }

// Series returns the lane's series as its latest change left it.
func (l *Lane) Series() Series { return Series{l.view.Load()} }

// Series is a lane's series as one change left it: its finished games,
// oldest first, then the game in play or waiting for a rematch, if any.
// A finished game never changes (a correction is of the game in play),
// so an export of a long series may build each finished game's part once
// and keep it by the game's [Series.Number].
type Series struct{ v *view }

// Finished returns how many finished games the series holds: games 1 to
// Finished; the game in play, if any, is Finished+1.
func (s Series) Finished() int { return len(s.v.series) }

// Number returns the lane's own number of game n of the series (n from
// 1), which no other game of the lane has while it runs: the lane counts
// every game it finished, those the series no longer holds included,
// whereas game n of the series is another game once the series has moved
// past [game.MaxSeries].
func (s Series) Number(n int) int { return s.v.number - len(s.v.series) + n - 1 }

// Game returns game n of the series (n from 1) as [Lane.Games] numbers
// and shows it, built alone, and false if the series holds no game n.
func (s Series) Game(n int) (protocol.Game, bool) {
	switch v := s.v; {
	case n >= 1 && n <= len(v.series):
		return seriesGame(v, n), true
	case n == len(v.series)+1 && len(v.players) > 0:
		return playingGame(v), true
	}
	return protocol.Game{}, false
}

// seriesGame is finished game n (from 1) of v's series.
func seriesGame(v *view, n int) protocol.Game {
	r := v.series[n-1]
	g := protocol.Game{Game: n, Finished: true, Players: make([]protocol.GamePlayer, len(r.Players)), Corrections: corrections(r.Corrections)}
	marks := correctedFrames(r.Corrections)
	for j, p := range r.Players {
		g.Players[j] = gamePlayer(p.Name, &p.Game, p.Left, marks[p.Name])
	}
	return g
}

// playingGame is v's game in play, or waiting for a rematch.
func playingGame(v *view) protocol.Game {
	g := protocol.Game{Game: len(v.series) + 1, Finished: v.phase == game.Finished, Players: make([]protocol.GamePlayer, len(v.players)), Corrections: corrections(v.corrections)}
	marks := correctedFrames(v.corrections)
	for j, p := range v.players {
		g.Players[j] = gamePlayer(p.Name, &p.Game, p.Left, marks[p.Name])
	}
	return g
}

// gamePlayer is one player's line of a game in the series: their frames
// as on the board, and how many frames were strikes, spares and open.
func gamePlayer(name bowling.Name, g *bowling.Game, left bool, corrected uint16) protocol.GamePlayer {
	var stats bowling.Stats
	stats.Add(g)
	out := protocol.GamePlayer{Name: string(name), Frames: frameViews(g, corrected), Total: g.Total(), Left: left, Stats: PlayerStats(name, stats)}
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

// showing is what a lane's boards have shown, and the board it owes.
type showing struct {
	seq uint64    // changes shown in the tenure's epoch: see boardSeq
	at  time.Time // when the last board went out
	// Presence alone (a connection coming or going) shows at most one
	// board every presence interval: see presenceChanged.
	presence *time.Timer
	due      bool      // a board waits: for the presence timer, or the lane's claim (see changedAcking)
	held     []heldAck // acks of commands stored while the lane may not show: sent with the board that shows them
}

// changed marks a change of the lane: the next seq, one board built and
// encoded once, and the same bytes queued for every client.
func (l *Lane) changed() { l.changedAcking(nil, "") }

// changedAcking is changed that acknowledges c's message ref (if ref is
// not empty) as soon as c is queued the board, before the others are: on
// a lane of thousands of watchers the bowler's ack does not wait for all
// their boards to be queued.
func (l *Lane) changedAcking(c *Client, ref string) {
	if l.checkWakes(); !l.tenure.mayShow() {
		// Its server was found paused, and the lane has not claimed it
		// again since: another server may run the lane now and have shown
		// later boards, whose seq this one would take back. The board
		// waits for the claim (see Lane.claim), and so does the ack: an ack
		// names the seq of the first board that shows its command, and
		// the board shown now would not (the nemesis saw 9 such acks in
		// 5 runs). A lane that moves sends it never: its client reads the
		// board on the lane's new server.
		l.shown.due = true
		if ref != "" {
			l.shown.held = append(l.shown.held, heldAck{c, ref})
		}
		return
	}
	l.show(c, ref)
}

// heldAck is the ack of a command stored while the lane may not show its
// board, held until the board that shows it.
type heldAck struct {
	c   *Client
	ref string
}

// sendHeld sends the acks held while the lane could not show its board,
// now that the board that shows their commands went out.
func (l *Lane) sendHeld() {
	for _, h := range l.shown.held {
		if _, in := l.conns.attached[h.c]; in {
			l.ack(h.c, h.ref)
		}
	}
	l.shown.held = l.shown.held[:0]
}

// show is changedAcking once the lane knows it holds the lane.
func (l *Lane) show(c *Client, ref string) {
	if l.shown.due {
		l.shown.due = false
		l.shown.presence.Stop()
	}
	l.shown.at = time.Now()
	l.shown.seq++
	v := l.buildBoard()
	seq := v.seq
	var first *Client // queued the board already
	if ref != "" {
		if _, in := l.conns.attached[c]; in {
			first = c
			// The board and its ack, in one write if it can be.
			if skipped := boardTo(c.conn, v.board, seq, true, encodeReply(l.ackOf(c, ref))); skipped > 0 {
				l.cfg.Metrics.BoardsSkipped.Add(int64(skipped))
			}
		} else {
			l.ack(c, ref)
		}
	}
	n := 0
	for cl := range l.conns.attached {
		if cl == first {
			continue
		}
		if skipped := boardTo(cl.conn, v.board, seq, n < DirectBoards, nil); skipped > 0 {
			l.cfg.Metrics.BoardsSkipped.Add(int64(skipped))
		}
		if n++; n%fanOutYield == 0 {
			// Each board queued may start a writer goroutine: a crowded
			// lane lets those it started run, and the other lanes' work
			// that came meanwhile, before it starts more.
			runtime.Gosched()
		}
	}
	l.cfg.Metrics.BoardsSent.Add(int64(len(l.conns.attached)))
}

// boardTo gives conn a board, and reply after it if reply is not nil: to
// write at once if now and it can (see [BoardWriter]), else to queue.
func boardTo(conn Conn, board []byte, seq uint64, now bool, reply []byte) (skipped int) {
	if w, ok := conn.(BoardWriter); ok && now {
		return w.WriteBoard(board, seq, reply)
	}
	skipped = conn.Board(board, seq)
	if reply != nil {
		conn.Reply(reply, seq)
	}
	return skipped
}

// sendBoard sends one client the current board: the lane's view, with
// the seq it was built with.
func (l *Lane) sendBoard(c *Client) {
	v := l.view.Load()
	c.conn.Board(v.board, v.seq)
}

// buildBoard builds the current board, encodes it, and makes it the
// lane's view: what readers outside the lane goroutine see. Shipping it
// to every client's Conn is changed's (a relayed client's Conn publishes
// it for the other nodes: see lane/relay).
func (l *Lane) buildBoard() *view {
	players := l.state.Match().Players()
	head := boardHead{Seq: l.boardSeq(), Phase: protocol.Phase(l.state.Phase()), Host: l.state.Host(), CreatorAway: l.state.AwaitsCreator()}
	if seat, frame, ok := l.state.Match().Up(); ok && head.Phase == protocol.PhasePlaying {
		g := &players[seat].Game
		head.Up = &protocol.Up{Seat: seat, Frame: frame, Ball: g.Ball(), Standing: g.Standing(), SkipIn: l.skipIn(players[seat].Name)}
		if d, ok := g.Rack(); ok {
			head.Up.Deck, head.Deck = []int{}, d // the pins are written from head.Deck
		}
	} else {
		l.seats.skippable.Stop()
	}
	summary := protocol.LaneSummary{ID: l.id, Name: l.name, Phase: head.Phase, Players: make([]string, len(players)), Spectators: l.spectators()}
	if head.Up != nil {
		summary.Frame = head.Up.Frame
	} else if head.Phase == protocol.PhaseFinished {
		summary.Frame = bowling.NumFrames
	}
	for i, p := range players {
		summary.Players[i] = string(p.Name)
	}
	stats, statsJSON := l.enc.night.of(l.state.Series(), players)
	data := l.encodeBoard(head, players, correctedFrames(l.state.Corrections()), series(l.state.Totals(), players), statsJSON)
	l.forgetFrames(players)
	v := &view{board: data, seq: head.Seq, summary: summary, players: players, series: l.state.Series(), number: l.state.GameNumber(), corrections: l.state.Corrections(), phase: l.state.Phase(), stats: stats}
	l.view.Store(v)
	return v
}

// frameViews is a game's bowled frames as the series shows them;
// corrected holds a bit for each frame (1 to 10) with a corrected ball.
func frameViews(g *bowling.Game, corrected uint16) []protocol.Frame {
	out := []protocol.Frame{}
	for _, f := range g.Frames() {
		if len(f.Rolls) == 0 {
			break
		}
		out = append(out, frameView(f, corrected&(1<<f.Number) != 0))
	}
	return out
}

// reply queues a message for one client, which must not get it before
// the lane's current board, of seq: an attached client has been given
// that board already. The connection keeps the order; one served
// elsewhere makes sure its own way that the board of seq reaches its
// client before the message (see lane/relay).
func (l *Lane) reply(c *Client, msg any) {
	c.conn.Reply(encodeReply(msg), l.view.Load().seq)
}

func (l *Lane) ack(c *Client, ref string) {
	if ref != "" {
		l.reply(c, l.ackOf(c, ref))
	}
}

// ackOf is the ack to c of message ref, after the lane's current board:
// the one last built (see sendBoard). The ack of a new_invite carries
// the invitation.
func (l *Lane) ackOf(c *Client, ref string) protocol.Ack {
	a := protocol.Ack{Type: protocol.TypeAck, Ref: ref, Seq: l.view.Load().seq}
	if l.seats.invited == c && l.seats.invitedRef == ref {
		a.Invite = l.seats.invite
		l.seats.invited, l.seats.invitedRef, l.seats.invite = nil, "", ""
	}
	return a
}

// boardSeq returns the seq of the lane's current board: the epoch in the
// high bits, so that a client never sees seq go back when the lane is
// restored, and the changes of this epoch in the low ones. Both fit a
// JavaScript number exactly (2^53) for two million epochs of four billion
// changes each. The epoch is the one the lane holds, not its state's:
// a lane that read another server's claim in its log (and stops) still
// numbers the board it shows as it did when it showed it.
func (l *Lane) boardSeq() uint64 { return l.tenure.epoch<<32 | l.shown.seq }

// refuse answers a refused message with its error code. Refusals are
// counted in the metrics and logged at debug level only: a client may have
// dozens refused a second within its rate limit, and a line each at info
// would let any client flood the log (one writer shared by every lane).
func (l *Lane) refuse(c *Client, ref string, err error) {
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

// encodeReply encodes a message meant for one client.
func encodeReply(msg any) []byte {
	data, err := json.Marshal(msg)
	if err != nil {
		panic(fmt.Sprintf("lane: encoding a reply: %v", err)) // only plain values: cannot fail
	}
	return data
}

// series returns the board's series totals: the finished games' totals
// and this game's; nil before the lane has finished a game.
func series(finished []game.Total, players []bowling.Player) []protocol.SeriesPlayer {
	if len(finished) == 0 {
		return nil
	}
	out := make([]protocol.SeriesPlayer, len(finished), len(finished)+len(players))
	for i, t := range finished {
		out[i] = protocol.SeriesPlayer{Name: string(t.Name), Games: t.Games, Total: t.Pins}
	}
	for _, p := range players {
		if p.Game.NumRolls() == 0 {
			continue
		}
		i := slices.IndexFunc(out, func(t protocol.SeriesPlayer) bool { return t.Name == string(p.Name) })
		if i < 0 {
			i = len(out)
			out = append(out, protocol.SeriesPlayer{Name: string(p.Name)})
		}
		out[i].Games++
		out[i].Total += p.Game.Total()
	}
	return out
}

// BySecretary is who a correction's history says changed a ball the
// league's secretary corrected on a league night's lane: as the league's
// own history says it.
const BySecretary = "secretary"

// corrections returns the history of a game's corrections for the API.
func corrections(events []game.Event) []protocol.Correction {
	var out []protocol.Correction
	for _, e := range events {
		by := e.By
		switch {
		case e.Secretary:
			by = BySecretary
		case by == "":
			by = e.Player
		}
		out = append(out, protocol.Correction{Name: string(e.Player), Frame: e.Frame, Ball: e.Ball, Was: e.Was, Pins: e.Pins, By: string(by), At: e.At})
	}
	return out
}

// correctedFrames returns, for each player, the frames (1 to 10) with a
// corrected ball, as bits.
func correctedFrames(events []game.Event) map[bowling.Name]uint16 {
	if len(events) == 0 {
		return nil
	}
	out := make(map[bowling.Name]uint16)
	for _, e := range events {
		out[e.Player] |= 1 << e.Frame
	}
	return out
}
