package server_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/lobby/server/servertest"
)

// TestStoredLanesComeBack: a server that stores its lanes in a data
// directory restores them when it starts again on it; one in memory
// forgets them.
func TestStoredLanesComeBack(t *testing.T) {
	dir := t.TempDir()
	first := servertest.Start(t, server.Config{Store: natsconn.Config{Dir: dir}})
	l, err := first.API.CreateLane(t.Context(), "Friday")
	if err != nil {
		t.Fatal(err)
	}
	first.Shutdown()

	again := servertest.Start(t, server.Config{Store: natsconn.Config{Dir: dir}})
	if n := again.Restored(); n != 1 {
		t.Errorf("the server started again on its data restored %d lanes, want 1", n)
	}
	res, err := http.Get(again.URL + "/api/lanes/" + l.ID)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("GET the restored lane: %s, want 200", res.Status)
	}

	mem := servertest.Start(t, server.Config{Memory: true})
	if n := mem.Restored(); n != 0 {
		t.Errorf("a server in memory restored %d lanes", n)
	}
}

// TestServesThePageAndTheAPI: the handler of a node serves the page, the
// API and the health check, as cmd/tenpin serves them.
func TestServesThePageAndTheAPI(t *testing.T) {
	n := servertest.Start(t, server.Config{})
	for _, path := range []string{"/", "/api/lanes", "/healthz", "/static/style.css"} {
		res, err := http.Get(n.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %s, want 200", path, res.Status)
		}
	}
}

// TestANodeNeedsASharedStore: a node of a cluster in memory is refused,
// with a reason, before anything starts.
func TestANodeNeedsASharedStore(t *testing.T) {
	_, err := server.New(context.Background(), server.Config{Memory: true, Node: "n1"})
	if err == nil {
		t.Fatal("a node of a cluster in memory was made")
	}
}
