package lobby_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/natsjournal"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// openJournal opens the embedded JetStream store on dir.
func openJournal(t *testing.T, dir string) *natsjournal.Journal {
	t.Helper()
	j, err := natsjournal.Open(context.Background(), natsjournal.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// durable returns a lobby's settings over the journal j.
func durable(j *natsjournal.Journal) lobby.Config {
	return lobby.Config{Lane: lane.Config{Journal: j, Durable: true}, Health: j.Check}
}

// restoring is a prepare function for startServer that restores the
// lobby's lanes and checks how many came back.
func restoring(t *testing.T, want int) func(*lobby.Lobby) {
	return func(lb *lobby.Lobby) {
		n, err := lb.Restore(context.Background())
		if err != nil || n != want {
			t.Fatalf("Restore = %d, %v; want %d lanes", n, err, want)
		}
	}
}

// TestLanesSurviveARestart: three players play half a game on a server
// that stores its lanes in JetStream; the server stops gracefully; a new
// server on the same data directory shows the same board, with a greater
// seq, takes the players back on their old tokens, and the game finishes
// with the totals package bowling gives.
func TestLanesSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	s, stop := startServer(t, durable(j), nil)
	id := s.createLane(t, "Friday night")
	names := []string{"PJS", "BOB", "ANN"}
	players, tokens := map[string]*client{}, map[string]string{}
	for _, n := range names {
		players[n] = s.dial(t, id)
		tokens[n] = players[n].join(t, n).Token
	}
	players["PJS"].send(t, map[string]any{"type": "start", "id": "start"})
	players["PJS"].expectAck(t, "start")
	model, err := bowling.NewMatch(names...)
	if err != nil {
		t.Fatal(err)
	}
	r := newRand()
	playRolls(t, r, model, players, 25)
	before := getBoard(t, s, id)
	checkBoard(t, "before the restart", before, model)

	// A graceful stop: every client is told the server is restarting.
	stop()
	for _, n := range names {
		m := players[n].waitFor(t, "the restart notice", func(m msg) bool { return m.Type == "error" })
		if m.Code != "server_restarting" {
			t.Errorf("%s was told %s, want server_restarting", n, m.raw)
		}
		<-players[n].done
		if got := websocket.CloseStatus(players[n].readErr()); got != websocket.StatusGoingAway {
			t.Errorf("%s's socket closed with %v, want 1001", n, got)
		}
	}
	j.Close()

	j = openJournal(t, dir)
	s, _ = startServer(t, durable(j), restoring(t, 1))
	after := getBoard(t, s, id)
	if after.Seq <= before.Seq {
		t.Errorf("seq after the restart = %d, before = %d: it went back", after.Seq, before.Seq)
	}
	if after.Name != "Friday night" || after.Phase != before.Phase || !slices.EqualFunc(after.Players, before.Players, samePlayer) ||
		after.Up == nil || *after.Up != *before.Up {
		t.Errorf("board after the restart:\n%s\nbefore:\n%s", after.raw, before.raw)
	}
	checkBoard(t, "after the restart", after, model)

	// The old tokens resume their seats, and the game goes on to its end.
	for i, n := range names {
		c := s.dial(t, id)
		c.send(t, map[string]any{"type": "resume", "token": tokens[n], "id": "resume"})
		w := c.waitFor(t, "welcome", func(m msg) bool { return m.Ref == "resume" })
		if w.Type != "welcome" || w.Name != n || w.Seat != i {
			t.Fatalf("%s resuming with the token from before: %s", n, w.raw)
		}
		if b := c.boardWith(t, "any seq", func(msg) bool { return true }); b.Seq <= before.Seq {
			t.Errorf("%s's first board after the restart has seq %d, not above %d", n, b.Seq, before.Seq)
		}
		players[n] = c
	}
	playRolls(t, r, model, players, -1)
	final := getBoard(t, s, id)
	if final.Phase != "finished" {
		t.Fatalf("phase after the last roll = %s", final.Phase)
	}
	checkBoard(t, "the final board", final, model)
}

// samePlayer compares two seats of a board, apart from the connected flag
// (everyone is disconnected across a restart).
func samePlayer(a, b protocol.Player) bool {
	a.Connected, b.Connected = false, false
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// getBoard returns the lane's board from GET /api/lanes/{id}.
func getBoard(t *testing.T, s *testServer, id string) msg {
	t.Helper()
	res, err := http.Get(s.srv.URL + "/api/lanes/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/lanes/%s: %s", id, res.Status)
	}
	var m msg
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(m.Players)
	m.raw = string(raw)
	return m
}
