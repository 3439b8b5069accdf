package lobby_test

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// closedWith waits for the client's connection to end and returns its
// close status (-1 when it ended without a close frame).
func (c *client) closedWith(t *testing.T) websocket.StatusCode {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(wait):
		t.Fatal("connection still open")
	}
	return websocket.CloseStatus(c.readErr())
}

// drain discards the client's messages as they come, so that its reader
// never falls behind.
func (c *client) drain() {
	go func() {
		for range c.msgs {
		}
	}()
}

// stillPlays checks that the lane goes on for the others: a seated player's
// roll of ball of the first frame is acknowledged.
func stillPlays(t *testing.T, c *client, pins, ball int, ref string) {
	t.Helper()
	c.send(t, map[string]any{"type": "roll", "pins": pins, "frame": 1, "ball": ball, "id": ref})
	c.expectAck(t, ref)
}

// playingLane makes a lane with one player, started.
func playingLane(t *testing.T, s *testServer) (id string, player *client) {
	t.Helper()
	id = s.createLane(t, "hardening")
	player = s.dial(t, id)
	player.join(t, "AAA")
	player.send(t, `{"type":"start","id":"s"}`)
	player.expectAck(t, "s")
	return id, player
}

func TestBinaryFrameIsRefused(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id, player := playingLane(t, s)
	c := s.dial(t, id)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageBinary, []byte(`{"type":"join","name":"BBB"}`)); err != nil {
		t.Fatal(err)
	}
	m := c.waitFor(t, "an error", func(m msg) bool { return m.Type == "error" })
	if m.Code != "bad_message" {
		t.Errorf("binary frame answered %s", m.raw)
	}
	stillPlays(t, player, 3, 1, "r")
}

func TestOversizedMessageClosesTheConnection(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id, player := playingLane(t, s)
	c := s.dial(t, id)
	c.send(t, `{"type":"join","name":"`+strings.Repeat("A", protocol.MaxMessageSize)+`"}`)
	if got := c.closedWith(t); got != websocket.StatusMessageTooBig {
		t.Errorf("oversized message closed the connection with %v, want %v", got, websocket.StatusMessageTooBig)
	}
	stillPlays(t, player, 3, 1, "r")
}

func TestFloodIsRateLimitedThenDropped(t *testing.T) {
	s := newServer(t, lobby.Config{Socket: ws.Config{MessageRate: 5, MessageBurst: 5}})
	id, player := playingLane(t, s)
	flooder := s.dial(t, id)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	go func() { // writes until the server closes the connection
		for ctx.Err() == nil {
			if flooder.ws.Write(ctx, websocket.MessageText, []byte(`{"type":"roll","pins":1,"frame":1,"ball":1,"id":"f"}`)) != nil {
				return
			}
		}
	}()
	m := flooder.waitFor(t, "rate_limited", func(m msg) bool { return m.Code == "rate_limited" })
	if m.Ref != "f" {
		t.Errorf("rate_limited answer %s does not refer to the message", m.raw)
	}
	flooder.drain()
	if got := flooder.closedWith(t); got != websocket.StatusPolicyViolation {
		t.Errorf("flood closed with %v (%v), want %v", got, flooder.readErr(), websocket.StatusPolicyViolation)
	}
	// The player's own connection has its own bucket.
	for i, p := range []int{1, 2} {
		ref := string(rune('a' + i))
		stillPlays(t, player, p, i+1, ref)
	}
}

func TestCrossOriginUpgrade(t *testing.T) {
	s := newServer(t, lobby.Config{OriginPatterns: []string{"friends.example"}})
	id := s.createLane(t, "origins")
	dial := func(origin string) (*http.Response, error) {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		ws, res, err := websocket.Dial(ctx, s.wsURL(id), &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
		if err == nil {
			ws.CloseNow()
		}
		return res, err
	}
	if res, err := dial("http://evil.example"); err == nil || res == nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("upgrade from another origin: %v %v, want 403", res, err)
	}
	if _, err := dial("http://friends.example"); err != nil {
		t.Errorf("upgrade from an allowed origin: %v", err)
	}
	if _, err := dial(strings.Replace(s.srv.URL, "127.0.0.1", "127.0.0.1", 1)); err != nil {
		t.Errorf("same-origin upgrade: %v", err)
	}
}

func TestConnectionLimit(t *testing.T) {
	s := newServer(t, lobby.Config{MaxConnections: 2})
	id := s.createLane(t, "full")
	s.dial(t, id)
	s.dial(t, id)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, res, err := websocket.Dial(ctx, s.wsURL(id), nil)
	if err == nil || res == nil || res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("third connection past a limit of two: %v %v, want 503", res, err)
	}
	// That the place frees as soon as the server has seen a close is
	// lobby/api's TestClosedConnectionFreesItsPlace's, which sees that moment.
}

func TestSpectatorLimit(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{MaxSpectators: 1, ResumeGrace: 200 * time.Millisecond}})
	id := s.createLane(t, "watched")
	first := s.dial(t, id)
	first.boardWith(t, "one spectator", func(m msg) bool { return m.Spectators == 1 })
	second := s.dial(t, id)
	m := second.waitFor(t, "an error", func(m msg) bool { return m.Type == "error" })
	if m.Code != "spectators_full" {
		t.Errorf("second spectator answered %s", m.raw)
	}
	if got := second.closedWith(t); got != websocket.StatusTryAgainLater {
		t.Errorf("second spectator closed with %v, want %v", got, websocket.StatusTryAgainLater)
	}
	// A seated player is no spectator: the watcher can join and free its place.
	first.join(t, "AAA")
	third := s.dial(t, id)
	third.boardWith(t, "a place to watch", func(m msg) bool { return m.Spectators == 1 })
}

// rawFrame is a masked client text frame, written by hand for a client
// that must not answer pings.
func rawFrame(payload string) []byte {
	b := []byte{0x81, 0x80 | byte(len(payload))}
	var mask [4]byte
	binary.BigEndian.PutUint32(mask[:], 0x1234abcd)
	b = append(b, mask[:]...)
	for i := range len(payload) {
		b = append(b, payload[i]^mask[i%4])
	}
	return b
}

func TestVanishedClientIsDisconnected(t *testing.T) {
	s := newServer(t, lobby.Config{Socket: ws.Config{PingInterval: 50 * time.Millisecond, PongTimeout: 100 * time.Millisecond}})
	id := s.createLane(t, "vanished")
	watcher := s.dial(t, id)
	ghost := stalledClient(t, s, id)
	if _, err := ghost.Write(rawFrame(`{"type":"join","name":"GHO"}`)); err != nil {
		t.Fatal(err)
	}
	watcher.boardWith(t, "GHO seated", func(m msg) bool { return len(m.Players) == 1 && m.Players[0].Connected })
	// The ghost neither reads nor answers pings, and sends no close frame.
	b := watcher.boardWith(t, "GHO disconnected", func(m msg) bool { return len(m.Players) == 1 && !m.Players[0].Connected })
	if b.Players[0].Name != "GHO" {
		t.Errorf("board = %s", b.raw)
	}
	// The server has closed the ghost's socket.
	ghost.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 64<<10)
	for {
		if _, err := ghost.Read(buf); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("the server did not close the vanished client's socket")
			}
			break
		}
	}
}
