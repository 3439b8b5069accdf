package lane

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/protocol"
)

// A seat may be linked to a bowler (lane/bowler): a join with a bowler's
// key, or with "remember" (which makes a new bowler, whose key the
// welcome carries), stores the bowler's id in its SeatTaken event, so the
// link outlives restarts and moves. A game goes into its linked players'
// histories once it is final — when the next game is set up, or when the
// lane closes — for until then a ball of it may still be corrected. The
// board shows a linked player's average, and, from the moment a game
// ends, the personal bests it brought, reckoned from what the lane last
// learnt of each bowler.
//
// Recording is off the lane goroutine: a bowler's store takes a few
// requests a game, and the lane goes on meanwhile. What comes back (the
// new averages) reaches the lane as a request (opRecorded).

// bowlers is what a lane knows of the bowlers its seats are linked to.
// Owned by the lane goroutine.
type bowlers struct {
	known map[string]*bowlerLine // by bowler id: what the board shows of them
	highs []protocol.High        // the personal bests the game just finished brought, until the next game
	wg    sync.WaitGroup         // games being recorded: Run waits for them
}

// bowlerLine is a bowler as the lane last learnt them: games and pins for
// the average, the best game and series for the news.
type bowlerLine struct {
	games, pins, high, highSeries int
}

func lineOf(r *bowler.Record) bowlerLine {
	return bowlerLine{games: r.Stats.Games, pins: r.Stats.Pins, high: r.Stats.High, highSeries: r.HighSeries}
}

// recorded is the outcome of recording a game: each linked player's
// record afterwards.
type recorded struct {
	lines map[string]bowlerLine // by bowler id
	sheet *league.MatchSheet    // for opLeagueSheet: the league's sheet of the lane's match
}

// recordTries bounds the tries to record a bowler's game, each within
// the lane's append timeout, a second or two apart.
const recordTries = 3

var errUnknownBowler = protocol.Errorf(protocol.CodeUnknownBowler, "that bowler key is not known here: it was revoked, or its bowler deleted their history; join as a guest, or start a new history")

// linked is what a join's welcome says of the seat's bowler.
type linked struct {
	key   string          // a new bowler's key ("" but for a new bowler)
	guest *protocol.Error // why a join that asked to be remembered was seated as a guest
}

// linkBowler links the seat e takes to the bowler of k's key, or to a new
// bowler if the join asked to be remembered; a guest's join is left as it
// is. It returns what the welcome says of the bowler.
func (l *Lane) linkBowler(ctx context.Context, e *game.Event, k *Secrets) (linked, error) {
	if k.BowlerKey.IsZero() && k.NewBowler.IsZero() {
		return linked{}, nil
	}
	if l.cfg.Bowlers == nil {
		if !k.BowlerKey.IsZero() {
			return linked{}, errUnknownBowler
		}
		return linked{}, nil // nowhere to remember: a guest
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.cfg.AppendTimeout)
	defer cancel()
	var r *bowler.Record
	var err error
	welcome := ""
	if !k.BowlerKey.IsZero() {
		r, err = l.cfg.Bowlers.Find(ctx, k.BowlerKey)
	} else {
		r, err = l.cfg.Bowlers.Create(ctx, k.NewBowler, string(e.Player), time.Now())
		welcome = k.NewBowlerWelcome
	}
	switch {
	case errors.Is(err, bowler.ErrUnknown):
		return linked{}, errUnknownBowler
	case errors.Is(err, game.ErrStorageFull):
		// The bowlers' budget is full: the player bowls as a guest, and
		// is told why nothing will be remembered.
		pe, _ := ErrorFor(err)
		return linked{guest: pe}, nil
	case err != nil:
		// The bowlers' store does not answer: bowling matters more than
		// remembering it, so the player joins as a guest (the welcome
		// carries no new key).
		l.log.Warn("bowlers not reached: a guest's seat", "err", err)
		return linked{}, nil
	}
	for _, st := range l.state.Match().Players() {
		if id, ok := l.state.Bowler(st.Name); ok && id == string(r.ID) && !st.Name.Same(e.Player) {
			return linked{}, protocol.Errorf(protocol.CodeAlreadySeated, "that bowler holds %s's seat on this lane already", st.Name)
		}
	}
	e.Bowler = string(r.ID)
	l.bw.learn(r)
	return linked{key: welcome}, nil
}

