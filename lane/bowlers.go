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
// key, or with "remember" (a new bowler, whose key the welcome carries),
// stores the bowler's id in its SeatTaken event, so the link outlives
// restarts and moves. A new bowler is made at the seat's first ball, not
// at the join (see makeBowler): the event carries their key's hash
// meanwhile, and a join that leaves before a ball costs the store
// nothing. A game goes into its linked players'
// histories the moment it is over (a lane woken from a pause that read
// its end back offers it once it has claimed the lane again, and shows
// it: see readBack), and again after each correction of it
// (which the lane takes until the next game is set up): each version
// replaces the one before, and the game counts once (bowler.Record.Add
// and Correct). The board shows a linked player's average, and, from the
// moment a game ends, the personal bests it brought, reckoned from what
// the lane last learnt of each bowler.
//
// Recording is off the lane goroutine: a bowler's store takes a few
// requests a game, and the lane goes on meanwhile. The lane's recorder
// stores its games in order, each until it is stored, a few seconds
// apart at most while the store elects a leader; a lane restored or taken
// over by another node offers again what may not have been stored (see
// offerAgain). What comes back (the new averages) reaches the lane as a
// request (opRecorded).

// bowlers is what a lane knows of the bowlers its seats are linked to.
// Owned by the lane goroutine, but for rec.
type bowlers struct {
	known map[string]*bowlerLine // by bowler id: what the board shows of them
	highs []protocol.High        // the personal bests the game just finished brought, until the next game
	ended map[string]bowlerLine  // by bowler id: the lines as the game just finished ended, until the next game
	wg    sync.WaitGroup         // games being recorded: Run waits for them
	// offered is the last version of a game offered to the recorder.
	offered gameRef
	// again: the lane was restored or taken over, and Run offers again
	// what its last server may not have recorded (see offerAgain), but
	// for what the records loaded then count already.
	again  bool
	loaded map[string]*bowler.Record
	// made are the new bowlers offered to the recorder to be made (see
	// makeBowler), by id.
	made map[string]bool
	rec  recorder // shared with its goroutine, under its own lock
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

var errUnknownBowler = protocol.RefuseBowlerKey.Error()

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
	if k.BowlerKey.IsZero() {
		// A new bowler: made at the seat's first ball (see makeBowler),
		// so that a join costs the store no bowler; the seat carries
		// the id drawn for them and their key's hash meanwhile.
		if err := l.cfg.Bowlers.Room(ctx); err != nil {
			// The bowlers' budget is full: the player bowls as a guest,
			// and is told why nothing will be remembered.
			pe, _ := ErrorFor(err)
			return linked{guest: pe}, nil
		}
		e.Bowler, e.NewBowler = string(bowler.NewID()), game.TokenHash(k.NewBowler)
		return linked{key: k.NewBowlerWelcome}, nil
	}
	r, err := l.cfg.Bowlers.Find(ctx, k.BowlerKey)
	switch {
	case errors.Is(err, bowler.ErrUnknown):
		return linked{}, errUnknownBowler
	case err != nil:
		// The bowlers' store does not answer: bowling matters more than
		// remembering it, so the player joins as a guest.
		l.log.Warn("bowlers not reached: a guest's seat", "err", err)
		return linked{}, nil
	}
	for _, st := range l.state.Match().Players() {
		if id, ok := l.state.Bowler(st.Name); ok && id == string(r.ID) && !st.Name.Same(e.Player) {
			return linked{}, protocol.RefuseBowlerSeated.Error(st.Name)
		}
	}
	e.Bowler = string(r.ID)
	l.bw.learn(r)
	return linked{}, nil
}

// makeBowler makes the bowler the seat of name asked to be remembered
// as, once its player has bowled a ball: off the lane goroutine, by the
// lane's recorder, ahead of any game of theirs it records. A bowler is
// offered once in the lane's life here; Create is idempotent, and a lane
// restored offers again those of the players who bowled (see
// offerAgain).
func (l *Lane) makeBowler(name bowling.Name) {
	if l.cfg.Bowlers == nil {
		return
	}
	id, _ := l.state.Bowler(name)
	key, ok := l.state.NewBowler(name)
	if !ok || l.bw.made[id] {
		return
	}
	if l.bw.made == nil {
		l.bw.made = make(map[string]bool)
	}
	l.bw.made[id] = true
	l.offer(recording{make: &newBowler{id: bowler.ID(id), key: bowler.KeyHash(key), name: name, at: time.Now()}})
}

