package lobby_test

import (
	"fmt"
	"testing"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// TestHeldKeyBowlsOneBall: ten identical rolls sent back to back (a held
// key, a double tap) are one ball: the first is applied, the other nine
// are refused as stale_roll and change nothing.
func TestHeldKeyBowlsOneBall(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "held key")
	c := s.dial(t, id)
	c.join(t, "PJS")
	c.send(t, map[string]any{"type": "start", "id": "start"})
	c.expectAck(t, "start")
	for i := range 10 {
		c.send(t, map[string]any{"type": "roll", "pins": 0, "frame": 1, "ball": 1, "id": fmt.Sprint(i)})
	}
	c.expectAck(t, "0")
	for i := 1; i < 10; i++ {
		c.expectError(t, fmt.Sprint(i), "stale_roll")
	}
	b := getBoard(t, s, id)
	if len(b.Players[0].Frames) != 1 || len(b.Players[0].Frames[0].Rolls) != 1 || b.Up == nil || b.Up.Ball != 2 {
		t.Errorf("after ten identical rolls: %s, up %+v; want one ball bowled, ball 2 up", b.raw, b.Up)
	}
}

// TestStrangerCannotStart: someone who joins a waiting lane from the
// lobby is not its host, and cannot start the friends' game; the host can,
// and may enter the stranger's balls for them.
func TestStrangerCannotStart(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "friends")
	host, stranger := s.dial(t, id), s.dial(t, id)
	host.join(t, "PJS")
	stranger.join(t, "ZZZ")
	if b := getBoard(t, s, id); b.Host != "PJS" {
		t.Errorf("host on the board = %q, want PJS", b.Host)
	}
	stranger.send(t, map[string]any{"type": "start", "id": "s"})
	stranger.expectError(t, "s", "not_host")
	host.send(t, map[string]any{"type": "start", "id": "s"})
	host.expectAck(t, "s")
	host.send(t, map[string]any{"type": "roll", "pins": 10, "frame": 1, "ball": 1, "id": "mine"})
	host.expectAck(t, "mine")
	host.send(t, map[string]any{"type": "roll", "pins": 4, "frame": 1, "ball": 1, "name": "zzz", "id": "for-zzz"})
	host.expectAck(t, "for-zzz")
	stranger.send(t, map[string]any{"type": "roll", "pins": 4, "frame": 1, "ball": 1, "id": "again"})
	stranger.expectError(t, "again", "stale_roll") // the host entered it already
	if b := getBoard(t, s, id); b.Players[1].Frames[0].Marks != "4" {
		t.Errorf("ZZZ's first frame = %+v, want the 4 the host entered", b.Players[1].Frames[0])
	}
}

// TestSeriesIsKept: after a rematch the games endpoint lists the finished
// game and the new one, and the finished game survives a restart.
func TestSeriesIsKept(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	s, stop := startServer(t, durable(j), nil)
	id := s.createLane(t, "series")
	c := s.dial(t, id)
	c.join(t, "PJS")
	c.send(t, map[string]any{"type": "start", "id": "start"})
	c.expectAck(t, "start")
	// Strike, spare, open frames, then the rest: 10 | 7 3 | 4 2 | 0 0 ...
	rolls := []int{10, 7, 3, 4, 2}
	for len(rolls) < 19 {
		rolls = append(rolls, 0)
	}
	model, _ := bowling.NewMatch("PJS")
	for i, pins := range rolls {
		_, frame, _ := model.Up()
		ball := model.Players()[0].Game.Ball()
		c.send(t, map[string]any{"type": "roll", "pins": pins, "frame": frame, "ball": ball, "id": fmt.Sprint(i)})
		c.expectAck(t, fmt.Sprint(i))
		model.Roll(pins)
	}
	c.send(t, map[string]any{"type": "rematch", "id": "again"})
	c.expectAck(t, "again")
	check := func(s *testServer) {
		t.Helper()
		var got protocol.Games
		getJSON(t, s.srv.URL+"/api/lanes/"+id+"/games", &got)
		if len(got.Games) != 2 {
			t.Fatalf("games = %+v, want the finished one and the new one", got)
		}
		first, second := got.Games[0], got.Games[1]
		p := first.Players[0]
		if first.Game != 1 || !first.Finished || p.Name != "PJS" || p.Total != model.Players()[0].Game.Total() || p.Strikes != 1 || p.Spares != 1 || p.Opens != 8 || len(p.Frames) != 10 {
			t.Errorf("game 1 = %+v, want PJS %d: 1 strike, 1 spare, 8 open", first, model.Players()[0].Game.Total())
		}
		if second.Game != 2 || second.Finished || len(second.Players) != 1 || second.Players[0].Total != 0 {
			t.Errorf("game 2 = %+v, want the new game, not finished", second)
		}
	}
	check(s)
	check(restart(t, dir, stop, j, 1))
}
