package lobby_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/lobby/natsstore"
	"github.com/tenpin/tenpin/protocol"
)

// stored is a journal on an embedded server of its own.
type stored struct {
	*natsstore.Journal
	conn *natsconn.Conn
}

// Close closes the journal and then its connection, which stops the
// embedded server and releases the data directory.
func (s stored) Close() error { return errors.Join(s.Journal.Close(), s.conn.Close()) }

// openJournal opens the embedded JetStream store on dir.
func openJournal(t *testing.T, dir string) stored {
	t.Helper()
	conn, err := natsconn.Open(context.Background(), natsconn.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	j, err := natsstore.Open(context.Background(), conn, natsstore.Config{})
	if err != nil {
		conn.Close()
		t.Fatal(err)
	}
	s := stored{j, conn}
	t.Cleanup(func() { s.Close() })
	return s
}

// durable returns a lobby's settings over the journal j.
func durable(j stored) lobby.Config {
	return lobby.Config{Lane: lane.Config{Journal: j, Durable: true}, Health: j.Check}
}

// restoring is a prepare function for startServer that restores the
// lobby's lanes and checks how many came back (unless want < 0).
func restoring(t *testing.T, want int) func(*lobby.Lobby) {
	return func(lb *lobby.Lobby) {
		n, err := lb.Restore(context.Background())
		if err != nil || want >= 0 && n != want {
			t.Fatalf("Restore = %d, %v; want %d lanes", n, err, want)
		}
	}
}

// restart stops a server and its journal, and serves a new lobby on the
// same data directory after restoring its lanes (want of them, unless
// want < 0).
func restart(t *testing.T, dir string, stop func(), j stored, want int) *testServer {
	t.Helper()
	stop()
	j.Close()
	s, _ := startServer(t, durable(openJournal(t, dir)), restoring(t, want))
	return s
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
	s = restart(t, dir, func() {}, j, 1)
	after := getBoard(t, s, id)
	if after.Seq <= before.Seq {
		t.Errorf("seq after the restart = %d, before = %d: it went back", after.Seq, before.Seq)
	}
	if after.Name != "Friday night" || after.Phase != before.Phase || !slices.EqualFunc(after.Players, before.Players, samePlayer) ||
		after.Up == nil || sameUp(*after.Up) != sameUp(*before.Up) || after.Up.SkipIn == nil {
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

// TestStoreDownChangesNothing: while the store does not answer, a roll is
// refused with unavailable and changes nothing, and /healthz fails.
func TestStoreDownChangesNothing(t *testing.T) {
	j := openJournal(t, t.TempDir())
	cfg := durable(j)
	cfg.Lane.AppendTimeout = 500 * time.Millisecond
	s, _ := startServer(t, cfg, nil)
	id := s.createLane(t, "store down")
	c := s.dial(t, id)
	c.join(t, "PJS")
	c.send(t, map[string]any{"type": "start", "id": "start"})
	c.expectAck(t, "start")
	if res, err := http.Get(s.srv.URL + "/healthz"); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("/healthz with the store up: %v %v", res, err)
	}
	before := getBoard(t, s, id)

	j.Close() // the embedded NATS server stops
	c.send(t, map[string]any{"type": "roll", "pins": 7, "frame": 1, "ball": 1, "id": "roll"})
	c.expectError(t, "roll", "unavailable")
	if after := getBoard(t, s, id); after.Seq != before.Seq || after.raw != before.raw {
		t.Errorf("a roll the store did not take changed the board:\n%s\nbefore:\n%s", after.raw, before.raw)
	}
	res, err := http.Get(s.srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/healthz with the store down: %s, want 503", res.Status)
	}
	body, _ := json.Marshal(map[string]string{"name": "another"})
	res, err = http.Post(s.srv.URL+"/api/lanes", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("creating a lane with the store down: %s, want 503", res.Status)
	}
}

// TestClosedLaneIsNotRestored: a lane that closed for being idle is
// recorded as closed, and a restart does not bring it back.
func TestClosedLaneIsNotRestored(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	cfg := durable(j)
	cfg.Lane.IdleTimeout = 50 * time.Millisecond
	s, stop := startServer(t, cfg, nil)
	idle := s.createLane(t, "idle")
	kept := s.createLane(t, "kept")
	c := s.dial(t, kept) // someone stays: this lane must not idle out
	c.boardWith(t, "a board", func(msg) bool { return true })
	l, ok := s.lobby.Get(idle)
	if !ok {
		t.Fatal("no idle lane")
	}
	select {
	case <-l.Done():
	case <-time.After(wait):
		t.Fatal("the idle lane did not close")
	}
	s = restart(t, dir, stop, j, 1)
	if _, ok := s.lobby.Get(idle); ok {
		t.Error("the lane that closed was restored")
	}
	if _, ok := s.lobby.Get(kept); !ok {
		t.Error("the open lane was not restored")
	}
}

// TestCompactionKeepsOpenLanes: compactions drop the logs of closed
// lanes and the events before each open lane's snapshots, while lanes are
// being created; the game goes on after it, and a restart brings back
// every open lane as it was.
func TestCompactionKeepsOpenLanes(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	cfg := durable(j)
	cfg.Lane.IdleTimeout = 50 * time.Millisecond
	s, stop := startServer(t, cfg, nil)
	playing := s.createLane(t, "playing")
	closing := s.createLane(t, "closing")
	names := []string{"PJS", "BOB"}
	players := map[string]*client{}
	for _, n := range names {
		players[n] = s.dial(t, playing)
		players[n].join(t, n)
	}
	players["PJS"].send(t, map[string]any{"type": "start", "id": "start"})
	players["PJS"].expectAck(t, "start")
	model, _ := bowling.NewMatch(names...)
	r := newRand()
	playRolls(t, r, model, players, 7)
	if l, ok := s.lobby.Get(closing); ok {
		<-l.Done() // nobody came: it closes
	}

	// Lanes created while the compaction runs must survive it.
	created := make(chan []string)
	go func() {
		var ids []string
		for i := range 20 {
			l, err := s.lobby.Create(context.Background(), fmt.Sprintf("new %d", i))
			if err == nil {
				ids = append(ids, l.ID())
			}
		}
		created <- ids
	}()
	if err := s.lobby.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	fresh := <-created
	// The first round only snapshots: each round drops what the round
	// before it replaced.
	if err := s.lobby.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(fresh) != 20 {
		t.Fatalf("%d of 20 lanes created during the compaction", len(fresh))
	}
	logs, err := j.Lanes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]game.Log{}
	for _, log := range logs {
		byID[log.Lane] = log
	}
	if _, ok := byID[closing]; ok {
		t.Error("the closed lane's log survived the compaction")
	}
	if log := byID[playing]; len(log.Events) != 2 || log.Events[0].Kind != game.Snapshot || log.Events[1].Kind != game.Snapshot {
		t.Errorf("the open lane's log after two compactions = %d events, first %v; want its two snapshots", len(log.Events), log.Events[0].Kind)
	}
	for _, id := range fresh {
		// Nobody joined them, so they may have closed since, and then the
		// second round may drop their opening: a closed lane's log may go.
		// An open one must still start with its opening or a snapshot.
		log := byID[id]
		closed := slices.ContainsFunc(log.Events, func(e game.Event) bool { return e.Kind == game.Closed })
		if !closed && (len(log.Events) == 0 || log.Events[0].Kind != game.Opened && log.Events[0].Kind != game.Snapshot) {
			t.Errorf("lane %s, created during the compaction and open, has the log %+v", id, log.Events)
		}
	}

	playRolls(t, r, model, players, 5) // appends after the compaction are fenced on the snapshot
	before := getBoard(t, s, playing)
	s = restart(t, dir, stop, j, -1)
	after := getBoard(t, s, playing)
	if !slices.EqualFunc(after.Players, before.Players, samePlayer) || after.Seq <= before.Seq {
		t.Errorf("after the restart:\n%s (seq %d)\nbefore:\n%s (seq %d)", after.raw, after.Seq, before.raw, before.Seq)
	}
	checkBoard(t, "after the restart", after, model)
}

// sameUp is who is up and where, without how long until they may be
// skipped: after a restart every player is offline.
func sameUp(u protocol.Up) [4]int { return [4]int{u.Seat, u.Frame, u.Ball, u.Standing} }
