package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/tenpin/tenpin/cmd/tenpin/internal/cluster"
	"github.com/tenpin/tenpin/lobby/natsstore"
)

// The debug listener tells the store's streams, the bowlers' bucket's
// among them (tenpin nemesis finds the process to kill by it), and the
// public address does not; a node with no store (-memory) has none to
// tell.
func TestDebugStreams(t *testing.T) {
	srv := serveForTest(t, "-debug-addr", "127.0.0.1:0")
	if res, _ := get(t, srv.url+"/debug/streams"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /debug/streams on the public address: %s, want 404", res.Status)
	}
	res, body := get(t, srv.debug+"/debug/streams")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /debug/streams: %s %.300s", res.Status, body)
	}
	var streams []cluster.Stream
	if err := json.Unmarshal([]byte(body), &streams); err != nil {
		t.Fatalf("GET /debug/streams: %v in %.300s", err, body)
	}
	if !slices.ContainsFunc(streams, func(s cluster.Stream) bool { return s.Name == "KV_"+natsstore.BowlersBucket }) {
		t.Errorf("GET /debug/streams = %.300s, want the stream of bucket %s among them", body, natsstore.BowlersBucket)
	}
	if err := srv.stop(); err != nil {
		t.Errorf("server: %v", err)
	}

	mem := serveForTest(t, "-memory", "-debug-addr", "127.0.0.1:0")
	if res, _ := get(t, mem.debug+"/debug/streams"); res.StatusCode != http.StatusNotFound {
		t.Errorf("-memory: GET /debug/streams: %s, want 404", res.Status)
	}
	if err := mem.stop(); err != nil {
		t.Errorf("server: %v", err)
	}
}
