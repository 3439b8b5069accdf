package lobby_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
	tenpin "github.com/tenpin/tenpin/protocol/client"
)

// TestLaneBelongsToItsCreator: POST /api/lanes answers with a host key, in
// its body only; a crawler that joins the new lane first is not its host
// once the creator joins with the key; a wrong key is refused and seats
// nobody; the key is in no list, summary or header.
func TestLaneBelongsToItsCreator(t *testing.T) {
	s := newServer(t, lobby.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	created, err := (&tenpin.Client{URL: s.srv.URL}).CreateLane(ctx, "mine")
	if err != nil {
		t.Fatal(err)
	}
	if len(created.HostKey) < 20 {
		t.Fatalf("host key %q: want a long random key", created.HostKey)
	}
	id := created.ID

	crawler, friend, creator := s.dial(t, id), s.dial(t, id), s.dial(t, id)
	crawler.joinInvited(t, "Bot", created.Invite)
	creator.send(t, `{"type":"join","name":"Ann","host_key":"not the key","id":"wrong"}`)
	creator.expectError(t, "wrong", string(protocol.CodeNotHost))
	creator.send(t, `{"type":"join","name":"Ann","host_key":"`+created.HostKey+`","id":"key"}`)
	creator.expectAck(t, "key")
	b := friend.boardWith(t, "Ann seated", func(m msg) bool { return len(m.Players) == 2 })
	if b.Host != "Ann" {
		t.Fatalf("host %q, want Ann: the creator, who joined second", b.Host)
	}
	crawler.send(t, `{"type":"start","id":"s"}`)
	crawler.expectError(t, "s", string(protocol.CodeNotHost))
	crawler.send(t, `{"type":"remove","name":"Ann","id":"r"}`)
	crawler.expectError(t, "r", string(protocol.CodeNotHost))
	creator.send(t, `{"type":"remove","name":"Bot","id":"r"}`)
	creator.expectAck(t, "r")

	for _, path := range []string{"/api/lanes", "/api/lanes/" + id, "/api/lanes/" + id + "/games", "/api/lanes/" + id + "/invite"} {
		res, err := http.Get(s.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if bytes.Contains(body, []byte(created.HostKey)) || strings.Contains(res.Header.Get("Location"), created.HostKey) {
			t.Errorf("GET %s shows the host key: %s", path, body)
		}
		if bytes.Contains(body, []byte(created.Invite)) || strings.Contains(res.Header.Get("Location"), created.Invite) {
			t.Errorf("GET %s shows the invitation: %s", path, body)
		}
	}
	var summary map[string]any
	res, err := http.Post(s.srv.URL+"/api/lanes", "application/json", strings.NewReader(`{"name":"another"}`))
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(res.Body).Decode(&summary)
	res.Body.Close()
	if loc := res.Header.Get("Location"); summary["host_key"] == nil || strings.Contains(loc, summary["host_key"].(string)) {
		t.Errorf("POST /api/lanes: %v, Location %s: want the key in the body only", summary, loc)
	}
}
