package lobby_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// TestHeldKeyBowlsOneBall: ten identical rolls sent back to back (a held
// key, a double tap) are one ball: the first is applied, the other nine
// are the ball bowled already, acknowledged, and change nothing; the same
// ball with another count is refused as stale_roll.
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
	for i := range 10 {
		c.expectAck(t, fmt.Sprint(i))
	}
	c.send(t, map[string]any{"type": "roll", "pins": 1, "frame": 1, "ball": 1, "id": "another"})
	c.expectError(t, "another", "stale_roll")
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
	stranger.send(t, map[string]any{"type": "roll", "pins": 5, "frame": 1, "ball": 1, "id": "again"})
	stranger.expectError(t, "again", "stale_roll") // the host entered a 4 already
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
		var board protocol.Board
		getJSON(t, s.srv.URL+"/api/lanes/"+id, &board)
		want := []protocol.SeriesPlayer{{Name: "PJS", Games: 1, Total: model.Players()[0].Game.Total()}}
		if board.Phase != protocol.PhaseWaiting || !slices.Equal(board.Series, want) {
			t.Errorf("board after the rematch: phase %s, series %+v; want waiting, %+v", board.Phase, board.Series, want)
		}
	}
	check(s)
	check(restart(t, dir, stop, j, 1))
}

// roll sends c's roll of pins for frame and ball and waits for its ack.
func roll(t *testing.T, c *client, frame, ball, pins int, ref string) {
	t.Helper()
	c.send(t, map[string]any{"type": "roll", "pins": pins, "frame": frame, "ball": ball, "id": ref})
	c.expectAck(t, ref)
}

// TestCorrections: a player corrects their own ball and the host
// anyone's; an impossible correction is refused with invalid_correction
// and changes nothing; everyone sees the corrected frame marked, and the
// games endpoint keeps who changed what, and what it was.
func TestCorrections(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "oops")
	pjs, bob, watcher := s.dial(t, id), s.dial(t, id), s.dial(t, id)
	pjs.join(t, "PJS")
	bob.join(t, "BOB")
	pjs.send(t, map[string]any{"type": "start", "id": "start"})
	pjs.expectAck(t, "start")
	roll(t, pjs, 1, 1, 7, "r1")
	roll(t, pjs, 1, 2, 2, "r2")
	roll(t, bob, 1, 1, 10, "r3")

	before := getBoard(t, s, id)
	pjs.send(t, map[string]any{"type": "correct", "frame": 1, "ball": 1, "pins": 10, "id": "strike"})
	pjs.expectError(t, "strike", "invalid_correction") // the 2 after it would not fit
	bob.send(t, map[string]any{"type": "correct", "frame": 1, "ball": 1, "pins": 8, "name": "PJS", "id": "not-mine"})
	bob.expectError(t, "not-mine", "not_host")
	if after := getBoard(t, s, id); after.raw != before.raw {
		t.Errorf("refused corrections changed the board:\n%s\n%s", before.raw, after.raw)
	}

	pjs.send(t, map[string]any{"type": "correct", "frame": 1, "ball": 1, "pins": 8, "id": "fix"})
	pjs.expectAck(t, "fix")
	b := watcher.boardWith(t, "PJS's frame corrected", func(m msg) bool {
		return len(m.Players) == 2 && len(m.Players[0].Frames) > 0 && m.Players[0].Frames[0].Corrected
	})
	if f := b.Players[0].Frames[0]; f.Marks != "8|/" || f.Score != nil {
		t.Errorf("PJS's corrected frame = %+v, want a spare 8|/ waiting for its bonus", f)
	}
	pjs.send(t, map[string]any{"type": "correct", "frame": 1, "ball": 1, "pins": 9, "name": "bob", "id": "host-fix"})
	pjs.expectAck(t, "host-fix")
	b = watcher.boardWith(t, "BOB's strike corrected to a 9", func(m msg) bool {
		return len(m.Players) == 2 && len(m.Players[1].Frames) > 0 && m.Players[1].Frames[0].Corrected
	})
	if b.Up == nil || b.Up.Seat != 1 || b.Up.Frame != 1 || b.Up.Ball != 2 || b.Up.Standing != 1 {
		t.Errorf("after BOB's strike became a 9, up = %+v; want BOB, frame 1 ball 2, 1 standing", b.Up)
	}

	var games protocol.Games
	getJSON(t, s.srv.URL+"/api/lanes/"+id+"/games", &games)
	cs := games.Games[0].Corrections
	if len(cs) != 2 || cs[0].Name != "PJS" || cs[0].By != "PJS" || cs[0].Was != 7 || cs[0].Pins != 8 ||
		cs[1].Name != "BOB" || cs[1].By != "PJS" || cs[1].Was != 10 || cs[1].Pins != 9 || cs[1].At.IsZero() {
		t.Errorf("corrections = %+v; want PJS's 7→8 by PJS, BOB's 10→9 by PJS, with their times", cs)
	}
}

