package lobby_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lobby"
)

// TestPresenceChurnIsCoalesced: watchers connecting and leaving in a
// tight loop would each send the board to everyone on the lane. Presence
// alone shows at most one board every 100 ms, so a player sees a handful
// of boards for the whole churn, and their own roll's board still comes
// with its ack.
func TestPresenceChurnIsCoalesced(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "churn")
	player := s.dial(t, id)
	player.join(t, "PJS")
	player.send(t, map[string]any{"type": "start", "id": "start"})
	player.expectAck(t, "start")
	before := len(player.seqList())

	const churn = 60
	began := time.Now()
	for range churn {
		w := s.dial(t, id)
		w.ws.Close(websocket.StatusNormalClosure, "")
		w.closedWith(t)
	}
	elapsed := time.Since(began)
	player.send(t, map[string]any{"type": "roll", "pins": 7, "frame": 1, "ball": 1, "id": "roll"})
	ack := player.expectAck(t, "roll")
	player.boardWith(t, "the roll's board", func(m msg) bool { return m.Seq >= ack.Seq })

	// Each connection would have shown two boards (it came, it went): 120.
	// Coalesced, the churn shows one per 100 ms at most, plus the roll's.
	got := len(player.seqList()) - before
	if limit := int(elapsed/(100*time.Millisecond)) + 3; got > limit {
		t.Errorf("%d watchers connecting and leaving in %v sent the player %d boards, want at most %d", churn, elapsed, got, limit)
	}
	t.Logf("%d connections in %v: %d boards", churn, elapsed, got)
}

// TestResumePingPongIsCoalesced: two connections resuming one seat in
// turn change nothing but presence: the watchers see a board now and
// then, not one a resume.
func TestResumePingPongIsCoalesced(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "ping-pong")
	a := s.dial(t, id)
	token := a.join(t, "PJS").Token
	b := s.dial(t, id)
	watcher := s.dial(t, id)
	watcher.boardWith(t, "two watchers", func(m msg) bool { return m.Spectators == 2 })
	before := len(watcher.seqList())

	const resumes = 40
	began := time.Now()
	for i := range resumes {
		c := []*client{b, a}[i%2]
		ref := fmt.Sprint("r", i)
		c.send(t, map[string]any{"type": "resume", "token": token, "id": ref})
		c.waitFor(t, "welcome back", func(m msg) bool { return m.Ref == ref })
	}
	elapsed := time.Since(began)
	// The last resume's presence may wait for its board. Starting the game
	// sends a board at once, which carries it: once the watcher has that
	// board, it has every board the resumes caused (counted with it, so
	// the count is never less than the resumes' own).
	a.send(t, map[string]any{"type": "start", "id": "start"})
	ack := a.expectAck(t, "start")
	watcher.boardWith(t, "the start's board", func(m msg) bool { return m.Seq >= ack.Seq })
	got := 0
	for _, seq := range watcher.seqList()[before:] {
		if seq <= ack.Seq {
			got++
		}
	}
	if limit := int(elapsed/(100*time.Millisecond)) + 3; got > limit {
		t.Errorf("%d resumes in %v sent a watcher %d boards, want at most %d", resumes, elapsed, got, limit)
	}
	t.Logf("%d resumes in %v: %d boards", resumes, elapsed, got)
}
