package lane

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
)

// faulty is a real in-memory journal whose next append fails: before
// storing (the store refused it), or after (the answer was lost); and
// whose reads fail while readFails is set (atomic: a running lane's
// goroutine reads it).
type faulty struct {
	*memjournal.Journal
	fail, lose bool
	onClaim    func() // called as a claim is appended
	readFails  atomic.Bool
	readsStale bool // reads find nothing new, as a stream leader paused with the lane's server answers
	reads      int
}

func (f *faulty) Read(ctx context.Context, id string, after uint64) (game.Log, error) {
	f.reads++
	if f.readFails.Load() {
		return game.Log{}, errFault
	}
	if f.readsStale {
		return game.Log{Lane: id, Last: after}, nil
	}
	return f.Journal.Read(ctx, id, after)
}

var errFault = errors.New("store down")

func (f *faulty) Append(ctx context.Context, id string, last uint64, e game.Event) (uint64, error) {
	if e.Kind == game.Claimed && f.onClaim != nil {
		f.onClaim()
	}
	if f.fail {
		f.fail = false
		return 0, errFault
	}
	pos, err := f.Journal.Append(ctx, id, last, e)
	if f.lose {
		f.lose = false
		return 0, errFault
	}
	return pos, err
}

// seatedLane opens a lane on j with AAA seated and the game started.
func seatedLane(t *testing.T, j game.Journal) (*Lane, *Client) {
	t.Helper()
	l := openLane(t, "j1", Config{Journal: j})
	a := attach(l)
	l.send(a, `{"type":"join","name":"AAA"}`)
	l.send(a, `{"type":"start"}`)
	replies(a)
	return l, a
}

func TestAppendFailureChangesNothing(t *testing.T) {
	j := &faulty{Journal: memjournal.New()}
	l, a := seatedLane(t, j)
	board := string(l.BoardJSON())
	j.fail = true
	l.send(a, l.roll(7, `,"id":"r1"`))
	if r := replies(a); len(r) != 1 || r[0]["code"] != "unavailable" || r[0]["ref"] != "r1" {
		t.Fatalf("a roll the store refused was answered %v, want unavailable", r)
	}
	if string(l.BoardJSON()) != board {
		t.Fatal("a roll the store refused changed the board")
	}
	l.send(a, l.roll(7, `,"id":"r2"`))
	if r := replies(a); len(r) != 1 || r[0]["type"] != "ack" {
		t.Fatalf("the roll tried again was answered %v, want an ack", r)
	}
	if b := currentBoard(t, l); len(b.Players[0].Frames) != 1 || b.Players[0].Frames[0].Marks != "7" {
		t.Fatalf("board after the retry = %+v, want one roll of 7", b.Players[0])
	}
	checkConsistent(t, l)
}

// TestLostAppendIsReadBack: an append that landed but whose answer was
// lost is refused to the client, and the lane reads it back before it
// decides anything else: the log is the truth. The client that sends the
// roll again has it acknowledged, as the roll that counted: it never
// counts twice.
func TestLostAppendIsReadBack(t *testing.T) {
	j := &faulty{Journal: memjournal.New()}
	l, a := seatedLane(t, j)
	again := l.roll(7, `,"id":"r2"`)
	j.lose = true
	l.send(a, l.roll(7, `,"id":"r1"`))
	if r := replies(a); len(r) != 1 || r[0]["code"] != "unavailable" {
		t.Fatalf("a roll whose answer was lost was answered %v, want unavailable", r)
	}
	l.send(a, again)
	if r := replies(a); len(r) != 1 || r[0]["type"] != "ack" || r[0]["ref"] != "r2" {
		t.Fatalf("the same roll sent again was answered %v, want its ack", r)
	}
	if b := currentBoard(t, l); len(b.Players[0].Frames) != 1 || b.Players[0].Frames[0].Marks != "7" {
		t.Fatalf("board = %+v, want the stored 7", b.Players[0])
	}
	l.send(a, l.roll(2, `,"id":"r3"`))
	if r := replies(a); len(r) != 1 || r[0]["type"] != "ack" {
		t.Fatalf("the next ball was answered %v, want an ack", r)
	}
	if b := currentBoard(t, l); b.Players[0].Frames[0].Marks != "7|2" {
		t.Fatalf("board = %+v, want 7|2", b.Players[0])
	}
	checkConsistent(t, l)
}

