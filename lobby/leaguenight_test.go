package lobby_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
	tenpin "github.com/tenpin/tenpin/protocol/client"
)

// TestLeagueNightOnItsLane: a night opened by the secretary seats its
// match's lane; each team's invitation seats its own places alone, and
// nobody sits without one; a bowler's phone claims their place and
// enters the balls of the places no phone holds; the board shows teams, handicaps, the
// absent bowler's score and the points; the game's scores reach the
// league as the lane reports them, and the night's last game closes it.
func TestLeagueNightOnItsLane(t *testing.T) {
	s, _, c := newLeagueServer(t)
	l := createSmall(t, c) // one game a night: Pin Pals (Kim 150, Lee 180) v Strikers (Park 170, Choi 120), 90% of 200
	opened, err := c.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Lee"}})
	if err != nil {
		t.Fatal(err)
	}
	id, m := opened.Matches[0].Lane, opened.Matches[0]
	if !protocol.ValidInvite(m.HomeInvite) || !protocol.ValidInvite(m.AwayInvite) || m.HomeInvite == m.AwayInvite {
		t.Fatalf("the opening's match: %+v, want two invitations", m)
	}
	if again, err := c.WeekInvites(t.Context(), l.ID, l.SecretaryKey, 1); err != nil || !reflect.DeepEqual(again.Matches, opened.Matches) {
		t.Errorf("the week's invitations asked again: %+v, %v; want the opening's %+v", again, err, opened.Matches)
	}
	if _, err := c.WeekInvites(t.Context(), l.ID, "not the key", 1); !isCode(err, protocol.CodeNotSecretary) {
		t.Errorf("the week's invitations with another key: %v, want not_secretary", err)
	}
	if _, err := c.WeekInvites(t.Context(), l.ID, l.SecretaryKey, 2); !isCode(err, protocol.CodeWrongWeek) {
		t.Errorf("the invitations of a week not open: %v, want wrong_week", err)
	}
	for _, path := range []string{"", "/standings", "/history"} {
		if body := getText(t, s.srv.URL+"/api/leagues/"+l.ID+path); strings.Contains(body, m.HomeInvite) || strings.Contains(body, m.AwayInvite) {
			t.Errorf("GET /api/leagues/{id}%s shows an invitation: %s", path, body)
		}
	}
	kim, stranger := s.dial(t, id), s.dial(t, id)
	for _, join := range []struct{ msg, code string }{
		{`{"type":"join","name":"Kim","id":"j"}`, string(protocol.CodeInvitationRequired)}, // the league page's link alone
		{`{"type":"join","name":"Kim","invite":"` + m.AwayInvite + `","id":"j"}`, string(protocol.CodeNotYourTeam)},
		{`{"type":"join","name":"Park","invite":"` + m.HomeInvite + `","id":"j"}`, string(protocol.CodeNotYourTeam)},
		{`{"type":"join","name":"Bob","invite":"` + m.HomeInvite + `","id":"j"}`, string(protocol.CodeNotOnRoster)},
	} {
		stranger.send(t, join.msg)
		stranger.expectError(t, "j", join.code)
	}
	park := s.dial(t, id)
	joinPlaces(t, kim, park, m)
	// Kim's phone is Pin Pals': the Strikers' balls are not hers to
	// enter, even Choi's, whose place no phone holds.
	kim.send(t, `{"type":"roll","name":"Choi","frame":1,"ball":1,"pins":9,"id":"choi"}`)
	kim.expectError(t, "choi", string(protocol.CodeNotYourTeam))

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

	bowlSmallNight(t, kim, park)
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

	correctABall(t, c, l)
}

// bowlSmallNight has Kim and Park, on createSmall's night with Lee
// absent, enter every ball of the game, each on their team's phone: Kim
// 9 a frame, Park 8 and his teammate Choi 7, each and a miss.
func bowlSmallNight(t *testing.T, kim, park *client) {
	t.Helper()
	n := 0
	for f := 1; f <= 10; f++ {
		for _, p := range []struct {
			phone *client
			name  string
			pins  int
		}{{kim, "", 9}, {park, "", 8}, {park, "Choi", 7}} {
			for ball, pins := range []int{p.pins, 0} {
				name := ""
				if p.name != "" {
					name = fmt.Sprintf(`"name":%q,`, p.name)
				}
				ref := fmt.Sprint("r", n)
				n++
				p.phone.send(t, fmt.Sprintf(`{"type":"roll",%s"frame":%d,"ball":%d,"pins":%d,"id":%q}`, name, f, ball+1, pins, ref))
				p.phone.expectAck(t, ref)
			}
		}
	}
}

