package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/relay/relaytest"
	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/lane/ws/wstest"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// The API's timers, in a synctest bubble: time is fake and only moves
// when every goroutine of the test waits, so a minute passes at once and
// synctest.Wait says when the lobby and its lanes have done what that
// time made them do. No network inside: the API's handler called
// directly, or served over in-memory pipes (lane/ws/wstest) for
// WebSockets, and players attached as a cluster's other nodes attach
// theirs, through relays handing what they forward straight to the lane
// (lane/relay/relaytest).

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
		h := New(services(lb), nil)
		defer runBubbled(lb)()
		create := func(name string) *lane.Lane {
			l, err := lb.Create(t.Context(), name)
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
		first := create("first") // kept open by its players
		_, sendA := relaytest.Player(t, first)
		_, sendB := relaytest.Player(t, first)
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
		h := New(services(lb), nil)
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
		if got := lb.Admission().RateLimited()[lobby.LimitCreations]; got != 4 {
			t.Errorf("RateLimited()[%s] = %d, want 4", lobby.LimitCreations, got)
		}
	})
}

// servePipes serves lb's API over pipes and returns the function that
// opens a WebSocket to a lane, every one from the one address "pipe",
// and the one that stops serving.
func servePipes(t *testing.T, lb *lobby.Lobby) (dial func(id string) (*websocket.Conn, *http.Response, error), stop func()) {
	ln := wstest.NewListener()
	srv := &http.Server{Handler: New(services(lb), nil)}
	go srv.Serve(ln)
	tr := &http.Transport{DialContext: ln.Dial}
	dial = func(id string) (*websocket.Conn, *http.Response, error) {
		return websocket.Dial(t.Context(), "ws://tenpin.test/ws/lanes/"+id, &websocket.DialOptions{
			HTTPClient: &http.Client{Transport: tr},
		})
	}
	return dial, func() {
		srv.Close()
		tr.CloseIdleConnections()
	}
}

// TestClosedConnectionFreesItsPlace: a server holding its
// MaxConnections refuses the next with 503, and takes one again as soon
// as one of them has closed.
func TestClosedConnectionFreesItsPlace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lb := newInMemory(lobby.Config{MaxConnections: 2})
		defer runBubbled(lb)()
		l, err := lb.Create(t.Context(), "full")
		if err != nil {
			t.Fatal(err)
		}
		dial, stop := servePipes(t, lb)
		defer stop()
		var conns []*websocket.Conn
		for range 2 {
			c, _, err := dial(l.ID())
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseNow()
			conns = append(conns, c)
		}
		if _, res, err := dial(l.ID()); err == nil || res == nil || res.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("a third connection past a limit of two: %v %v, want 503", res, err)
		}
		if err := conns[0].Close(websocket.StatusNormalClosure, ""); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the server has seen the close and done with it
		if n := lb.Admission().Connections(); n != 1 {
			t.Errorf("one of two connections closed: the server holds %d, want 1", n)
		}
		c, _, err := dial(l.ID())
		if err != nil {
			t.Fatalf("no connection after one closed: %v", err)
		}
		c.CloseNow()
	})
}

// TestRefusedSocketsAreLetGo: a socket past its address's limit is
// refused with a close frame; a client that never answers it holds it for
// ws.RefuseTimeout, not for the WebSocket library's own wait for the echo.
// Past the address's refusals in flight (the lobby's admission pins how
// many), a socket gets a plain 429. (lobby's TestRefusalsInFlight floods
// a real server with such sockets.)
func TestRefusedSocketsAreLetGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lb := newInMemory(lobby.Config{ConnsPerAddr: 1})
		defer runBubbled(lb)()
		l, err := lb.Create(t.Context(), "refusing")
		if err != nil {
			t.Fatal(err)
		}
		dial, stop := servePipes(t, lb)
		defer stop()
		held, _, err := dial(l.ID())
		if err != nil {
			t.Fatal(err)
		}
		defer held.CloseNow()
		const most = 64 // far more refusals in flight than an address may have
		refusing := 0
		for ; ; refusing++ { // never read: their refusals wait for an echo that does not come
			c, res, err := dial(l.ID())
			if err != nil {
				if res == nil || res.StatusCode != http.StatusTooManyRequests {
					t.Fatalf("a socket past %d refusals in flight: %v %v, want a plain 429", refusing, res, err)
				}
				break
			}
			defer c.CloseNow()
			if refusing == most {
				t.Fatalf("%d sockets past the limit upgraded to be refused, and no plain 429", most+1)
			}
		}
		if refusing == 0 {
			t.Fatal("the first socket past the limit got a plain 429: it was not upgraded to be refused with a close")
		}
		synctest.Wait()
		if n := lb.Admission().Connections(); n != 1+refusing {
			t.Errorf("refusing %d: the server holds %d connections, want %d", refusing, n, 1+refusing)
		}
		time.Sleep(ws.RefuseTimeout - time.Nanosecond)
		synctest.Wait()
		if n := lb.Admission().Connections(); n != 1+refusing {
			t.Errorf("just before refuseTimeout: the server holds %d connections, want %d", n, 1+refusing)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if n := lb.Admission().Connections(); n != 1 {
			t.Errorf("after refuseTimeout: the server holds %d connections, want 1, the refused let go", n)
		}
	})
}