// newBowler is a bowler to make: see makeBowler.
type newBowler struct {
	id   bowler.ID
	key  bowler.KeyHash
	name bowling.Name
	at   time.Time
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
		if _, pending := l.state.NewBowler(p.Name); pending && errors.Is(err, bowler.ErrUnknown) {
			continue // to be made at the player's first ball
		}
		if err != nil {
			l.log.Warn("a linked bowler not read", "player", p.Name, "err", err)
			continue
		}
		l.bw.learn(r)
		if l.bw.loaded == nil {
			l.bw.loaded = make(map[string]*bowler.Record)
		}
		l.bw.loaded[id] = r
	}
}

// gameEnded reckons the personal bests of the game that just ended: a
// linked player's score over their best game, their last three games in
// a row on this lane over their best series (a first game or series beats
// nothing). The board shows them until the next game. The bowlers' lines
// as the game ended are kept for a correction of it, which reckons them
// again (see gameCorrected): by then the game is in the lines itself.
func (l *Lane) gameEnded() {
	l.bw.ended = nil
	for _, p := range l.state.Match().Players() {
		id, ok := l.state.Bowler(p.Name)
		if line := l.bw.known[id]; ok && line != nil {
			if l.bw.ended == nil {
				l.bw.ended = make(map[string]bowlerLine)
			}
			l.bw.ended[id] = *line
		}
	}
	l.reckonHighs()
}

// gameCorrected reckons again the personal bests of the game that ended,
// now corrected.
func (l *Lane) gameCorrected() {
	if len(l.bw.ended) > 0 {
		l.reckonHighs()
	}
}