// TestSkipAndCatchUp: a player up who is offline may be skipped only
// after the away time; the game goes on without them, and when they come
// back they bowl their missed frames first.
func TestSkipAndCatchUp(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{AwayAfter: 300 * time.Millisecond}})
	id := s.createLane(t, "phones lock")
	pjs, bob := s.dial(t, id), s.dial(t, id)
	pjs.join(t, "PJS")
	token := bob.join(t, "BOB").Token
	pjs.send(t, map[string]any{"type": "start", "id": "start"})
	pjs.expectAck(t, "start")
	roll(t, pjs, 1, 1, 3, "r1")
	roll(t, pjs, 1, 2, 4, "r2")

	pjs.send(t, map[string]any{"type": "skip", "id": "connected"})
	pjs.expectError(t, "connected", "not_away")
	bob.ws.Close(websocket.StatusNormalClosure, "phone locked")
	pjs.boardWith(t, "BOB offline", func(m msg) bool { return len(m.Players) == 2 && !m.Players[1].Connected })
	pjs.send(t, map[string]any{"type": "skip", "id": "too-soon"})
	pjs.expectError(t, "too-soon", "not_away")

	if b := getBoard(t, s, id); b.Up == nil || b.Up.SkipIn == nil || *b.Up.SkipIn > 1 {
		t.Errorf("while BOB, up, is offline, up = %+v; want skip_in, at most 1 (s)", b.Up)
	}
	// Once the away time has passed, a board says BOB may be skipped,
	// with nobody sending anything.
	pjs.boardWith(t, "BOB skippable", func(m msg) bool { return m.Up != nil && m.Up.SkipIn != nil && *m.Up.SkipIn == 0 })
	pjs.send(t, map[string]any{"type": "skip", "id": "skip"})
	pjs.expectAck(t, "skip")
	b := pjs.boardWith(t, "BOB away", func(m msg) bool { return len(m.Players) == 2 && m.Players[1].Away })
	if b.Up == nil || b.Up.Seat != 0 || b.Up.Frame != 2 {
		t.Errorf("after the skip up = %+v, want PJS in frame 2", b.Up)
	}
	roll(t, pjs, 2, 1, 10, "r3")
	roll(t, pjs, 3, 1, 1, "r4") // BOB is passed by frame after frame

	bob = s.dial(t, id)
	bob.send(t, map[string]any{"type": "resume", "token": token, "id": "back"})
	bob.waitFor(t, "welcome back", func(m msg) bool { return m.Ref == "back" })
	b = bob.boardWith(t, "BOB back, PJS's frame 3 to finish", func(m msg) bool {
		return len(m.Players) == 2 && !m.Players[1].Away && m.Players[1].Connected
	})
	if b.Up == nil || b.Up.Seat != 0 || b.Up.Frame != 3 || b.Up.Ball != 2 {
		t.Errorf("when BOB is back up = %+v, want PJS finishing frame 3", b.Up)
	}
	roll(t, pjs, 3, 2, 0, "r5")
	for frame := 1; frame <= 3; frame++ { // BOB catches up, frame by frame
		roll(t, bob, frame, 1, 2, fmt.Sprint("b", frame, 1))
		roll(t, bob, frame, 2, 2, fmt.Sprint("b", frame, 2))
	}
	if b := getBoard(t, s, id); b.Up == nil || b.Up.Seat != 0 || b.Up.Frame != 4 {
		t.Errorf("after BOB caught up, up = %+v; want PJS in frame 4, seat order again", b.Up)
	}
}

// TestHostRemovesAPlayer: the host removes a player for good: their
// frames stay, their connection is told and watches, their token no
// longer resumes the seat; nobody else may remove.
func TestHostRemovesAPlayer(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "remove")
	pjs, bob, amy := s.dial(t, id), s.dial(t, id), s.dial(t, id)
	pjs.join(t, "PJS")
	token := bob.join(t, "BOB").Token
	amy.join(t, "AMY")
	pjs.send(t, map[string]any{"type": "start", "id": "start"})
	pjs.expectAck(t, "start")
	roll(t, pjs, 1, 1, 10, "r1")
	roll(t, bob, 1, 1, 5, "r2")

	amy.send(t, map[string]any{"type": "remove", "name": "BOB", "id": "amy"})
	amy.expectError(t, "amy", "not_host")
	pjs.send(t, map[string]any{"type": "remove", "name": "bob", "id": "rm"})
	pjs.expectAck(t, "rm")
	notice := bob.waitFor(t, "the removed notice", func(m msg) bool { return m.Type == "error" && m.Ref == "" })
	if notice.Code != "removed" {
		t.Errorf("BOB was told %s, want the removed notice", notice.raw)
	}
	b := amy.boardWith(t, "BOB left, AMY up", func(m msg) bool { return len(m.Players) == 3 && m.Players[1].Left })
	if b.Up == nil || b.Up.Seat != 2 || len(b.Players[1].Frames) != 1 || b.Players[1].Connected {
		t.Errorf("after the removal: up %+v, BOB %+v; want AMY up, BOB's 5 kept and BOB's seat held by nobody", b.Up, b.Players[1])
	}
	bob.send(t, map[string]any{"type": "roll", "pins": 1, "frame": 1, "ball": 2, "id": "still"})
	bob.expectError(t, "still", "not_seated")
	again := s.dial(t, id)
	again.send(t, map[string]any{"type": "resume", "token": token, "id": "resume"})
	again.expectError(t, "resume", "bad_token")
}
