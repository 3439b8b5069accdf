package api

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
)

// newInMemory returns lobby.New(cfg), its lanes kept in memory unless cfg
// names a journal.
func newInMemory(cfg lobby.Config) *lobby.Lobby {
	if cfg.Lane.Journal == nil {
		cfg.Lane.Journal = memjournal.New()
	}
	return lobby.New(cfg)
}

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
	lb := newInMemory(lobby.Config{})
	go lb.Run(t.Context())
	h := New(services(lb), nil)
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
	lb := newInMemory(lobby.Config{MaxLanes: 10_000, CreateBurst: 10_000})
	go lb.Run(b.Context())
	for i := range 10_000 {
		if _, err := lb.Create(b.Context(), fmt.Sprintf("Friday night league, lane %d", i)); err != nil {
			b.Fatal(err)
		}
	}
	a, h := newAPI(services(lb), nil)
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
			a.list.mu.Lock()
			a.list.lanes = nil
			a.list.mu.Unlock()
			r := httptest.NewRequest("GET", "/api/lanes", nil)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			b.SetBytes(int64(w.Body.Len()))
		}
	})
}

// listServer serves a lobby with n lanes, named "lane 0" to "lane n-1"
// in creation order, and returns it with its HTTP server and the lanes'
// ids.
func listServer(t *testing.T, n int) (*lobby.Lobby, *httptest.Server, []string) {
	t.Helper()
	lb := newInMemory(lobby.Config{})
	go lb.Run(t.Context())
	var ids []string
	for i := range n {
		l, err := lb.Create(t.Context(), fmt.Sprintf("lane %d", i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID())
	}
	srv := httptest.NewServer(New(services(lb), nil))
	t.Cleanup(srv.Close)
	return lb, srv, ids
}

// getPage requests a page of the list with the given query and headers
// (plain unless they ask for gzip) and returns the answer, its body
// unzipped, and the page decoded if it is one.
func getPage(t *testing.T, srv *httptest.Server, query string, header http.Header) (*http.Response, string, protocol.Lanes) {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+"/api/lanes"+query, nil)
	req.Header = header
	if req.Header == nil {
		req.Header = http.Header{}
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var r io.Reader = res.Body
	if res.Header.Get("Content-Encoding") == "gzip" {
		if r, err = gzip.NewReader(res.Body); err != nil {
			t.Fatal(err)
		}
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var p protocol.Lanes
	if res.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatalf("GET /api/lanes%s: %v: %s", query, err, b)
		}
	}
	return res, string(b), p
}

func names(p protocol.Lanes) string {
	var out []string
	for _, l := range p.Lanes {
		out = append(out, l.Name)
	}
	return strings.Join(out, ",")
}