// TestLostJoinIsSeatedOnReadBack: a join whose seat was stored but whose
// answer was lost is refused, and the connection gets its seat and token
// as soon as the lane reads its log back, so that no seat is left that
// nobody holds the token of.
func TestLostJoinIsSeatedOnReadBack(t *testing.T) {
	j := &faulty{Journal: memjournal.New()}
	l := openLane(t, "j2", Config{Journal: j})
	a, b := attach(l), attach(l)
	j.lose = true
	l.send(a, `{"type":"join","name":"AAA","id":"j"}`)
	if r := replies(a); len(r) != 1 || r[0]["code"] != "unavailable" {
		t.Fatalf("a join whose answer was lost was answered %v, want unavailable", r)
	}
	l.send(b, `{"type":"join","name":"BBB","id":"k"}`) // the lane reads its log back first
	r := replies(a)
	if len(r) != 1 || r[0]["type"] != "welcome" || r[0]["name"] != "AAA" || r[0]["ref"] != "j" || r[0]["token"] == "" {
		t.Fatalf("after the read-back AAA's connection got %v, want its welcome", r)
	}
	if name, ok := l.state.Holder(game.HashToken(r[0]["token"].(string))); !ok || name != "AAA" {
		t.Errorf("the welcome's token resumes %q, %v", name, ok)
	}
	l.send(a, `{"type":"start","id":"s"}`) // AAA is the host and holds the seat
	if r := replies(a); len(r) != 1 || r[0]["type"] != "ack" {
		t.Errorf("AAA's start answered %v", r)
	}
}

// TestStoreDownIsNotAskedAtEveryMessage: while reading the log back fails,
// the lane refuses commands at once for a pause instead of making every
// message wait for the store; after the pause it asks again.
func TestStoreDownIsNotAskedAtEveryMessage(t *testing.T) {
	j := &faulty{Journal: memjournal.New()}
	l, a := seatedLane(t, j)
	j.fail = true
	j.readFails.Store(true)
	l.send(a, l.roll(7, `,"id":"r1"`)) // the append fails: the lane must read back
	for i := range 5 {
		l.send(a, l.roll(7, fmt.Sprintf(`,"id":"r%d"`, i+2)))
	}
	for _, r := range replies(a) {
		if r["code"] != "unavailable" {
			t.Fatalf("a command while the store is down answered %v, want unavailable", r)
		}
	}
	if j.reads != 1 {
		t.Errorf("the store was asked to read %d times for 5 commands in a row, want once", j.reads)
	}
	j.readFails.Store(false)
	l.tenure.retryAt = time.Time{} // the pause is over
	l.send(a, l.roll(7, `,"id":"ok"`))
	if r := replies(a); len(r) != 1 || r[0]["type"] != "ack" {
		t.Fatalf("the first command after the pause answered %v, want an ack", r)
	}
}

