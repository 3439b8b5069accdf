package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/relay"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// The API's timers, in a synctest bubble: time is fake and only moves
// when every goroutine of the test waits, so a minute passes at once and
// synctest.Wait says when the lobby and its lanes have done what that
// time made them do. No network inside: the API's handler called
// directly, and players attached as a cluster's other nodes attach theirs
// (a relay.Relay, its relay.Upstream handing what it forwards straight to
// the lane's client that relay.Attach made), as lobby's timers tests do.

// runBubbled runs lb until the returned function is called, which waits
// for it and its lanes to stop: a bubble ends only once its goroutines
// have.
func runBubbled(lb *lobby.Lobby) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		lb.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// sink keeps what a relay sends a remote player; nothing reads it.
type sink struct {
	mu   sync.Mutex
	msgs []string
}

func (s *sink) Board(board []byte, seq uint64) int {
	s.Reply(board, seq)
	return 0
}

func (s *sink) Reply(msg []byte, seq uint64) {
	s.mu.Lock()
	s.msgs = append(s.msgs, string(msg))
	s.mu.Unlock()
}

func (s *sink) Close(protocol.Code, string) {}

// remotePlayer attaches a client to l, without a connection, through a
// relay of its own as another node would, and returns it and the function
// that sends it a message.
func remotePlayer(t *testing.T, l *lane.Lane) (r lane.Session, send func(string)) {
	t.Helper()
	up := &direct{t: t, l: l}
	up.relay = relay.New(l.ID(), up, lane.Config{})
	r, ok := up.relay.Attach(t.Context(), new(sink))
	if !ok || up.rm == nil {
		t.Fatalf("lane %s stopped before a client attached", l.ID())
	}
	return r, func(msg string) {
		t.Helper()
		if !r.Read(t.Context(), []byte(msg)) {
			t.Fatalf("the relay of lane %s closed before it read %s", l.ID(), msg)
		}
	}
}

// direct is the upstream of a relay with one connection: what a cluster
// carries between two nodes, handed over at once, in the test's
// goroutine.
type direct struct {
	t     *testing.T
	l     *lane.Lane
	relay *relay.Relay
	rm    lane.Session // the connection, attached to the lane
}

var errStopped = errors.New("the lane has stopped")

func (d *direct) Attach(ctx context.Context, conn uint64) error {
	rm, ok := relay.Attach(ctx, d.l, relayed{d.relay, conn})
	if !ok {
		return errStopped
	}
	d.rm = rm
	return nil
}

func (d *direct) Read(ctx context.Context, _ uint64, data []byte) error {
	if !d.rm.Read(ctx, data) {
		d.t.Errorf("lane %s stopped before it read %s", d.l.ID(), data)
		return errStopped
	}
	return nil
}

func (d *direct) Detach(uint64) { d.rm.Detach() }

// relayed is the lane.Conn of a relay's connection, on the lane's side:
// what the lane sends it goes to the relay.
type relayed struct {
	r    *relay.Relay
	conn uint64
}

func (c relayed) Board(board []byte, seq uint64) int {
	c.r.Deliver(c.conn, board, seq, true)
	return 0
}

func (c relayed) Reply(msg []byte, seq uint64) { c.r.Deliver(c.conn, msg, seq, false) }

func (c relayed) Close(code protocol.Code, reason string) {
	c.r.Drop(c.conn, code, reason)
}

// get serves a GET of path by h.
func get(h http.Handler, path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	return w
}

