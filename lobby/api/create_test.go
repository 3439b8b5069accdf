package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tenpin/tenpin/lobby"
)

// TestLaneFloodIsLimited: one address creating lanes as fast as it can
// is answered 429 with Retry-After once its burst is spent, and nothing is
// created; another address still creates lanes.
func TestLaneFloodIsLimited(t *testing.T) {
	lb := newInMemory(lobby.Config{CreateRate: 0.1, CreateBurst: 2})
	h := New(services(lb), nil)
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
