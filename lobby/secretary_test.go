package lobby_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
	tenpin "github.com/tenpin/tenpin/protocol/client"
)

// TestSecretaryOnTheNightsLane: a league night's lane has no host among
// its bowlers; the league's secretary has the host's powers there, over
// HTTP: enters and corrects any place's ball, skips the bowler up once
// offline for the away time, and gives a place back from the phone that
// holds it, which is told and watches from then on. What the lane or
// the league refuses changes nothing.
func TestSecretaryOnTheNightsLane(t *testing.T) {
	s := newServer(t, lobby.Config{Leagues: memjournal.NewLeagues(), Lane: lane.Config{AwayAfter: time.Millisecond}})
	c := &tenpin.Client{URL: s.srv.URL}
	l := createSmall(t, c) // Pin Pals (Kim, Lee) v Strikers (Park, Choi)
	opened, err := c.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Lee"}})
	if err != nil {
		t.Fatal(err)
	}
	id := opened.Matches[0].Lane
	kim, park := s.dial(t, id), s.dial(t, id)
	joinPlaces(t, kim, park, opened.Matches[0])
	if b := kim.boardWith(t, "both places held", func(m msg) bool { return len(m.Players) == 3 && m.Players[1].Connected }); b.Host != "" {
		t.Errorf("the board names %s the lane's host", b.Host)
	}
	kim.send(t, `{"type":"roll","frame":1,"ball":1,"pins":9,"id":"k1"}`)
	kim.expectAck(t, "k1")

	ctx := t.Context()
	pins := func(n int) *int { return &n }
	key := l.SecretaryKey
	b, err := c.LaneRoll(ctx, l.ID, key, 1, 1, protocol.LeagueLaneBall{Name: "kim", Frame: 1, Ball: 2, Pins: pins(0)})
	if err != nil {
		t.Fatalf("the secretary enters Kim's ball: %v", err)
	}
	if got := b.Players[0].Frames[0].Rolls; !slices.Equal(got, []int{9, 0}) {
		t.Errorf("Kim's frame 1 after the secretary's ball: %v, want [9 0]", got)
	}
	if b, err = c.LaneCorrect(ctx, l.ID, key, 1, 1, protocol.LeagueLaneBall{Name: "Kim", Frame: 1, Ball: 1, Pins: pins(8)}); err != nil {
		t.Fatalf("the secretary corrects Kim's ball: %v", err)
	}
	if f := b.Players[0].Frames[0]; !slices.Equal(f.Rolls, []int{8, 0}) || !f.Corrected {
		t.Errorf("Kim's frame 1 after the secretary's correction: %+v, want [8 0], corrected", f)
	}

	before, err := c.Board(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what string
		call func() (*protocol.Board, error)
		want protocol.Code
	}{
		{"another key", func() (*protocol.Board, error) {
			return c.LaneRoll(ctx, l.ID, "not the key", 1, 1, protocol.LeagueLaneBall{Name: "Park", Frame: 1, Ball: 1, Pins: pins(7)})
		}, protocol.CodeNotSecretary},
		{"a week not open", func() (*protocol.Board, error) {
			return c.LaneRoll(ctx, l.ID, key, 2, 1, protocol.LeagueLaneBall{Name: "Park", Frame: 1, Ball: 1, Pins: pins(7)})
		}, protocol.CodeWrongWeek},
		{"a match the night has not", func() (*protocol.Board, error) {
			return c.LaneRoll(ctx, l.ID, key, 1, 2, protocol.LeagueLaneBall{Name: "Park", Frame: 1, Ball: 1, Pins: pins(7)})
		}, protocol.CodeLaneNotFound},
		{"a ball of nobody's", func() (*protocol.Board, error) {
			return c.LaneRoll(ctx, l.ID, key, 1, 1, protocol.LeagueLaneBall{Frame: 1, Ball: 1, Pins: pins(7)})
		}, protocol.CodeBadRequest},
		{"a ball without pins", func() (*protocol.Board, error) {
			return c.LaneRoll(ctx, l.ID, key, 1, 1, protocol.LeagueLaneBall{Name: "Park", Frame: 1, Ball: 1})
		}, protocol.CodeBadRequest},
		{"a name on no place", func() (*protocol.Board, error) {
			return c.LaneRoll(ctx, l.ID, key, 1, 1, protocol.LeagueLaneBall{Name: "Zed", Frame: 1, Ball: 1, Pins: pins(7)})
		}, protocol.CodeNotSeated},
		{"a ball not up", func() (*protocol.Board, error) {
			return c.LaneRoll(ctx, l.ID, key, 1, 1, protocol.LeagueLaneBall{Name: "Park", Frame: 2, Ball: 1, Pins: pins(7)})
		}, protocol.CodeStaleRoll},
		{"Park up and connected, skipped", func() (*protocol.Board, error) { return c.LaneSkip(ctx, l.ID, key, 1, 1) }, protocol.CodeNotAway},
		{"Choi's place, which no phone holds, given back", func() (*protocol.Board, error) {
			return c.LaneRemove(ctx, l.ID, key, 1, 1, "Choi")
		}, protocol.CodeNotSeated},
	} {
		if _, err := tc.call(); code(err) != tc.want {
			t.Errorf("%s: %v, want %s", tc.what, err, tc.want)
		}
	}
	base := s.srv.URL + "/api/leagues/" + l.ID + "/weeks/1/matches/"
	for _, tc := range []struct {
		path, body string
		status     int
	}{
		{"x/roll", `{"name":"Park","frame":1,"ball":1,"pins":7}`, http.StatusBadRequest},
		{"0/skip", "", http.StatusBadRequest},
		{"1/roll", `{"name":"Park","frame":1,"ball":1,"pins":7,"by":"Kim"}`, http.StatusBadRequest},
		{"1/rematch", "{}", http.StatusNotFound},
	} {
		if status, data := send(t, "POST", base+tc.path, "Secretary "+key, "application/json", tc.body); status != tc.status {
			t.Errorf("POST …/matches/%s: %d %s, want %d", tc.path, status, data, tc.status)
		}
	}
	if after, err := c.Board(ctx, id); err != nil || after.Seq != before.Seq {
		t.Errorf("the board after the refusals: seq %d (%v), want %d: nothing changed", after.Seq, err, before.Seq)
	}

	// Park's place, from the phone that holds it: the phone is told.
	if b, err = c.LaneRemove(ctx, l.ID, key, 1, 1, "park"); err != nil {
		t.Fatalf("the secretary gives Park's place back: %v", err)
	}
	if b.Players[1].Connected {
		t.Errorf("Park's place after it was given back: %+v, want no phone", b.Players[1])
	}
	park.waitFor(t, "the notice", func(m msg) bool { return m.Type == protocol.TypeError && m.Code == protocol.CodeRemoved })
	park.send(t, `{"type":"roll","frame":1,"ball":1,"pins":7,"id":"p1"}`)
	park.expectError(t, "p1", string(protocol.CodeNotSeated))

	// Park, offline now past the away time, is skipped.
	polltest.Until(t, wait, "the secretary's skip of Park", func() (any, bool) {
		b, err = c.LaneSkip(ctx, l.ID, key, 1, 1)
		return err, err == nil
	})
	if !b.Players[1].Away || b.Up == nil || b.Up.Seat != 2 {
		t.Errorf("after the skip: Park %+v, up %+v; want Park away and Choi up", b.Players[1], b.Up)
	}
	if b, err = c.LaneRoll(ctx, l.ID, key, 1, 1, protocol.LeagueLaneBall{Name: "Choi", Frame: 1, Ball: 1, Deck: &[]int{7, 10}}); err != nil {
		t.Fatalf("the secretary enters Choi's ball by its deck: %v", err)
	}
	if got := b.Players[2].Frames[0].Rolls; !slices.Equal(got, []int{8}) {
		t.Errorf("Choi's frame 1: %v, want [8]", got)
	}
	g, err := c.Games(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if cs := g.Games[0].Corrections; len(cs) != 1 || cs[0].Name != "Kim" || cs[0].By != "secretary" {
		t.Errorf("the game's corrections: %+v, want Kim's, by the secretary", cs)
	}
}
