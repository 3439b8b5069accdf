package lobby_test

import (
	"net/http"
	"testing"

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