// TestTakenOverLaneStops: when another server restores a lane from the
// shared log (its claim fenced on the lane's last event), the lane that
// held it may not write any more: its next append is refused, it reads
// the other's claim, tells its clients to reconnect and stops, and the
// log holds only what the new owner accepted.
func TestTakenOverLaneStops(t *testing.T) {
	ctx := context.Background()
	nj := memjournal.New() // its fence is JetStream's (see journaltest)
	first, a := seatedLane(t, nj)
	first.send(a, first.roll(3, `,"id":"r1"`))
	if r := replies(a); len(r) != 1 || r[0]["type"] != "ack" {
		t.Fatalf("the first roll was answered %v", r)
	}

	log, err := nj.Read(ctx, first.ID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Restore(ctx, log, Config{Journal: nj, Node: "n2"})
	if err != nil {
		t.Fatal(err)
	}

	late := first.roll(4, `,"id":"r2"`) // decided on what the first lane still shows
	done := make(chan error, 1)
	go func() { done <- first.Run(ctx) }()
	first.submit(ctx, request{op: opRead, c: a, data: []byte(late)})
	select {
	case err := <-done:
		if !errors.Is(err, ErrMoved) {
			t.Fatalf("the lane taken over stopped with %v, want ErrMoved", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the lane taken over is still running")
	}
	r := replies(a)
	if len(r) != 2 || r[0]["code"] != "unavailable" || r[1]["code"] != "server_restarting" {
		t.Errorf("the player of the lane taken over was sent %v; want unavailable for the roll, then server_restarting", r)
	}
	if b := currentBoard(t, second); len(b.Players) != 1 || len(b.Players[0].Frames) != 1 || fmt.Sprint(b.Players[0].Frames[0].Rolls) != "[3]" {
		t.Errorf("the new owner's board = %+v; want AAA's 3 alone", b.Players)
	}
	after, err := nj.Read(ctx, first.ID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(after.Events) - len(log.Events); n != 1 {
		t.Errorf("the log grew by %d events after the takeover, want 1 (the new owner's claim)", n)
	}
}

// TestPrivateLaneStaysPrivate: a lane opened unlisted is still unlisted
// once restored from its log, and from a snapshot of it.
func TestPrivateLaneStaysPrivate(t *testing.T) {
	ctx := context.Background()
	j := memjournal.New()
	l := openLane(t, "p1", Config{Journal: j, Private: true})
	if !l.Private() {
		t.Fatal("a lane opened private is not")
	}
	l.handle(ctx, request{op: opSnapshot, result: make(chan error, 1)})
	for _, fromSnapshot := range []bool{false, true} {
		logs, err := j.Lanes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		log := logs[0]
		if fromSnapshot {
			i := slices.IndexFunc(log.Events, func(e game.Event) bool { return e.Kind == game.Snapshot })
			log.Events = log.Events[i:]
		}
		r, err := Restore(ctx, log, Config{Journal: j})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Private() {
			t.Errorf("restored (from the snapshot alone: %v), the lane is listed", fromSnapshot)
		}
	}
	if openLane(t, "p2", Config{Journal: j}).Private() {
		t.Error("a lane opened without Private is private")
	}
}

// TestTakenOverLaneWritesNothing: when it is the read-back after a lost
// append that shows another server's claim, the lane that held the lane
// writes nothing more either: not a command, not its closing.
func TestTakenOverLaneWritesNothing(t *testing.T) {
	ctx := context.Background()
	j := &faulty{Journal: memjournal.New()}
	first, a := seatedLane(t, j)
	j.lose = true // the roll is stored, its answer lost: the lane must read back
	first.send(a, first.roll(3, `,"id":"r1"`))
	replies(a)

	log, err := j.Read(ctx, first.ID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(ctx, log, Config{Journal: j, Node: "n2"}); err != nil {
		t.Fatal(err)
	}
	claimed, _ := j.Read(ctx, first.ID(), 0)

	b := attach(first)
	first.send(b, `{"type":"join","name":"BBB","id":"j"}`)
	if r := replies(b); len(r) != 1 || r[0]["code"] != "server_restarting" {
		t.Errorf("a join on the lane taken over was answered %v, want server_restarting", r)
	}
	if err := first.closeIdle(ctx); !errors.Is(err, ErrMoved) {
		t.Errorf("the lane taken over closing for idleness: %v, want ErrMoved (it lives on elsewhere)", err)
	}
	if err := first.store(ctx, first.state.Close("late")); err != errMoved {
		t.Errorf("a store by the lane taken over: %v, want it refused", err)
	}
	after, _ := j.Read(ctx, first.ID(), 0)
	if len(after.Events) != len(claimed.Events) {
		t.Errorf("the lane taken over wrote %d events after the other's claim: %+v", len(after.Events)-len(claimed.Events), after.Events[len(claimed.Events):])
	}
}

// TestWokenLaneShowsNoStaleBoard: a lane whose server was found paused
// (Config.Wakes counted one more) shows a newcomer no board before it has
// read its log back: another server may have taken the lane over during
// the pause, and shown the newcomer later boards, whose seq the stale one
// would take back (the nemesis test saw it). If the log holds the other's
// claim, the newcomer is sent to reconnect and the lane stops; if the log
// cannot be read, the newcomer is sent to reconnect and the lane waits.
func TestWokenLaneShowsNoStaleBoard(t *testing.T) {
	for _, tt := range []struct {
		name      string
		readFails bool
		code      string
		moved     bool
	}{
		{name: "taken over", code: "server_restarting", moved: true},
		{name: "the log unreadable", readFails: true, code: "unavailable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			j := &faulty{Journal: memjournal.New()}
			var wakes uint64
			l := openLane(t, "j1", Config{Journal: j, Wakes: func() uint64 { return wakes }})
			a := attach(l)
			l.send(a, `{"type":"join","name":"AAA"}`)
			l.send(a, `{"type":"start"}`)
			l.send(a, l.roll(3, ""))
			replies(a)

			if tt.moved {
				log, err := j.Read(ctx, l.ID(), 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := Restore(ctx, log, Config{Journal: j, Node: "n2"}); err != nil {
					t.Fatal(err)
				}
			}
			wakes++ // the server wakes from a pause (in which n2 took the lane)
			j.readFails.Store(tt.readFails)

			b := attach(l)
			var got []string
			for _, m := range b.take(nil) {
				if m.board {
					t.Errorf("the woken lane sent a newcomer its board: %s", m.data)
					continue
				}
				got = append(got, string(m.data))
			}
			if len(got) != 1 || !strings.Contains(got[0], `"code":"`+tt.code+`"`) {
				t.Errorf("the newcomer was sent %q, want one %s notice", got, tt.code)
			}
			if status, closed := b.dropStatus(); !closed || status != protocol.Code(tt.code) {
				t.Errorf("the newcomer's connection: closed %v with %v, want %s", closed, status, tt.code)
			}
			if l.tenure.moved() != tt.moved {
				t.Errorf("the lane moved: %v, want %v", l.tenure.moved(), tt.moved)
			}

			// Nor does the lane show its clients a change (here the
			// presence timer's) before it has read its log back. Once it
			// can (and nobody took the lane), a newcomer is shown the
			// board at once, as before, and the clients the board held
			// back.
			if !tt.moved {
				if board, seq := l.Board(); board != nil || seq != 0 {
					t.Errorf("the woken lane's Board (a relay's alive) = seq %d, want nothing before it reads its log back", seq)
				}
				a.take(nil)
				l.changed()
				if ms := a.take(nil); len(ms) != 0 {
					t.Errorf("the woken lane showed its client a change before reading its log back: %d messages", len(ms))
				}
				j.readFails.Store(false)
				l.tenure.retryAt = time.Time{} // the pause after a failed read is over
				c := attach(l)
				if ms := c.take(nil); len(ms) != 1 || !ms[0].board {
					t.Errorf("a newcomer once the log reads again was sent %d messages, want its board", len(ms))
				}
				if ms := a.take(nil); len(ms) != 1 || !ms[0].board {
					t.Errorf("the lane's client once the log reads again was sent %d messages, want the board held back", len(ms))
				}
				if board, _ := l.Board(); board == nil {
					t.Error("the lane's Board once the log reads again is nothing")
				}
			}
		})
	}
}

// TestWokenLaneTrustsNoStaleRead: a lane whose server was found paused
// takes its lane up again with a fenced claim before it decides anything,
// rather than trust a read of its log: the stream's leader may have been
// paused with it and answer from before the pause (the cluster test saw
// such a lane refuse a ball as stale_roll, ahead of a game that had moved
// on through another server). While the read is stale and the claim is
// refused, the lane refuses with unavailable, stores nothing and shows no
// board; once the read shows the other server's claim, the lane stops. If
// nobody took the lane, the claim lands, the ball is taken, and the board
// and its ack go on in the new epoch.
func TestWokenLaneTrustsNoStaleRead(t *testing.T) {
	for _, takenOver := range []bool{true, false} {
		t.Run(fmt.Sprintf("taken over %v", takenOver), func(t *testing.T) {
			ctx := context.Background()
			j := &faulty{Journal: memjournal.New()}
			var wakes uint64
			l := openLane(t, "j1", Config{Journal: j, Node: "n3", Wakes: func() uint64 { return wakes }})
			a := attach(l)
			l.send(a, `{"type":"join","name":"AAA","id":"j"}`)
			token := replies(a)[0]["token"].(string)
			l.send(a, `{"type":"start"}`)
			l.send(a, l.roll(5, ""))
			a.take(nil)
			before := l.boardSeq()

			if takenOver { // n1 takes the lane over in the pause, and AAA's second ball is rolled there
				log, err := j.Read(ctx, l.ID(), 0)
				if err != nil {
					t.Fatal(err)
				}
				l2, err := Restore(ctx, log, Config{Journal: j, Node: "n1"})
				if err != nil {
					t.Fatal(err)
				}
				b := attach(l2)
				l2.send(b, fmt.Sprintf(`{"type":"resume","token":%q}`, token))
				l2.send(b, l2.roll(4, `,"id":"r"`))
				if r := replies(b); len(r) != 2 || r[1]["type"] != "ack" {
					t.Fatalf("n1's lane answered %v, want a welcome and an ack", r)
				}
			}
			stored, _ := j.Read(ctx, l.ID(), 0)
			wakes++ // the server wakes from the pause
			j.readsStale = true

			// AAA's roll as the game stands: frame 2 if n1 took the lane.
			roll := `{"type":"roll","pins":4,"frame":1,"ball":2,"id":"x"}`
			if takenOver {
				roll = `{"type":"roll","pins":3,"frame":2,"ball":1,"id":"x"}`
			}
			l.send(a, roll)
			ms := a.take(nil)
			if !takenOver {
				// The new epoch's first board, then the ball's and its ack.
				if len(ms) != 3 || !ms[0].board || !ms[1].board || !strings.Contains(string(ms[2].data), `"type":"ack"`) {
					t.Fatalf("the woken lane nobody took answered %q, want two boards and the ack", ms)
				}
				var b struct{ Seq uint64 }
				json.Unmarshal(ms[1].data, &b)
				if b.Seq != (before>>32+1)<<32|2 || !strings.Contains(string(ms[2].data), fmt.Sprintf(`"seq":%d`, b.Seq)) {
					t.Errorf("the ball's board seq %d and ack %s after seq %d; want the next epoch's second board, in both", b.Seq, ms[2].data, before)
				}
				log, _ := j.Journal.Read(ctx, l.ID(), 0)
				if got := log.Events[len(stored.Events)]; got.Kind != game.Claimed || got.Node != "n3" {
					t.Errorf("the event after the pause is %+v, want n3's claim", got)
				}
				return
			}
			if len(ms) != 1 || ms[0].board || !strings.Contains(string(ms[0].data), `"code":"unavailable"`) {
				t.Errorf("the woken lane, its reads stale, answered %q; want unavailable alone", ms)
			}
			if log, _ := j.Journal.Read(ctx, l.ID(), 0); len(log.Events) != len(stored.Events) {
				t.Errorf("the woken lane stored %+v after n1's events", log.Events[len(stored.Events):])
			}

			j.readsStale = false // the paused leader learns of the new one
			l.tenure.retryAt = time.Time{}
			l.send(a, roll)
			if r := replies(a); len(r) != 1 || r[0]["code"] != "server_restarting" || !l.tenure.moved() {
				t.Errorf("once its reads are current, the woken lane answered %v, moved %v; want server_restarting, moved", r, l.tenure.moved())
			}
		})
	}
}

// TestWokenLaneFindsOnItsOwnThatItMoved: a lane woken from a pause whose
// log cannot be read tries again on its own, message or no message: its
// clients may all have gone to other nodes, and one of those may have
// taken the lane over. Once the read shows the other's claim, the lane
// stops. Without the retry it would wait, holding the lane, for a message
// that does not come.
func TestWokenLaneFindsOnItsOwnThatItMoved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		j := &faulty{Journal: memjournal.New()}
		var wakes atomic.Uint64
		l := openLane(t, "j1", Config{Journal: j, Node: "n1", Wakes: wakes.Load})
		ran := make(chan error, 1)
		go func() { ran <- l.Run(ctx) }()

		// In the pause n2 takes the lane over; when n1 wakes, the store
		// cannot be read for a moment.
		log, err := j.Read(ctx, l.ID(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Restore(ctx, log, Config{Journal: j, Node: "n2"}); err != nil {
			t.Fatal(err)
		}
		j.readFails.Store(true)
		wakes.Add(1)
		l.Wake(ctx)
		synctest.Wait()
		select {
		case err := <-ran:
			t.Fatalf("the lane stopped (%v) before it could read its log", err)
		default:
		}

		j.readFails.Store(false)
		time.Sleep(2 * storeRetryPause)
		synctest.Wait()
		select {
		case err := <-ran:
			if !errors.Is(err, ErrMoved) {
				t.Errorf("the lane stopped with %v, want ErrMoved", err)
			}
		default:
			t.Error("the woken lane, with no message to make it read its log, never found that n2 took it over")
		}
	})
}

// TestWokenLaneClaimsOnce: the claim of a woken lane (see claim) whose
// answer is lost, though it landed, is the lane's own when the lane reads
// it back: the lane takes the lane up, and does not stop as if another
// server had claimed it. And a claim during which the server is found
// paused again still shows its board at once: every ack a client gets
// names a board it was sent, under the seq the board itself says.
func TestWokenLaneClaimsOnce(t *testing.T) {
	for _, tt := range []struct {
		name      string
		lose      bool // the claim's answer is lost
		wakeAgain bool // a second pause is found while the claim is on its way
	}{
		{name: "answer lost", lose: true},
		{name: "woken again", wakeAgain: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := &faulty{Journal: memjournal.New()}
			var wakes uint64
			l := openLane(t, "j1", Config{Journal: j, Node: "n1", Wakes: func() uint64 { return wakes }})
			a := attach(l)
			l.send(a, `{"type":"join","name":"AAA"}`)
			l.send(a, `{"type":"start"}`)
			var sent []outgoing
			sent = a.take(sent)

			wakes++
			if tt.wakeAgain {
				j.onClaim = func() { wakes++; j.onClaim = nil }
			}
			j.lose = tt.lose
			for try := range 3 {
				l.tenure.retryAt = time.Time{} // the pause after a failed read is over
				l.send(a, l.roll(4, fmt.Sprintf(`,"id":"r%d"`, try)))
			}
			sent = a.take(sent)
			if l.tenure.moved() {
				t.Fatal("the lane took its own claim for another server's, and stopped")
			}
			var boards []uint64
			var shown string // the last board but for its seq
			rolled := false
			for _, m := range sent {
				var v struct {
					Type, Ref string
					Seq       uint64
				}
				json.Unmarshal(m.data, &v)
				switch {
				case m.board:
					if v.Seq != m.seq {
						t.Errorf("a board says seq %d, and was sent as %d", v.Seq, m.seq)
					}
					// A new epoch's first board may show what the last did;
					// any other is a change.
					b := strings.Replace(string(m.data), fmt.Sprintf(`"seq":%d`, v.Seq), "", 1)
					if len(boards) > 0 && v.Seq>>32 == boards[len(boards)-1]>>32 && b == shown {
						t.Errorf("board seq %d shows what the board before it did", v.Seq)
					}
					shown = b
					if len(boards) > 0 && v.Seq <= boards[len(boards)-1] {
						t.Errorf("board seq %d after %d", v.Seq, boards[len(boards)-1])
					}
					boards = append(boards, v.Seq)
				case v.Type == "ack":
					rolled = true
					if !slices.Contains(boards, v.Seq) {
						t.Errorf("ack %s names seq %d; the boards sent were %v", v.Ref, v.Seq, boards)
					}
					fallthrough
				default:
					if !slices.Contains(boards, m.seq) {
						t.Errorf("%s follows the board of seq %d; the boards sent were %v", m.data, m.seq, boards)
					}
				}
			}
			if !rolled {
				t.Errorf("no roll was acked: %q", sent)
			}
			if !tt.lose {
				for _, m := range sent {
					if bytes.Contains(m.data, []byte(`"type":"error"`)) {
						t.Errorf("a roll was refused: %s", m.data)
					}
				}
			}
			if b := currentBoard(t, l); b.Seq>>32 == 0 {
				t.Errorf("the lane's board after the pause is of epoch 0, want a new one: seq %d", b.Seq)
			}
		})
	}
}

// wakingJournal is a journal whose server is found paused while a roll
// is being stored: the lane is woken between its decision and its board.
type wakingJournal struct {
	*memjournal.Journal
	wakes      atomic.Uint64
	wakeOnRoll atomic.Bool
}

func (w *wakingJournal) Append(ctx context.Context, id string, after uint64, e game.Event) (uint64, error) {
	pos, err := w.Journal.Append(ctx, id, after, e)
	if e.Kind == game.Rolled && w.wakeOnRoll.CompareAndSwap(true, false) {
		w.wakes.Add(1)
	}
	return pos, err
}

// TestWokenLaneAcksWithItsBoard: a roll stored as the lane's server is
// found paused is acknowledged with the seq of the first board that shows
// it, once the lane has taken itself up again: never with the board
// before it, which is all the lane may show until then.
func TestWokenLaneAcksWithItsBoard(t *testing.T) {
	j := &wakingJournal{Journal: memjournal.New()}
	l := openLane(t, "j1", Config{Journal: j, Node: "n1", Wakes: j.wakes.Load})
	a := attach(l)
	l.send(a, `{"type":"join","name":"AAA"}`)
	l.send(a, `{"type":"start"}`)
	a.take(nil)
	j.wakeOnRoll.Store(true)
	l.send(a, l.roll(3, `,"id":"r"`))
	l.send(a, l.roll(4, `,"id":"r2"`)) // the next message: the lane reads its log back, and claims it again
	boards := make(map[uint64]protocol.Board)
	acks := make(map[string]uint64)
	for _, m := range a.take(nil) {
		if m.board {
			var b protocol.Board
			if err := json.Unmarshal(m.data, &b); err != nil {
				t.Fatal(err)
			}
			boards[b.Seq] = b
			continue
		}
		var r map[string]any
		json.Unmarshal(m.data, &r)
		if r["type"] == "ack" {
			acks[r["ref"].(string)] = uint64(r["seq"].(float64))
		}
	}
	for ref, rolls := range map[string]int{"r": 1, "r2": 2} {
		seq, ok := acks[ref]
		if !ok {
			t.Errorf("no ack of %s", ref)
			continue
		}
		b, ok := boards[seq]
		if !ok {
			t.Errorf("the ack of %s names seq %d, a board it was not sent (boards %v)", ref, seq, slices.Collect(maps.Keys(boards)))
			continue
		}
		if got := len(b.Players[0].Frames[0].Rolls); got != rolls {
			t.Errorf("the ack of %s names board %d, with %d rolls: want the first board with its roll (%d)", ref, seq, got, rolls)
		}
	}
}
