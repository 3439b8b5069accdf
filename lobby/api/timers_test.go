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

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/relay/relaytest"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// The API's timers, in a synctest bubble: time is fake and only moves
// when every goroutine of the test waits, so a minute passes at once and
// synctest.Wait says when the lobby and its lanes have done what that
// time made them do. No network inside: the API's handler called
// directly, and players attached as a cluster's other nodes attach
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
