package lobby_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/lobby/natsstore"
	"github.com/tenpin/tenpin/protocol"
)

// bowlANight has PJS and BOB bowl a whole game on lane id of s (PJS all
// strikes, BOB all 9s and misses), start the next and bowl one ball of
// it, then leave: a night of one finished game and one unfinished. It
// returns the lane.
func bowlANight(t *testing.T, s *testServer, id string) *lane.Lane {
	t.Helper()
	l, ok := s.lobby.Get(id)
	if !ok {
		t.Fatal("no lane right after creation")
	}
	c := s.dial(t, id)
	c.join(t, "PJS")
	c.send(t, map[string]any{"type": "join", "name": "BOB", "id": "bob"})
	c.expectError(t, "bob", string(protocol.CodeAlreadySeated))
	b := s.dial(t, id)
	b.join(t, "BOB")
	c.send(t, map[string]any{"type": "start", "id": "start"})
	c.expectAck(t, "start")
	n := 0
	ball := func(who *client, frame, ball, pins int) {
		n++
		roll(t, who, frame, ball, pins, fmt.Sprint("r", n))
	}
	for frame := 1; frame <= 10; frame++ {
		ball(c, frame, 1, 10)
		if frame == 10 {
			ball(c, 10, 2, 10)
			ball(c, 10, 3, 10)
		}
		ball(b, frame, 1, 9)
		ball(b, frame, 2, 0)
	}
	c.send(t, map[string]any{"type": "rematch", "id": "again"})
	c.expectAck(t, "again")
	c.send(t, map[string]any{"type": "start", "id": "start2"})
	c.expectAck(t, "start2")
	ball(c, 1, 1, 7)
	c.ws.CloseNow()
	b.ws.CloseNow()
	select {
	case <-l.Done():
	case <-time.After(wait):
		t.Fatal("the lane did not close once idle")
	}
	return l
}

// checkKept checks that lane id of s answers as a kept lane: its board
// read-only, with when it closed, and its series, numbers and exports.
func checkKept(t *testing.T, s *testServer, id string) {
	t.Helper()
	base := s.srv.URL + "/api/lanes/" + id
	var board protocol.Board
	getJSON(t, base, &board)
	if board.ClosedAt == nil || time.Since(*board.ClosedAt) > time.Hour || board.Lane != id || board.Up != nil {
		t.Errorf("the kept lane's board: closed_at %v, lane %q, up %+v; want when it closed, %q, nobody up", board.ClosedAt, board.Lane, board.Up, id)
	}
	if len(board.Players) != 2 || board.Players[0].Name != "PJS" || board.Players[0].Connected || len(board.Series) != 2 {
		t.Errorf("the kept lane's board: players %+v, series %+v; want PJS and BOB, offline, and their series", board.Players, board.Series)
	}
	var games protocol.Games
	getJSON(t, base+"/games", &games)
	if len(games.Games) != 2 || !games.Games[0].Finished || games.Games[1].Finished {
		t.Fatalf("the kept lane's games: %+v; want game 1 finished and game 2 unfinished", games)
	}
	if p := games.Games[0].Players; p[0].Total != 300 || p[1].Total != 90 {
		t.Errorf("the kept lane's game 1: %+v; want PJS 300, BOB 90", p)
	}
	if p := games.Games[1].Players; p[0].Frames[0].Rolls[0] != 7 {
		t.Errorf("the kept lane's game 2: %+v; want PJS's 7 in frame 1", p)
	}
	var stats protocol.Stats
	getJSON(t, base+"/stats", &stats)
	if len(stats.Players) != 2 || stats.Players[0].Games != 1 || stats.Players[0].High != 300 {
		t.Errorf("the kept lane's numbers: %+v; want PJS's one game of 300 among them", stats)
	}
	for _, path := range []string{"/games.csv", "/games/1.svg", "/games/1.svg?lang=ko", "/board.txt"} {
		status, _, body := get(t, base+path)
		if status != http.StatusOK || !strings.Contains(string(body), "PJS") {
			t.Errorf("GET %s of the kept lane: %d %.80q; want 200 and PJS's games", path, status, body)
		}
	}
	if status, _, _ := get(t, base+"/games/3.svg"); status != http.StatusNotFound {
		t.Errorf("GET games/3.svg of the kept lane of 2 games: %d, want 404", status)
	}
}

