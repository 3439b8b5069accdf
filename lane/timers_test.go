package lane

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tenpin/tenpin/protocol"
)

// The lane's timers, in a synctest bubble: time is fake and moves only
// when every goroutine of the test waits, so that a timer's deadline is
// tested to the nanosecond, and synctest.Wait says when the lane
// goroutine has done what that time made it do. Lanes are made inside
// the bubble (their timers and channels belong to it) and run on their
// own goroutine, as on a server; clients are memConns.

// runLane runs l until the returned function is called, which stops it
// and waits for Run to return: a bubble ends only once its goroutines
// have.
func runLane(l *Lane) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	return func() error {
		cancel()
		return <-done
	}
}

// attachRunning attaches a memConn client to a running lane.
func attachRunning(t *testing.T, l *Lane) *Client {
	t.Helper()
	s, ok := l.Attach(t.Context(), new(memConn))
	if !ok {
		t.Fatalf("lane %s stopped before a client attached", l.ID())
	}
	return s.(*local).Client
}

// sendRunning hands a running lane a message from c, and waits until the
// lane has handled it.
func sendRunning(t *testing.T, c *Client, msg string) {
	t.Helper()
	if !c.Read(t.Context(), []byte(msg)) {
		t.Fatalf("the lane stopped before it read %s", msg)
	}
	synctest.Wait()
}

// boards returns the boards queued for c since the last look, and
// empties its outbox.
func boards(t *testing.T, c *Client) []protocol.Board {
	t.Helper()
	var out []protocol.Board
	for _, m := range c.take(nil) {
		if !m.board {
			continue
		}
		var b protocol.Board
		if err := json.Unmarshal(m.data, &b); err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestIdleLaneCloses: a lane nobody is on closes once its idle timeout
// has passed since the last client left, to the nanosecond, and tells the
// connections still waiting to get in why, with its own notice: lane_idle,
// not the refusal lane_closed.
func TestIdleLaneCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const idle = 5 * time.Minute
		l := New("idle", "idle", Config{MaxSpectators: 1, IdleTimeout: idle, ResumeGrace: time.Hour})
		done := make(chan error, 1)
		go func() { done <- l.Run(context.Background()) }()
		watcher := attachRunning(t, l)
		waiting := attachRunning(t, l) // the lane has its one watcher: this one waits to resume a seat
		synctest.Wait()
		watcher.Detach()
		synctest.Wait()
		time.Sleep(idle - time.Nanosecond)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("the lane closed (%v) before its idle timeout", err)
		default:
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		select {
		case err := <-done:
			if !errors.Is(err, ErrIdle) {
				t.Fatalf("Run = %v, want ErrIdle", err)
			}
		default:
			t.Fatal("the lane is still open after its idle timeout")
		}
		if r := replies(waiting); len(r) != 1 || r[0]["code"] != "lane_idle" {
			t.Errorf("the waiting connection was told %v, want the lane_idle notice", r)
		}
		if status, closed := waiting.dropStatus(); !closed || status != protocol.CodeLaneIdle {
			t.Errorf("the waiting connection: closed %v with %v, want %s", closed, status, protocol.CodeLaneIdle)
		}
	})
}

// TestResumeGraceTurnsAway: a connection that arrives while the lane has
// all its watchers waits ResumeGrace to resume a seat, then is turned
// away with spectators_full and close 1013.
func TestResumeGraceTurnsAway(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const grace = 5 * time.Second
		l := New("grace", "grace", Config{MaxSpectators: 1, ResumeGrace: grace})
		defer runLane(l)()
		attachRunning(t, l)
		waiting := attachRunning(t, l)
		synctest.Wait()
		if b := boards(t, waiting); len(b) != 0 {
			t.Fatalf("a waiting connection was sent %d boards, want none", len(b))
		}
		time.Sleep(grace - time.Nanosecond)
		synctest.Wait()
		if _, closed := waiting.dropStatus(); closed {
			t.Fatal("a waiting connection was turned away before its grace was over")
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if status, closed := waiting.dropStatus(); !closed || status != protocol.CodeSpectatorsFull {
			t.Fatalf("after its grace a waiting connection is closed %v with %v, want spectators_full", closed, status)
		}
		if r := replies(waiting); len(r) != 1 || r[0]["code"] != "spectators_full" {
			t.Errorf("the connection turned away was told %v, want spectators_full", r)
		}
	})
}

