package web_test

import (
	"context"
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
// the other way round. Nobody on the lane is its host.
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
	laneURL := s.url + "/lanes/" + opened.Matches[0].Lane + "?lang=en"
	open := browser(t)
	kim, park := open(), open()
	for name, p := range map[string]context.Context{"Kim": kim, "Park": park} {
		do(t, p, name+" opens the lane", chromedp.Navigate(laneURL))
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
}