// joinPlaces has kim and park claim Kim's and Park's places of match m,
// each with their team's invitation.
func joinPlaces(t *testing.T, kim, park *client, m protocol.LeagueMatch) {
	t.Helper()
	kim.send(t, `{"type":"join","name":"Kim","invite":"`+m.HomeInvite+`","id":"kim"}`)
	kim.expectAck(t, "kim")
	park.send(t, `{"type":"join","name":"Park","invite":"`+m.AwayInvite+`","id":"park"}`)
	park.expectAck(t, "park")
}

// TestCorrectABallOfAKeptNight: once the night's lane has closed, its
// balls are read from the archive; without one, a ball's correction is
// refused with what to do instead.
func TestCorrectABallOfAKeptNight(t *testing.T) {
	for _, keep := range []bool{true, false} {
		t.Run(fmt.Sprint("kept=", keep), func(t *testing.T) {
			cfg := lobby.Config{Leagues: memjournal.NewLeagues(), Lane: lane.Config{IdleTimeout: 50 * time.Millisecond, AbandonTimeout: 50 * time.Millisecond}}
			if keep {
				cfg.Archive = memjournal.NewArchive(0)
			}
			s := newServer(t, cfg)
			c := &tenpin.Client{URL: s.srv.URL}
			l, id := bowlNightToItsClose(t, s, c)
			if keep {
				correctABall(t, c, l)
				lateReport(t, s, c, l, id)
				return
			}
			// A lane that has stopped answers with its last games until
			// the lobby lets it go.
			polltest.Until(t, wait, "the lobby to let the closed lane go", func() (any, bool) {
				_, in := s.lobby.Get(id)
				return "the lane in the lobby", !in
			})
			_, err := c.CorrectBall(t.Context(), l.ID, l.SecretaryKey, protocol.LeagueBall{Week: 1, Bowler: "Park", Game: 1, Frame: 3, Ball: 2, Pins: 2})
			if code(err) != protocol.CodeInvalidCorrection || !strings.Contains(err.Error(), "no longer kept") {
				t.Errorf("a ball of a lane not kept: %v, want %s saying the lane is no longer kept", err, protocol.CodeInvalidCorrection)
			}
		})
	}
}

// bowlNightToItsClose creates the small league, opens week 1 (Lee
// absent), has Kim bowl its lane's night to the end on her phone, and
// waits for the lane to close once idle; it returns the league and the
// lane's id.
func bowlNightToItsClose(t *testing.T, s *testServer, c *tenpin.Client) (protocol.CreatedLeague, string) {
	t.Helper()
	l := createSmall(t, c)
	opened, err := c.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Lee"}})
	if err != nil {
		t.Fatal(err)
	}
	id := opened.Matches[0].Lane
	ln, ok := s.lobby.Get(id)
	if !ok {
		t.Fatal("the night's lane is not open")
	}
	kim, park := s.dial(t, id), s.dial(t, id)
	joinPlaces(t, kim, park, opened.Matches[0])
	bowlSmallNight(t, kim, park)
	kim.boardWith(t, "the points counted", func(m msg) bool {
		return m.Phase == protocol.PhaseFinished && len(m.Teams) == 2 && m.Teams[0].Points == 4
	})
	kim.ws.CloseNow()
	park.ws.CloseNow()
	select {
	case <-ln.Done():
	case <-time.After(wait):
		t.Fatal("the night's lane did not close once idle")
	}
	return l, id
}

