package lobby

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAcceptsGzip(t *testing.T) {
	for _, tt := range []struct {
		header string
		want   bool
	}{
		{"gzip", true},
		{"gzip, deflate, br", true},
		{"br;q=1.0, GZIP;q=0.5", true},
		{"deflate", false},
		{"", false},
		{"gzip;q=0", false},
		{"x-gzip", false},
	} {
		if got := acceptsGzip(tt.header); got != tt.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

// TestListIsGzippedAndFresh: the lobby's list is sent gzipped to a client
// that takes it, the same JSON as plain; a lane just created is listed at
// once, however recently the list was built.
func TestListIsGzippedAndFresh(t *testing.T) {
	lb := newInMemory(Config{})
	go lb.Run(t.Context())
	h := lb.Handler()
	get := func(encoding string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/api/lanes", nil)
		r.Header.Set("Accept-Encoding", encoding)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for i := range 3 {
		if _, err := lb.Create(t.Context(), fmt.Sprintf("lane %d", i)); err != nil {
			t.Fatal(err)
		}
		if plain := get("").Body.String(); strings.Count(plain, `"id"`) != i+1 {
			t.Fatalf("after creating %d lanes the list is %s", i+1, plain)
		}
	}
	plain := get("").Body.String()
	w := get("gzip")
	if w.Header().Get("Content-Encoding") != "gzip" || !strings.Contains(w.Header().Get("Vary"), "Accept-Encoding") {
		t.Fatalf("headers %v, want gzip and Vary", w.Header())
	}
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || string(unzipped) != plain {
		t.Errorf("gzipped list = %q, %v; want %q", unzipped, err, plain)
	}
	if w.Code != http.StatusOK {
		t.Errorf("status %d", w.Code)
	}
}

// BenchmarkListLanes is GET /api/lanes on a lobby of 10,000 lanes, as
// pages poll it: served from the list built at most a second ago, and, for
// comparison, built for every request as before.
func BenchmarkListLanes(b *testing.B) {
	lb := newInMemory(Config{MaxLanes: 10_000, CreateBurst: 10_000})
	go lb.Run(b.Context())
	for i := range 10_000 {
		if _, err := lb.Create(b.Context(), fmt.Sprintf("Friday night league, lane %d", i)); err != nil {
			b.Fatal(err)
		}
	}
	h := lb.Handler()
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			r := httptest.NewRequest("GET", "/api/lanes", nil)
			r.Header.Set("Accept-Encoding", "gzip")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			b.SetBytes(int64(w.Body.Len()))
		}
	})
	b.Run("built-each-time", func(b *testing.B) {
		for b.Loop() {
			lb.forgetList()
			r := httptest.NewRequest("GET", "/api/lanes", nil)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			b.SetBytes(int64(w.Body.Len()))
		}
	})
}
