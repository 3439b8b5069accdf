package lobby_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
)

// fullOfWatchers makes a lane whose two spectator places are taken, with
// AAA seated and connected (its host) and BBB seated but gone, and
// returns its id, AAA's connection and BBB's token.
func fullOfWatchers(t *testing.T, s *testServer) (id string, host *client, token string) {
	t.Helper()
	id = s.createLane(t, "full of watchers")
	host = s.dial(t, id)
	host.join(t, "AAA")
	b := s.dial(t, id)
	token = b.join(t, "BBB").Token
	b.ws.Close(websocket.StatusNormalClosure, "")
	b.closedWith(t)
	host.boardWith(t, "BBB gone", func(m msg) bool { return len(m.Players) == 2 && !m.Players[1].Connected })
	for range 2 {
		s.dial(t, id).drain()
	}
	host.boardWith(t, "two watchers", func(m msg) bool { return m.Spectators == 2 })
	return id, host, token
}

// turnedAway checks that c is closed with 1013 (try again later), after
// the spectators_full error its caller has waited for, without ever being
// sent a board.
func turnedAway(t *testing.T, who string, c *client) {
	t.Helper()
	if got := c.closedWith(t); got != websocket.StatusTryAgainLater {
		t.Errorf("%s closed with %v (%v), want %v", who, got, c.readErr(), websocket.StatusTryAgainLater)
	}
	if n := len(c.seqList()); n != 0 {
		t.Errorf("%s was sent %d boards before it was turned away", who, n)
	}
}

func isSpectatorsFull(m msg) bool { return m.Type == "error" && m.Code == "spectators_full" }

// TestJoinAndLeaveOnALaneFullOfWatchers: a seat had past a lane full of
// watchers, given up, leaves no watcher past the limit: the connection
// that left is turned away, however many times it is tried.
func TestJoinAndLeaveOnALaneFullOfWatchers(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{MaxSpectators: 2, ResumeGrace: time.Second}})
	id, host, _ := fullOfWatchers(t, s)
	for i := range 3 {
		c := s.dial(t, id)
		c.send(t, `{"type":"join","name":"XAA","id":"j"}`)
		c.expectAck(t, "j")
		c.send(t, `{"type":"leave","id":"l"}`)
		c.expectAck(t, "l")
		c.waitFor(t, "spectators_full", isSpectatorsFull)
		if got := c.closedWith(t); got != websocket.StatusTryAgainLater {
			t.Fatalf("round %d: the connection that left closed with %v, want %v", i+1, got, websocket.StatusTryAgainLater)
		}
	}
	// Presence shows a little later than it changes: wait for the board
	// after the last turning away.
	since := s.boardSeq(t, id).Seq
	host.boardWith(t, "the lane's two watchers", func(m msg) bool { return m.Seq >= since && m.Spectators == 2 })
	host.send(t, `{"type":"start","id":"s"}`)
	host.expectAck(t, "s")
}

// A seated player who comes back to a lane full of watchers (idle
// connections can fill it: its id is public) gets the seat back, and a
// friend who joins gets a seat: a resume or a join never counts against
// the spectators. Everyone else is still turned away.
func TestResumeOnALaneFullOfWatchers(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{MaxSpectators: 2, ResumeGrace: time.Second}})
	id, host, token := fullOfWatchers(t, s)

	back := s.dial(t, id)
	back.send(t, map[string]any{"type": "resume", "token": token, "id": "r"})
	if w := back.expectAck(t, "r"); w.Type != "welcome" || w.Name != "BBB" {
		t.Fatalf("resume on a lane full of watchers answered %s, want BBB's welcome", w.raw)
	}
	host.boardWith(t, "BBB back, two watchers still", func(m msg) bool {
		return len(m.Players) == 2 && m.Players[1].Connected && m.Spectators == 2
	})
	// BBB plays on: the host starts, and BBB's turn comes.
	host.send(t, `{"type":"start","id":"s"}`)
	host.expectAck(t, "s")
	stillPlays(t, host, 9, 1, "a1")
	stillPlays(t, host, 0, 2, "a2")
	back.boardWith(t, "BBB up", func(m msg) bool { return m.Up != nil && m.Up.Seat == 1 })
	stillPlays(t, back, 5, 1, "b1")

	// A friend who joins a lane full of watchers takes a seat: seats have
	// their own count. A join the lane refuses has no room to watch.
	joiner := s.dial(t, id)
	joiner.send(t, `{"type":"join","name":"CCC","id":"j"}`)
	if w := joiner.expectAck(t, "j"); w.Type != "welcome" || w.Name != "CCC" {
		t.Fatalf("a join on a lane full of watchers answered %s, want CCC's welcome", w.raw)
	}
	taken := s.dial(t, id)
	taken.send(t, `{"type":"join","name":"ccc","id":"t"}`)
	taken.expectError(t, "t", "name_taken")
	taken.waitFor(t, "spectators_full", isSpectatorsFull)
	turnedAway(t, "a join refused", taken)

	// A watcher beyond the limit is turned away: at once if it sends
	// anything but resume or join, after the grace if it sends nothing,
	// and after bad_token if its token holds no seat.
	pusher := s.dial(t, id)
	pusher.send(t, `{"type":"skip","id":"k"}`)
	pusher.expectError(t, "k", "spectators_full")
	turnedAway(t, "a watcher that sends a command", pusher)

	silent := s.dial(t, id)
	if m := silent.waitFor(t, "spectators_full", isSpectatorsFull); m.Ref != "" {
		t.Errorf("a silent watcher was answered %s, with a ref", m.raw)
	}
	turnedAway(t, "a silent watcher", silent)

	forger := s.dial(t, id)
	forger.send(t, `{"type":"resume","token":"0f8fad5b-d9cb-469f-a165-70867728950e","id":"f"}`)
	forger.expectError(t, "f", "bad_token")
	forger.waitFor(t, "spectators_full", isSpectatorsFull)
	turnedAway(t, "a watcher with a bad token", forger)

	if b := s.boardSeq(t, id); b.Spectators != 2 || len(b.Players) != 3 || !b.Players[0].Connected || !b.Players[1].Connected || !b.Players[2].Connected {
		t.Errorf("after the refusals the board is %s, want three players connected and two watchers", b.raw)
	}
}

