package lane

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// storedLog is where a lane's log is stored, and how far the lane has it.
type storedLog struct {
	journal game.Journal  // nil: nothing is stored
	last    uint64        // the journal's position of the lane's last event
	keep    atomic.Uint64 // the first position of its log a compaction must keep: see Keep
}

// record stores a decided event in the journal and applies it: the ack
// rule. If the journal does not take it, nothing changes and the error
// says the command may be tried again.
func (l *Lane) record(ctx context.Context, e game.Event) error {
	if err := l.store(ctx, e); err != nil {
		l.log.Warn("journal append failed", "event", e.Kind, "err", err)
		if errors.Is(err, game.ErrConflict) {
			// Someone else wrote to the lane's log: read it now, to stop
			// at once if it was another server's claim.
			l.sync(ctx)
		}
		if errors.Is(err, game.ErrStorageFull) {
			pe, _ := ErrorFor(err) // storage_full, saying which budget
			return pe
		}
		return protocol.RefuseStoreLate.Error()
	}
	switch l.applyStored(e) {
	case outcomeEnded:
		l.recordGame() // in its bowlers' histories at once
		l.leagueGameEnded()
	case outcomeCorrected:
		l.recordGame() // the corrected version replaces the one recorded
	}
	return nil
}

// outcome is what an event stored did to the game in play.
type outcome int

const (
	outcomeNone      outcome = iota
	outcomeEnded             // the game is over
	outcomeCorrected         // a game over, corrected
)

// applyStored applies an event the log holds to the lane's state, with
// what follows from it (the personal bests, a remembered player's bowler
// made at their first ball), whether the lane stored it now (record) or
// reads it back (readBack): the same for both, as the log is. The game's
// records and the league's scores are the caller's, which a read back
// holds until the lane may decide again.
func (l *Lane) applyStored(e game.Event) outcome {
	was := l.state.Phase()
	if e.Kind == game.NextGame || e.Kind == game.NewGame {
		l.bw.highs, l.bw.ended = nil, nil
	}
	l.state.Apply(e)
	l.cfg.Metrics.Changes.Add(1)
	if e.Kind == game.Rolled {
		l.makeBowler(e.Player) // a remembered player's first ball makes their bowler
	}
	switch {
	case was != game.Finished && l.state.Phase() == game.Finished:
		l.gameEnded()
		return outcomeEnded
	case e.Kind == game.Corrected && l.state.Phase() == game.Finished:
		l.gameCorrected()
		return outcomeCorrected
	}
	return outcomeNone
}

// Wake wakes the lane's tenure (see the package documentation): the lane
// reads its log back now, as before its next decision, for a server that
// was paused (its process stopped, its machine frozen) long enough for
// another to take its lanes over. A lane whose log holds
// another server's later claim stops, and its clients are sent to
// reconnect. It returns once the lane has the request, or has stopped.
func (l *Lane) Wake(ctx context.Context) {
	l.submit(ctx, request{op: opWake})
}

// ErrStopped is returned by [Lane.Snapshot] for a lane that has stopped.
var ErrStopped = errors.New("lane: stopped")

// Snapshot stores the whole lane as one event, so that the journal may
// drop the lane's earlier events ([game.Journal.Compact]). It returns once
// the snapshot is stored, or fails with [ErrStopped] if the lane stopped
// first.
func (l *Lane) Snapshot(ctx context.Context) error {
	return l.ask(ctx, request{op: opSnapshot})
}

