package lobby_test

import (
	"testing"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// TestLateJoinAndRemoval: a friend who arrives after the first ball joins
// and bowls the frame she missed; a player the host removes is shown as
// removed, not left, and may not join again until the host readmits him,
// when he comes back to his seat.
func TestLateJoinAndRemoval(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "late")
	ann, bob, jo := s.dial(t, id), s.dial(t, id), s.dial(t, id)
	ann.join(t, "Ann")
	bob.join(t, "Bob")
	ann.send(t, `{"type":"start","id":"s"}`)
	ann.expectAck(t, "s")
	ann.send(t, `{"type":"roll","pins":10,"frame":1,"ball":1,"id":"a1"}`)
	ann.expectAck(t, "a1")

	jo.join(t, "Jo")
	b := jo.boardWith(t, "Jo seated", func(m msg) bool { return len(m.Players) == 3 })
	if p := b.Players[2]; p.Name != "Jo" || !p.Late || b.Players[0].Late || b.Players[1].Late {
		t.Fatalf("players = %+v, want Jo seated last and only her late", b.Players)
	}
	bob.send(t, `{"type":"roll","pins":9,"frame":1,"ball":1,"id":"b1"}`)
	bob.expectAck(t, "b1")
	bob.send(t, `{"type":"roll","pins":0,"frame":1,"ball":2,"id":"b2"}`)
	bob.expectAck(t, "b2")
	b = jo.boardWith(t, "Jo up", func(m msg) bool { return m.Up != nil && m.Up.Seat == 2 })
	if b.Up.Frame != 1 {
		t.Errorf("up = %+v, want Jo on the frame she missed, before Ann's second", b.Up)
	}

	ann.send(t, `{"type":"remove","name":"bob","id":"r"}`)
	ann.expectAck(t, "r")
	b = ann.boardWith(t, "Bob removed", func(m msg) bool { return len(m.Players) == 3 && m.Players[1].Left })
	if !b.Players[1].Removed || b.Players[0].Removed {
		t.Errorf("players = %+v, want Bob removed", b.Players)
	}
	bob.waitFor(t, "the removal notice", func(m msg) bool { return m.Code == protocol.CodeRemoved })
	bob.send(t, `{"type":"join","name":"BOB","id":"again"}`)
	if m := bob.expectError(t, "again", string(protocol.CodeRemoved)); m.Message == "" {
		t.Error("the refusal says nothing")
	}
	jo.send(t, `{"type":"readmit","name":"Bob","id":"jr"}`)
	jo.expectError(t, "jr", string(protocol.CodeNotHost))
	ann.send(t, `{"type":"readmit","name":"Bob","id":"ar"}`)
	ann.expectAck(t, "ar")
	bob.send(t, `{"type":"join","name":"Bob","id":"back"}`)
	bob.expectAck(t, "back")
	b = ann.boardWith(t, "Bob back", func(m msg) bool { return len(m.Players) == 3 && !m.Players[1].Left })
	if p := b.Players[1]; p.Name != "Bob" || p.Removed || len(p.Frames) != 1 {
		t.Errorf("Bob back = %+v, want him in his seat with his frame", p)
	}
}
