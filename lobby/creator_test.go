package lobby_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
	tenpin "github.com/tenpin/tenpin/protocol/client"
)

// createKeyed creates a lane as the lobby page does, waiting for its
// creator, and returns it with its host key.
func (s *testServer) createKeyed(t *testing.T, name string) protocol.CreatedLane {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	l, err := (&tenpin.Client{URL: s.srv.URL}).CreateLane(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestCrawlerCannotTakeANewLane: a crawler that joins a new public lane
// the moment it is listed, under as many names as it can, can neither
// start it (and bowl the game out) nor fill it: the last seat is the
// creator's, who hosts the lane once they join and frees the crawler's
// seats for their friends.
func TestCrawlerCannotTakeANewLane(t *testing.T) {
	s := newServer(t, lobby.Config{})
	created := s.createKeyed(t, "Friday")
	id := created.ID

	// With the list's link alone, it may watch, never sit.
	watcher := s.dial(t, id)
	watcher.send(t, `{"type":"join","name":"Bot","id":"nope"}`)
	watcher.expectError(t, "nope", string(protocol.CodeInvitationRequired))
	watcher.send(t, `{"type":"join","name":"Bot","invite":"a guess","id":"guess"}`)
	watcher.expectError(t, "guess", string(protocol.CodeInvitationRequired))

	// One that got the invitation too (a friend's phone shared the link
	// in a group a crawler reads):
	var bots []*client
	for i := range 8 {
		bot := s.dial(t, id)
		bots = append(bots, bot)
		ref := fmt.Sprint("j", i)
		bot.send(t, fmt.Sprintf(`{"type":"join","name":"Bot%c","invite":%q,"id":%q}`, 'a'+i, created.Invite, ref))
		if i < 7 {
			bot.expectAck(t, ref)
			continue
		}
		m := bot.expectError(t, ref, string(protocol.CodeLaneFull))
		t.Logf("the crawler's 8th join: %s", m.Message)
	}
	b := bots[0].boardWith(t, "seven bots seated", func(m msg) bool { return len(m.Players) == 7 })
	if w := watcher.boardWith(t, "the watcher's board", func(m msg) bool { return len(m.Players) == 7 }); w.Spectators < 1 {
		t.Errorf("the watcher refused a seat: %d spectators, want it among them", w.Spectators)
	}
	if !b.CreatorAway || b.Host != "" {
		t.Fatalf("a lane only the crawler joined: creator_away %v, host %q; want true, none", b.CreatorAway, b.Host)
	}
	for i, cmd := range []string{
		`{"type":"start","id":"c0"}`,
		`{"type":"remove","name":"Botb","id":"c1"}`,
		`{"type":"roll","frame":1,"ball":1,"pins":10,"id":"c2"}`,
	} {
		bots[0].send(t, cmd)
		want := protocol.CodeCreatorAway
		if i == 2 {
			want = protocol.CodeNotPlaying
		}
		bots[0].expectError(t, fmt.Sprint("c", i), string(want))
	}
	// A page that is not the creator's cannot give the lane away.
	bots[7].send(t, `{"type":"give","host_key":"a guess","id":"g"}`)
	bots[7].expectError(t, "g", string(protocol.CodeNotHost))

	creator := s.dial(t, id)
	creator.send(t, `{"type":"join","name":"Ann","host_key":"`+created.HostKey+`","id":"ann"}`)
	creator.expectAck(t, "ann")
	b = creator.boardWith(t, "the creator seated", func(m msg) bool { return len(m.Players) == 8 })
	if b.CreatorAway || b.Host != "Ann" {
		t.Fatalf("after the creator joined: creator_away %v, host %q; want false, Ann", b.CreatorAway, b.Host)
	}
	creator.send(t, `{"type":"remove","name":"Bota","id":"r"}`)
	creator.expectAck(t, "r")
	friend := s.dial(t, id)
	friend.joinInvited(t, "Kim", created.Invite)
	creator.send(t, `{"type":"start","id":"s"}`)
	creator.expectAck(t, "s")
	bots[1].send(t, `{"type":"start","id":"again"}`)
	bots[1].expectError(t, "again", string(protocol.CodeNotHost))
}

// TestCreatorGivesTheLaneAway: a creator who will not bowl gives the lane
// away with the key, from a page that never joined; then the first
// seated hosts and starts it, and every seat is anyone's.
func TestCreatorGivesTheLaneAway(t *testing.T) {
	s := newServer(t, lobby.Config{})
	created := s.createKeyed(t, "For the kids")
	tv, kim := s.dial(t, created.ID), s.dial(t, created.ID)
	kim.joinInvited(t, "Kim", created.Invite)
	kim.send(t, `{"type":"start","id":"s"}`)
	kim.expectError(t, "s", string(protocol.CodeCreatorAway))
	tv.send(t, `{"type":"give","host_key":"`+created.HostKey+`","id":"g"}`)
	tv.expectAck(t, "g")
	b := kim.boardWith(t, "the lane given away", func(m msg) bool { return !m.CreatorAway && m.Host == "Kim" })
	if b.Host != "Kim" {
		t.Fatalf("host %q, want Kim", b.Host)
	}
	kim.send(t, `{"type":"start","id":"s2"}`)
	kim.expectAck(t, "s2")
	tv.send(t, `{"type":"give","host_key":"`+created.HostKey+`","id":"g2"}`)
	tv.expectError(t, "g2", string(protocol.CodeNotHost))
}

// TestSeatBurnerCannotFillALane: a spectator who joins and leaves under
// name after name in the middle of a game takes no seat, so a late friend
// still gets one; a seat left after bowling is kept, frames and all, until
// the host frees it. Every connection here comes from one address, as the
// phones of an alley's Wi-Fi behind NAT do: eight fill a lane.
func TestSeatBurnerCannotFillALane(t *testing.T) {
	s := newServer(t, lobby.Config{})
	created := s.createKeyed(t, "Burn")
	id := created.ID
	host := s.dial(t, id)
	host.send(t, `{"type":"join","name":"Ann","host_key":"`+created.HostKey+`","id":"ann"}`)
	host.expectAck(t, "ann")
	var friends []*client
	for _, n := range []string{"Bo", "Cy", "Di", "Ed", "Flo", "Gus"} {
		c := s.dial(t, id)
		c.joinInvited(t, n, created.Invite)
		friends = append(friends, c)
	}
	host.send(t, `{"type":"start","id":"s"}`)
	host.expectAck(t, "s")
	host.send(t, `{"type":"roll","frame":1,"ball":1,"pins":10,"id":"x"}`)
	host.expectAck(t, "x")

	burner := s.dial(t, id)
	for i := range 7 {
		ref := fmt.Sprint("b", i)
		burner.send(t, fmt.Sprintf(`{"type":"join","name":"Burn%c","invite":%q,"id":%q}`, 'a'+i, created.Invite, ref))
		burner.expectAck(t, ref)
		burner.send(t, fmt.Sprintf(`{"type":"leave","id":"l%d"}`, i))
		burner.expectAck(t, fmt.Sprint("l", i))
	}
	b := host.boardWith(t, "the burner gone", func(m msg) bool { return m.Seq > 0 && len(m.Players) == 7 })
	for _, p := range b.Players {
		if p.Left {
			t.Errorf("%s holds a left seat, having bowled nothing", p.Name)
		}
	}

	// Bo bowls, and leaves: the seat stays Bo's, frames and all. The
	// eighth phone, a late friend, takes the last seat: the lane is full.
	friends[0].send(t, `{"type":"roll","frame":1,"ball":1,"pins":10,"id":"bo"}`)
	friends[0].expectAck(t, "bo")
	friends[0].send(t, `{"type":"leave","id":"bl"}`)
	friends[0].expectAck(t, "bl")
	late := s.dial(t, id)
	late.joinInvited(t, "Hal", created.Invite)
	another := s.dial(t, id)
	another.send(t, `{"type":"join","name":"Ivy","invite":"`+created.Invite+`","id":"ivy"}`)
	another.expectError(t, "ivy", string(protocol.CodeLaneFull))
	friends[1].send(t, `{"type":"free","name":"Bo","id":"f"}`)
	friends[1].expectError(t, "f", string(protocol.CodeNotHost))
	host.send(t, `{"type":"free","name":"Gus","id":"f"}`)
	host.expectError(t, "f", string(protocol.CodeNameTaken)) // Gus is still playing
	host.send(t, `{"type":"free","name":"Bo","id":"f2"}`)
	host.expectAck(t, "f2")
	another.send(t, `{"type":"join","name":"Ivy","invite":"`+created.Invite+`","id":"ivy2"}`)
	another.expectAck(t, "ivy2")
	b = host.boardWith(t, "Ivy in Bo's seat", func(m msg) bool { return len(m.Players) == 8 && m.Players[7].Name == "Ivy" })
	for _, p := range b.Players {
		if p.Name == "Bo" {
			t.Errorf("Bo's freed seat is still on the board: %+v", b.Players)
		}
	}
}