// TestListIsBuiltOnceASecond: the list GET /api/lanes serves is built at
// most once every listMaxAge: a lane's players show up to that late, but
// lanes created or closed show at once.
func TestListIsBuiltOnceASecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const idle = 10 * time.Second
		lb := newInMemory(lobby.Config{Lane: lane.Config{IdleTimeout: idle}})
		h := New(lb, nil)
		defer runBubbled(lb)()
		create := func(name string) *lane.Lane {
			l, err := lb.Create(t.Context(), name)
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
		first := create("first") // kept open by its players
		_, sendA := remotePlayer(t, first)
		_, sendB := remotePlayer(t, first)
		var second string
		steps := []struct {
			what  string
			after time.Duration // since the step before
			do    func()
			want  string // the lanes listed, with their players
		}{
			{"the list built", 0, nil, "first[]"},
			{"AAA joined", 0, func() { sendA(`{"type":"join","name":"AAA","id":"a"}`) }, "first[]"},
			{"a second on", listMaxAge, nil, "first[]"},
			{"a second and a nanosecond on", time.Nanosecond, nil, "first[AAA]"},
			{"BBB joined", 0, func() { sendB(`{"type":"join","name":"BBB","id":"b"}`) }, "first[AAA]"},
			{"a lane created", 0, func() { second = create("second").ID() }, "first[AAA BBB] second[]"},
			{"half a second before it idles", idle - 500*time.Millisecond, nil, "first[AAA BBB] second[]"},
			{"it closed, idle", 500 * time.Millisecond, nil, "first[AAA BBB]"},
		}
		for _, st := range steps {
			time.Sleep(st.after)
			if st.do != nil {
				st.do()
			}
			synctest.Wait()
			w := get(h, "/api/lanes")
			var page protocol.Lanes
			if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil {
				t.Fatalf("%s: GET /api/lanes: %d %s", st.what, w.Code, w.Body)
			}
			var got []string
			for _, l := range page.Lanes {
				got = append(got, l.Name+"["+strings.Join(l.Players, " ")+"]")
			}
			if g := strings.Join(got, " "); g != st.want {
				t.Errorf("%s: listed %s, want %s", st.what, g, st.want)
			}
		}

		// A client paging with the closed lane as its cursor goes on where
		// it was: after it, no lane.
		w := get(h, "/api/lanes?after="+second)
		var page protocol.Lanes
		if err := json.Unmarshal(w.Body.Bytes(), &page); w.Code != http.StatusOK || err != nil || len(page.Lanes) != 0 || page.Total != 1 {
			t.Errorf("GET the list after the closed lane: %d %s, want 200, no lanes of 1", w.Code, w.Body)
		}
	})
}

// TestCreationsAreRateLimited: lanes created from one address through
// the API refill at CreateRate, read from the clock the handler reads,
// and a refusal's Retry-After says when the next will be taken.
func TestCreationsAreRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lb := newInMemory(lobby.Config{CreateRate: 1, CreateBurst: 2}) // a lane a second, two at once
		defer runBubbled(lb)()
		h := New(lb, nil)
		const a, b = "192.0.2.1:5000", "198.51.100.7:4000"
		steps := []struct {
			after      time.Duration // since the step before
			addr       string
			want       int
			retryAfter string // of a refusal
		}{
			{0, a, http.StatusCreated, ""},
			{0, a, http.StatusCreated, ""},
			{0, a, http.StatusTooManyRequests, "2"}, // a whole second to wait: rounded up, and one more
			{0, b, http.StatusCreated, ""},          // another address has its own
			{999 * time.Millisecond, a, http.StatusTooManyRequests, "1"},
			{time.Millisecond, a, http.StatusCreated, ""},
			{0, a, http.StatusTooManyRequests, "2"},
			{time.Hour, a, http.StatusCreated, ""}, // refilled to the burst, no more
			{0, a, http.StatusCreated, ""},
			{0, a, http.StatusTooManyRequests, "2"},
		}
		for i, st := range steps {
			time.Sleep(st.after)
			r := httptest.NewRequest("POST", "/api/lanes", strings.NewReader(`{"name":"rate"}`))
			r.Header.Set("Content-Type", "application/json")
			r.RemoteAddr = st.addr
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != st.want || w.Header().Get("Retry-After") != st.retryAfter {
				t.Errorf("step %d, %s: POST /api/lanes = %d, Retry-After %q; want %d, %q", i, st.addr, w.Code, w.Header().Get("Retry-After"), st.want, st.retryAfter)
			}
		}
		if got := lb.RateLimited()[lobby.LimitCreations]; got != 4 {
			t.Errorf("RateLimited()[%s] = %d, want 4", lobby.LimitCreations, got)
		}
	})
}