func (l *Lane) reckonHighs() {
	l.bw.highs = nil
	series := l.state.Series()
	for _, p := range l.state.Match().Players() {
		id, ok := l.state.Bowler(p.Name)
		line, known := l.bw.ended[id]
		if !ok || !known || !p.Game.Over() {
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

// gameRef names a version of a game of the lane's series: its number,
// and how many corrections it had.
type gameRef struct{ number, fix int }

// recording is one version of a game to record, each linked player's,
// or a bowler to make (make).
type recording struct {
	ref   gameRef
	games []bowlerGame
	make  *newBowler
}

type bowlerGame struct {
	id bowler.ID
	g  bowler.Game
}

// recorder records the games a lane offers, one at a time, in the order
// they were offered, each until it is stored: a game of a lane is never
// stored before the one offered ahead of it, and a later version of a
// game (corrected) replaces an earlier one still waiting. Its goroutine
// runs only while something waits.
type recorder struct {
	mu      sync.Mutex
	waiting []recording // guarded by mu
	running bool        // guarded by mu: the goroutine is running
}

// Pauses between tries to record a game: doubling from the first to the
// most, and never giving up while the lane runs. A store whose leader
// died elects another in 4 to 9 s (JetStream's raft timers), a node that
// died hands its lanes over in about as long: the game waits for either,
// its tries a few seconds apart at most.
const (
	recordPause    = 250 * time.Millisecond
	recordPauseMax = 4 * time.Second
)

// recordGame offers the game in play, once it is over, to the history of
// each linked player who bowled it to the end (who may have left since):
// at once, so that /me shows it with every page still open, and again
// after each correction, whose version replaces the one before (see
// bowler.Record.Correct). A version offered already is not offered again.
func (l *Lane) recordGame() {
	if l.cfg.Bowlers == nil || l.state.Phase() != game.Finished {
		return
	}
	ref := gameRef{l.state.GameNumber(), len(l.state.Corrections())}
	if l.bw.offered == ref {
		return
	}
	l.bw.offered = ref
	r := recording{ref: ref}
	now := time.Now()
	for _, p := range l.state.Match().Players() {
		l.addGame(&r, p.Name, &p.Game, now)
	}
	l.offer(r)
}

// offerAgainGames is how many of its series' last games a lane restored
// or taken over offers again. Its last server records its games in
// order, each until it is stored, so those it had not stored when it
// died are its last: as many as ended while the bowlers' store elected
// a leader (4 to 9 s, a few games at most). A record counts a game once
// among its bowler's last 16 (see bowler.Record.Add), which a bowler's
// last games on one lane are, whatever they bowled elsewhere since.
const offerAgainGames = 8

// offerAgain offers, as a lane is restored or taken over, the games whose
// recording the server that held it before may not have finished: the
// series' last games and the game in play, if it is over, but for those
// the records loaded as the lane was restored count already (a bowler
// whose record was not read is offered all of them: Add is idempotent).
// A player of the series is linked to the bowler their seat is linked to
// now: seats carry their link into the next game.
func (l *Lane) offerAgain() {
	loaded := l.bw.loaded
	l.bw.loaded = nil
	if l.cfg.Bowlers == nil {
		return
	}
	known := func(t bowlerGame) bool {
		r := loaded[string(t.id)]
		return r != nil && r.Has(t.g)
	}
	now := time.Now()
	series := l.state.Series()
	// The bowlers of the remembered players who bowled, first: the last
	// server may not have made them (makeBowler).
	for _, res := range series {
		for _, p := range res.Players {
			l.makeBowler(p.Name)
		}
	}
	for _, p := range l.state.Match().Players() {
		if len(p.Game.Balls()) > 0 {
			l.makeBowler(p.Name)
		}
	}
	for i := max(len(series)-offerAgainGames, 0); i < len(series); i++ {
		res := series[i]
		r := recording{ref: gameRef{l.state.GameNumber() - (len(series) - i), len(res.Corrections)}}
		for _, p := range res.Players {
			l.addGame(&r, p.Name, &p.Game, now)
		}
		r.games = slices.DeleteFunc(r.games, known)
		l.offer(r)
	}
	if l.state.Phase() == game.Finished {
		r := recording{ref: gameRef{l.state.GameNumber(), len(l.state.Corrections())}}
		l.bw.offered = r.ref
		for _, p := range l.state.Match().Players() {
			l.addGame(&r, p.Name, &p.Game, now)
		}
		r.games = slices.DeleteFunc(r.games, known)
		l.offer(r)
	}
}

// addGame adds to r the game g of the player name, if they bowled it to
// the end and their seat is linked to a bowler.
func (l *Lane) addGame(r *recording, name bowling.Name, g *bowling.Game, now time.Time) {
	id, ok := l.state.Bowler(name)
	if !ok || !g.Over() {
		return
	}
	bg := bowler.FromGame(l.id, l.name, r.ref.number, now, name, g)
	bg.Fix = r.ref.fix
	r.games = append(r.games, bowlerGame{bowler.ID(id), bg})
}

// busy reports whether games wait to be recorded, or one is being.
func (rec *recorder) busy() bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.running
}

// offer hands r to the lane's recorder, off the lane goroutine.
func (l *Lane) offer(r recording) {
	if len(r.games) == 0 && r.make == nil {
		return
	}
	rec := &l.bw.rec
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if n := len(rec.waiting); n > 0 && r.make == nil && rec.waiting[n-1].make == nil &&
		rec.waiting[n-1].ref.number == r.ref.number && rec.waiting[n-1].ref.fix <= r.ref.fix {
		rec.waiting[n-1] = r // a later version of a game not yet tried
	} else {
		rec.waiting = append(rec.waiting, r)
	}
	if rec.running {
		return
	}
	rec.running = true
	l.bw.wg.Go(l.recordWaiting)
}

// recordWaiting records the games waiting, the oldest first, each until
// it is stored or the lane stops (then with one last try: the lane's next
// server offers it again, see offerAgain), and hands each game's new
// numbers to the lane.
func (l *Lane) recordWaiting() {
	rec := &l.bw.rec
	// abandoned: a try failed after the lane stopped. The games after it
	// are not tried: each would wait its timeout for a store that does
	// not answer, holding the lane's Run from returning.
	abandoned := false
	for {
		rec.mu.Lock()
		if len(rec.waiting) == 0 {
			rec.running = false
			rec.mu.Unlock()
			return
		}
		r := rec.waiting[0]
		rec.waiting = rec.waiting[1:]
		rec.mu.Unlock()

		out := &recorded{lines: make(map[string]bowlerLine)}
		if b := r.make; b != nil && !abandoned {
			rd, err := l.makeOne(*b)
			switch {
			case err == nil:
				out.lines[string(b.id)] = lineOf(rd)
			case errors.Is(err, bowler.ErrUnknown), errors.Is(err, bowler.ErrExists), errors.Is(err, game.ErrStorageFull):
				// Deleted meanwhile, or no room: the seat's games are
				// a guest's (their adds find no bowler).
				l.log.Warn("a remembered player's bowler was not made", "player", b.name, "err", err)
			default:
				abandoned = true
				l.log.Error("a remembered player's bowler was not made before the lane stopped: its next server makes it", "player", b.name, "err", err)
			}
		}
		for _, t := range r.games {
			var rd *bowler.Record
			err := errors.New("not tried: the store did not answer the game before it")
			if !abandoned {
				rd, err = l.recordOne(t)
			}
			switch {
			case errors.Is(err, bowler.ErrUnknown):
				continue // the bowler deleted their history meanwhile
			case errors.Is(err, game.ErrStorageFull):
				l.log.Warn("a bowler's game was not recorded: the bowlers' budget is full", "game", t.g.Game, "err", err)
				continue
			case err != nil:
				abandoned = true
				l.log.Error("a bowler's game was not recorded before the lane stopped: its next server offers it again", "game", t.g.Game, "err", err)
				continue
			}
			out.lines[string(t.id)] = lineOf(rd)
		}
		if len(out.lines) > 0 {
			l.submit(context.Background(), request{op: opRecorded, recorded: out})
		}
	}
}

// recordOne adds t to its bowler's history, trying again until the store
// takes it or the lane stops. A bowler who deleted their history
// meanwhile is bowler.ErrUnknown, and a full bowlers' budget
// game.ErrStorageFull, neither tried again. A store that does not
// answer is logged once a game, and once more when it takes it: a
// store's leader election would otherwise log every lane's every try.
func (l *Lane) recordOne(t bowlerGame) (*bowler.Record, error) {
	var rd *bowler.Record
	tries, gone, full := 0, false, error(nil)
	err := retryUntil(l.stopped, l.cfg.AppendTimeout, func(ctx context.Context) (err error) {
		tries++
		rd, _, err = l.cfg.Bowlers.Add(ctx, t.id, t.g)
		if gone = errors.Is(err, bowler.ErrUnknown); gone {
			return nil // nothing to try again
		}
		if errors.Is(err, game.ErrStorageFull) {
			// The bowlers' budget is full: room may never come, and the
			// lane stays open while a game waits (see closeIdle).
			full = err
			return nil
		}
		if err != nil && tries == 1 {
			l.log.Warn("a bowler's game was not recorded: trying again until it is", "game", t.g.Game, "err", err)
		}
		return err
	})
	switch {
	case gone:
		return nil, bowler.ErrUnknown
	case full != nil:
		return nil, full
	case err != nil:
		return nil, err
	case tries > 1:
		l.log.Info("a bowler's game was recorded after all", "game", t.g.Game, "tries", tries)
	}
	return rd, nil
}

// makeOne makes bowler b, trying again until the store takes it or the
// lane stops, as recordOne records a game. A bowler deleted (Create's
// ErrUnknown), an id taken by another key (ErrExists) and a full budget
// are not tried again.
func (l *Lane) makeOne(b newBowler) (*bowler.Record, error) {
	var rd *bowler.Record
	var final error
	tries := 0
	err := retryUntil(l.stopped, l.cfg.AppendTimeout, func(ctx context.Context) (err error) {
		tries++
		rd, err = l.cfg.Bowlers.Create(ctx, b.id, b.key, string(b.name), b.at)
		if errors.Is(err, bowler.ErrUnknown) || errors.Is(err, bowler.ErrExists) || errors.Is(err, game.ErrStorageFull) {
			final = err
			return nil
		}
		if err != nil && tries == 1 {
			l.log.Warn("a remembered player's bowler was not made: trying again until it is", "player", b.name, "err", err)
		}
		return err
	})
	if final != nil {
		return nil, final
	}
	return rd, err
}

// retryUntil calls try, each time within timeout, until it succeeds,
// pausing recordPause more, doubled each time up to recordPauseMax;
// once stopped is done, it makes one last call. It returns try's last
// error.
func retryUntil(stopped context.Context, timeout time.Duration, try func(context.Context) error) error {
	pause := recordPause
	for {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		err := try(ctx)
		cancel()
		if err == nil || stopped.Err() != nil {
			return err
		}
		select {
		case <-time.After(pause):
		case <-stopped.Done():
		}
		pause = min(2*pause, recordPauseMax)
	}
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
