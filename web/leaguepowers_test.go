package web_test

import (
	"context"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// TestLeagueLaneEachTeamItsOwnBalls: on a league night's lane a phone
// keeps its own team's score, never the other's. Lee (Pin Pals) and Choi
// (Strikers) have no phone: with Lee up, Kim's phone (Pin Pals) offers
// the pad for his ball and Park's (Strikers) offers none; with Choi up,
// the other way round. Nobody on the lane is its host: the secretary,
// on the league's page, has the host's powers there.
func TestLeagueLaneEachTeamItsOwnBalls(t *testing.T) {
	s := serve(t, lobby.Config{})
	c := &client.Client{URL: s.url}
	l, err := c.CreateLeague(t.Context(), protocol.CreateLeague{
		Name: "Small", GamesPerNight: 1, Points: protocol.LeaguePoints{PerGame: 2, PerSeries: 2}, AbsentMinus: 10, VacancyScore: 120,
		Teams: []protocol.LeagueTeam{
			{Name: "Pin Pals", Bowlers: []protocol.LeagueBowler{{Name: "Kim", Average: 150}, {Name: "Lee", Average: 180}}},
			{Name: "Strikers", Bowlers: []protocol.LeagueBowler{{Name: "Park", Average: 170}, {Name: "Choi", Average: 120}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	opened, err := c.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{})
	if err != nil {
		t.Fatal(err)
	}
	// Each phone opens the lane from its team's invitation.
	m := opened.Matches[0]
	laneURL := s.url + "/lanes/" + m.Lane + "?lang=en#invite="
	open := browser(t)
	kim, park := open(), open()
	for name, p := range map[string]context.Context{"Kim": kim, "Park": park} {
		invite := m.HomeInvite
		if name == "Park" {
			invite = m.AwayInvite
		}
		do(t, p, name+" opens the lane", chromedp.Navigate(laneURL+invite))
		join(t, p, name, name)
	}
	until(t, kim, "four places, two phones, no host", `document.querySelectorAll("#board tr[data-row=marks]").length === 4 &&
		![...document.querySelectorAll("#board .badge")].some((b) => b.textContent === "host")`)

	bowl(t, kim, "Kim", 9, 10, false)
	bowl(t, kim, "Kim", 0, 1, false)
	// Lee's ball: his teammate's phone enters it, the other team's cannot.
	until(t, kim, "Kim's phone offers Lee's ball", padReady("Lee", 10))
	until(t, park, "Park's phone offers no pad with Lee up", `!!document.querySelector('#board tr.up[data-player="Lee"]') && document.querySelector("#pad").hidden`)
	bowl(t, kim, "Lee", 8, 10, false)
	bowl(t, kim, "Lee", 1, 2, false)
	bowl(t, park, "Park", 7, 10, false)
	bowl(t, park, "Park", 2, 3, false)
	// Choi's: the other way round.
	until(t, park, "Park's phone offers Choi's ball", padReady("Choi", 10))
	until(t, kim, "Kim's phone offers no pad with Choi up", `!!document.querySelector('#board tr.up[data-player="Choi"]') && document.querySelector("#pad").hidden`)
	bowl(t, park, "Choi", 6, 10, false)

	// The secretary, on the league's page, enters Choi's second ball
	// (the form shows the ball up) and takes Park's place back from his
	// phone.
	sec := open()
	asSecretary(t, sec, s, l.ID, l.SecretaryKey)
	do(t, sec, "the league's page, as its secretary", chromedp.Navigate(s.url+"/leagues/"+l.ID+"?lang=en"))
	until(t, sec, "the lane form at Choi's ball up", `!document.querySelector("#lane-form").hidden && document.querySelector("#lane-bowler").value === "Choi" &&
		document.querySelector("#lane-frame").value === "1" && document.querySelector("#lane-ball").value === "2"`)
	do(t, sec, "enter Choi's 4", chromedp.SendKeys(chromedp.CSS("#lane-pins"), "4"), chromedp.Click(chromedp.CSS("#lane-roll")))
	until(t, sec, "the ball entered", `document.querySelector("#secretary-done").textContent === "Entered: Choi, frame 1 ball 2: 4."`)
	until(t, kim, "Kim's frame 2", padReady("Kim", 10))
	do(t, sec, "take Park's place back", chromedp.SetValue(chromedp.CSS("#lane-bowler"), "Park"), chromedp.Click(chromedp.CSS("#lane-remove")))
	until(t, sec, "the place taken back", `document.querySelector("#secretary-done").textContent === "Park's place is free: another phone may take it."`)
	b, err := c.Board(t.Context(), opened.Matches[0].Lane)
	if err != nil {
		t.Fatal(err)
	}
	if choi := b.Players[3]; !slices.Equal(choi.Frames[0].Rolls, []int{6, 4}) || b.Players[2].Connected {
		t.Errorf("after the secretary's commands: Choi %+v, Park connected %v; want Choi 6 4, Park's place free", choi.Frames, b.Players[2].Connected)
	}
}