// TestAwayPlayerMayBeSkipped: while the player up is offline the board
// counts the seconds until they may be skipped, and the lane shows the
// board again, saying they may, once AwayAfter has passed: not before,
// when skipping them is refused.
func TestAwayPlayerMayBeSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const away = 30 * time.Second
		l := New("skip", "skip", Config{AwayAfter: away})
		defer runLane(l)()
		a, b := attachRunning(t, l), attachRunning(t, l)
		sendRunning(t, a, `{"type":"join","name":"AAA"}`)
		sendRunning(t, b, `{"type":"join","name":"BBB"}`)
		sendRunning(t, a, `{"type":"start"}`)
		if up := currentBoard(t, l).Up; up == nil || up.SkipIn != nil {
			t.Fatalf("with AAA up and connected, up = %+v; want no skip_in", up)
		}
		a.Detach()
		time.Sleep(presenceEvery) // the presence change shows
		synctest.Wait()
		if up := currentBoard(t, l).Up; up == nil || up.SkipIn == nil || *up.SkipIn != 30 {
			t.Fatalf("with AAA up and just gone, up = %+v; want skip_in 30 (s)", up)
		}
		boards(t, b)
		time.Sleep(away - presenceEvery - time.Nanosecond)
		synctest.Wait()
		if got := boards(t, b); len(got) != 0 {
			t.Fatalf("before AAA may be skipped BBB was sent %d boards, want none", len(got))
		}
		sendRunning(t, b, `{"type":"skip","id":"early"}`)
		if r := replies(b); len(r) != 1 || r[0]["code"] != "not_away" {
			t.Fatalf("a skip a nanosecond early was answered %v, want not_away", r)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		got := boards(t, b)
		if len(got) != 1 || got[0].Up == nil || got[0].Up.SkipIn == nil || *got[0].Up.SkipIn != 0 {
			t.Fatalf("once AAA may be skipped BBB was sent %+v, want one board with skip_in 0", got)
		}
		sendRunning(t, b, `{"type":"skip","id":"skip"}`)
		if r := replies(b); len(r) != 1 || r[0]["type"] != "ack" {
			t.Fatalf("the skip was answered %v, want an ack", r)
		}
	})
}

// TestPresenceIsShownAtMostEveryInterval: connections coming and going
// show on the other clients' boards at once if no board went out for
// presenceEvery, else together, when the interval is over.
func TestPresenceIsShownAtMostEveryInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New("presence", "presence", Config{})
		defer runLane(l)()
		w := attachRunning(t, l)
		synctest.Wait()
		if got := boards(t, w); len(got) != 1 || got[0].Spectators != 1 {
			t.Fatalf("the first watcher was sent %+v, want one board showing it", got)
		}
		for range 5 {
			attachRunning(t, l)
		}
		synctest.Wait()
		if got := boards(t, w); len(got) != 0 {
			t.Fatalf("5 arrivals right after a board sent the first watcher %d boards, want none yet", len(got))
		}
		presenceShownAfter(t, w, presenceEvery, 6)
	})
}

// presenceShownAfter checks, in a synctest bubble, that watcher w is sent
// no board until d has passed, and then one showing watchers watchers.
func presenceShownAfter(t *testing.T, w *Client, d time.Duration, watchers int) {
	t.Helper()
	time.Sleep(d - time.Nanosecond)
	synctest.Wait()
	if got := boards(t, w); len(got) != 0 {
		t.Fatalf("before %v were over the first watcher was sent %d boards", d, len(got))
	}
	time.Sleep(time.Nanosecond)
	synctest.Wait()
	if got := boards(t, w); len(got) != 1 || got[0].Spectators != watchers {
		t.Fatalf("once %v were over the first watcher was sent %+v, want one board showing %d watchers", d, got, watchers)
	}
}

// TestAttachInTheInboxOfAStoppedLaneIsClosed: a connection whose attach
// was still in the inbox when the lane stopped is never handled by the
// lane, and is closed all the same, rather than left open to a lane
// that will never answer.
func TestAttachInTheInboxOfAStoppedLaneIsClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New("stopping", "stopping", Config{}) // not running: the attach waits in the inbox
		s, ok := l.Attach(t.Context(), new(memConn))
		if !ok {
			t.Fatal("a lane that has not stopped refused an attach")
		}
		c := s.(*local).Client
		l.stop() // as Run does when it returns
		synctest.Wait()
		if status, closed := c.dropStatus(); !closed || status != protocol.CodeLaneClosed {
			t.Errorf("the attached connection of a stopped lane: closed %v with %v, want %s", closed, status, protocol.CodeLaneClosed)
		}
	})
}

