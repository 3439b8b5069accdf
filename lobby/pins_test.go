package lobby_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// TestPinsOverTheWire rolls by decks and fouls over a real connection, as
// the page's pin deck sends them, with names of any script: the board
// shows the split, each ball's deck, the fouls and the pins standing for
// the ball up; a deck that cannot be is refused and changes nothing.
func TestPinsOverTheWire(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "pins")
	jo, hong := s.dial(t, id), s.dial(t, id)
	jo.join(t, "Jo")
	hong.join(t, "홍길동")
	jo.send(t, map[string]any{"type": "start"})
	b := jo.boardWith(t, "the game started", func(m msg) bool { return m.Phase == protocol.PhasePlaying })
	if b.Up == nil || !reflect.DeepEqual(b.Up.Deck, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) {
		t.Fatalf("up before the first ball = %+v, want all ten pins standing", b.Up)
	}

	roll := func(c *client, ref string, fields map[string]any) msg {
		t.Helper()
		m := map[string]any{"type": "roll", "id": ref}
		for k, v := range fields {
			m[k] = v
		}
		c.send(t, m)
		return c.waitFor(t, "answer to "+ref, func(m msg) bool { return m.Ref == ref })
	}
	refused := []struct {
		ref    string
		fields map[string]any
		why    string
	}{
		{"pin 11", map[string]any{"frame": 1, "ball": 1, "deck": []int{7, 11}}, "pin 11"},
		{"twice", map[string]any{"frame": 1, "ball": 1, "deck": []int{7, 7}}, "7"},
		{"disagrees", map[string]any{"frame": 1, "ball": 1, "deck": []int{7, 10}, "pins": 7}, "leave"},
		{"foul with pins", map[string]any{"frame": 1, "ball": 1, "foul": true, "pins": 3}, "foul"},
	}
	for _, r := range refused {
		if m := roll(jo, r.ref, r.fields); m.Type != protocol.TypeError || m.Code != protocol.CodeInvalidPins || !strings.Contains(m.Message, r.why) {
			t.Errorf("roll %s = %s, want invalid_pins saying %q", r.ref, m.raw, r.why)
		}
	}

	if m := roll(jo, "7-10", map[string]any{"frame": 1, "ball": 1, "deck": []int{7, 10}}); m.Type != protocol.TypeAck {
		t.Fatalf("a roll leaving the 7-10 = %s", m.raw)
	}
	b = jo.boardWith(t, "Jo's 7-10", func(m msg) bool { return len(m.Players[0].Frames) == 1 })
	f := b.Players[0].Frames[0]
	if f.Marks != "(8)" || !f.Split || !reflect.DeepEqual(f.Rolls, []int{8}) || len(f.Decks) != 1 || f.Decks[0] == nil || !reflect.DeepEqual(*f.Decks[0], []int{7, 10}) {
		t.Errorf("Jo's first frame = %+v, want a split of 8 leaving 7-10", f)
	}
	if b.Up == nil || b.Up.Ball != 2 || !reflect.DeepEqual(b.Up.Deck, []int{7, 10}) || b.Up.Standing != 2 {
		t.Errorf("up = %+v, want Jo's second ball facing the 7-10", b.Up)
	}
	if m := roll(jo, "a pin that is down", map[string]any{"frame": 1, "ball": 2, "deck": []int{9}}); m.Code != protocol.CodeInvalidPins || !strings.Contains(m.Message, "pin 9") {
		t.Errorf("a deck naming a pin already down = %s, want invalid_pins", m.raw)
	}
	if m := roll(jo, "made", map[string]any{"frame": 1, "ball": 2, "deck": []int{}}); m.Type != protocol.TypeAck {
		t.Fatalf("the split made = %s", m.raw)
	}
	if m := roll(hong, "foul", map[string]any{"frame": 1, "ball": 1, "foul": true}); m.Type != protocol.TypeAck {
		t.Fatalf("a foul = %s", m.raw)
	}
	if m := roll(hong, "ten", map[string]any{"frame": 1, "ball": 2, "pins": 10}); m.Type != protocol.TypeAck {
		t.Fatalf("ten after a foul = %s", m.raw)
	}
	b = jo.boardWith(t, "홍길동's F|/", func(m msg) bool { return len(m.Players[1].Frames) == 1 && len(m.Players[1].Frames[0].Rolls) == 2 })
	if f := b.Players[0].Frames[0]; f.Marks != "(8)|/" || !reflect.DeepEqual(*f.Decks[1], []int{}) {
		t.Errorf("Jo's first frame = %+v, want (8)|/, the second ball leaving no pin", f)
	}
	if strings.Contains(b.raw, `"fouls":[]`) || strings.Contains(b.raw, `"decks":[]`) {
		t.Errorf("a board names fouls or decks of frames that have none: %s", b.raw)
	}
	if f := b.Players[1].Frames[0]; f.Marks != "F|/" || !reflect.DeepEqual(f.Fouls, []int{1}) || f.Decks != nil || b.Players[1].Name != "홍길동" {
		t.Errorf("%s's first frame = %+v, want F|/ with ball 1 a foul and no deck", b.Players[1].Name, f)
	}
	if b.Up == nil || b.Up.Seat != 0 || b.Up.Frame != 2 || len(b.Up.Deck) != 10 {
		t.Errorf("up = %+v, want Jo's second frame on a fresh rack", b.Up)
	}

	// Counts and decks mix: after a count, the pins standing are not known.
	if m := roll(jo, "count", map[string]any{"frame": 2, "ball": 1, "pins": 6}); m.Type != protocol.TypeAck {
		t.Fatalf("a count = %s", m.raw)
	}
	b = jo.boardWith(t, "Jo's 6", func(m msg) bool { return len(m.Players[0].Frames) == 2 })
	if b.Up == nil || b.Up.Deck != nil || b.Up.Standing != 4 {
		t.Errorf("up after a count = %+v, want 4 standing, which unknown", b.Up)
	}

	// A correction names a deck too: Jo's 6 left the 4-7-10, a split.
	jo.send(t, map[string]any{"type": "correct", "frame": 2, "ball": 1, "deck": []int{4, 7, 10}, "id": "fix"})
	jo.expectAck(t, "fix")
	b = jo.boardWith(t, "the correction", func(m msg) bool { return m.Players[0].Frames[1].Split })
	if f := b.Players[0].Frames[1]; f.Marks != "(7)" || !f.Corrected {
		t.Errorf("Jo's second frame corrected = %+v, want a split of 7, marked corrected", f)
	}

	// The night's numbers so far: no game finished, the balls counted.
	var stats protocol.Stats
	getJSON(t, s.srv.URL+"/api/lanes/"+id+"/stats", &stats)
	half, zero := 7.5, 0.0
	want := []protocol.PlayerStats{
		{Name: "Jo", StrikeChances: 2, Spares: 1, SpareChances: 1, FirstBallAvg: &half, Splits: 2, SplitsMade: 1},
		{Name: "홍길동", StrikeChances: 1, Spares: 1, SpareChances: 1, FirstBallAvg: &zero, Fouls: 1},
	}
	if !reflect.DeepEqual(stats.Players, want) {
		t.Errorf("stats = %+v\nwant %+v", stats.Players, want)
	}
}
