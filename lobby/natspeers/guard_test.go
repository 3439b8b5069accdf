package natspeers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/nats-io/nats.go"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/relay"
	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/protocol"
)

// These tests put two nodes, n1 and n2, on one NATS server (their
// subjects are apart by name): n1 runs a lane, n2 relays it to a real
// WebSocket client.

type pair struct {
	n1, n2 *Cluster
	l      *lane.Lane
	relay  *relay.Relay
	ws     *websocket.Conn
	url    string // of n2's WebSocket server, which serves the relay
}

func startPair(t *testing.T, id string) *pair {
	t.Helper()
	j, err := natsconn.Open(t.Context(), natsconn.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	cfg := Config{Conn: j.NATS(), Heartbeat: 100 * time.Millisecond, NodeTimeout: time.Second}
	p := &pair{}
	cfg.Node = "n1"
	if p.n1, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Node = "n2"
	if p.n2, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	wg.Go(func() { p.n1.Run(ctx, nil) })
	wg.Go(func() { p.n2.Run(ctx, nil) })

	cl, err := p.n1.Claim(id)
	if err != nil {
		t.Fatal(err)
	}
	p.l = lane.New(id, id, lane.Config{})
	cl.Bind(p.l)
	wg.Go(func() { p.l.Run(ctx) })
	if p.relay, err = p.n2.Relay(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := ws.Accept(w, r, nil)
		if err == nil {
			wg.Go(func() { ws.Serve(context.Background(), conn, p.relay, ws.Config{}) })
		}
	}))
	t.Cleanup(srv.Close)
	p.url = "ws" + srv.URL[len("http"):]
	if p.ws, _, err = websocket.Dial(t.Context(), p.url, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.ws.CloseNow() })
	p.read(t, "board")
	return p
}

// read reads until a message of type typ, and returns it.
func (p *pair) read(t *testing.T, typ string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		_, data, err := p.ws.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for a %s: %v", typ, err)
		}
		var m map[string]any
		json.Unmarshal(data, &m)
		if m["type"] == typ {
			return m
		}
	}
}

func spectators(l *lane.Lane) int {
	var b protocol.Board
	json.Unmarshal(l.BoardJSON(), &b)
	return b.Spectators
}

// TestGhostConnectionIsDetached: the lane counts a connection of n2 that
// n2 does not have (its detach was lost on the way): n2's list of its
// connections, sent every few seconds, has the lane let it go.
func TestGhostConnectionIsDetached(t *testing.T) {
	p := startPair(t, "ghostlane1")
	ghost := subjOwn + "ghostlane1." + opAttach + ".n2.99999"
	if _, err := p.n2.nc.Request(ghost, nil, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	p.watchers(t, 5*time.Second, 2) // the client and the ghost
	p.watchers(t, aliveEvery+aliveGrace+5*time.Second, 1)
}

// watchers waits, within the given time, for the client to be sent a
// board that shows n watchers.
func (p *pair) watchers(t *testing.T, within time.Duration, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), within)
	defer cancel()
	for {
		_, data, err := p.ws.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for a board with %d watchers (the lane shows %d): %v", n, spectators(p.l), err)
		}
		var b struct {
			Type       string `json:"type"`
			Spectators int    `json:"spectators"`
		}
		json.Unmarshal(data, &b)
		if b.Type == "board" && b.Spectators == n {
			return
		}
	}
}

// TestLostMessageClosesTheConnection: a message to a relayed connection
// went missing between the nodes (its number skips one): the connection
// closes, to reconnect, rather than go on without it.
func TestLostMessageClosesTheConnection(t *testing.T) {
	p := startPair(t, "gaplane001")
	conns := p.relay.Conns()
	if len(conns) != 1 {
		t.Fatalf("the relay has %d connections", len(conns))
	}
	// The lane has sent the connection its board (message 1); message 2
	// is lost, and message 3 comes.
	subj := subjTo + "n2.gaplane001." + strconv.FormatUint(conns[0], 10)
	if err := p.n1.nc.Publish(subj, frame(nil, kindReply, 3, 0, []byte(`{"type":"error","code":"unavailable","message":"third"}`))); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		_, data, err := p.ws.Read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) != websocket.StatusGoingAway {
				t.Fatalf("the connection ended with %v, want going away", err)
			}
			return
		}
		if string(data) == `{"type":"error","code":"unavailable","message":"third"}` {
			t.Fatal("the message after a lost one was delivered")
		}
	}
}

// TestRefusalsBothWays checks that every refusal a lane's node answers
// with reads back, on the node that asked, as the error it was made from.
func TestRefusalsBothWays(t *testing.T) {
	for _, r := range refusals {
		m := nats.NewMsg("reply")
		m.Header.Set(hdrRefused, refusalCode(r.err))
		if got := refusalErr(m); got != r.err {
			t.Errorf("refusal %q reads back as %v, want %v", r.code, got, r.err)
		}
	}
	if err := refusalErr(nats.NewMsg("reply")); err != nil {
		t.Errorf("an answer with no refusal header reads as %v, want nil", err)
	}
	// An error the table does not name is refused as failed, and the node
	// answering goes on (it panicked).
	m := nats.NewMsg("reply")
	m.Header.Set(hdrRefused, refusalCode(errors.New("a refusal nobody put in the table")))
	if got := refusalErr(m); got != errFailed {
		t.Errorf("an unnamed refusal reads back as %v, want errFailed", got)
	}
}

// TestReadOfAConnectionTheLaneLostClosesIt: the lane's node no longer
// knows a connection its node still has (its detach crossed for another
// reason, or the lane let it go): what the client sends next is answered
// on the connection's subject by closing it, to reconnect and resume.
func TestReadOfAConnectionTheLaneLostClosesIt(t *testing.T) {
	p := startPair(t, "lostconn01")
	conns := p.relay.Conns()
	if len(conns) != 1 {
		t.Fatalf("the relay has %d connections", len(conns))
	}
	detach := subjOwn + "lostconn01." + opDetach + ".n2." + strconv.FormatUint(conns[0], 10)
	if err := p.n2.nc.Publish(detach, nil); err != nil {
		t.Fatal(err)
	}
	// The client's join crosses after the detach, from the same
	// connection to the same subscription: the lane's node has let the
	// connection go when it comes.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := p.ws.Write(ctx, websocket.MessageText, []byte(`{"type":"join","name":"AAA","id":"join"}`)); err != nil {
		t.Fatal(err)
	}
	for {
		_, data, err := p.ws.Read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) != websocket.StatusGoingAway {
				t.Fatalf("the connection ended with %v, want going away", err)
			}
			return
		}
		if strings.Contains(string(data), `"welcome"`) {
			t.Fatal("a connection the lane let go joined")
		}
	}
}
