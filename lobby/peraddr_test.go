package lobby_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lobby"
)

// dialFrom opens a WebSocket to a lane as a client at the address from,
// behind a proxy that says so in X-Forwarded-For (the server trusts it).
func dialFrom(ctx context.Context, s *testServer, id, from string) (*websocket.Conn, *http.Response, error) {
	return websocket.Dial(ctx, s.wsURL(id), &websocket.DialOptions{HTTPHeader: http.Header{"X-Forwarded-For": {"198.51.100.99, " + from}}})
}

// readAll reads a connection's messages until it closes, so that it
// answers pings and the close.
func readAll(ws *websocket.Conn) {
	go func() {
		for {
			if _, _, err := ws.Read(context.Background()); err != nil {
				return
			}
		}
	}()
}

// holdConns opens n WebSockets to a lane from the address from, each
// read until it closes, closed when the test ends.
func holdConns(t *testing.T, ctx context.Context, s *testServer, id, from string, n int) []*websocket.Conn {
	t.Helper()
	var held []*websocket.Conn
	for i := range n {
		ws, _, err := dialFrom(ctx, s, id, from)
		if err != nil {
			t.Fatalf("connection %d of %d: %v", i+1, n, err)
		}
		t.Cleanup(func() { ws.CloseNow() })
		readAll(ws)
		held = append(held, ws)
	}
	return held
}

// dialOnceCounted dials the lane from the address from until a
// connection is let in (sent the board): a connection closed is counted
// out once the server has seen it close.
func dialOnceCounted(t *testing.T, ctx context.Context, s *testServer, id, from string) {
	t.Helper()
	for {
		ws, _, err := dialFrom(ctx, s, id, from)
		if err != nil {
			t.Fatalf("after one of its connections closed: %v", err)
		}
		_, data, err := ws.Read(ctx)
		ws.CloseNow()
		if err == nil && strings.Contains(string(data), `"type":"board"`) {
			return
		}
		if ctx.Err() != nil {
			t.Fatal("a closed connection is still counted")
		}
	}
}