// ask hands the lane goroutine r and waits for its result: ErrStopped if
// the lane stopped first, ctx's error if ctx ended.
func (l *Lane) ask(ctx context.Context, r request) error {
	result := make(chan error, 1)
	r.result = result
	if !l.submit(ctx, r) {
		if err := ctx.Err(); err != nil {
			return err
		}
		return ErrStopped
	}
	select {
	case err := <-result:
		return err
	case <-l.stopped.Done():
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

// store appends e, decided on a state in step with the log (see sync),
// to the lane's log.
func (l *Lane) store(ctx context.Context, e game.Event) error {
	if l.stored.journal == nil {
		return nil
	}
	switch {
	case l.tenure.moved():
		return errMoved // another server holds the lane
	case !l.tenure.mayDecide():
		return errors.New("lane: the log is ahead of the lane: read it back before deciding") // sync was not called: a bug
	}
	return l.append(ctx, e)
}

// append appends e to the lane's log, whatever its tenure: store's for a
// decision, and the lane's claim (see claim).
func (l *Lane) append(ctx context.Context, e game.Event) error {
	pos, err := appendEvent(ctx, l.cfg, l.id, l.stored.last, e)
	if err != nil {
		l.tenure.lose()
		return err
	}
	l.stored.last = pos
	return nil
}

// appendEvent stores one event of lane id within cfg.AppendTimeout.
func appendEvent(ctx context.Context, cfg Config, id string, last uint64, e game.Event) (uint64, error) {
	if cfg.Journal == nil {
		return 0, errors.New("lane: no journal to store the lane in")
	}
	// An append that has been sent may land even if its caller gives up,
	// so shutdown must not cancel it halfway: only the timeout bounds it,
	// and the client then hears the outcome, not "nothing changed".
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.AppendTimeout)
	defer cancel()
	pos, err := cfg.Journal.Append(ctx, id, last, e)
	if err != nil {
		cfg.Metrics.AppendErrors.Add(1)
		return 0, fmt.Errorf("lane %s: storing %s: %w", id, e.Kind, err)
	}
	cfg.Metrics.Appends.Add(1)
	return pos, nil
}

// sync brings the lane's state in step with its log before anything is
// decided: after an append whose outcome was unknown, it reads back and
// applies what the log holds beyond the lane's last known event (the
// append may have landed, and the log is the truth). A roll whose ack was
// lost and which the client sends again is then refused as stale, never
// counted twice. After its server was found paused, the lane also claims
// the lane again before it goes on (see claim).
func (l *Lane) sync(ctx context.Context) error {
	if l.tenure.moved() {
		return errMoved
	}
	l.checkWakes()
	if l.tenure.mayDecide() {
		return nil
	}
	// While the store is down, every message would wait for a read that
	// fails, and the lane goroutine would fall behind its inbox (and its
	// readers behind their pongs): try the store again only after a pause.
	if !l.tenure.mayRead(time.Now()) {
		l.retryLater()
		return errStoreDown
	}
	err := l.readBack(ctx)
	if err == nil && l.tenure.now() == unclaimed {
		err = l.claim(ctx)
	}
	if err != nil {
		if l.tenure.moved() {
			return errMoved
		}
		l.tenure.fail(time.Now().Add(storeRetryPause))
		l.log.Warn("the lane could not read its log back", "err", err)
		l.retryLater()
		return errStoreDown
	}
	return nil
}

// retryLater has a woken lane whose read-back, or claim, failed try again
// once the pause after a failed read is over, on its own: its clients may
// all have gone elsewhere (it sent them away, or they gave up on its node),
// and with no message to make it read, a lane that another server took
// over meanwhile would never find out, and go on answering for the lane
// to the other nodes (a nemesis run saw two nodes each show the lane's
// games, one of them three games behind).
func (l *Lane) retryLater() {
	if !l.tenure.armRetry() {
		return
	}
	time.AfterFunc(storeRetryPause, func() {
		l.submit(context.Background(), request{op: opRetry})
	})
}

// claim takes the lane up again after its server was found paused: a
// claim of a new epoch, fenced by the last event the lane read back. A
// read alone cannot tell the lane that it still holds its log: the
// stream's leader may have been on the paused server too, and answer
// from what it had before the pause until it learns that the others
// elected another (a cluster test saw such a lane refuse a ball as
// stale, ahead of a game that had moved on elsewhere). An append is
// stored only once most servers have it, so the claim lands only if no
// other server wrote to the log since. If one did, or the claim's outcome
// is unknown, the lane reads back again (at its next message, or on its
// own: see retryLater), and stops once the read shows another's claim, or
// takes the lane up if it shows its own (see readBack); until then it
// decides nothing and shows no board.
func (l *Lane) claim(ctx context.Context) error {
	e := l.state.Claim(l.cfg.Node)
	if !l.tenure.claim(e.Epoch) {
		return fmt.Errorf("lane %s: claiming the lane while %s, not unclaimed", l.id, l.tenure.now()) // a bug
	}
	if err := l.append(ctx, e); err != nil {
		return fmt.Errorf("lane %s: taking the lane up again after a pause: %w", l.id, err)
	}
	l.state.Apply(e)
	l.tenure.took()
	l.took()
	return nil
}

// took shows every client the first board of the epoch the lane has
// just taken up (see tenure.took), and sends the acks held meanwhile: an
// ack names the seq of a board its client is sent, and this epoch's first
// is the first that may be shown.
func (l *Lane) took() {
	l.shown.seq = 0
	l.log.Info("took the lane up again after a pause", "epoch", l.tenure.epoch)
	l.show(nil, "")
	l.sendHeld()
	l.recordGame() // a game its read back ended, now that the board shows it (see readBack)
	l.reportUnreported()
}

// ownClaim reports whether events hold the lane's claim of epoch, as
// this server makes it: a claim whose answer was lost, read back.
func (l *Lane) ownClaim(events []game.Event, epoch uint64) bool {
	for _, e := range events {
		if e.Kind == game.Claimed && e.Epoch == epoch && e.Node == l.cfg.Node {
			return true
		}
	}
	return false
}

// checkWakes wakes the lane's tenure if its server was found paused
// since the lane last looked: another server may have taken the lane
// over meanwhile.
func (l *Lane) checkWakes() {
	if l.cfg.Wakes != nil && l.stored.journal != nil {
		if w := l.cfg.Wakes(); w != l.tenure.wakes.Load() {
			l.tenure.wake() // before wakes: see unsure
			l.tenure.wakes.Store(w)
		}
	}
}

// unsure reports whether the lane may not show its board (see
// tenure.mayShow), or is yet to notice that its server was found paused.
// Safe on any goroutine.
func (l *Lane) unsure() bool {
	if !l.tenure.mayShow() {
		return true
	}
	return l.cfg.Wakes != nil && l.stored.journal != nil && l.cfg.Wakes() != l.tenure.wakes.Load()
}

var errMoved = protocol.Errorf(protocol.CodeServerRestarting, protocol.NoticeMoved)

var errStoreDown = protocol.RefuseLogUnread.Error()

// readBack reads the lane's log back from its last known event and
// applies what another append (or another server) put there: see sync.
// A join whose answer was lost is seated now if its seat is in the log.
func (l *Lane) readBack(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.cfg.AppendTimeout)
	defer cancel()
	log, err := l.stored.journal.Read(ctx, l.id, l.stored.last)
	if err != nil {
		return fmt.Errorf("lane %s: reading back the log: %w", l.id, err)
	}
	var ended []leagueGame // games of a league night the read back ended
	for _, e := range log.Events {
		if l.applyStored(e) == outcomeEnded && l.state.League() != nil {
			ended = append(ended, l.leagueInPlay())
		}
	}
	l.stored.last = log.Last
	if len(log.Events) > 0 {
		l.log.Info("caught up with the journal", "events", len(log.Events))
	}
	epoch := l.state.Epoch()
	switch {
	case l.tenure.caughtUp(epoch, l.ownClaim(log.Events, epoch)):
		l.took() // the claim the lane sent landed, though its answer was lost
	case l.tenure.moved():
		return errMoved // another server claimed the lane: its log is not ours to write
	case len(log.Events) > 0 || l.shown.due:
		l.changed() // and a board held back (see changed); an unclaimed lane's waits for its claim (see took)
	}
	l.lg.unreported = append(l.lg.unreported, ended...)
	if l.tenure.mayDecide() {
		// A last ball whose answer was lost may have ended the game. Not
		// before the lane holds its epoch again: a woken lane shows
		// nothing of what it read until its claim lands (its board and
		// its sheet, which the API answers, wait for took), and a game
		// in a history the sheet does not show over is one the
		// bowler's page and the lane's disagree on. took records it,
		// and gives the league its scores.
		l.recordGame()
		l.reportUnreported()
	}
	for _, p := range l.seats.pending {
		_, attached := l.conns.attached[p.c]
		if name, ok := l.state.Holder(p.token); ok && name == p.name && attached && p.c.seat == "" && l.seats.holders[name] == nil {
			l.seat(p.c, name, p.ref, p.welcome, p.bowler, false) // its join was stored after all
		} else {
			l.overflow(p.c) // a join let past a lane full of watchers, not seated after all
		}
	}
	l.seats.pending = l.seats.pending[:0]
	return nil
}
