package ws

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/tenpin/tenpin/lane"
)

// These tests serve a lane over real connections, as the lobby does.

// wait bounds every wait for something a test expects.
const wait = 10 * time.Second

// testServer serves one lane over HTTP.
type testServer struct {
	l    *lane.Lane
	srv  *httptest.Server
	addr string // host:port

	// served, for a relay's server, counts the connections it serves.
	served *sync.WaitGroup
}

// serveLane runs l and serves it, its connections with cfg, until the
// test ends.
func serveLane(t *testing.T, l *lane.Lane, cfg Config) *testServer {
	t.Helper()
	if cfg.Poller == nil {
		cfg.Poller = runPoller(t)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := l.Run(ctx); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, lane.ErrMoved) {
			t.Errorf("Run = %v", err)
		}
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, nil)
		if err != nil {
			return
		}
		wg.Go(func() { Serve(context.WithoutCancel(ctx), conn, l, cfg) })
	}))
	t.Cleanup(func() {
		cancel() // the lane drops its clients, which ends their Serve
		srv.Close()
		wg.Wait()
	})
	return &testServer{l: l, srv: srv, addr: srv.Listener.Addr().String()}
}

// runPoller runs a poller for a test's server until the test ends: after
// the test's own deferred calls and the cleanups registered after it
// (the servers'), as a server stops its poller once its connections have
// closed.
func runPoller(t *testing.T) *Poller {
	t.Helper()
	p, err := NewPoller()
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- p.Run(context.Background()) }()
	t.Cleanup(func() {
		p.Close()
		if err := <-ran; err != nil {
			t.Errorf("the poller's Run = %v, want nil", err)
		}
	})
	return p
}

// testLogger routes a lane's logs to t.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Logf("%s", bytes.TrimSuffix(p, []byte("\n")))
	return len(p), nil
}

// wireMsg is what the tests look at in a server message.
type wireMsg struct {
	Type, Ref, Code string
	Seq             uint64
	raw             string
}

// testClient is a coder/websocket client whose messages are read as they
// come, so that its pings are answered while the test waits.
type testClient struct {
	ws   *websocket.Conn
	msgs chan wireMsg
	done chan struct{} // closed when reading ends, with err set
	err  error
}

func (s *testServer) dial(t *testing.T) *testClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+s.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &testClient{ws: ws, msgs: make(chan wireMsg, 1024), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for {
			_, data, err := ws.Read(context.Background())
			if err != nil {
				c.err = err
				return
			}
			m := wireMsg{raw: string(data)}
			json.Unmarshal(data, &m)
			c.msgs <- m
		}
	}()
	t.Cleanup(func() {
		ws.CloseNow()
		<-c.done
	})
	return c
}

func (c *testClient) send(t *testing.T, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatalf("send %s: %v", msg, err)
	}
}

// expect returns the first message that matches, skipping the others.
func (c *testClient) expect(t *testing.T, what string, match func(wireMsg) bool) wireMsg {
	t.Helper()
	timeout := time.After(wait)
	for {
		select {
		case m := <-c.msgs:
			if c.matches(t, what, m, match) {
				return m
			}
		case <-c.done:
			// The messages read before the end come first: select picks
			// among ready cases at random.
			for {
				select {
				case m := <-c.msgs:
					if c.matches(t, what, m, match) {
						return m
					}
					continue
				default:
				}
				break
			}
			t.Fatalf("connection ended (%v) while waiting for %s", c.err, what)
		case <-timeout:
			t.Fatalf("no %s within %v", what, wait)
		}
	}
}

// matches reports whether m matches, and logs an error message that does
// not, which expect skips.
func (c *testClient) matches(t *testing.T, what string, m wireMsg, match func(wireMsg) bool) bool {
	t.Helper()
	if match(m) {
		return true
	}
	if m.Type == "error" {
		t.Logf("while waiting for %s: %s", what, m.raw)
	}
	return false
}

// startPlaying seats a player, AAA, who starts the lane's game.
func (s *testServer) startPlaying(t *testing.T) *testClient {
	t.Helper()
	player := s.dial(t)
	player.join(t, "AAA")
	player.send(t, `{"type":"start","id":"start"}`)
	player.expect(t, "ack of start", func(m wireMsg) bool { return m.Type == "ack" && m.Ref == "start" })
	return player
}

