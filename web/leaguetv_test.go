package web_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// The house TV shows a league's standings, ranked as the API ranks
// them, and follows them as scores come in; beside a lane when the
// address names one too.
func TestLeagueOnTheHouseTV(t *testing.T) {
	s := serve(t, lobby.Config{})
	l := thursday()
	l.Teams[1].Bowlers[1].Average = 130 // the Strikers' games count at once
	created := newLeague(t, s, l)
	c := &client.Client{URL: s.url}
	opened, err := c.OpenWeek(t.Context(), created.ID, created.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Lee"}})
	if err != nil {
		t.Fatal(err)
	}
	p := browser(t, inLanguage("en-US")...)()
	show(t, p, laptop)
	rows := `[...document.querySelectorAll(".tv-league tbody tr")].map((r) => [...r.cells].map((c) => c.textContent).join("|")).join("\n")`
	wantRows := func() string {
		st, err := c.Standings(t.Context(), created.ID)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for i, tm := range st.Teams {
			out = append(out, strings.Join([]string{strconv.Itoa(i + 1), tm.Name, pointsOf(tm.PointsWon), pointsOf(tm.PointsLost), grouped(tm.PinsHandicap), grouped(tm.HighGame)}, "|"))
		}
		return strings.Join(out, "\n")
	}
	do(t, p, "the house TV", chromedp.Navigate(s.url+"/tv?league="+created.ID))
	before := wantRows()
	until(t, p, "the standings on the TV", `document.querySelector(".tv-league .tv-name").textContent === "Thursday Mixed" && document.querySelector(".tv-league .tv-phase").textContent === "Standings" && `+rows+` === `+js(before))
	// The Strikers bowl game 1 well: they lead, and the TV follows.
	for name, score := range map[string]int{"Park": 250, "Choi": 240, "Han": 230, "Kim": 100, "Yoon": 100} {
		if _, err := c.Score(t.Context(), created.ID, created.SecretaryKey, protocol.LeagueScore{Week: 1, Bowler: name, Game: 1, Score: score}); err != nil {
			t.Fatal(err)
		}
	}
	after := wantRows()
	if after == before || !strings.HasPrefix(after, "1|Strikers") {
		t.Fatalf("the standings went from %q to %q", before, after)
	}
	until(t, p, "the TV following the standings", rows+` === `+js(after))

	do(t, p, "the league beside its lane", chromedp.Navigate(s.url+"/tv?league="+created.ID+"&lanes="+opened.Matches[0].Lane))
	until(t, p, "two panels: the standings and the lane", `document.querySelector("#tv").dataset.lanes === "2" && document.querySelectorAll(".tv-league tbody tr").length === 2 && document.querySelectorAll(".tv-lane[data-lane] .tv-board tr[data-row=marks]").length === 5`)
	screenshot(t, p, "league-tv.png")
}

// The house TV's standings have no accessibility violation axe-core
// finds, in English and in Korean, every text at its contrast
// (lowContrast), and say the week in the TV's language.
func TestLeagueOnTheHouseTVAccessible(t *testing.T) {
	src := axeSource(t)
	s := serve(t, lobby.Config{})
	created := newLeague(t, s, thursday())
	c := &client.Client{URL: s.url}
	if _, err := c.OpenWeek(t.Context(), created.ID, created.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Lee"}}); err != nil {
		t.Fatal(err)
	}
	bowlNight(t, s, created.ID, created.SecretaryKey, 1, 3, map[string][]int{
		"Kim": {150, 160, 170}, "Yoon": {140, 150, 160}, "Park": {180, 170, 160}, "Choi": {120, 130, 140}, "Han": {200, 110, 150},
	})
	for lang, week := range map[string]string{"en-US": "Standings after week 1", "ko-KR": "1주차 뒤 순위"} {
		t.Run(lang, func(t *testing.T) {
			p := browser(t, inLanguage(lang)...)()
			show(t, p, laptop)
			do(t, p, "the house TV", chromedp.Navigate(s.url+"/tv?league="+created.ID))
			until(t, p, "the standings after week 1", `document.querySelectorAll(".tv-league tbody tr").length === 2 && document.querySelector(".tv-league .tv-phase").textContent === `+js(week))
			if v := axeViolations(t, p, src); v != "" {
				t.Errorf("%s, the house TV's standings:\n%s", lang, v)
			}
			checkContrast(t, p, lang+", the house TV's standings", laptop, tv720)
		})
	}
}