// correctABall: after the night closed, the secretary corrects Park's
// third frame: its miss was a spare. The game is counted again from the
// lane's balls, 80 − 0 + 2 + 8 = 90, and the points follow; an impossible
// ball, a game the night has not, and a bowler of no lane are refused and
// change nothing.
func correctABall(t *testing.T, c *tenpin.Client, l protocol.CreatedLeague) {
	t.Helper()
	for _, tc := range []struct {
		name string
		ball protocol.LeagueBall
		want protocol.Code
	}{
		{"no such ball", protocol.LeagueBall{Week: 1, Bowler: "Park", Game: 1, Frame: 0, Ball: 4, Pins: -1}, protocol.CodeInvalidCorrection},
		{"more pins than stood", protocol.LeagueBall{Week: 1, Bowler: "Park", Game: 1, Frame: 3, Ball: 2, Pins: 3}, protocol.CodeInvalidCorrection},
		{"a ball not bowled", protocol.LeagueBall{Week: 1, Bowler: "Park", Game: 1, Frame: 10, Ball: 3, Pins: 1}, protocol.CodeInvalidCorrection},
		{"a game the night has not", protocol.LeagueBall{Week: 1, Bowler: "Park", Game: 2, Frame: 3, Ball: 2, Pins: 2}, protocol.CodeInvalidScore},
		{"an absent bowler", protocol.LeagueBall{Week: 1, Bowler: "Lee", Game: 1, Frame: 3, Ball: 2, Pins: 2}, protocol.CodeInvalidScore},
		{"a night not opened", protocol.LeagueBall{Week: 2, Bowler: "Park", Game: 1, Frame: 3, Ball: 2, Pins: 2}, protocol.CodeWrongWeek},
	} {
		if _, err := c.CorrectBall(t.Context(), l.ID, l.SecretaryKey, tc.ball); code(err) != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
		}
	}
	// Every fault of the ball is said at once, before the lane is read.
	if _, err := c.CorrectBall(t.Context(), l.ID, l.SecretaryKey, protocol.LeagueBall{Week: 1, Bowler: "Park", Game: 1, Frame: 0, Ball: 4, Pins: -1}); err == nil ||
		!strings.Contains(err.Error(), "frame 0") || !strings.Contains(err.Error(), "ball 4") || !strings.Contains(err.Error(), "-1 pins") {
		t.Errorf("no such ball: %v, want frame 0, ball 4 and -1 pins named", err)
	}
	if _, err := c.CorrectBall(t.Context(), l.ID, "not the key", protocol.LeagueBall{Week: 1, Bowler: "Park", Game: 1, Frame: 3, Ball: 2, Pins: 2}); code(err) != protocol.CodeNotSecretary {
		t.Errorf("another key: %v, want %s", err, protocol.CodeNotSecretary)
	}
	h, err := c.LeagueHistory(t.Context(), l.ID)
	if err != nil {
		t.Fatal(err)
	}
	before := len(h)

	rec, err := c.CorrectBall(t.Context(), l.ID, l.SecretaryKey, protocol.LeagueBall{Week: 1, Bowler: "park", Game: 1, Frame: 3, Ball: 2, Pins: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Kind != "corrected" || rec.By != "secretary" || rec.Bowler != "Park" || rec.Game != 1 || *rec.Was != 80 || *rec.Score != 90 ||
		rec.Frame != 3 || rec.Ball != 2 || *rec.PinsWas != 0 || *rec.Pins != 2 || rec.N != before+1 {
		t.Errorf("the record made: %+v", rec)
	}
	// Again, frame 5's 8 a 7: the spare of frame 3 stays (80 − 1 + 10 = 89).
	rec, err = c.CorrectBall(t.Context(), l.ID, l.SecretaryKey, protocol.LeagueBall{Week: 1, Bowler: "Park", Game: 1, Frame: 5, Ball: 1, Pins: 7})
	if err != nil {
		t.Fatal(err)
	}
	if *rec.Was != 90 || *rec.Score != 89 || *rec.PinsWas != 8 || *rec.Pins != 7 {
		t.Errorf("the second record: %+v, want 90 → 89, the ball 8 → 7", rec)
	}
	st, err := c.Standings(t.Context(), l.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, bw := range st.Bowlers {
		if bw.Name == "Park" && (bw.Games != 1 || bw.Pins != 89) {
			t.Errorf("Park's line: %+v, want 1 game of 89", bw)
		}
	}
	// Strikers 89+27 + 70+72 = 258: Pin Pals' 323 still takes all 4.
	if st.Teams[1].Name != "Strikers" || st.Teams[1].PinsScratch != 159 || st.Teams[1].PinsHandicap != 258 || st.Teams[0].PointsWon != 4 {
		t.Errorf("standings after the corrections: %+v", st.Teams)
	}
	if h, err = c.LeagueHistory(t.Context(), l.ID); err != nil || len(h) != before+2 {
		t.Errorf("history: %d records, %v; want %d (refusals store nothing)", len(h), err, before+2)
	}
}

// lateReport: the night's lane reports Park's game again, 80 as bowled
// (a lane does when it did not hear the first answer), after the
// secretary corrected it to 89: the correction stands, and nothing is
// recorded.
func lateReport(t *testing.T, s *testServer, c *tenpin.Client, l protocol.CreatedLeague, laneID string) {
	t.Helper()
	h, err := c.LeagueHistory(t.Context(), l.ID)
	if err != nil {
		t.Fatal(err)
	}
	m := game.LeagueLane{League: l.ID, Week: 1, Games: 1, Teams: [2]string{"Pin Pals", "Strikers"}, Places: []game.LeaguePlace{{Name: "Park", Team: 1}}}
	if _, err := s.lobby.LeagueNight().Scores(t.Context(), laneID, m, 1, map[bowling.Name]int{"Park": 80}); err != nil {
		t.Fatalf("the late report: %v", err)
	}
	st, err := c.Standings(t.Context(), l.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, bw := range st.Bowlers {
		if bw.Name == "Park" && bw.Pins != 89 {
			t.Errorf("after the lane's late report, Park's line: %+v, want the secretary's 89", bw)
		}
	}
	if again, err := c.LeagueHistory(t.Context(), l.ID); err != nil || len(again) != len(h) {
		t.Errorf("after the lane's late report: %d records, %v; want %d", len(again), err, len(h))
	}
}

// heldArchive is an archive whose Kept, once held is set, waits for it
// to be closed, saying on entered that it waits: an archive, or another
// node, slow to answer.
type heldArchive struct {
	*memjournal.Archive
	held    chan struct{}
	entered chan struct{}
}

func (a *heldArchive) Kept(ctx context.Context, id string) ([]byte, error) {
	if a.held != nil {
		a.entered <- struct{}{}
		select {
		case <-a.held:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return a.Archive.Kept(ctx, id)
}

// TestCorrectABallReadsTheLaneOutsideTheLeague: while a ball's
// correction waits for the night's lane to be read (here from a slow
// archive), the league answers its other requests; the correction is
// made once the lane is read. It failed while the lane was read under
// the league's lock: the standings waited for the archive.
func TestCorrectABallReadsTheLaneOutsideTheLeague(t *testing.T) {
	a := &heldArchive{Archive: memjournal.NewArchive(0)}
	s := newServer(t, lobby.Config{Leagues: memjournal.NewLeagues(), Archive: a, Lane: lane.Config{IdleTimeout: 50 * time.Millisecond, AbandonTimeout: 50 * time.Millisecond}})
	c := &tenpin.Client{URL: s.srv.URL}
	l, _ := bowlNightToItsClose(t, s, c)

	a.held, a.entered = make(chan struct{}), make(chan struct{}, 1)
	type result struct {
		rec *protocol.LeagueRecord
		err error
	}
	done := make(chan result, 1)
	go func() {
		rec, err := c.CorrectBall(t.Context(), l.ID, l.SecretaryKey, protocol.LeagueBall{Week: 1, Bowler: "Park", Game: 1, Frame: 3, Ball: 2, Pins: 2})
		done <- result{rec, err}
	}()
	select {
	case <-a.entered:
	case <-time.After(wait):
		t.Fatal("the correction did not read the night's lane from the archive")
	}
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	_, err := c.Standings(ctx, l.ID)
	cancel()
	if err != nil {
		t.Errorf("the standings while a correction reads its lane: %v, want them at once", err)
	}
	close(a.held)
	var res result
	select {
	case res = <-done:
	case <-time.After(wait):
		t.Fatal("the correction did not end once the lane was read")
	}
	if res.err != nil || *res.rec.Was != 80 || *res.rec.Score != 90 {
		t.Errorf("the correction: %+v, %v; want 80 → 90", res.rec, res.err)
	}
}
