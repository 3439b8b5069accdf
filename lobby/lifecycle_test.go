package lobby_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/lobby"
)

// TestIdleLaneIsClosed: a lane closes once the last WebSocket has left it
// and it idled. That it then leaves the lobby (404, not listed) is
// TestIdleLaneLeavesTheLobby's, which sees the moment it does.
func TestIdleLaneIsClosed(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{IdleTimeout: 50 * time.Millisecond}})
	id := s.createLane(t, "idle")
	l, ok := s.lobby.Get(id)
	if !ok {
		t.Fatal("lane not found right after creation")
	}
	c := s.dial(t, id)
	c.join(t, "AAA")
	c.ws.CloseNow()
	select {
	case <-l.Done(): // its goroutine has returned
	case <-time.After(wait):
		t.Fatal("idle lane still running")
	}
}

// leftAfter starts a game on a new lane of s with one player, who bowls
// the given balls of frame 1 and then disconnects; it returns the lane.
func leftAfter(t *testing.T, s *testServer, pins ...int) *lane.Lane {
	t.Helper()
	id := s.createLane(t, "left")
	l, _ := s.lobby.Get(id)
	c := s.dial(t, id)
	c.join(t, "AAA")
	c.send(t, `{"type":"start","id":"s"}`)
	c.expectAck(t, "s")
	for i, p := range pins {
		ref := fmt.Sprint("r", i)
		c.send(t, map[string]any{"type": "roll", "pins": p, "frame": 1, "ball": i + 1, "id": ref})
		c.expectAck(t, ref)
	}
	c.ws.CloseNow()
	return l
}

func TestLaneInPlayIsNotClosedForIdling(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{IdleTimeout: 20 * time.Millisecond, AbandonTimeout: time.Hour}})
	l := leftAfter(t, s, 3)
	select {
	case <-l.Done():
		t.Fatal("a lane with a game in play was closed for idling")
	case <-time.After(200 * time.Millisecond): // ten idle timeouts
	}
}

// TestLaneStartedButUnplayedIsClosedForIdling: joining, starting and
// leaving without a ball does not keep a lane for the abandon timeout.
func TestLaneStartedButUnplayedIsClosedForIdling(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{IdleTimeout: 20 * time.Millisecond, AbandonTimeout: time.Hour}})
	l := leftAfter(t, s)
	select {
	case <-l.Done():
	case <-time.After(wait):
		t.Fatal("a lane started without a ball and left was kept for the abandon timeout")
	}
}

// stalledClient opens a WebSocket by hand with a tiny receive buffer and
// then never reads, as a frozen browser tab would.
func stalledClient(t *testing.T, s *testServer, id string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) {
			syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1024)
		})
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(s.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "GET /ws/lanes/%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", id, conn.RemoteAddr())
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || res.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %v %v", res, err)
	}
	return conn
}

// TestStalledClientDoesNotSlowTheLane plays games while one spectator
// never reads: the game goes on at full speed, and the stalled spectator is
// dropped once a write to it times out.
func TestStalledClientDoesNotSlowTheLane(t *testing.T) {
	s := newServer(t, lobby.Config{Socket: ws.Config{WriteTimeout: 3 * time.Second}}) // long enough for boards to pile up, and be skipped, behind the stalled write, even on a busy machine
	id := s.createLane(t, "stalled")
	stalledClient(t, s, id)
	names := []string{"AAA", "BBB", "CCC"}
	players := map[string]*client{}
	for _, n := range names {
		players[n] = s.dial(t, id)
		players[n].join(t, n)
	}
	watcher := s.dial(t, id)
	watcher.boardWith(t, "two spectators", func(m msg) bool { return m.Spectators == 2 })
	players["AAA"].send(t, `{"type":"start"}`)

	// Play until the stalled one is gone: every game fills its buffers more.
	// A lane blocked on it would never finish the first game.
	r := newRand()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for game := 1; ; game++ {
		model := playGame(t, r, names, players)
		b := watcher.boardWith(t, "the end of the game", func(m msg) bool { return m.Phase == "finished" })
		checkBoard(t, fmt.Sprintf("game %d", game), b, model)
		if b.Spectators == 1 {
			t.Logf("stalled spectator dropped during game %d", game)
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("stalled spectator still connected after %d games", game)
		}
		players["AAA"].send(t, `{"type":"rematch"}`)
		watcher.boardWith(t, "a rematch", func(m msg) bool { return m.Phase == "waiting" })
		players["AAA"].send(t, `{"type":"start"}`)
		watcher.boardWith(t, "the next game", func(m msg) bool { return m.Phase == "playing" })
	}
	if skipped := s.lobby.Metrics().BoardsSkipped.Load(); skipped == 0 {
		t.Error("no boards were skipped for the stalled client")
	}
}
