package lobby_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/lobby/server/servertest"
	"github.com/tenpin/tenpin/protocol"
	tenpin "github.com/tenpin/tenpin/protocol/client"
)

// wait is how long a test waits for a message before it fails: generous,
// because it is a deadline for a failure, never a delay.
const wait = 10 * time.Second

// testServer is a lobby served by httptest, its lanes running, its logs
// going to t.Logf.
type testServer struct {
	lobby *lobby.Lobby
	api   http.Handler // what srv serves
	srv   *httptest.Server
}

func newServer(t *testing.T, cfg lobby.Config) *testServer {
	t.Helper()
	s, stop := startServer(t, cfg, nil)
	t.Cleanup(stop)
	return s
}

// startServer serves a lobby, after prepare (if not nil) has had the
// lobby before its lanes run (to restore them), and returns a function
// that stops it as a shutdown would: lanes close their sockets, then the
// HTTP server closes.
func startServer(t *testing.T, cfg lobby.Config, prepare func(*lobby.Lobby)) (*testServer, func()) {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = servertest.Logger(t, slog.LevelWarn)
	}
	if cfg.Socket.MessageRate == 0 { // tests play faster than people; the flood test sets its own
		cfg.Socket.MessageRate, cfg.Socket.MessageBurst = 1e6, 1e6
	}
	if cfg.Lane.Journal == nil {
		cfg.Lane.Journal = memjournal.New()
	}
	// The sockets' poller, as lobby/server runs it: stopped once the
	// lobby's sockets have closed.
	poller, err := ws.NewPoller()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Socket.Poller = poller
	lb := lobby.New(cfg)
	if prepare != nil {
		prepare(lb)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	polled := make(chan error, 1)
	go func() { polled <- poller.Run(context.Background()) }()
	go func() {
		defer close(done)
		lb.Run(ctx)
		poller.Close()
		if err := <-polled; err != nil {
			t.Errorf("the sockets' poller: %v", err)
		}
	}()
	h := server.API(lb, cfg.Logger)
	srv := httptest.NewServer(h)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			<-done
			srv.Close()
		})
	}
	t.Cleanup(stop)
	return &testServer{lobby: lb, api: h, srv: srv}, stop
}

// createLane creates a lane through the API, given away (whoever joins
// first hosts it: see hostkey_test.go for a lane that waits for its
// creator) and open (anyone may join it: see invite_test.go for a lane
// that seats only its invitation's holders), and returns its id.
func (s *testServer) createLane(t *testing.T, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	l, err := (&tenpin.Client{URL: s.srv.URL}).Create(ctx, protocol.CreateLane{Name: name, GiveAway: true, Open: true})
	if err != nil {
		t.Fatal(err)
	}
	return l.ID
}

// msg is a server message as the tests' predicates look at it: the
// fields of any message in one value, so that a test can wait for
// "m.Ref == ref" or "len(m.Players) == 2" alike. It is decoded strictly by
// the protocol client (a board's fields are in Board; a welcome's name is
// in Name too), or from the API as any board; raw is the message encoded
// again, for failure messages.
type msg struct {
	protocol.Board
	Ref     string        `json:"ref"`
	Code    protocol.Code `json:"code"`
	Message string        `json:"message"`
	Token   string        `json:"token"`
	Seat    int           `json:"seat"`
	// BowlerKey is a welcome's new bowler's key.
	BowlerKey string `json:"bowler_key"`
	raw       string
}

// typeUndecodable is the type of a msg that stands for a message the
// client could not decode: waiting for anything, a test fails on it.
const typeUndecodable protocol.Type = "undecodable"

// view flattens a decoded message into a msg.
func view(m protocol.Message) msg {
	var v msg
	switch m := m.(type) {
	case *protocol.Board:
		v.Board = *m
	case *protocol.Welcome:
		v.Type, v.Ref, v.Seat, v.Name, v.Token, v.BowlerKey = m.Type, m.Ref, m.Seat, m.Name, m.Token, m.BowlerKey
	case *protocol.Ack:
		v.Type, v.Ref, v.Seq = m.Type, m.Ref, m.Seq
	case *protocol.Error:
		v.Type, v.Ref, v.Code, v.Message = m.Type, m.Ref, m.Code, m.Message
	}
	raw, _ := json.Marshal(m)
	v.raw = string(raw)
	return v
}

// client is a real WebSocket client: the protocol client's Conn, whose
// messages a goroutine takes as they come into a channel, so that the
// test can wait for the one it wants with a deadline. Commands that
// need no malformed message (join) go through the Conn; the rest are
// sent as they are (send), their answers read from the channel.
type client struct {
	conn   *tenpin.Conn
	ws     *websocket.Conn // for what the protocol does not say: binary frames, closing
	msgs   chan msg
	done   chan struct{} // closed when the reader stops
	mu     sync.Mutex
	err    error // why the reader stopped
	seqs   []uint64
	boards []msg
	cursor int // boards before this were returned by boardWith
}

