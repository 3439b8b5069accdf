package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// TestLeagueNightOnPhones: a league night of two teams, eight bowlers on
// their phones and one absent, bowled through to the standings. The
// secretary opens the night, and their page shows each team's QR code;
// a stranger with the lane's link but no invitation watches and cannot
// sit; each bowler opens the match's lane from their team's link and taps
// their name; each bowls their own balls on their pad; the game's end
// closes the night, and the league's page ranks the teams as counted by
// hand:
//
//	Pin Pals (90% of 200): Kim 150 → 45, Lee 180 absent → 170 with 18,
//	  Moe 140 → 54, Ned (no average: tonight's 90) → 99, a vacancy 120.
//	  90+45 + 170+18 + 90+54 + 90+99 + 120 = 776.
//	Strikers: Park 170 → 27, Choi 120 → 72, Rho 160 → 36, Sun 130 → 63,
//	  Tae 110 → 81. 5 × 90 + 279 = 729.
//
// Pin Pals win the game's 2 points and the night's 2.
func TestLeagueNightOnPhones(t *testing.T) {
	s := serve(t, lobby.Config{})
	c := &client.Client{URL: s.url}
	l, err := c.CreateLeague(t.Context(), protocol.CreateLeague{
		Name: "Thursday Mixed", GamesPerNight: 1, Handicap: &protocol.LeagueHandicap{Basis: 200, Percent: 90},
		Points: protocol.LeaguePoints{PerGame: 2, PerSeries: 2}, AbsentMinus: 10, VacancyScore: 120,
		Teams: []protocol.LeagueTeam{
			{Name: "Pin Pals", Bowlers: []protocol.LeagueBowler{{Name: "Kim", Average: 150}, {Name: "Lee", Average: 180}, {Name: "Moe", Average: 140}, {Name: "Ned"}}},
			{Name: "Strikers", Bowlers: []protocol.LeagueBowler{{Name: "Park", Average: 170}, {Name: "Choi", Average: 120}, {Name: "Rho", Average: 160}, {Name: "Sun", Average: 130}, {Name: "Tae", Average: 110}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	opened, err := c.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Lee"}})
	if err != nil {
		t.Fatal(err)
	}
	m := opened.Matches[0]
	if m.Home != "Pin Pals" {
		t.Fatalf("week 1's match is %+v, want Pin Pals at home", m)
	}
	laneURL := s.url + "/lanes/" + m.Lane + "?lang=en"
	order := []string{"Kim", "Moe", "Ned", "Park", "Choi", "Rho", "Sun", "Tae"} // home first, in roster order
	open := browser(t)

	// The secretary's page shows the lane's QR code to watch and, for each
	// team, the link and QR code with its invitation; the public page
	// shows no invitation.
	secretary := open()
	asSecretary(t, secretary, s, l.ID, l.SecretaryKey)
	do(t, secretary, "the league's page, as its secretary", chromedp.Navigate(s.url+"/leagues/"+l.ID+"?lang=en"))
	teamLinks := `[...document.querySelectorAll("#tonight-matches .team-invite")].map(f => f.dataset.team + " " + f.querySelector("a").getAttribute("href") + " " + (f.querySelector("img").getAttribute("src") || "")).join("\n")`
	wantLinks := "Pin Pals /lanes/" + m.Lane + "#invite=" + m.HomeInvite + " " + qrData(t, s, m.Lane, m.HomeInvite) + "\n" +
		"Strikers /lanes/" + m.Lane + "#invite=" + m.AwayInvite + " " + qrData(t, s, m.Lane, m.AwayInvite)
	until(t, secretary, "each team's invitation", teamLinks+` === `+js(wantLinks)+` && document.querySelector("#team-invites-note").textContent.startsWith("A team's QR code seats only that team's bowlers")`)
	public := open()
	do(t, public, "the league's public page", chromedp.Navigate(s.url+"/leagues/"+l.ID+"?lang=en"))
	until(t, public, "the lane's link and QR code to watch", `document.querySelector("#tonight-matches li a.lane-link")?.getAttribute("href") === `+js("/lanes/"+m.Lane)+` && !document.querySelector("#tonight-matches .lane-qr").hidden`)
	if got := eval[string](t, public, `document.body.innerHTML`); strings.Contains(got, m.HomeInvite) || strings.Contains(got, m.AwayInvite) || strings.Contains(got, "#invite=") {
		t.Error("the league's public page holds a team's invitation")
	}

	// A stranger with the lane's link but no invitation watches, and the
	// lane will not seat them under a roster name.
	stranger := open()
	do(t, stranger, "a stranger opens the lane", chromedp.Navigate(laneURL))
	tryJoin(t, stranger, "Kim")
	// The board shows the roster's places from the start.
	until(t, stranger, "the stranger refused, watching", watchingRefused(strings.Join(order, " ")))

	phones := make(map[string]context.Context)
	for i, name := range order {
		p := open()
		invite := m.HomeInvite
		if i >= 3 {
			invite = m.AwayInvite
		}
		do(t, p, name+" opens their team's link", chromedp.Navigate(laneURL+"#invite="+invite))
		if name == "Kim" {
			// Pin Pals' invitation takes no place of the Strikers'.
			tryJoin(t, p, "Park")
			until(t, p, "Park refused on Pin Pals' invitation", `document.querySelector("#join-error").textContent === "That name is on the other team: join under a name of your own team's roster, with your team's invitation." && window.tenpin.state.seat === null`)
			do(t, p, "clear the name", chromedp.Evaluate[chromedp.Void](`document.querySelector("#join-name").value = ""`))
		}
		join(t, p, name, name)
		phones[name] = p
	}
	until(t, stranger, "the stranger watches the eight bowlers, all there, seated nowhere", `document.querySelectorAll("#board tr[data-row=marks]").length === 8 && !document.querySelector("#board .offline") && window.tenpin.state.seat === null`)
	until(t, phones["Kim"], "eight bowlers seated, none offline", `document.querySelectorAll("#board tr[data-row=marks]").length === 8 &&
		!document.querySelector("#board .offline")`)

	// Everyone bowls 9 and a miss a frame: 90.
	for frame := 1; frame <= 10; frame++ {
		for _, name := range order {
			bowl(t, phones[name], name, 9, 10, frame%2 == 0)
			bowl(t, phones[name], name, 0, 1, frame%2 == 1)
		}
	}
	until(t, phones["Tae"], "the teams' lines after the game", `(() => {
		const rows = [...document.querySelectorAll("#teams-table tbody tr")].map((r) => [...r.children].map((c) => c.textContent));
		return JSON.stringify(rows) === JSON.stringify([["Pin Pals", "560", "776", "4 points"], ["Strikers", "450", "729", "0 points"]]);
	})()`)
	until(t, phones["Kim"], "the game's totals, game by game", `(() => {
		const rows = [...document.querySelectorAll("#team-games tbody tr")].map((r) => [...r.children].map((c) => c.textContent));
		return !document.querySelector("#team-games").hidden && JSON.stringify(rows) === JSON.stringify([["Pin Pals", "776"], ["Strikers", "729"]]);
	})()`)

	league := phones["Kim"]
	do(t, league, "the league's page", chromedp.Navigate(s.url+"/leagues/"+l.ID+"?lang=en"))
	until(t, league, "the standings, as counted by hand", `(() => {
		const rows = [...document.querySelectorAll("#team-standings tbody tr")].map((r) => r.textContent);
		return rows.length === 2 && rows[0].includes("Pin Pals") && rows[0].includes("776") && rows[1].includes("Strikers") && rows[1].includes("729");
	})()`)
	st, err := c.Standings(t.Context(), l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Week != 1 || st.Teams[0].Name != "Pin Pals" || st.Teams[0].PointsWon != 4 || st.Teams[0].PinsHandicap != 776 || st.Teams[1].PinsHandicap != 729 {
		t.Errorf("standings: %+v; want the night closed by its game, Pin Pals 4 points with 776, Strikers 729", st)
	}
	for _, b := range st.Bowlers {
		if b.Name == "Ned" && (b.Average != 90 || b.Handicap != 99) {
			t.Errorf("Ned, with no entering average: %+v; want his night's 90, and 99 next week", b)
		}
		if b.Name == "Lee" && b.Games != 0 {
			t.Errorf("Lee, absent: %d games; an absent score is no game of his", b.Games)
		}
	}

	// The secretary corrects a ball of the closed night on the league's
	// page: Park's third frame was a spare (9/, then 9: 90 + 1 + 9 = 100),
	// and Strikers' 729 becomes 739.
	asSecretary(t, league, s, l.ID, l.SecretaryKey)
	do(t, league, "the league's page, as its secretary", chromedp.Navigate(s.url+"/leagues/"+l.ID+"?lang=en"))
	until(t, league, "the secretary's controls", `!document.querySelector("#secretary").hidden && document.querySelector("#ball-frame").options.length === 10`)
	do(t, league, "Park's frame 3, ball 2: 1",
		chromedp.SetValue(chromedp.CSS("#score-week"), "1"),
		chromedp.SetValue(chromedp.CSS("#score-bowler"), "Park"),
		chromedp.SetValue(chromedp.CSS("#score-game"), "1"),
		chromedp.SetValue(chromedp.CSS("#ball-frame"), "3"),
		chromedp.SetValue(chromedp.CSS("#ball-ball"), "2"),
		chromedp.SendKeys(chromedp.CSS("#ball-pins"), "1"),
		chromedp.Click(chromedp.CSS("#save-ball")))
	until(t, league, "the ball corrected, and the standings", `document.querySelector("#secretary-done").textContent === "Saved: Park, week 1, game 1, frame 3 ball 2: 1; the game is 100." &&
		document.querySelector("#changes li[data-kind=corrected] .what").textContent === "Park, week 1, game 1: frame 3 ball 2 corrected from 0 to 1, the game from 90 to 100" &&
		[...document.querySelectorAll("#team-standings tbody tr")][1].textContent.includes("739")`)
	if st, err = c.Standings(t.Context(), l.ID); err != nil || st.Teams[1].PinsHandicap != 739 {
		t.Errorf("standings after the ball's correction: %+v, %v; want Strikers 739", st, err)
	}
}