// TestPresenceWaitsLongerOnACrowdedLane: on a lane with many watchers, a
// presence board goes to every one of them, so presence alone shows less
// often: every presenceEvery for each presenceClients clients, up to
// presenceMost.
func TestPresenceWaitsLongerOnACrowdedLane(t *testing.T) {
	for _, tt := range []struct {
		clients int
		want    time.Duration
	}{
		{1, presenceEvery},
		{199, presenceEvery},
		{300, 3 * presenceEvery},
		{100_000, presenceMost},
	} {
		if got := presenceInterval(tt.clients); got != tt.want {
			t.Errorf("%d clients: presence every %v, want %v", tt.clients, got, tt.want)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		l := New("crowded", "crowded", Config{MaxSpectators: 1000})
		defer runLane(l)()
		w := attachRunning(t, l)
		for range 299 {
			attachRunning(t, l)
		}
		time.Sleep(presenceMost) // every arrival shown
		synctest.Wait()
		boards(t, w)
		attachRunning(t, l) // the 301st: shown at once, no board went out for long
		synctest.Wait()
		if got := boards(t, w); len(got) != 1 || got[0].Spectators != 301 {
			t.Fatalf("an arrival long after the last board sent the first watcher %+v, want one board showing 301 watchers", got)
		}
		attachRunning(t, l)
		presenceShownAfter(t, w, 3*presenceEvery, 302) // 300 watchers' interval
	})
}

// TestLetInIsSentTheBoardBeforeItsWelcome: a connection that waited on a
// lane full of watchers and resumes its seat was sent nothing while it
// waited; its coming back may be shown only later (the presence timer),
// so it is sent the board before its welcome, as a newcomer is. A relay
// shows its connection nothing but what the lane sends it alone until
// that first board (lane/relay).
func TestLetInIsSentTheBoardBeforeItsWelcome(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New("let in", "let in", Config{MaxSpectators: 1, ResumeGrace: time.Hour})
		defer runLane(l)()
		player := attachRunning(t, l)
		sendRunning(t, player, `{"type":"join","name":"AAA","id":"j"}`)
		var token string
		for _, r := range replies(player) {
			if r["type"] == "welcome" {
				token, _ = r["token"].(string)
			}
		}
		player.Detach()
		attachRunning(t, l) // the one watcher the lane has room for
		synctest.Wait()
		back := attachRunning(t, l) // waits
		synctest.Wait()
		sendRunning(t, back, `{"type":"resume","token":"`+token+`","id":"r"}`)
		got := back.take(nil)
		if len(got) < 2 || !got[0].board || got[1].board || !strings.Contains(string(got[1].data), `"welcome"`) {
			t.Fatalf("the connection let in was sent %v; want the board, then its welcome", got)
		}
	})
}

// TestAwayTimeGoesOnThroughBriefReturns: a player up who drops their
// seat, resumes it and drops it again, bowling nothing, may be skipped
// once the away time has passed since they first went, not since they
// last did; one back for longer than the away time who goes again is
// given the whole away time anew, as is one who bowled meanwhile.
func TestAwayTimeGoesOnThroughBriefReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const away = 30 * time.Second
		l := New("flicker", "flicker", Config{AwayAfter: away})
		defer runLane(l)()
		a, b := attachRunning(t, l), attachRunning(t, l)
		sendRunning(t, a, `{"type":"join","name":"AAA","id":"j"}`)
		sendRunning(t, b, `{"type":"join","name":"BBB"}`)
		sendRunning(t, a, `{"type":"start"}`)
		var token string
		for _, r := range replies(a) {
			if r["type"] == "welcome" {
				token, _ = r["token"].(string)
			}
		}
		// back flickers AAA's seat: resumed on a new connection, which
		// stays for d, then drops.
		back := func(d time.Duration) {
			t.Helper()
			c := attachRunning(t, l)
			sendRunning(t, c, `{"type":"resume","token":"`+token+`"}`)
			time.Sleep(d)
			c.Detach()
			synctest.Wait()
		}
		skip := func(id, want string) {
			t.Helper()
			replies(b)
			sendRunning(t, b, `{"type":"skip","id":"`+id+`"}`)
			r := replies(b)
			if len(r) != 1 || (want == "ack" && r[0]["type"] != "ack") || (want != "ack" && r[0]["code"] != want) {
				t.Fatalf("skip %s was answered %v, want %s", id, r, want)
			}
		}

		a.Detach()
		synctest.Wait()
		for range 100 { // 20 s of a phone resuming and dropping every 0.2 s
			time.Sleep(100 * time.Millisecond)
			back(100 * time.Millisecond)
		}
		time.Sleep(away - 20*time.Second - time.Nanosecond)
		synctest.Wait()
		skip("early", "not_away")
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		skip("due", "ack") // 30 s after AAA first went

		// BBB bowls their frame; AAA, skipped, is up again only after it:
		// back for longer than the away time, AAA goes again, and is
		// given the whole away time anew.
		sendRunning(t, b, `{"type":"roll","frame":1,"ball":1,"pins":10}`)
		back(away + time.Second)
		time.Sleep(away - time.Second)
		synctest.Wait()
		if up := currentBoard(t, l).Up; up == nil || up.Seat != 0 {
			t.Fatalf("up = %+v, want AAA, back and gone again", up)
		}
		skip("fresh", "not_away")
	})
}
