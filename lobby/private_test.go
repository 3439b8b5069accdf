package lobby_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/tenpin/tenpin/protocol"
)

// TestPrivateLane: a lane created with "private" is never listed, its
// link (the board, the socket) works as any lane's, and it stays unlisted,
// its invitation unchanged, across a restart.
func TestPrivateLane(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	s, stop := startServer(t, durable(j), nil)
	s.createLane(t, "Open")
	res, err := http.Post(s.srv.URL+"/api/lanes", "application/json", bytes.NewReader([]byte(`{"name":"Secret","private":true}`)))
	if err != nil {
		t.Fatal(err)
	}
	var created protocol.CreatedLane
	json.NewDecoder(res.Body).Decode(&created)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated || created.ID == "" {
		t.Fatalf("POST a private lane: %s %+v", res.Status, created)
	}
	check := func(s *testServer, player string) {
		t.Helper()
		var list protocol.Lanes
		getJSON(t, s.srv.URL+"/api/lanes", &list)
		if len(list.Lanes) != 1 || list.Lanes[0].Name != "Open" {
			t.Errorf("the lobby lists %+v, want the open lane alone", list.Lanes)
		}
		if b := getBoard(t, s, created.ID); b.Name != "Secret" {
			t.Errorf("the private lane's board = %+v", b)
		}
		c := s.dial(t, created.ID)
		c.joinInvited(t, player, created.Invite) // and after a restart, the lane's invitation is its own still
	}
	check(s, "PJS")
	check(restart(t, dir, stop, j, 2), "BOB")
}