func (s *testServer) wsURL(id string) string {
	return "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/ws/lanes/" + id
}

func (s *testServer) dial(t *testing.T, id string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, s.wsURL(id), nil)
	if err != nil {
		t.Fatalf("dial lane %s: %v", id, err)
	}
	c := &client{conn: tenpin.NewConn(ws), ws: ws, msgs: make(chan msg, 4096), done: make(chan struct{})}
	go c.read()
	t.Cleanup(func() { ws.CloseNow() })
	return c
}

// read takes every message the Conn does not hand to a waiting command,
// until the connection ends.
func (c *client) read() {
	defer close(c.done)
	defer close(c.msgs)
	for {
		m, err := c.conn.Next(context.Background())
		var v msg
		switch {
		case errors.Is(err, protocol.ErrUndecodable): // the server sent what the protocol does not say
			v = msg{raw: err.Error()}
			v.Type = typeUndecodable
		case err != nil:
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			return
		default:
			v = view(m)
		}
		if v.Type == protocol.TypeBoard {
			c.mu.Lock()
			c.seqs = append(c.seqs, v.Seq)
			c.boards = append(c.boards, v)
			c.mu.Unlock()
		}
		c.msgs <- v
	}
}

// send writes one JSON message (a value, or a raw string) as it is.
func (c *client) send(t *testing.T, v any) {
	t.Helper()
	data, ok := v.(string)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		data = string(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.conn.Send(ctx, []byte(data)); err != nil {
		t.Fatalf("send %s: %v", data, err)
	}
}

// waitFor returns the next message that satisfies ok, skipping others.
func (c *client) waitFor(t *testing.T, what string, ok func(msg) bool) msg {
	t.Helper()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case m, open := <-c.msgs:
			if !open {
				t.Fatalf("connection ended waiting for %s: %v", what, c.readErr())
			}
			if m.Type == typeUndecodable {
				t.Fatalf("waiting for %s: %s", what, m.raw)
			}
			if ok(m) {
				return m
			}
		case <-timer.C:
			t.Fatalf("no %s within %v", what, wait)
		}
	}
}

func (c *client) readErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// expectError waits for the answer to the message with the given id and
// checks that it is an error with the given code.
func (c *client) expectError(t *testing.T, ref, code string) msg {
	t.Helper()
	m := c.waitFor(t, "answer to "+ref, func(m msg) bool { return m.Ref == ref })
	if m.Type != protocol.TypeError || m.Code != protocol.Code(code) {
		t.Fatalf("answer to %s = %s, want error %q", ref, m.raw, code)
	}
	return m
}

func (c *client) expectAck(t *testing.T, ref string) msg {
	t.Helper()
	m := c.waitFor(t, "answer to "+ref, func(m msg) bool { return m.Ref == ref })
	if m.Type != protocol.TypeAck && m.Type != protocol.TypeWelcome {
		t.Fatalf("answer to %s = %s, want ack or welcome", ref, m.raw)
	}
	return m
}

// join takes a seat and returns the welcome.
func (c *client) join(t *testing.T, name string) msg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	w, err := c.conn.Join(ctx, name)
	if err != nil {
		t.Fatalf("join %s: %v", name, err)
	}
	return view(w)
}

// joinInvited takes a seat with the lane's invitation and returns the
// welcome.
func (c *client) joinInvited(t *testing.T, name, invite string) msg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	w, err := c.conn.JoinInvited(ctx, name, invite)
	if err != nil {
		t.Fatalf("join %s with the invitation: %v", name, err)
	}
	return view(w)
}

// boardWith returns the first board since the last one it returned that
// satisfies ok, waiting for it if need be. It sees every board, including
// those that waitFor skipped.
func (c *client) boardWith(t *testing.T, what string, ok func(msg) bool) msg {
	t.Helper()
	find := func() (msg, bool) {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i := c.cursor; i < len(c.boards); i++ {
			if ok(c.boards[i]) {
				c.cursor = i + 1
				return c.boards[i], true
			}
		}
		return msg{}, false
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		if m, found := find(); found {
			return m
		}
		select { // wait for the next message, then look again
		case m, open := <-c.msgs:
			if m.Type == typeUndecodable {
				t.Fatalf("waiting for a board with %s: %s", what, m.raw)
			}
			if !open {
				if m, found := find(); found {
					return m
				}
				t.Fatalf("connection ended waiting for a board with %s: %v", what, c.readErr())
			}
		case <-timer.C:
			t.Fatalf("no board with %s within %v", what, wait)
		}
	}
}

func (c *client) seqList() []uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]uint64(nil), c.seqs...)
}
