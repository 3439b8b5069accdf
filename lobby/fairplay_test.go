package lobby_test

import (
	"fmt"
	"testing"

	"github.com/tenpin/tenpin/lobby"
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