// TestAClosedLanesNightIsKept: a lane that closes once idle keeps its
// night — its board read-only, its finished game and the unfinished one
// marked so, its numbers and exports — while a lane closed with no ball
// bowled is gone as before. Without the archive the closed lane is 404.
func TestAClosedLanesNightIsKept(t *testing.T) {
	s := newServer(t, lobby.Config{
		Archive: memjournal.NewArchive(0),
		Lane:    lane.Config{IdleTimeout: 50 * time.Millisecond, AbandonTimeout: 50 * time.Millisecond},
	})
	id := s.createLane(t, "Friday night")
	bowlANight(t, s, id)
	checkKept(t, s, id)
	if _, ok := s.lobby.Get(id); ok {
		t.Error("the kept lane is still among the open lanes")
	}
	if lanes := s.lobby.Listed(); len(lanes) != 0 {
		t.Errorf("the lobby lists %+v; want no lane: a kept lane is not open", lanes)
	}

	empty := s.createLane(t, "nobody bowled")
	l, _ := s.lobby.Get(empty)
	c := s.dial(t, empty)
	c.join(t, "AAA")
	c.ws.CloseNow()
	select {
	case <-l.Done():
	case <-time.After(wait):
		t.Fatal("the lane nobody bowled on did not close")
	}
	// Stopped, a lane is out of the lobby a moment later; till then the
	// API still shows its last board.
	polltest.Until(t, wait, "the lobby to let the closed lane go", func() (any, bool) {
		_, open := s.lobby.Get(empty)
		return open, !open
	})
	if status, _, _ := get(t, s.srv.URL+"/api/lanes/"+empty); status != http.StatusNotFound {
		t.Errorf("GET a closed lane nobody bowled on: %d, want 404: there was no night to keep", status)
	}
}

// TestKeptNightsPerAddress: the nights kept of lanes created from one
// address are bounded a day (Config.KeptPerAddr): past them, a lane
// closes once idle, its night unkept, rather than staying open.
func TestKeptNightsPerAddress(t *testing.T) {
	s := newServer(t, lobby.Config{
		Archive:     memjournal.NewArchive(0),
		KeptPerAddr: 2,
		Lane:        lane.Config{IdleTimeout: 50 * time.Millisecond, AbandonTimeout: 50 * time.Millisecond},
	})
	var ids []string
	for i := range 3 {
		id := s.createLane(t, fmt.Sprint("night ", i))
		bowlANight(t, s, id)
		ids = append(ids, id)
	}
	checkKept(t, s, ids[0])
	checkKept(t, s, ids[1])
	polltest.Until(t, wait, "the lobby to let the unkept lane go", func() (any, bool) {
		_, open := s.lobby.Get(ids[2])
		return open, !open
	})
	if status, _, _ := get(t, s.srv.URL+"/api/lanes/"+ids[2]); status != http.StatusNotFound {
		t.Errorf("GET the third closed lane of one address: %d, want 404: its night was not kept", status)
	}
}

// flakyArchive is an archive whose Keep fails while failing is set: a
// store that does not answer for a while.
type flakyArchive struct {
	*memjournal.Archive
	failing atomic.Bool
	tries   atomic.Int32
}

func (a *flakyArchive) Keep(ctx context.Context, id string, sheet []byte) error {
	a.tries.Add(1)
	if a.failing.Load() {
		return errors.New("the store does not answer")
	}
	return a.Archive.Keep(ctx, id, sheet)
}

