package lane

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// A seat may be linked to a bowler (lane/bowler): a join with a bowler's
// key, or with "remember" (which makes a new bowler, whose key the
// welcome carries), stores the bowler's id in its SeatTaken event, so the
// link outlives restarts and moves. Every game a linked seat finishes
// goes into the bowler's history; the board shows a linked player's
// average, and the personal bests a game brought.
//
// A game's end is recorded off the lane goroutine: a bowler's store takes
// a few requests a game, and the lane goes on meanwhile. What comes back
// (the new averages, the news) reaches the lane as a request (opRecorded).

// bowlers is what a lane knows of the bowlers its seats are linked to.
// Owned by the lane goroutine.
type bowlers struct {
	known map[string]*bowlerLine // by bowler id: their games and pins, for the board's average
	highs []protocol.High        // the personal bests the last game brought, until the next game
	wg    sync.WaitGroup         // games being recorded: Run waits for them
}

// bowlerLine is a bowler's games and pins as the lane last learnt them.
type bowlerLine struct {
	games, pins int
}

// recorded is the outcome of recording a game's end: what each linked
// player's record said afterwards.
type recorded struct {
	lines map[string]bowlerLine // by bowler id
	highs []protocol.High
}

// recordTries bounds the tries to record a bowler's game, each within
// the lane's append timeout, a second or two apart.
const recordTries = 3

var errUnknownBowler = protocol.Errorf(protocol.CodeUnknownBowler, "that bowler key is not known here: it was revoked, or its bowler deleted their history; join as a guest, or start a new history")

// linkBowler links the seat e takes to the bowler of k's key, or to a new
// bowler if the join asked to be remembered; a guest's join is left as it
// is. It returns the key the welcome carries ("" but for a new bowler).
func (l *Lane) linkBowler(ctx context.Context, e *game.Event, k *secrets) (string, error) {
	if k.bowlerKey.IsZero() && k.newBowler.IsZero() {
		return "", nil
	}
	if l.cfg.Bowlers == nil {
		if !k.bowlerKey.IsZero() {
			return "", errUnknownBowler
		}
		return "", nil // nowhere to remember: a guest
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.cfg.AppendTimeout)
	defer cancel()
	var r *bowler.Record
	var err error
	welcome := ""
	if !k.bowlerKey.IsZero() {
		r, err = l.cfg.Bowlers.Find(ctx, k.bowlerKey)
	} else {
		r, err = l.cfg.Bowlers.Create(ctx, k.newBowler, string(e.Player), time.Now())
		welcome = k.newBowlerWelcome
	}
	switch {
	case errors.Is(err, bowler.ErrUnknown):
		return "", errUnknownBowler
	case err != nil:
		l.log.Warn("bowler not linked", "err", err)
		return "", protocol.Errorf(protocol.CodeUnavailable, "the lane could not reach its bowlers in time; nothing changed, try again")
	}
	for _, st := range l.state.Match().Players() {
		if id, ok := l.state.Bowler(st.Name); ok && id == string(r.ID) && !st.Name.Same(e.Player) {
			return "", protocol.Errorf(protocol.CodeAlreadySeated, "that bowler holds %s's seat on this lane already", st.Name)
		}
	}
	e.Bowler = string(r.ID)
	l.bw.learn(r)
	return welcome, nil
}

// learn keeps what the board shows of bowler r.
func (b *bowlers) learn(r *bowler.Record) {
	if b.known == nil {
		b.known = make(map[string]*bowlerLine)
	}
	b.known[string(r.ID)] = &bowlerLine{games: r.Stats.Games, pins: r.Stats.Pins}
}

// average returns the average the board shows for the player name: their
// bowler's, if their seat is linked and the bowler has a game.
func (l *Lane) average(name bowling.Name) (int, bool) {
	id, ok := l.state.Bowler(name)
	if !ok {
		return 0, false
	}
	line := l.bw.known[id]
	if line == nil || line.games == 0 {
		return 0, false
	}
	return line.pins / line.games, true
}

// loadBowlers learns the bowlers of the seats linked when a lane is
// restored or taken over: the board shows their averages. A bowler that
// cannot be read now shows none until their next game.
func (l *Lane) loadBowlers(ctx context.Context) {
	if l.cfg.Bowlers == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.cfg.AppendTimeout)
	defer cancel()
	for _, p := range l.state.Match().Players() {
		id, ok := l.state.Bowler(p.Name)
		if !ok {
			continue
		}
		r, err := l.cfg.Bowlers.Get(ctx, bowler.ID(id))
		if err != nil {
			l.log.Warn("a linked bowler not read", "player", p.Name, "err", err)
			continue
		}
		l.bw.learn(r)
	}
}

// gameOver records the game that just ended in the history of each
// linked player who bowled it to the end, off the lane goroutine, with
// the games whose recording failed before.
func (l *Lane) gameOver() {
	if l.cfg.Bowlers == nil {
		return
	}
	type entry struct {
		id bowler.ID
		g  bowler.Game
	}
	var todo []entry
	number, now := l.state.GameNumber(), time.Now()
	for _, p := range l.state.Match().Players() {
		id, ok := l.state.Bowler(p.Name)
		if !ok || !p.Game.Over() {
			continue
		}
		todo = append(todo, entry{bowler.ID(id), bowler.FromGame(l.id, l.name, number, now, p.Name, &p.Game)})
	}
	if len(todo) == 0 {
		return
	}
	svc, appendTimeout, log, stopped := l.cfg.Bowlers, l.cfg.AppendTimeout, l.log, l.stopped
	l.bw.wg.Go(func() {
		out := &recorded{lines: make(map[string]bowlerLine)}
		for _, t := range todo {
			var r *bowler.Record
			var news bowler.News
			var err error
			for try := 1; try <= recordTries; try++ {
				ctx, cancel := context.WithTimeout(context.Background(), appendTimeout)
				r, news, err = svc.Add(ctx, t.id, t.g)
				cancel()
				if err == nil || errors.Is(err, bowler.ErrUnknown) || try == recordTries {
					break
				}
				select {
				case <-time.After(time.Duration(try) * time.Second):
				case <-stopped.Done():
					try = recordTries // the lane stopped: one last try
				}
			}
			switch {
			case errors.Is(err, bowler.ErrUnknown):
				continue // the bowler deleted their history meanwhile
			case err != nil:
				log.Error("a bowler's game was not recorded", "game", t.g.Game, "err", err)
				continue
			}
			if news.Has() {
				out.highs = append(out.highs, protocol.High{Name: t.g.Name, Game: news.HighGame, Series: news.HighSeries})
			}
			out.lines[string(t.id)] = bowlerLine{games: r.Stats.Games, pins: r.Stats.Pins}
		}
		l.submit(context.Background(), request{op: opRecorded, recorded: out})
	})
}

// recordedGames takes what recording a game's end learnt: the averages
// and the news go on the board.
func (l *Lane) recordedGames(r *recorded) {
	if l.bw.known == nil {
		l.bw.known = make(map[string]*bowlerLine)
	}
	for id, line := range r.lines {
		l.bw.known[id] = &line
	}
	if l.state.Phase() == game.Finished {
		l.bw.highs = append(l.bw.highs, r.highs...)
	}
	l.changed()
}