// learn keeps what the board shows of bowler r.
func (b *bowlers) learn(r *bowler.Record) {
	if b.known == nil {
		b.known = make(map[string]*bowlerLine)
	}
	line := lineOf(r)
	b.known[string(r.ID)] = &line
}

// average returns the average the board shows for the player name: their
// bowler's, if their seat is linked and the bowler has a game.
func (l *Lane) average(name bowling.Name) (int, bool) {
	if len(l.bw.known) == 0 {
		return 0, false // a lane of guests: every board asks, so ask nothing
	}
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

// gameEnded reckons the personal bests of the game that just ended: a
// linked player's score over their best game, their last three games in
// a row on this lane over their best series (a first game or series beats
// nothing). The board shows them until the next game.
func (l *Lane) gameEnded() {
	l.bw.highs = nil
	series := l.state.Series()
	for _, p := range l.state.Match().Players() {
		id, ok := l.state.Bowler(p.Name)
		line := l.bw.known[id]
		if !ok || line == nil || !p.Game.Over() {
			continue
		}
		h := protocol.High{Name: string(p.Name)}
		if score := p.Game.Total(); line.games > 0 && score > line.high {
			h.Game = score
		}
		if total, ok := lastSeries(series, p); ok && line.highSeries > 0 && total > line.highSeries {
			h.Series = total
		}
		if h.Game > 0 || h.Series > 0 {
			l.bw.highs = append(l.bw.highs, h)
		}
	}
}

// lastSeries returns p's series ending with the game p just finished:
// the total of it and the last two games of the lane's series, if p
// bowled both to the end.
func lastSeries(series []game.Result, p bowling.Player) (int, bool) {
	if len(series) < bowler.SeriesGames-1 {
		return 0, false
	}
	total := p.Game.Total()
	for _, r := range series[len(series)-(bowler.SeriesGames-1):] {
		i := slices.IndexFunc(r.Players, func(s game.Score) bool { return s.Name.Same(p.Name) })
		if i < 0 || !r.Players[i].Game.Over() {
			return 0, false
		}
		total += r.Players[i].Total()
	}
	return total, true
}

// recordGame records the game in play, over and final, in the history of
// each linked player who bowled it to the end (who may have left since),
// off the lane goroutine.
func (l *Lane) recordGame() {
	if l.cfg.Bowlers == nil || l.state.Phase() != game.Finished {
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
			gone := false
			err := retry(stopped, recordTries, appendTimeout, func(ctx context.Context) (err error) {
				r, _, err = svc.Add(ctx, t.id, t.g)
				if gone = errors.Is(err, bowler.ErrUnknown); gone {
					return nil // nothing to try again
				}
				return err
			})
			switch {
			case gone:
				continue // the bowler deleted their history meanwhile
			case err != nil:
				log.Error("a bowler's game was not recorded", "game", t.g.Game, "err", err)
				continue
			}
			out.lines[string(t.id)] = lineOf(r)
		}
		l.submit(context.Background(), request{op: opRecorded, recorded: out})
	})
}

// retry calls try, each time within timeout, until it succeeds or has
// been called tries times, a second more apart each time; once stopped
// is done, it makes one last call. It returns try's last error.
func retry(stopped context.Context, tries int, timeout time.Duration, try func(context.Context) error) error {
	var err error
	for n := 1; n <= tries; n++ {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		err = try(ctx)
		cancel()
		if err == nil || n == tries {
			break
		}
		select {
		case <-time.After(time.Duration(n) * time.Second):
		case <-stopped.Done():
			n = tries - 1 // the lane stopped: one last try
		}
	}
	return err
}

// recordedGames takes what recording a game learnt: the averages go on
// the board.
func (l *Lane) recordedGames(r *recorded) {
	if l.bw.known == nil {
		l.bw.known = make(map[string]*bowlerLine)
	}
	for id, line := range r.lines {
		l.bw.known[id] = &line
	}
	l.changed()
}
