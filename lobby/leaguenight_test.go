package lobby_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/tenpin/tenpin/protocol"
)

// TestLeagueNightOnItsLane: a night opened by the secretary seats its
// match's lane; a bowler's phone claims their place and enters the balls
// of the places no phone holds; the board shows teams, handicaps, the
// absent bowler's score and the points; the game's scores reach the
// league as the lane reports them, and the night's last game closes it.
func TestLeagueNightOnItsLane(t *testing.T) {
	s, _, c := newLeagueServer(t)
	l := createSmall(t, c) // one game a night: Pin Pals (Kim 150, Lee 180) v Strikers (Park 170, Choi 120), 90% of 200
	opened, err := c.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Lee"}})
	if err != nil {
		t.Fatal(err)
	}
	id := opened.Matches[0].Lane
	kim, stranger := s.dial(t, id), s.dial(t, id)
	stranger.send(t, `{"type":"join","name":"Bob","id":"bob"}`)
	stranger.expectError(t, "bob", string(protocol.CodeNotOnRoster))
	kim.send(t, `{"type":"join","name":"Kim","id":"kim"}`)
	kim.expectAck(t, "kim")

	// Handicaps: Kim ⌊50 × 0.9⌋ = 45, Park 27, Choi 72; Lee, absent,
	// scores 180 − 10 = 170 with his 18.
	b := kim.boardWith(t, "the league's sheet", func(m msg) bool { return len(m.Teams) == 2 && m.Players[0].Handicap != nil })
	if b.Phase != protocol.PhasePlaying || len(b.Players) != 3 || b.Players[0].Name != "Kim" || b.Players[0].Team != "Pin Pals" || b.Players[2].Team != "Strikers" {
		t.Fatalf("the lane of the match: %+v", b.Players)
	}
	if *b.Players[0].Handicap != 45 || *b.Players[1].Handicap != 27 || *b.Players[2].Handicap != 72 {
		t.Errorf("handicaps: %d %d %d, want 45 27 72", *b.Players[0].Handicap, *b.Players[1].Handicap, *b.Players[2].Handicap)
	}
	if !reflect.DeepEqual(b.Teams, []protocol.TeamScore{{Name: "Pin Pals", Scratch: 170, Total: 170 + 45 + 18}, {Name: "Strikers", Total: 27 + 72}}) {
		t.Errorf("teams before a ball: %+v", b.Teams)
	}

	// Kim 9 a frame, Park 8, Choi 7: Kim enters them all.
	n := 0
	for f := 1; f <= 10; f++ {
		for _, p := range []struct {
			name string
			pins int
		}{{"", 9}, {"Park", 8}, {"Choi", 7}} {
			for ball, pins := range []int{p.pins, 0} {
				name := ""
				if p.name != "" {
					name = fmt.Sprintf(`"name":%q,`, p.name)
				}
				ref := fmt.Sprint("r", n)
				n++
				kim.send(t, fmt.Sprintf(`{"type":"roll",%s"frame":%d,"ball":%d,"pins":%d,"id":%q}`, name, f, ball+1, pins, ref))
				kim.expectAck(t, ref)
			}
		}
	}
	// Pin Pals 90+45 + 170+18 = 323, Strikers 80+27 + 70+72 = 249: the
	// game's 2 points and the night's 2 go to Pin Pals.
	b = kim.boardWith(t, "the points counted", func(m msg) bool {
		return m.Phase == protocol.PhaseFinished && len(m.Teams) == 2 && m.Teams[0].Points == 4
	})
	if b.Teams[0].Total != 323 || b.Teams[1].Total != 249 || b.Teams[1].Points != 0 {
		t.Errorf("teams after the game: %+v", b.Teams)
	}
	st, err := c.Standings(t.Context(), l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Week != 1 || st.Teams[0].Name != "Pin Pals" || st.Teams[0].PointsWon != 4 || st.Teams[0].PinsHandicap != 323 {
		t.Errorf("standings after the night: %+v; want week 1 closed by its last game, Pin Pals 4 points, 323", st)
	}
	for _, bw := range st.Bowlers {
		if bw.Name == "Kim" && (bw.Games != 1 || bw.Pins != 90) {
			t.Errorf("Kim's line: %+v, want 1 game of 90", bw)
		}
	}
	h, err := c.LeagueHistory(t.Context(), l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last := h[len(h)-1]; last.Kind != "closed" || last.By != "lane "+id {
		t.Errorf("the history's last record: %+v, want the night closed by its lane", last)
	}
}
