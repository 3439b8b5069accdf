package natspeers_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/lobby/server/servertest"
	"github.com/tenpin/tenpin/protocol"
)

// TestLeagueLaneOutlivesItsNode: a league night's lane, opened on a node
// with short idle and abandon timeouts, outlasts several of them with
// Kim's ball bowled and nobody on it; its node dies; a survivor takes the
// lane over with nobody on it, and Kim, at the league page's link on
// that node, takes her place back and bowls on.
func TestLeagueLaneOutlivesItsNode(t *testing.T) {
	t.Parallel()
	const idle = 50 * time.Millisecond
	logs := servertest.NewLogCount(t, slog.LevelError)
	nodes := servertest.StartCluster(t, 3, server.Config{
		Logger: slog.New(logs),
		Lobby:  lobby.Config{Lane: lane.Config{IdleTimeout: idle, AbandonTimeout: idle}},
	})
	owner, other := nodes[2], nodes[0]
	ctx := t.Context()
	lg, err := owner.API.CreateLeague(ctx, protocol.CreateLeague{
		Name: "Small", GamesPerNight: 1, Weeks: 2,
		Teams: []protocol.LeagueTeam{
			{Name: "Pin Pals", Bowlers: []protocol.LeagueBowler{{Name: "Kim", Average: 150}}},
			{Name: "Strikers", Bowlers: []protocol.LeagueBowler{{Name: "Park", Average: 170}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	opened, err := owner.API.OpenWeek(ctx, lg.ID, lg.SecretaryKey, 1, protocol.OpenWeek{})
	if err != nil {
		t.Fatal(err)
	}
	id := opened.Matches[0].Lane
	if _, ok := owner.Lobby.Get(id); !ok {
		t.Fatalf("the night's lane %s does not run on %s, which opened the night", id, owner.Name)
	}
	kim := dial(t, owner, id, "Kim")
	kim.invite = opened.Matches[0].HomeInvite
	kim.join()
	kim.roll(1, 1, 9)
	kim.conn.Close()
	const stayedOpen = "the lane stays open: its league night is open"
	polltest.Until(t, wait, "the lane to outlast its idle timeouts", func() (any, bool) {
		n := logs.Count(stayedOpen, id)
		return n, n >= 3
	})

	owner.Stop()
	polltest.Until(t, wait, "a survivor to take the lane over", func() (any, bool) {
		_, on0 := nodes[0].Lobby.Get(id)
		_, on1 := nodes[1].Lobby.Get(id)
		return [2]bool{on0, on1}, on0 || on1
	})
	got, err := other.API.League(ctx, lg.ID)
	if err != nil {
		t.Fatal(err)
	}
	if link := got.Schedule[0].Matches[0].Lane; link != id {
		t.Fatalf("the league page's link on %s: lane %s, want %s", other.Name, link, id)
	}
	back := dial(t, other, id, "Kim")
	ctxResume, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if _, err := back.conn.Resume(ctxResume, kim.token); err != nil {
		t.Fatalf("Kim takes her place back on %s: %v", other.Name, err)
	}
	back.roll(1, 2, 0)
}
