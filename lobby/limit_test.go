package lobby

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestAddrLimiter(t *testing.T) {
	a := newAddrLimiter(1, 3) // a lane a second, three at once
	now := time.Unix(1000, 0)
	steps := []struct {
		addr  string
		after time.Duration
		want  bool
	}{
		{"10.0.0.1", 0, true},
		{"10.0.0.1", 0, true},
		{"10.0.0.1", 0, true},
		{"10.0.0.1", 0, false}, // the burst is spent
		{"10.0.0.2", 0, true},  // another address has its own
		{"10.0.0.1", 500 * time.Millisecond, false},
		{"10.0.0.1", 600 * time.Millisecond, true}, // a token a second
		{"10.0.0.1", 0, false},
	}
	for i, st := range steps {
		now = now.Add(st.after)
		if got, _ := a.allow(st.addr, now); got != st.want {
			t.Errorf("step %d: allow(%s) = %v, want %v", i, st.addr, got, st.want)
		}
	}
}

// TestLaneFloodIsLimited: one address creating lanes as fast as it can
// is answered 429 with Retry-After once its burst is spent, and nothing is
// created; another address still creates lanes.
func TestLaneFloodIsLimited(t *testing.T) {
	lb := New(Config{CreateRate: 0.1, CreateBurst: 2})
	h := lb.Handler()
	go lb.Run(t.Context())
	create := func(addr string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/api/lanes", strings.NewReader(`{"name":"flood"}`))
		r.Header.Set("Content-Type", "application/json")
		r.RemoteAddr = addr
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for range 2 {
		if w := create("192.0.2.1:5000"); w.Code != http.StatusCreated {
			t.Fatalf("a lane within the burst: %d %s", w.Code, w.Body)
		}
	}
	w := create("192.0.2.1:5001")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), `"rate_limited"`) {
		t.Errorf("the third lane at once: %d %q %s, want 429 with Retry-After and rate_limited", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if n := lb.Len(); n != 2 {
		t.Errorf("%d lanes open, want 2", n)
	}
	if w := create("198.51.100.7:4000"); w.Code != http.StatusCreated {
		t.Errorf("another address: %d %s", w.Code, w.Body)
	}
}
