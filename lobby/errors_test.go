package lobby_test

import (
	"testing"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
)

// boardSeq returns the lane's current seq through the API.
func (s *testServer) boardSeq(t *testing.T, id string) msg {
	t.Helper()
	var b msg
	getJSON(t, s.srv.URL+"/api/lanes/"+id, &b)
	return b
}

// TestErrorCodes sends every kind of refused message and checks its code,
// that the connection stays open, and that the lane did not change.
func TestErrorCodes(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{MaxPlayers: 2}})
	id := s.createLane(t, "errors")
	a, b, spectator := s.dial(t, id), s.dial(t, id), s.dial(t, id)
	a.join(t, "AAA")
	a.boardWith(t, "everyone attached", func(m msg) bool { return len(m.Players) == 1 && m.Spectators == 2 })

	type step struct {
		name string
		c    *client
		send string // raw message; every one carries "id":"e"
		code string
	}
	check := func(t *testing.T, steps []step) {
		for _, st := range steps {
			before := s.boardSeq(t, id)
			st.c.send(t, st.send)
			st.c.expectError(t, "e", st.code)
			if after := s.boardSeq(t, id); after.Seq != before.Seq {
				t.Errorf("%s: refused message changed the lane (seq %d → %d)", st.name, before.Seq, after.Seq)
			}
		}
	}
	t.Run("before the game", func(t *testing.T) {
		check(t, []step{
			{"wrong field type", b, `{"type":"roll","pins":"7","id":"e"}`, "bad_message"},
			{"fraction of a pin", b, `{"type":"roll","pins":7.5,"id":"e"}`, "bad_message"},
			{"missing field", b, `{"type":"roll","frame":1,"ball":1,"id":"e"}`, "bad_message"},
			{"no name", b, `{"type":"join","id":"e"}`, "invalid_name"},
			{"an empty name", b, `{"type":"join","name":"","id":"e"}`, "invalid_name"},
			{"extra field", b, `{"type":"start","pins":3,"id":"e"}`, "bad_message"},
			{"unknown field", b, `{"type":"start","color":"red","id":"e"}`, "bad_message"},
			{"no type", b, `{"id":"e"}`, "bad_message"},
			{"unknown type", b, `{"type":"dance","id":"e"}`, "unknown_type"},
			{"invalid name", b, `{"type":"join","name":"P1","id":"e"}`, "invalid_name"},
			{"hostile name", b, `{"type":"join","name":"<img src=x>","id":"e"}`, "invalid_name"},
			{"name taken", b, `{"type":"join","name":"aaa","id":"e"}`, "name_taken"},
			{"already seated", a, `{"type":"join","name":"ZZZ","id":"e"}`, "already_seated"},
			{"spectator starts", spectator, `{"type":"start","id":"e"}`, "not_seated"},
			{"roll before the start", a, `{"type":"roll","pins":3,"frame":1,"ball":1,"id":"e"}`, "not_playing"},
			{"roll with no frame", a, `{"type":"roll","pins":3,"ball":1,"id":"e"}`, "bad_message"},
			{"rematch before the end", a, `{"type":"rematch","id":"e"}`, "not_finished"},
			{"bad token", spectator, `{"type":"resume","token":"0f8fad5b-d9cb-469f-a165-70867728950e","id":"e"}`, "bad_token"},
			{"spectator leaves", spectator, `{"type":"leave","id":"e"}`, "not_seated"},
		})
		b.join(t, "BBB")
		check(t, []step{
			{"lane full", spectator, `{"type":"join","name":"CCC","id":"e"}`, "lane_full"},
			{"start by a player not the host", b, `{"type":"start","id":"e"}`, "not_host"},
		})
	})
	a.send(t, `{"type":"start","id":"s"}`)
	a.expectAck(t, "s")
	t.Run("during the game", func(t *testing.T) {
		check(t, []step{
			{"join a full lane after the start", spectator, `{"type":"join","name":"CCC","id":"e"}`, "lane_full"},
			{"start again", a, `{"type":"start","id":"e"}`, "game_started"},
			{"roll out of turn", b, `{"type":"roll","pins":3,"frame":1,"ball":1,"id":"e"}`, "not_your_turn"},
			{"roll for another, not the host", b, `{"type":"roll","pins":3,"frame":1,"ball":1,"name":"AAA","id":"e"}`, "not_host"},
			{"spectator rolls", spectator, `{"type":"roll","pins":3,"frame":1,"ball":1,"id":"e"}`, "not_seated"},
			{"eleven pins", a, `{"type":"roll","pins":11,"frame":1,"ball":1,"id":"e"}`, "invalid_pins"},
			{"negative pins", a, `{"type":"roll","pins":-1,"frame":1,"ball":1,"id":"e"}`, "invalid_pins"},
			{"a ball ahead", a, `{"type":"roll","pins":3,"frame":1,"ball":2,"id":"e"}`, "stale_roll"},
		})
		a.send(t, `{"type":"roll","pins":6,"frame":1,"ball":1,"id":"r"}`)
		a.expectAck(t, "r")
		check(t, []step{
			{"more than standing", a, `{"type":"roll","pins":5,"frame":1,"ball":2,"id":"e"}`, "invalid_pins"},
			{"the ball bowled, another count", a, `{"type":"roll","pins":5,"frame":1,"ball":1,"id":"e"}`, "stale_roll"},
		})
	})
	// Malformed JSON has no id to answer to, but is answered all the same.
	before := s.boardSeq(t, id)
	a.send(t, `{"type":`)
	m := a.waitFor(t, "error for malformed JSON", func(m msg) bool { return m.Type == "error" })
	if m.Code != "bad_message" || m.Ref != "" {
		t.Errorf("malformed JSON answered with %s", m.raw)
	}
	if after := s.boardSeq(t, id); after.Seq != before.Seq {
		t.Errorf("malformed JSON changed the lane")
	}
	// After all that, every connection is still open and the game goes on.
	a.send(t, `{"type":"roll","pins":4,"frame":1,"ball":2,"id":"ok"}`)
	a.expectAck(t, "ok")
	bd := spectator.boardWith(t, "BBB up", func(m msg) bool { return m.Up != nil && m.Up.Seat == 1 })
	if bd.Players[0].Frames[0].Marks != "6|/" {
		t.Errorf("AAA's first frame = %+v, want 6|/", bd.Players[0].Frames[0])
	}
}

