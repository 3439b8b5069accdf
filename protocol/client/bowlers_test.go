package client_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
)

// TestABowlersHistory: a join asking to be remembered is welcomed with a
// bowler's key, made at the first ball, with which Me reads the bowler's numbers and MyGames the
// whole history, newest first, across the API's pages of 100.
func TestABowlersHistory(t *testing.T) {
	store := memjournal.NewBowlers()
	c := newLobby(t, lobby.Config{Lane: lane.Config{Bowlers: store}})
	ctx := ctxWait(t)
	l, err := c.CreateLane(ctx, "remembered")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := c.Dial(ctx, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w, err := conn.JoinRemember(ctx, "Mina", l.Invite)
	if err != nil || w.BowlerKey == "" {
		t.Fatalf("JoinRemember = %+v, %v; want a welcome with a bowler key", w, err)
	}
	if _, err := c.Me(ctx, w.BowlerKey); !isCode(err, protocol.CodeUnknownBowler) {
		t.Errorf("Me before the first ball = %v, want unknown_bowler: the bowler is made at the first ball", err)
	}
	if _, err := conn.Give(ctx, l.HostKey); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Roll(ctx, 1, 1, 7); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 10*time.Second, "Mina's bowler, made at her first ball, no games", func() (any, bool) {
		me, err := c.Me(ctx, w.BowlerKey)
		if err != nil {
			return err, false
		}
		return me, me.Name == "Mina" && me.Games == 0
	})

	r, err := store.Create(ctx, bowler.NewID(), bowler.HashKey("a phone's key"), "Kim", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	const games = 250
	for n := 1; n <= games; n++ {
		if _, _, err := store.Add(ctx, r.ID, bowler.Game{Lane: "l1", Game: n, Score: n % 301, Marks: []string{}}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := c.MyGames(ctx, "a phone's key")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != games || all[0].Game != games || all[games-1].Game != 1 {
		t.Fatalf("MyGames = %d games, from %v to %v; want %d, from %d to 1", len(all), first(all), first(all[len(all)-1:]), games, games)
	}
	if _, err := c.MyGames(ctx, "nobody's key"); !isCode(err, protocol.CodeUnknownBowler) {
		t.Errorf("MyGames with a key nobody holds: %v, want unknown_bowler", err)
	}
}

func first(games []protocol.BowlerGame) any {
	if len(games) == 0 {
		return "none"
	}
	return fmt.Sprint("game ", games[0].Game)
}
