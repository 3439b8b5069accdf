package lobby_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// secret is the text of a server-side failure: what a store says of its
// files. It belongs in the log, never in an answer to a client.
const secret = "open /var/lib/tenpin/index.db: too many open files"

// failingJournal is a journal whose store has failed.
type failingJournal struct{ game.Journal }

func (failingJournal) Append(context.Context, string, uint64, game.Event) (uint64, error) {
	return 0, errors.New(secret)
}

// TestServerErrorsStayInTheLog checks that the API answers a failure of
// the server with its code and a text of its own, never the failure's
// text: a failed health check and a lane the store would not take.
func TestServerErrorsStayInTheLog(t *testing.T) {
	s := newServer(t, lobby.Config{
		Lane:   lane.Config{Journal: failingJournal{}, Durable: true},
		Health: func(context.Context) error { return errors.New(secret) },
	})
	for _, tc := range []struct {
		method, path, body string
		status             int
		code               protocol.Code
	}{
		{"GET", "/healthz", "", http.StatusServiceUnavailable, protocol.CodeUnavailable},
		{"POST", "/api/lanes", `{"name":"Friday"}`, http.StatusServiceUnavailable, protocol.CodeUnavailable},
	} {
		req, _ := http.NewRequest(tc.method, s.srv.URL+tc.path, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.status || !strings.Contains(string(body), `"code":"`+string(tc.code)+`"`) {
			t.Errorf("%s %s = %s %s, want %d %s", tc.method, tc.path, res.Status, body, tc.status, tc.code)
		}
		if strings.Contains(string(body), "index.db") || strings.Contains(string(body), "lobby:") {
			t.Errorf("%s %s told the client the server's own error: %s", tc.method, tc.path, body)
		}
	}
}
