package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// TestLeagueNightPage: a bowler opens their match's lane on a league
// night and joins under their name: the page shows their team and
// handicap, and the two teams' scratch, totals with handicap and points;
// the TV shows the teams too.
func TestLeagueNightPage(t *testing.T) {
	s := serve(t, lobby.Config{})
	c := &client.Client{URL: s.url}
	l, err := c.CreateLeague(t.Context(), protocol.CreateLeague{
		Name: "Thursday", GamesPerNight: 2, Handicap: &protocol.LeagueHandicap{Basis: 200, Percent: 90},
		Points: protocol.LeaguePoints{PerGame: 2, PerSeries: 2}, AbsentMinus: 10, VacancyScore: 120,
		Teams: []protocol.LeagueTeam{
			{Name: "Pin Pals", Bowlers: []protocol.LeagueBowler{{Name: "Kim", Average: 150}, {Name: "Lee", Average: 180}}},
			{Name: "Strikers", Bowlers: []protocol.LeagueBowler{{Name: "Park", Average: 170}, {Name: "Choi", Average: 120}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	opened, err := c.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Lee"}})
	if err != nil {
		t.Fatal(err)
	}
	id := opened.Matches[0].Lane
	if opened.Matches[0].Home != "Pin Pals" {
		t.Fatalf("week 1's match is %+v, want Pin Pals at home", opened.Matches[0])
	}
	open := browser(t)
	p := open()
	do(t, p, "open the match's lane with Pin Pals' invitation", chromedp.Navigate(s.url+"/lanes/"+id+"?lang=en#invite="+opened.Matches[0].HomeInvite))
	join(t, p, "Kim", "Kim")
	// Kim ⌊50 × 0.9⌋ = 45; Lee, absent, 170 with his 18: Pin Pals 233.
	until(t, p, "Kim's team and handicap", `(() => {
		const row = document.querySelector('#board tr[data-player="Kim"] th');
		return row && row.querySelector(".team") && row.querySelector(".team").textContent === "Pin Pals" &&
			row.querySelector(".hcp") && row.querySelector(".hcp").textContent === "HDCP 45";
	})()`)
	until(t, p, "the teams' lines", `(() => {
		const rows = [...document.querySelectorAll("#teams-table tbody tr")].map((r) => [...r.children].map((c) => c.textContent));
		return !document.querySelector("#teams").hidden && JSON.stringify(rows) ===
			JSON.stringify([["Pin Pals", "170", "233", "0 points"], ["Strikers", "0", "99", "0 points"]]);
	})()`)
	tv := open()
	do(t, tv, "the lane's TV", chromedp.Navigate(s.url+"/lanes/"+id+"/tv?lang=en"))
	until(t, tv, "the teams on the TV", `document.querySelector(".tv-phase") && document.querySelector(".tv-phase").textContent.includes("Pin Pals 233 (0 pts)")`)
}

// TestLobbyLeadsToALeague: the lobby links to the secretary's form.
func TestLobbyLeadsToALeague(t *testing.T) {
	s := serve(t, lobby.Config{})
	p := browser(t)()
	do(t, p, "open the lobby", chromedp.Navigate(s.url+"/?lang=en"))
	do(t, p, "follow the league link", chromedp.Click(chromedp.CSS("#new-league")))
	until(t, p, "the league form", `location.pathname === "/leagues/new" && !!document.querySelector("form")`)
}

// TestLeagueNightTVTeamsWhole: a league night's TV names both teams in
// its head, with their totals and points, whole however long their names
// (40 characters each): on a line of their own under the lane's name
// and who is up, shrunk and wrapped to fit it, never cut, the board
// still whole, at 720p and 1080p.
func TestLeagueNightTVTeamsWhole(t *testing.T) {
	s := serve(t, lobby.Config{})
	c := &client.Client{URL: s.url}
	l := thursday()
	l.Name = "Thursday Night Mixed Handicap Trios Club"
	l.Teams[0].Name, l.Teams[1].Name = "Wednesday Night Wonderful Wrecking Crew", "목요일 밤의 화려한 스트라이크 전문가 모임 친구들"
	created, err := c.CreateLeague(t.Context(), l)
	if err != nil {
		t.Fatal(err)
	}
	opened, err := c.OpenWeek(t.Context(), created.ID, created.SecretaryKey, 1, protocol.OpenWeek{})
	if err != nil {
		t.Fatal(err)
	}
	tv := browser(t)()
	do(t, tv, "the lane's TV", chromedp.Navigate(s.url+"/lanes/"+opened.Matches[0].Lane+"/tv?lang=en"))
	until(t, tv, "the teams on the TV", `document.querySelector(".tv-phase") && document.querySelector(".tv-phase").textContent.includes("Wrecking Crew")`)
	for _, sc := range []screen{tv720, tv1080} {
		show(t, tv, sc)
		for what, expr := range map[string]string{"names not whole": tvNamesWhole, "the screen": tvFits} {
			if why := eval[string](t, tv, expr); why != "" {
				t.Errorf("%s, %s: %s", sc.name, what, why)
			}
		}
	}
}