// join seats c as name.
func (c *testClient) join(t *testing.T, name string) {
	t.Helper()
	c.send(t, fmt.Sprintf(`{"type":"join","name":%q,"id":"join"}`, name))
	c.expect(t, "welcome", func(m wireMsg) bool { return m.Type == "welcome" && m.Ref == "join" })
}

// play has c, seated alone on the lane, roll once: the roll must be
// acknowledged and its board reach c.
func (c *testClient) play(t *testing.T, s *testServer, pins int, ref string) {
	t.Helper()
	c.send(t, rollFor(s.l, pins, ref))
	var ack *wireMsg
	var board uint64 // the newest board's seq: the lane sends it before the ack
	c.expect(t, "ack and board of "+ref, func(m wireMsg) bool {
		switch {
		case m.Ref == ref && m.Type != "ack":
			t.Fatalf("roll %s answered %s", ref, m.raw)
		case m.Ref == ref:
			ack = &m
		case m.Type == "board":
			board = max(board, m.Seq)
		}
		return ack != nil && board >= ack.Seq
	})
}

// rollFor returns a roll of pins for the ball the lane's board shows up.
func rollFor(l *lane.Lane, pins int, ref string) string {
	var b struct{ Up *struct{ Frame, Ball int } }
	json.Unmarshal(l.BoardJSON(), &b)
	frame, ball := 1, 1
	if b.Up != nil {
		frame, ball = b.Up.Frame, b.Up.Ball
	}
	return fmt.Sprintf(`{"type":"roll","pins":%d,"frame":%d,"ball":%d,"id":%q}`, pins, frame, ball, ref)
}

func TestPingFloodIsClosedWhileOthersPlay(t *testing.T) {
	s := serveLane(t, lane.New("ping-flood", "ping flood", lane.Config{Logger: testLogger(t)}), Config{})
	player := s.startPlaying(t)

	// The flooder sends pings as fast as it can, in writes of a thousand,
	// and counts the pongs it gets.
	nc, br := dialRaw(t, s.addr, nil)
	ctx, cancel := context.WithCancel(context.Background())
	flooding := make(chan struct{})
	go func() {
		defer close(flooding)
		pings := bytes.Repeat(maskedFrame(opPing, []byte("flood")), 1000)
		for ctx.Err() == nil {
			if _, err := nc.Write(pings); err != nil {
				return // closed by the server
			}
		}
	}()
	defer func() { cancel(); nc.Close(); <-flooding }()

	start := time.Now()
	player.play(t, s, 1, "during")
	pongs, closed := 0, ""
	for closed == "" {
		op, p, err := readFrame(br)
		if err != nil {
			t.Fatalf("the flooder's connection ended without a close frame: %v (after %d pongs)", err, pongs)
		}
		switch op {
		case opPong:
			pongs++
		case opClose:
			closed = frame{op, string(p)}.String()
		}
	}
	elapsed := time.Since(start)
	if want := fmt.Sprintf("close %d %q", websocket.StatusPolicyViolation, "flooding"); closed != want {
		t.Errorf("the flooder got %s, want %s", closed, want)
	}
	if most := MessageBurst + int(MessagesPerSecond*elapsed.Seconds()) + 1; pongs > most {
		t.Errorf("the flooder got %d pongs in %v, want at most %d", pongs, elapsed, most)
	}
	t.Logf("the flooder got %d pongs, then %s, in %v", pongs, closed, elapsed)
	player.play(t, s, 2, "after")
}

func TestPingsOfAPlayerAreAnswered(t *testing.T) {
	// The server pings every few milliseconds, and the player pings too,
	// ten times a second, while playing: more than a browser ever does.
	s := serveLane(t, lane.New("pings", "pings", lane.Config{Logger: testLogger(t)}), Config{PingInterval: 5 * time.Millisecond})
	player := s.startPlaying(t)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := range 10 {
		<-tick.C
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		err := player.ws.Ping(ctx)
		cancel()
		if err != nil {
			t.Fatalf("ping %d: %v", i, err)
		}
		if i%3 == 0 {
			player.play(t, s, 0, fmt.Sprint("r", i))
		}
	}
	select {
	case <-player.done:
		t.Fatalf("the player was disconnected: %v", player.err)
	default:
	}
}