// TestALaneWhoseNightCannotBeKeptStaysOpen: while the archive fails, an
// idle lane does not close (its log would be dropped, and its night with
// it); it tries again, and closes once its night is kept.
func TestALaneWhoseNightCannotBeKeptStaysOpen(t *testing.T) {
	a := &flakyArchive{Archive: memjournal.NewArchive(0)}
	a.failing.Store(true)
	s := newServer(t, lobby.Config{
		Archive: a,
		Lane:    lane.Config{IdleTimeout: 20 * time.Millisecond, AbandonTimeout: 20 * time.Millisecond},
	})
	l := leftAfter(t, s, 3)
	id := l.ID()
	polltest.Until(t, wait, "the lane to try to keep its night 3 times", func() (any, bool) {
		select {
		case <-l.Done():
			t.Fatal("the lane closed though its night could not be kept")
		default:
		}
		n := a.tries.Load()
		return fmt.Sprint(n, " tries"), n >= 3
	})
	if status, _, _ := get(t, s.srv.URL+"/api/lanes/"+id); status != http.StatusOK {
		t.Errorf("GET the lane that stays open: %d, want 200", status)
	}
	a.failing.Store(false)
	select {
	case <-l.Done():
	case <-time.After(wait):
		t.Fatal("the lane did not close once its night could be kept")
	}
	var board protocol.Board
	getJSON(t, s.srv.URL+"/api/lanes/"+id, &board)
	if board.ClosedAt == nil || len(board.Players) != 1 || board.Players[0].Frames[0].Rolls[0] != 3 {
		t.Errorf("the kept board: %+v; want AAA's 3, closed", board)
	}
}

// TestAKeptNightSurvivesARestartAndExpires: in the real store, a kept
// lane's sheet outlives a restart of the server, and is gone once its keep
// time is over.
func TestAKeptNightSurvivesARestartAndExpires(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	archive, err := j.Archive(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := durable(j)
	cfg.Archive = archive
	cfg.Lane.IdleTimeout, cfg.Lane.AbandonTimeout = 50*time.Millisecond, 50*time.Millisecond
	s, stop := startServer(t, cfg, nil)
	id := s.createLane(t, "Friday night")
	bowlANight(t, s, id)
	checkKept(t, s, id)

	// A compaction drops the closed lane's log: the sheet does not need it.
	if err := s.lobby.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.lobby.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	stop()
	j.Close()

	// Restarted: the sheet is there. Kept a second from now on: it is
	// gone (a changed keep time applies to the sheets kept already).
	j = openJournal(t, dir)
	if archive, err = j.Archive(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	cfg = durable(j)
	cfg.Archive = archive
	s, _ = startServer(t, cfg, restoring(t, 0))
	checkKept(t, s, id)
	if _, err = j.Archive(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
	// JetStream expires it on its own time.
	polltest.Until(t, wait, "the kept lane to be dropped after its keep time", func() (any, bool) {
		status, _, body := get(t, s.srv.URL+"/api/lanes/"+id)
		if status != http.StatusNotFound && (status != http.StatusOK || !strings.Contains(string(body), `"closed_at"`)) {
			t.Fatalf("GET the kept lane: %d %s; want it kept, then 404", status, body)
		}
		return fmt.Sprint(status, " ", string(body)), status == http.StatusNotFound
	})
}

var _ lobby.Archive = (*natsstore.Archive)(nil)
var _ lobby.Archive = (*memjournal.Archive)(nil)

// TestAFailedKeepCostsNoNight: a night the archive failed to keep costs
// its address none of the nights it may have kept a day (Config.
// KeptPerAddr): with one a day, the night is kept once the archive takes
// it, however many tries failed before.
func TestAFailedKeepCostsNoNight(t *testing.T) {
	a := &flakyArchive{Archive: memjournal.NewArchive(0)}
	a.failing.Store(true)
	s := newServer(t, lobby.Config{
		Archive:     a,
		KeptPerAddr: 1,
		Lane:        lane.Config{IdleTimeout: 20 * time.Millisecond, AbandonTimeout: 20 * time.Millisecond},
	})
	l := leftAfter(t, s, 3)
	polltest.Until(t, wait, "the lane to try to keep its night 3 times", func() (any, bool) {
		n := a.tries.Load()
		return fmt.Sprint(n, " tries"), n >= 3
	})
	a.failing.Store(false)
	select {
	case <-l.Done():
	case <-time.After(wait):
		t.Fatal("the lane did not close once its night could be kept")
	}
	var board protocol.Board
	getJSON(t, s.srv.URL+"/api/lanes/"+l.ID(), &board)
	if board.ClosedAt == nil {
		t.Errorf("the board after the archive took it: %+v; want the kept night", board)
	}
}