// TestConnectionsPerAddress: one address that opens WebSockets as fast as
// it can holds ConnsPerAddr of them; the next is accepted, told
// rate_limited and closed with 1013 (try again later), which is all a page
// can read of a refusal. The lane's player, at another address, plays on;
// another address still connects; and once the flooder closes one of its
// connections it may open another.
func TestConnectionsPerAddress(t *testing.T) {
	const limit = 3
	s := newServer(t, lobby.Config{ConnsPerAddr: limit, TrustProxy: loopbackProxy})
	id, player := playingLane(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	const flooder = "203.0.113.5"
	held := holdConns(t, ctx, s, id, flooder, limit)
	for range 3 {
		ws, _, err := dialFrom(ctx, s, id, flooder)
		if err != nil {
			t.Fatalf("a connection past the limit was not upgraded, so a page cannot tell why: %v", err)
		}
		_, data, err := ws.Read(ctx)
		var m struct{ Type, Code, Message string }
		if err != nil || json.Unmarshal(data, &m) != nil || m.Type != "error" || m.Code != "rate_limited" {
			t.Fatalf("a connection past the limit was sent %s (%v), want the error rate_limited", data, err)
		}
		_, data, err = ws.Read(ctx)
		if got := websocket.CloseStatus(err); got != websocket.StatusTryAgainLater {
			t.Fatalf("then %s, closed with %v (%v), want %v", data, got, err, websocket.StatusTryAgainLater)
		}
	}
	stillPlays(t, player, 3, 1, "r1") // the lane's player, at the server's own address

	other, _, err := dialFrom(ctx, s, id, "203.0.113.6")
	if err != nil {
		t.Fatalf("another address: %v", err)
	}
	defer other.CloseNow()
	readAll(other)

	// One closed, the flooder may open one more. Its closing is counted
	// once the server has seen it: dial until then.
	held[0].Close(websocket.StatusNormalClosure, "")
	dialOnceCounted(t, ctx, s, id, flooder)
	stillPlays(t, player, 4, 2, "r2")
	if got := s.lobby.Admission().RateLimited()[lobby.LimitConnsPerAddr]; got < 3 {
		t.Errorf("RateLimited()[%s] = %d, want at least 3", lobby.LimitConnsPerAddr, got)
	}
}

// TestLanesPerAddressOverHTTP: past LanesPerAddr lanes open, an address's
// POST /api/lanes is answered 429 rate_limited with Retry-After, and
// another address still creates lanes.
func TestLanesPerAddressOverHTTP(t *testing.T) {
	s := newServer(t, lobby.Config{LanesPerAddr: 2, CreateBurst: 100, TrustProxy: loopbackProxy})
	create := func(from string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", s.srv.URL+"/api/lanes", strings.NewReader(`{"name":"league"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", from)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	for range 2 {
		if res, body := create("203.0.113.5"); res.StatusCode != http.StatusCreated {
			t.Fatalf("a lane within the limit: %s %s", res.Status, body)
		}
	}
	res, body := create("203.0.113.5")
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || !strings.Contains(body, `"rate_limited"`) {
		t.Errorf("a third lane open: %s, Retry-After %q, %s; want 429 rate_limited with Retry-After", res.Status, res.Header.Get("Retry-After"), body)
	}
	if res, body := create("203.0.113.6"); res.StatusCode != http.StatusCreated {
		t.Errorf("another address: %s %s", res.Status, body)
	}
	if n := s.lobby.Len(); n != 3 {
		t.Errorf("%d lanes open, want 3", n)
	}
	if got := s.lobby.Admission().RateLimited()[lobby.LimitLanesPerAddr]; got != 1 {
		t.Errorf("RateLimited()[%s] = %d, want 1", lobby.LimitLanesPerAddr, got)
	}
}

// TestRefusalsInFlight: a client past its connection limit that never
// answers the close of its refused sockets holds only a few at a time: past them it gets a plain 429, so that
// refusing it cannot fill the server's connections.
func TestRefusalsInFlight(t *testing.T) {
	s := newServer(t, lobby.Config{ConnsPerAddr: 1, TrustProxy: loopbackProxy})
	id, player := playingLane(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	const flooder = "203.0.113.5"
	first, _, err := dialFrom(ctx, s, id, flooder)
	if err != nil {
		t.Fatal(err)
	}
	defer first.CloseNow()
	readAll(first)

	upgraded, refused := 0, 0
	for range 12 { // sockets that never read: their refusals wait for an echo that does not come
		ws, res, err := dialFrom(ctx, s, id, flooder)
		switch {
		case err == nil:
			upgraded++
			defer ws.CloseNow()
		case res != nil && res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") != "":
			refused++
		default:
			t.Fatalf("dial past the limit: %v (%v)", err, res)
		}
	}
	if upgraded > 4 || refused == 0 {
		t.Errorf("past the limit, %d sockets were upgraded to be refused and %d got a plain 429; want at most 4 upgraded", upgraded, refused)
	}
	stillPlays(t, player, 3, 1, "r1")
	if n := s.lobby.Admission().Connections(); n > 1+1+4 { // the player, the first, and the refusals in flight
		t.Errorf("the server holds %d connections, want the refusals bounded", n)
	}
	// The refused sockets never answer the close: that each is let go
	// after ws.RefuseTimeout, not the library's own 5 s wait for the echo, is
	// lobby/api's TestRefusedSocketsAreLetGo's, whose clock is fake.
}

// TestConnectionsPerLaneAndAddress: one address holds ConnsPerLaneAddr
// connections on one lane, however many the server would take from it:
// the next is told rate_limited and closed with 1013. The same address
// still connects to another lane, another address to the same lane, and
// once one of its connections there closes it may open another.
func TestConnectionsPerLaneAndAddress(t *testing.T) {
	const limit = 3
	s := newServer(t, lobby.Config{ConnsPerLaneAddr: limit, TrustProxy: loopbackProxy})
	id, player := playingLane(t, s)
	other := s.createLane(t, "next door")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	const crowd = "203.0.113.7"
	held := holdConns(t, ctx, s, id, crowd, limit)
	ws, _, err := dialFrom(ctx, s, id, crowd)
	if err != nil {
		t.Fatal(err)
	}
	_, data, err := ws.Read(ctx)
	var m struct{ Type, Code, Message string }
	if err != nil || json.Unmarshal(data, &m) != nil || m.Code != "rate_limited" || !strings.Contains(m.Message, "on this lane") {
		t.Fatalf("a connection past the lane's limit was sent %s (%v), want rate_limited on this lane", data, err)
	}
	if _, _, err = ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusTryAgainLater {
		t.Fatalf("then closed with %v, want %v", err, websocket.StatusTryAgainLater)
	}
	stillPlays(t, player, 3, 1, "r1")

	for _, to := range []struct{ lane, from string }{{other, crowd}, {id, "203.0.113.8"}} {
		ws, _, err := dialFrom(ctx, s, to.lane, to.from)
		if err != nil {
			t.Fatal(err)
		}
		if _, data, err := ws.Read(ctx); err != nil || !strings.Contains(string(data), `"type":"board"`) {
			t.Fatalf("lane %s from %s: sent %s (%v), want the board", to.lane, to.from, data, err)
		}
		ws.CloseNow()
	}

	held[0].Close(websocket.StatusNormalClosure, "")
	dialOnceCounted(t, ctx, s, id, crowd)
	if got := s.lobby.Admission().RateLimited()[lobby.LimitLaneConns]; got < 1 {
		t.Errorf("RateLimited()[%s] = %d, want at least 1", lobby.LimitLaneConns, got)
	}
}

// loopbackProxy trusts a proxy on this machine: the tests' clients, which
// say in X-Forwarded-For whom they stand for.
var loopbackProxy = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
