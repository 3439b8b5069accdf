package server_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/lobby/natsstore"
	"github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/lobby/server/servertest"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// tinyBudgets leaves room for a test's lanes and leagues, and for a
// handful of bowlers and kept nights.
var tinyBudgets = natsstore.Budgets{Lanes: 4 << 20, Kept: 4 << 10, Bowlers: 4 << 10, Leagues: 1 << 20}

// get answers GET url's status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// fillBowlers makes bowlers in n's store until its budget refuses one.
func fillBowlers(t *testing.T, n *servertest.Node) {
	t.Helper()
	b, err := n.Journal.Bowlers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		_, err := b.Create(t.Context(), bowler.NewID(), bowler.HashKey(fmt.Sprint("filler", i)), "Filler", time.Now())
		if errors.Is(err, game.ErrStorageFull) {
			return
		}
		if err != nil {
			t.Fatalf("a filler bowler: %v", err)
		}
	}
	t.Fatal("1000 bowlers made and no refusal: the bowlers' budget is not set")
}

// playRemembered creates an open lane on n, joins it asking to be
// remembered, and bowls a ball: it returns the lane's id, the welcome and
// the player's connection.
func playRemembered(t *testing.T, n *servertest.Node) (string, *protocol.Welcome, *client.Conn) {
	t.Helper()
	ctx := t.Context()
	l, err := n.API.Create(ctx, protocol.CreateLane{Name: "Friday", GiveAway: true, Open: true})
	if err != nil {
		t.Fatalf("create a lane: %v", err)
	}
	c, err := n.API.Dial(ctx, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	m, err := c.Do(ctx, protocol.Request{Type: protocol.TypeJoin, Name: "Kim", Remember: true})
	if err != nil {
		t.Fatalf("join with remember: %v", err)
	}
	w, ok := m.(*protocol.Welcome)
	if !ok {
		t.Fatalf("join with remember answered %T, want a welcome", m)
	}
	if _, err := c.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	if _, err := c.Roll(ctx, 1, 1, 7); err != nil {
		t.Fatalf("roll: %v", err)
	}
	return l.ID, w, c
}

// TestBowlersBudgetFull: with the bowlers' budget full, a join with
// "remember" is seated as a guest and told why, the lane plays on,
// /healthz is 200 and names the full budget; and a restart on that store
// starts and serves the same.
func TestBowlersBudgetFull(t *testing.T) {
	dir := t.TempDir()
	cfg := server.Config{Store: natsconn.Config{Dir: dir}, Budgets: tinyBudgets}
	n := servertest.Start(t, cfg)
	fillBowlers(t, n)

	_, w, _ := playRemembered(t, n)
	if w.BowlerKey != "" || w.Guest == nil || w.Guest.Code != protocol.CodeStorageFull {
		t.Errorf("welcome of a remembered join, bowlers full = key %q, guest %+v; want no key and guest storage_full", w.BowlerKey, w.Guest)
	}
	if status, body := get(t, n.URL+"/healthz"); status != http.StatusOK || body != "ok\nfull: bowlers\n" {
		t.Errorf("/healthz with the bowlers' budget full = %d %q, want 200 %q", status, body, "ok\nfull: bowlers\n")
	}
	n.Shutdown()

	// The store holds less than its budget, but too much for another
	// bowler: the first refusal names it.
	again := servertest.Start(t, cfg)
	if status, _ := get(t, again.URL+"/healthz"); status != http.StatusOK {
		t.Errorf("/healthz restarted on the full store = %d, want 200", status)
	}
	if _, w, _ := playRemembered(t, again); w.Guest == nil || w.Guest.Code != protocol.CodeStorageFull {
		t.Errorf("welcome of a remembered join after the restart = guest %+v, want storage_full", w.Guest)
	}
	if status, body := get(t, again.URL+"/healthz"); status != http.StatusOK || body != "ok\nfull: bowlers\n" {
		t.Errorf("/healthz restarted on the full store = %d %q, want 200 %q", status, body, "ok\nfull: bowlers\n")
	}
}

// TestKeptBudgetFull: with the kept nights' budget full, a lane that
// closes is not kept but closes all the same (it does not hold its place
// among the server's lanes), and its link says why: 507 storage_full.
func TestKeptBudgetFull(t *testing.T) {
	cfg := server.Config{Store: natsconn.Config{Dir: t.TempDir()}, Budgets: tinyBudgets}
	cfg.Lobby.Lane.IdleTimeout, cfg.Lobby.Lane.AbandonTimeout = 100*time.Millisecond, 100*time.Millisecond
	n := servertest.Start(t, cfg)
	a, err := n.Journal.Archive(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		err := a.Keep(t.Context(), fmt.Sprint("filler", i), make([]byte, 500))
		if errors.Is(err, game.ErrStorageFull) {
			break
		}
		if err != nil || i == 1000 {
			t.Fatalf("a filler night %d: %v", i, err)
		}
	}

	id, _, c := playRemembered(t, n)
	c.CloseNow() // everyone leaves: the lane closes once abandoned
	polltest.Until(t, 10*time.Second, "the lane's link answering storage_full", func() (any, bool) {
		status, body := get(t, n.URL+"/api/lanes/"+id)
		return fmt.Sprint(status, " ", body), status == http.StatusInsufficientStorage
	})
	if status, body := get(t, n.URL+"/healthz"); status != http.StatusOK || body != "ok\nfull: kept nights\n" {
		t.Errorf("/healthz = %d %q, want 200 naming kept nights", status, body)
	}
}

// TestLanesBudgetFull: with the lanes' budget full, a new lane is refused
// 507 storage_full, and /healthz answers the same, since no lane can be
// played (the watch of the store does not restart it for that); the
// other kinds keep their room.
func TestLanesBudgetFull(t *testing.T) {
	budgets := tinyBudgets
	budgets.Lanes = 16 << 10
	cfg := server.Config{Store: natsconn.Config{Dir: t.TempDir()}, Budgets: budgets}
	cfg.Lobby.CreateBurst, cfg.Lobby.LanesPerAddr = 1000, -1 // lanes enough to fill it, from one address
	n := servertest.Start(t, cfg)
	var err error
	for i := 0; err == nil; i++ {
		if i == 1000 {
			t.Fatal("1000 lanes made and no refusal: the lanes' budget is not set")
		}
		_, err = n.API.Create(t.Context(), protocol.CreateLane{Name: fmt.Sprint("Lane ", i), GiveAway: true, Open: true})
	}
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeStorageFull {
		t.Fatalf("a lane past the lanes' budget: %v, want storage_full", err)
	}
	status, body := get(t, n.URL+"/healthz")
	if status != http.StatusInsufficientStorage {
		t.Errorf("/healthz with the lanes' budget full = %d %q, want 507", status, body)
	}
	if got := n.Journal.Full(); len(got) != 1 || got[0] != natsstore.KindLanes {
		t.Errorf("Full() = %q, want lanes alone", got)
	}
}

// TestBowlersFullLaneCloses: a game that ends while the bowlers' budget
// is full is not recorded, and does not keep its lane open waiting for
// room that may never come (a lane waits while a game is being recorded).
func TestBowlersFullLaneCloses(t *testing.T) {
	cfg := server.Config{Store: natsconn.Config{Dir: t.TempDir()}, Budgets: tinyBudgets}
	cfg.Lobby.Lane.IdleTimeout, cfg.Lobby.Lane.AbandonTimeout = 100*time.Millisecond, 100*time.Millisecond
	n := servertest.Start(t, cfg)
	ctx := t.Context()
	id, w, c := playRemembered(t, n) // 7 in frame 1
	if w.BowlerKey == "" {
		t.Fatalf("a remembered join with room: welcome %+v, want a bowler key", w)
	}
	fillBowlers(t, n)
	rolls := [][3]int{{1, 2, 3}}
	for f := 2; f <= 9; f++ {
		rolls = append(rolls, [3]int{f, 1, 10})
	}
	rolls = append(rolls, [3]int{10, 1, 10}, [3]int{10, 2, 10}, [3]int{10, 3, 10})
	for _, r := range rolls {
		if _, err := c.Roll(ctx, r[0], r[1], r[2]); err != nil {
			t.Fatalf("roll %v: %v", r, err)
		}
	}
	c.CloseNow()
	polltest.Until(t, 10*time.Second, "the lane to close", func() (any, bool) {
		_, open := n.Lobby.Get(id)
		return open, !open
	})
}
