package lane

import (
	"context"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// AwayAfter is how long the player up must have been offline before
// another player may skip them: long enough for a phone that locked
// between turns to reconnect, short enough that nobody waits long for a
// friend who stepped away.
const AwayAfter = 30 * time.Second

// offlineFor returns how long name has had no connection holding their
// seat: 0 while one does. A player never connected since the lane came up
// (restored after a restart) has been offline since then.
func (l *Lane) offlineFor(name bowling.Name, now time.Time) time.Duration {
	if l.seats.holders[name] != nil {
		return 0
	}
	a, ok := l.seats.offline[name]
	since := a.since
	if !ok {
		since = l.seats.born
	}
	return max(now.Sub(since), time.Nanosecond) // offline at all is more than 0
}

// upOfflineFor returns how long the player up has been offline.
func (l *Lane) upOfflineFor(now time.Time) time.Duration {
	seat, _, ok := l.state.Match().Up()
	if !ok {
		return 0
	}
	return l.offlineFor(l.state.Match().At(seat).Name, now)
}

// skipIn returns how many seconds are left before the player up, name,
// may be skipped, while they are offline (nil while they are connected),
// and arms the timer that shows the board again when none are left.
func (l *Lane) skipIn(name bowling.Name) *int {
	if l.seats.holders[name] != nil { // connected: the usual case, on every board
		l.seats.skippable.Stop()
		return nil
	}
	offline := l.offlineFor(name, time.Now())
	left := l.cfg.AwayAfter - offline
	if left <= 0 {
		l.seats.skippable.Stop()
		return new(int)
	}
	l.seats.skippable.Reset(left)
	secs := int((left + time.Second - 1) / time.Second)
	return &secs
}

// decideFairPlay decides the commands of fair play: corrections, skips,
// removals, readmissions and seats freed.
func (l *Lane) decideFairPlay(c *Client, m protocol.Request) (game.Event, error) {
	now := time.Now()
	switch m.Type {
	case protocol.TypeCorrect:
		t, err := requestBall(m)
		if err != nil {
			return game.Event{}, err
		}
		return l.state.Correct(game.Correction{By: c.seat, For: bowling.Name(m.Name), Frame: *m.Frame, Ball: *m.Ball,
			Pins: t.Pins, Deck: t.Deck, HasDeck: t.HasDeck, Foul: t.Foul, FromDeck: t.FromDeck, At: now})
	case protocol.TypeSkip:
		return l.state.Skip(c.seat, l.upOfflineFor(now), l.cfg.AwayAfter)
	case protocol.TypeReadmit:
		return l.state.Readmit(c.seat, m.Name)
	case protocol.TypeFree:
		return l.state.Free(c.seat, m.Name)
	default: // protocol.TypeRemove
		return l.state.Remove(c.seat, m.Name)
	}
}

// removed takes the connection of a player who left, or whom the host
// removed (or whose league place the league's secretary gave back), off
// their seat: it watches from now on, and is returned (nil if the seat
// had none). A removed player is told why.
func (l *Lane) removed(e game.Event) *Client {
	holder := l.seats.holders[e.Player]
	if holder == nil {
		return nil
	}
	delete(l.seats.holders, e.Player)
	holder.seat = ""
	switch {
	case e.Secretary:
		l.reply(holder, protocol.RefusePlaceGiven.Error(e.Player))
	case e.By != "":
		l.reply(holder, protocol.RefuseRemovedBy.Error(e.By, e.Player))
	}
	return holder
}

// overflow turns away c, attached without a seat, if the lane has more
// watchers than it takes: a seat is had past the limit (a join on a lane
// full of watchers), so giving it up must not leave one more watcher.
func (l *Lane) overflow(c *Client) {
	if _, ok := l.conns.attached[c]; ok && c.seat == "" && l.spectators() > l.cfg.MaxSpectators {
		l.turnAway(c, "")
		l.presenceChanged() // the board counted it
	}
}

// welcomeBack marks a player who resumed their seat back, if they were
// skipped while away: they catch up on their missed frames next.
// If the store does not take it, the player stays away (passed by) until
// they resume again; their seat is theirs all the same.
func (l *Lane) welcomeBack(ctx context.Context, name bowling.Name) {
	e, ok := l.state.Back(name)
	if !ok {
		return
	}
	if err := l.record(ctx, e); err != nil {
		l.log.Warn("could not mark a player back", "player", name, "err", err)
		return
	}
	l.changed()
}