// Resuming a seat that another connection holds makes that connection a
// spectator. On a lane full of watchers there is no room for it, so it is
// turned away: a player with a token cannot add watchers past the limit by
// resuming their seat over and over.
func TestTakeoverOnALaneFullOfWatchers(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{MaxSpectators: 2, ResumeGrace: time.Second}})
	id, host, token := fullOfWatchers(t, s)

	var holder *client
	for i := range 3 {
		c := s.dial(t, id)
		ref := string(rune('a' + i))
		c.send(t, map[string]any{"type": "resume", "token": token, "id": ref})
		if w := c.expectAck(t, ref); w.Type != "welcome" {
			t.Fatalf("resume %d answered %s", i, w.raw)
		}
		if holder != nil {
			holder.waitFor(t, "seat_taken_over", func(m msg) bool { return m.Code == "seat_taken_over" })
			holder.waitFor(t, "spectators_full", isSpectatorsFull)
			if got := holder.closedWith(t); got != websocket.StatusTryAgainLater {
				t.Errorf("connection %d, taken over, closed with %v, want %v", i-1, got, websocket.StatusTryAgainLater)
			}
		}
		holder = c
	}
	host.boardWith(t, "BBB connected", func(m msg) bool { return len(m.Players) == 2 && m.Players[1].Connected })
	if b := s.boardSeq(t, id); b.Spectators != 2 {
		t.Errorf("after three takeovers the lane has %d watchers, want 2 (its limit)", b.Spectators)
	}
}

// logLines is a log writer that hands each line to a channel, for a test
// to wait on.
type logLines chan string

func (l logLines) Write(p []byte) (int, error) {
	for line := range strings.Lines(string(p)) {
		select {
		case l <- strings.TrimSpace(line):
		default: // a full channel: the test fails on what it has already
		}
	}
	return len(p), nil
}

// waitLine waits for a log line that contains want.
func (l logLines) waitLine(t *testing.T, want string) {
	t.Helper()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case line := <-l:
			if strings.Contains(line, want) {
				return
			}
		case <-timer.C:
			t.Fatalf("no log line with %q within %v", want, wait)
		}
	}
}

// Refused messages are counted, and logged at debug level only: a client
// within its rate limit must not be able to flood the log. So are
// connections opening and closing: a client connecting over and over must
// not either.
func TestRefusalsDoNotFloodTheLog(t *testing.T) {
	const flood = 300
	logs := make(logLines, 4*flood)
	s := newServer(t, lobby.Config{Logger: slog.New(slog.NewTextHandler(logs, nil))}) // info, the default
	id := s.createLane(t, "quiet")
	logs.waitLine(t, "lane created")
	c := s.dial(t, id)
	c.boardWith(t, "the first board", func(msg) bool { return true })
	refused := s.lobby.Metrics().Refused.Load()

	const round = 30 // fewer answers than a client may leave unread
	for range flood / round {
		for range round {
			c.send(t, `{"type":"dance","id":"e"}`)
		}
		for range round {
			if m := c.waitFor(t, "an answer", func(m msg) bool { return m.Ref == "e" }); m.Code != "unknown_type" {
				t.Fatalf("a refused message answered %s", m.raw)
			}
		}
	}
	// Each refusal is logged, if at all, before it is answered: every line
	// the flood wrote is in the channel by now.
	var lines []string
	for len(logs) > 0 {
		lines = append(lines, <-logs)
	}
	if len(lines) > 0 {
		t.Errorf("a connection and %d refused messages wrote %d log lines at info, want none; the first:\n%s", flood, len(lines), lines[0])
	}
	if n := s.lobby.Metrics().Refused.Load() - refused; n != flood {
		t.Errorf("refused counted %d, want %d", n, flood)
	}
}
