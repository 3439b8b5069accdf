package lobby_test

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby"
)

// TestExportsAnswerNotModified: a lane's exports carry an ETag of the
// lane's change; asked again with it, they are answered 304 with no body
// until the lane changes; and one address may ask for so many a second.
func TestExportsAnswerNotModified(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "Exports")
	c := s.dial(t, id)
	c.join(t, "Mina")
	c.send(t, map[string]any{"type": "start", "id": "s"})
	c.expectAck(t, "s")
	roll(t, c, 1, 1, 7, "r1")
	ask := func(path, etag string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", s.srv.URL+"/api/lanes/"+id+path, nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode, res.Header.Get("ETag")
	}
	for _, path := range []string{"/games", "/stats", "/games.csv", "/games/1.svg", "/games/1.svg?lang=ko"} {
		status, etag := ask(path, "")
		if status != http.StatusOK || etag == "" {
			t.Fatalf("GET %s: %d, ETag %q; want 200 and an ETag", path, status, etag)
		}
		// As a browser sends it, and as a proxy that compressed it
		// does (weakened, among others).
		for _, inm := range []string{etag, `"other", W/` + etag} {
			if again, _ := ask(path, inm); again != http.StatusNotModified {
				t.Errorf("GET %s with If-None-Match %s: %d, want 304", path, inm, again)
			}
		}
	}
	_, before := ask("/games.csv", "")
	roll(t, c, 1, 2, 2, "r2")
	if status, after := ask("/games.csv", before); status != http.StatusOK || after == before {
		t.Errorf("GET games.csv after a ball with the ETag from before: %d, ETag %q (was %q); want 200 and a new ETag", status, after, before)
	}
	limited := false
	for range lobby.ExportBurst + 5 {
		if status, _ := ask("/stats", ""); status == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Errorf("%d exports asked at once from one address were all answered: no 429", lobby.ExportBurst+5)
	}
}

// TestAnUnsureLaneAnswersFromNothing: a lane whose node was found paused
// is unsure of its log until it has claimed its lane again (see
// lane.Lane.Unsure): what it last showed is from before the pause, and
// its log may hold more, another node's even. Its board and its series
// are answered 503, to be asked again, until it is sure; then as ever.
// Before, they were answered from before the pause: the nemesis (seed
// 1796692497137140174) read such a series without a game over that the
// lane read back a moment later, and put in its bowlers' histories, and
// reported those histories "invented".
func TestAnUnsureLaneAnswersFromNothing(t *testing.T) {
	var wakes atomic.Uint64
	s := newServer(t, lobby.Config{Lane: lane.Config{Wakes: wakes.Load}})
	id := s.createLane(t, "Paused")
	get := func(path string) int {
		t.Helper()
		res, err := http.Get(s.srv.URL + "/api/lanes/" + id + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	paths := []string{"", "/board.txt", "/games", "/stats", "/games.csv"}
	for _, path := range paths {
		if status := get(path); status != http.StatusOK {
			t.Fatalf("GET %s before the pause: %d, want 200", path, status)
		}
	}

	wakes.Add(1) // the node is found paused
	for _, path := range paths {
		if status := get(path); status != http.StatusServiceUnavailable {
			t.Errorf("GET %s of a lane unsure of its log: %d, want 503", path, status)
		}
	}

	s.lobby.PeerLanes().Wake(t.Context()) // the lane reads its log back, and claims its lane again
	polltest.Until(t, wait, "the woken lane's series to be answered", func() (any, bool) {
		status := get("/games")
		return status, status == http.StatusOK
	})
	for _, path := range paths {
		if status := get(path); status != http.StatusOK {
			t.Errorf("GET %s once the lane claimed its lane again: %d, want 200", path, status)
		}
	}
}