// TestListPages: the list comes a page at a time, oldest first; each
// page's next is the after of the one that follows, and the last has none.
// Without limit a page holds ListLimit lanes.
func TestListPages(t *testing.T) {
	lb, srv, ids := listServer(t, 5)
	steps := []struct {
		query, names, next string
	}{
		{"", "lane 0,lane 1,lane 2,lane 3,lane 4", ""},
		{"?limit=2", "lane 0,lane 1", ids[1]},
		{"?limit=2&after=" + ids[1], "lane 2,lane 3", ids[3]},
		{"?limit=2&after=" + ids[3], "lane 4", ""},
		{"?after=" + ids[4], "", ""},
		{"?limit=5", "lane 0,lane 1,lane 2,lane 3,lane 4", ""},
		{"?limit=4", "lane 0,lane 1,lane 2,lane 3", ids[3]},
	}
	for _, st := range steps {
		res, body, p := getPage(t, srv, st.query, nil)
		if res.StatusCode != http.StatusOK || names(p) != st.names || p.Next != st.next || p.Total != 5 {
			t.Errorf("GET /api/lanes%s: %s %s; want %q, next %q, total 5", st.query, res.Status, body, st.names, st.next)
		}
		if !strings.HasPrefix(body, `{"lanes":[`) {
			t.Errorf("GET /api/lanes%s = %s, want an object starting with the lanes, as before pages", st.query, body)
		}
	}

	// A lane that closed between two pages is still a cursor: see
	// TestListIsBuiltOnceASecond, whose lane closes idle.

	// The default page.
	for i := range ListLimit {
		if _, err := lb.Create(t.Context(), fmt.Sprintf("more %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	_, _, p := getPage(t, srv, "", nil)
	if len(p.Lanes) != ListLimit || p.Next != p.Lanes[ListLimit-1].ID || p.Total != ListLimit+5 {
		t.Errorf("the default page: %d lanes of %d, next %q; want %d, and the last one's id", len(p.Lanes), p.Total, p.Next, ListLimit)
	}
	_, _, p = getPage(t, srv, "?after="+p.Next, nil)
	if names(p) != "more 45,more 46,more 47,more 48,more 49" || p.Next != "" {
		t.Errorf("the second default page: %q, next %q", names(p), p.Next)
	}
}

// TestListBadQuery: a limit that is not a whole number from 1 to
// MaxListLimit, or an after that names no lane, is answered 400 with a
// message that says which and what is wanted.
func TestListBadQuery(t *testing.T) {
	_, srv, _ := listServer(t, 1)
	tests := []struct{ query, want string }{
		{"?limit=0", `limit \"0\": want a whole number of lanes from 1 to 200`},
		{"?limit=-1", `limit \"-1\"`},
		{"?limit=201", `limit \"201\"`},
		{"?limit=ten", `limit \"ten\"`},
		{"?limit=1.5", `limit \"1.5\"`},
		{"?after=nosuchlane", `after \"nosuchlane\": no such lane`},
	}
	for _, tt := range tests {
		res, body, _ := getPage(t, srv, tt.query, nil)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"bad_request"`) || !strings.Contains(body, tt.want) {
			t.Errorf("GET /api/lanes%s: %s %s; want 400 bad_request saying %s", tt.query, res.Status, body, tt.want)
		}
	}
	if res, body, _ := getPage(t, srv, "?limit=200", nil); res.StatusCode != http.StatusOK {
		t.Errorf("GET /api/lanes?limit=200: %s %s", res.Status, body)
	}
}

// TestListETag: a page carries a weak ETag, the same plain and gzipped;
// asked again with it in If-None-Match, the answer is 304 with no body,
// until the page changes.
func TestListETag(t *testing.T) {
	lb, srv, _ := listServer(t, 3)
	res, plain, _ := getPage(t, srv, "", nil)
	etag := res.Header.Get("ETag")
	if !strings.HasPrefix(etag, `W/"`) || res.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("ETag %q, Cache-Control %q; want a weak ETag and no-cache (kept, asked again)", etag, res.Header.Get("Cache-Control"))
	}
	res, unzipped, _ := getPage(t, srv, "", http.Header{"Accept-Encoding": {"gzip"}})
	if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("ETag") != etag || unzipped != plain {
		t.Errorf("gzipped: Content-Encoding %q, ETag %q, %s; want gzip, %s and the plain body", res.Header.Get("Content-Encoding"), res.Header.Get("ETag"), unzipped, etag)
	}
	for _, inm := range []string{etag, strings.TrimPrefix(etag, "W/"), `"other", ` + etag, "*"} {
		for _, enc := range []string{"", "gzip"} {
			res, body, _ := getPage(t, srv, "", http.Header{"If-None-Match": {inm}, "Accept-Encoding": {enc}})
			if res.StatusCode != http.StatusNotModified || body != "" || res.Header.Get("ETag") != etag {
				t.Errorf("If-None-Match %s, Accept-Encoding %q: %s %q, ETag %q; want 304, no body, the same ETag", inm, enc, res.Status, body, res.Header.Get("ETag"))
			}
		}
	}
	if res, _, _ := getPage(t, srv, "?limit=2", http.Header{"If-None-Match": {etag}}); res.StatusCode != http.StatusOK || res.Header.Get("ETag") == etag {
		t.Errorf("another page with the first's ETag: %s, ETag %q; want 200 and its own", res.Status, res.Header.Get("ETag"))
	}
	if _, err := lb.Create(t.Context(), "new"); err != nil {
		t.Fatal(err)
	}
	res, body, p := getPage(t, srv, "", http.Header{"If-None-Match": {etag}})
	if res.StatusCode != http.StatusOK || res.Header.Get("ETag") == etag || len(p.Lanes) != 4 {
		t.Errorf("after a new lane, with the old ETag: %s, ETag %q, %s; want 200, a new ETag and 4 lanes", res.Status, res.Header.Get("ETag"), body)
	}
}

func TestETagMatch(t *testing.T) {
	tests := []struct {
		header, etag string
		want         bool
	}{
		{`W/"abc"`, `W/"abc"`, true},
		{`"abc"`, `W/"abc"`, true},
		{`"x", W/"abc"`, `W/"abc"`, true},
		{`*`, `W/"abc"`, true},
		{``, `W/"abc"`, false},
		{`W/"abd"`, `W/"abc"`, false},
		{`abc`, `W/"abc"`, false},
	}
	for _, tt := range tests {
		if got := etagMatch(tt.header, tt.etag); got != tt.want {
			t.Errorf("etagMatch(%q, %q) = %v, want %v", tt.header, tt.etag, got, tt.want)
		}
	}
}

// TestPrivateLanesAreNotListed: a private lane is on no page of the list,
// nor in its total; its link still opens it.
func TestPrivateLanesAreNotListed(t *testing.T) {
	lb := newInMemory(lobby.Config{Lane: lane.Config{Private: true}})
	go lb.Run(t.Context())
	l, err := lb.Create(t.Context(), "private")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(services(lb), nil))
	defer srv.Close()
	if _, body, p := getPage(t, srv, "", nil); len(p.Lanes) != 0 || p.Total != 0 {
		t.Errorf("the list with a private lane: %s, want no lane", body)
	}
	if _, err := lb.Find(t.Context(), l.ID()); err != nil {
		t.Errorf("Find of a private lane: %v, want it found (GET /api/lanes/{id} answers it)", err)
	}
}