func TestReconnectWithToken(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "reconnect")
	a, b, watcher := s.dial(t, id), s.dial(t, id), s.dial(t, id)
	welcomeA := a.join(t, "AAA")
	token := b.join(t, "BBB").Token
	a.send(t, `{"type":"start"}`)
	a.send(t, `{"type":"roll","pins":10,"frame":1,"ball":1,"id":"x"}`)
	a.expectAck(t, "x")

	// B's connection drops; B keeps the seat, shown disconnected.
	b.ws.CloseNow()
	watcher.boardWith(t, "BBB disconnected", func(m msg) bool { return len(m.Players) == 2 && !m.Players[1].Connected })

	// A wrong token gets nothing.
	thief := s.dial(t, id)
	thief.send(t, `{"type":"resume","token":"not-a-token","id":"t"}`)
	thief.expectError(t, "t", "bad_token")
	thief.send(t, map[string]any{"type": "resume", "token": welcomeA.Token + "x", "id": "t2"})
	thief.expectError(t, "t2", "bad_token")

	// B comes back with its token: the same seat, the turn still B's.
	b2 := s.dial(t, id)
	b2.send(t, map[string]any{"type": "resume", "token": token, "id": "back"})
	w := b2.waitFor(t, "welcome", func(m msg) bool { return m.Ref == "back" })
	if w.Type != "welcome" || w.Seat != 1 || w.Name != "BBB" {
		t.Fatalf("resume answered %s", w.raw)
	}
	bd := watcher.boardWith(t, "BBB connected again", func(m msg) bool { return m.Players[1].Connected })
	if len(bd.Players) != 2 || bd.Up == nil || bd.Up.Seat != 1 {
		t.Errorf("board after resume = %s", bd.raw)
	}
	b2.send(t, `{"type":"roll","pins":3,"frame":1,"ball":1,"id":"r"}`)
	b2.expectAck(t, "r")

	// A second connection resuming the same seat takes it over; the first
	// is told and becomes a spectator.
	b3 := s.dial(t, id)
	b3.send(t, map[string]any{"type": "resume", "token": token, "id": "again"})
	if w := b3.waitFor(t, "welcome", func(m msg) bool { return m.Ref == "again" }); w.Type != "welcome" {
		t.Fatalf("second resume answered %s", w.raw)
	}
	b2.waitFor(t, "notice of takeover", func(m msg) bool { return m.Type == "error" && m.Code == "seat_taken_over" })
	b2.send(t, `{"type":"roll","pins":3,"frame":1,"ball":2,"id":"r2"}`)
	b2.expectError(t, "r2", "not_seated")
}
