package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
	"github.com/tenpin/tenpin/web"
)

// thursday is a league of two teams of three, one bowler without an
// entering average, bowled twice round.
func thursday() protocol.CreateLeague {
	return protocol.CreateLeague{
		Name: "Thursday Mixed", GamesPerNight: 3, Handicap: &protocol.LeagueHandicap{Basis: 220, Percent: 90},
		Points: protocol.LeaguePoints{PerGame: 2, PerSeries: 2}, AbsentMinus: 10, VacancyScore: 120, Weeks: 2,
		Teams: []protocol.LeagueTeam{
			{Name: "Pin Pals", Bowlers: []protocol.LeagueBowler{{Name: "Kim", Average: 150}, {Name: "Lee", Average: 180}, {Name: "Yoon", Average: 160}}},
			{Name: "Strikers", Bowlers: []protocol.LeagueBowler{{Name: "Park", Average: 170}, {Name: "Choi"}, {Name: "Han", Average: 140}}},
		},
	}
}

// newLeague creates a league through the API.
func newLeague(t *testing.T, s *server, l protocol.CreateLeague) protocol.CreatedLeague {
	t.Helper()
	c := &client.Client{URL: s.url}
	created, err := c.CreateLeague(t.Context(), l)
	if err != nil {
		t.Fatal(err)
	}
	return created
}

// asSecretary keeps key on the page's device for league id, as the form
// does once it has created the league.
func asSecretary(t *testing.T, ctx context.Context, s *server, id, key string) {
	t.Helper()
	do(t, ctx, "keep the key", chromedp.Navigate(s.url+"/static/favicon.svg"),
		chromedp.Evaluate[chromedp.Void](`localStorage.setItem("tenpin-league-key:" + `+js(id)+`, `+js(key)+`)`))
}

// grouped is n as the page writes it in English: 1,234.
func grouped(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func pointsOf(f float64) string {
	if f == float64(int(f)) {
		return grouped(int(f))
	}
	return strconv.FormatFloat(f, 'f', 1, 64)
}

// standingsRows is what the league page's standings tables should show,
// as the API says them: a row a team, then a row a bowler, cells joined
// by "|".
func standingsRows(st *protocol.LeagueStandings) string {
	var rows []string
	for i, tm := range st.Teams {
		rows = append(rows, strings.Join([]string{strconv.Itoa(i + 1), tm.Name, pointsOf(tm.PointsWon), pointsOf(tm.PointsLost), grouped(tm.PinsScratch), grouped(tm.PinsHandicap), grouped(tm.HighGame), grouped(tm.HighSeries)}, "|"))
	}
	for _, b := range st.Bowlers {
		rows = append(rows, strings.Join([]string{b.Name, b.Team, grouped(b.Games), grouped(b.Pins), grouped(b.Average), grouped(b.Handicap), grouped(b.HighGame), grouped(b.HighSeries)}, "|"))
	}
	return strings.Join(rows, "\n")
}

// shownStandings is the expression for the rows the page's standings
// tables show, as standingsRows writes them.
const shownStandings = `[...document.querySelectorAll("#team-standings tbody tr, #bowler-standings tbody tr")].map((r) => [...r.cells].map((c) => c.textContent).join("|")).join("\n")`

// untilStandings waits for the page to show the standings the API gives.
func untilStandings(t *testing.T, ctx context.Context, s *server, id, what string) {
	t.Helper()
	st, err := (&client.Client{URL: s.url}).Standings(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	want := standingsRows(st)
	until(t, ctx, what, shownStandings+` === `+js(want))
}

// The secretary creates a league through the form on a phone: a name
// twice is refused with the server's reason beside the form; fixed, the
// league is created, its key kept on the phone (not in the address) and
// shown once to be kept. On the league's page the secretary opens week 1
// with an absent bowler and a substitute for another: the match's lane is
// linked, with its QR code; enters a score, and the standings are the
// API's; closing the night with games to score is refused, in the page's
// words.
func TestLeagueThroughThePage(t *testing.T) {
	s := serve(t, lobby.Config{})
	p := browser(t, inLanguage("en-US")...)()
	show(t, p, phone)
	do(t, p, "the form", chromedp.Navigate(s.url+"/leagues/new"))
	until(t, p, "two teams of three rows", `document.querySelectorAll("#teams fieldset.team-edit").length === 2 && !!document.querySelector("#team-1-b-2")`)

	// A team added, then removed again.
	do(t, p, "add a team", chromedp.Click(chromedp.CSS("#add-team")))
	until(t, p, "three teams, the new one's name focused", `document.querySelectorAll("#teams fieldset.team-edit").length === 3 && document.activeElement.id === "team-2-name"`)
	do(t, p, "remove it", chromedp.Click(chromedp.CSS(`fieldset[data-team="2"] .remove-team`)))
	until(t, p, "two teams again", `document.querySelectorAll("#teams fieldset.team-edit").length === 2`)

	type field struct{ sel, text string }
	fields := []field{
		{"#lg-name", "Thursday Mixed"},
		{"#lg-weeks", "2"},
		{"#team-0-name", "Pin Pals"}, {"#team-0-b-0", "Kim"}, {"#team-0-a-0", "150"}, {"#team-0-b-1", "Lee"}, {"#team-0-a-1", "180"}, {"#team-0-b-2", "Yoon"}, {"#team-0-a-2", "160"},
		{"#team-1-name", "Strikers"}, {"#team-1-b-0", "Park"}, {"#team-1-a-0", "170"}, {"#team-1-b-1", "Choi"}, {"#team-1-b-2", "Han"}, {"#team-1-a-2", "140"},
	}
	for _, f := range fields {
		do(t, p, "type "+f.text, chromedp.SendKeys(chromedp.CSS(f.sel), f.text))
	}
	// A fourth bowler for the Strikers: Kim, who bowls for Pin Pals.
	do(t, p, "add a bowler", chromedp.Click(chromedp.CSS(`fieldset[data-team="1"] .add-bowler`)))
	until(t, p, "the new row focused", `document.activeElement.id === "team-1-b-3"`)
	do(t, p, "type Kim", chromedp.SendKeys(chromedp.CSS("#team-1-b-3"), "Kim"), chromedp.Click(chromedp.CSS("#create-league")))
	until(t, p, "the server's reason beside the form", `document.querySelector("#create-error").textContent.startsWith("That league cannot be") && document.querySelector("#create-error .reason").textContent.includes('"Kim" is on team "Pin Pals" already')`)
	if got := eval[string](t, p, `location.pathname`); got != "/leagues/new" {
		t.Fatalf("a refused league went to %s", got)
	}
	screenshot(t, p, "league-form.png")
	do(t, p, "remove Kim from the Strikers", chromedp.Click(chromedp.CSS(`fieldset[data-team="1"] [data-bowler="3"] .remove-bowler`)))
	until(t, p, "three Strikers", `document.querySelectorAll('fieldset[data-team="1"] .bowler-row').length === 3`)
	do(t, p, "create", chromedp.Click(chromedp.CSS("#create-league")))
	until(t, p, "the league's page, the key to keep", `location.pathname.startsWith("/leagues/") && location.pathname !== "/leagues/new" && !document.querySelector("#key-notice").hidden && document.querySelector("#league-name").textContent === "Thursday Mixed"`)
	id := strings.TrimPrefix(eval[string](t, p, `location.pathname`), "/leagues/")
	key := eval[string](t, p, `localStorage.getItem("tenpin-league-key:" + `+js(id)+`)`)
	if key == "" || eval[string](t, p, `document.querySelector("#key-value").value`) != key {
		t.Fatalf("the key kept is %q, the key shown %q", key, eval[string](t, p, `document.querySelector("#key-value").value`))
	}
	if href := eval[string](t, p, `location.href`); strings.Contains(href, key) {
		t.Errorf("the key is in the address %s", href)
	}
	c := &client.Client{URL: s.url}
	l, err := c.League(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	want := thursday()
	if l.Name != want.Name || l.GamesPerNight != 3 || l.Handicap != *want.Handicap || l.Points != want.Points || l.AbsentMinus != 10 || l.VacancyScore != 120 || len(l.Schedule) != 2 || fmt.Sprint(l.Teams) != fmt.Sprint(want.Teams) {
		t.Fatalf("the form created %+v, want %+v", l, want)
	}
	untilStandings(t, p, s, id, "the standings before the first night")
	until(t, p, "week 1's match, the secretary's controls", `document.querySelector("#tonight-head").textContent === "Next: week 1" && document.querySelector("#tonight-matches li").textContent === "Pin Pals v Strikers" && !document.querySelector("#secretary").hidden && document.querySelector("#open-week").textContent === "Open week 1" && document.querySelector("#key-entry").hidden`)

	// The key is shown once: read again, the page no longer shows it.
	do(t, p, "reload", chromedp.Reload())
	until(t, p, "the secretary's controls, no key shown", `!document.querySelector("#secretary").hidden && document.querySelector("#key-notice").hidden`)

	// Week 1: Lee absent; Jung, 140, bowls for Choi.
	do(t, p, "Lee absent", chromedp.Click(chromedp.CSS(`#open-teams input[data-bowler="Lee"]`)))
	do(t, p, "Choi absent", chromedp.Click(chromedp.CSS(`#open-teams input[data-bowler="Choi"]`)))
	until(t, p, "Choi's substitute's fields", `document.querySelector('#open-teams input[data-bowler="Choi"]').closest(".absent-row").querySelector(".sub").checkVisibility()`)
	sub := eval[string](t, p, `document.querySelector('#open-teams input[data-bowler="Choi"]').dataset.sub`)
	do(t, p, "Jung for Choi", chromedp.SendKeys(chromedp.CSS("#"+sub), "Jung"), chromedp.SendKeys(chromedp.CSS("#"+sub+"-avg"), "140"))
	if eval[string](t, p, `document.querySelector('#open-teams input[data-bowler="Choi"]').dataset.subAvg`) != sub+"-avg" {
		t.Fatal("the substitute's average is not beside their name")
	}
	do(t, p, "open week 1", chromedp.Click(chromedp.CSS("#open-week")))
	until(t, p, "the lane linked with its QR code", `document.querySelector("#tonight-head").textContent === "Week 1, tonight" && !!document.querySelector("#tonight-matches li[data-lane] img.lane-qr") && document.querySelector("#tonight-matches img.lane-qr").naturalWidth > 0 && document.querySelector("#open-form").hidden && !document.querySelector("#close-part").hidden`)
	if got := eval[string](t, p, `document.activeElement.id`); got != "tonight-head" {
		t.Errorf("after the opening the focus is on %q, want the night's heading", got)
	}
	l, err = c.League(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	lane := l.Schedule[0].Matches[0].Lane
	if !l.Open || l.Week != 1 || lane == "" {
		t.Fatalf("after the page opened week 1 the league is %+v", l)
	}
	if got := eval[string](t, p, `document.querySelector("#tonight-matches li a.lane-link").getAttribute("href")`); got != "/lanes/"+lane {
		t.Errorf("the match links %s, want /lanes/%s", got, lane)
	}
	hist, err := c.LeagueHistory(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 1 || hist[0].Kind != "opened" || fmt.Sprint(hist[0].Absent) != "[Lee Choi]" || fmt.Sprint(hist[0].Substitutes) != "[{Choi Jung 140}]" {
		t.Fatalf("the opening recorded %+v", hist)
	}
	until(t, p, "the opening in the history", `document.querySelector("#changes li[data-kind=opened] .what").textContent === "Week 1 opened; absent: Lee; Jung for Choi" && document.querySelector("#changes li .hint").textContent.startsWith("— the secretary, ")`)
	until(t, p, "the night's matches: Lee absent, Jung for Choi", `document.querySelector('#night-matches tr[data-bowler="Lee"]').textContent === "Leeabsent" && document.querySelector('#night-matches tr[data-bowler="Jung"] th').textContent === "Jung for Choi"`)

	// A score entered on the page.
	do(t, p, "Kim's game 1: 160",
		chromedp.SetValue(chromedp.CSS("#score-bowler"), "Kim"),
		chromedp.SetValue(chromedp.CSS("#score-game"), "1"),
		chromedp.SendKeys(chromedp.CSS("#score-score"), "160"),
		chromedp.Click(chromedp.CSS("#save-score")))
	until(t, p, "the score saved", `document.querySelector("#secretary-done").textContent === "Saved: Kim, week 1, game 1: 160." && document.querySelector('#bowler-standings tr[data-bowler="Kim"] td:nth-of-type(2)').textContent === "1"`)
	untilStandings(t, p, s, id, "the standings with Kim's 160")
	until(t, p, "Kim's 160 in the night's matches", `[...document.querySelectorAll('#night-matches tr[data-bowler="Kim"] td')].map((c) => c.textContent).join("|") === "160|||160"`)

	// Closing with games to score: refused, in the page's words and the server's reason.
	do(t, p, "close week 1", chromedp.Click(chromedp.CSS("#close-week")))
	until(t, p, "the refusal", `document.querySelector("#secretary-error").textContent.startsWith("The night still has games to score.") && document.querySelector("#secretary-error .reason").textContent.includes("week 1 still needs")`)
	if l, _ := c.League(t.Context(), id); !l.Open {
		t.Error("a refused closing closed the night")
	}
	screenshot(t, p, "league-secretary.png")
}

// The secretary's controls show only with the league's key: a device
// without one sees the league and a form for the key; a wrong key is
// refused and forgotten, the controls hidden; the right key typed in
// shows them, and is kept.
func TestLeagueKeyShowsTheControls(t *testing.T) {
	s := serve(t, lobby.Config{})
	created := newLeague(t, s, thursday())
	p := browser(t, inLanguage("en-US")...)()
	show(t, p, phone)
	hidden := `document.querySelector("#secretary").hidden && !document.querySelector("#open-week").checkVisibility() && !document.querySelector("#save-score").checkVisibility()`
	do(t, p, "the league, no key", chromedp.Navigate(s.url+"/leagues/"+created.ID))
	until(t, p, "the league without the controls", `document.querySelector("#league-name").textContent === "Thursday Mixed" && !document.querySelector("#key-entry").hidden && `+hidden)
	untilStandings(t, p, s, created.ID, "the standings")

	asSecretary(t, p, s, created.ID, "not-the-key")
	do(t, p, "the league, a wrong key", chromedp.Navigate(s.url+"/leagues/"+created.ID))
	until(t, p, "a wrong key refused and forgotten", `document.querySelector("#key-error").textContent === "That is not this league's secretary key." && localStorage.getItem("tenpin-league-key:" + `+js(created.ID)+`) === null && `+hidden)
	if eval[bool](t, p, `!document.querySelector("#key-notice").hidden`) {
		t.Error("a key notice shown on a league not created here")
	}

	do(t, p, "type the key", chromedp.SendKeys(chromedp.CSS("#key-input"), created.SecretaryKey), chromedp.Click(chromedp.CSS("#use-key")))
	until(t, p, "the controls", `!document.querySelector("#secretary").hidden && document.querySelector("#open-week").checkVisibility() && document.querySelector("#key-entry").hidden && document.activeElement.id === "secretary-head"`)
	do(t, p, "reload", chromedp.Reload())
	until(t, p, "the controls, the key kept", `!document.querySelector("#secretary").hidden && localStorage.getItem("tenpin-league-key:" + `+js(created.ID)+`) === `+js(created.SecretaryKey))
	if href := eval[string](t, p, `location.href`); strings.Contains(href, created.SecretaryKey) {
		t.Errorf("the key is in the address %s", href)
	}
}

// bowlNight enters every game of week w of a league of thursday's
// players, through the API, and closes it.
func bowlNight(t *testing.T, s *server, id, key string, w int, games int, scores map[string][]int) {
	t.Helper()
	c := &client.Client{URL: s.url}
	for name, gs := range scores {
		for g := range games {
			if _, err := c.Score(t.Context(), id, key, protocol.LeagueScore{Week: w, Bowler: name, Game: g + 1, Score: gs[g]}); err != nil {
				t.Fatalf("%s game %d: %v", name, g+1, err)
			}
		}
	}
	if _, err := c.CloseWeek(t.Context(), id, key, w); err != nil {
		t.Fatal(err)
	}
}

// A league of four teams of four, week 1 bowled and closed (one absent),
// printed from a phone in English and Korean: one sheet, A4 or Letter,
// of the standings and the night's matches, with no controls, schedule or
// history; the page links the recap's CSV and SVG.
func TestLeagueRecapPrints(t *testing.T) {
	s := serve(t, lobby.Config{})
	l := protocol.CreateLeague{
		Name: "Starlight Thursday", GamesPerNight: 3, Handicap: &protocol.LeagueHandicap{Basis: 220, Percent: 90},
		Points: protocol.LeaguePoints{PerGame: 2, PerSeries: 2}, AbsentMinus: 10, VacancyScore: 120,
	}
	scores := map[string][]int{}
	for i, team := range []string{"Pin Pals", "Strikers", "Gutter Gang", "Split Happens"} {
		tm := protocol.LeagueTeam{Name: team}
		for k := range 4 {
			name := string(rune('A'+i)) + strings.Repeat(string(rune('a'+k)), 3)
			tm.Bowlers = append(tm.Bowlers, protocol.LeagueBowler{Name: name, Average: 140 + 10*k})
			if name != "Baaa" {
				scores[name] = []int{120 + 7*i + 5*k, 150 + 3*k, 180 - 4*i}
			}
		}
		l.Teams = append(l.Teams, tm)
	}
	created := newLeague(t, s, l)
	c := &client.Client{URL: s.url}
	if _, err := c.OpenWeek(t.Context(), created.ID, created.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Baaa"}}); err != nil {
		t.Fatal(err)
	}
	bowlNight(t, s, created.ID, created.SecretaryKey, 1, 3, scores)
	for _, lang := range []string{"en-US", "ko-KR"} {
		t.Run(lang, func(t *testing.T) {
			p := browser(t, inLanguage(lang)...)()
			show(t, p, phone)
			asSecretary(t, p, s, created.ID, created.SecretaryKey)
			do(t, p, "the league", chromedp.Navigate(s.url+"/leagues/"+created.ID))
			until(t, p, "the standings after week 1, the night's matches", `document.querySelectorAll("#team-standings tbody tr").length === 4 && !document.querySelector("#night").hidden && document.querySelectorAll("#night-matches table").length === 2 && !document.querySelector("#secretary").hidden && document.querySelectorAll("#changes li").length > 40`)
			if lang == "en-US" {
				untilStandings(t, p, s, created.ID, "the API's standings")
			}
			links := eval[[]string](t, p, `[document.querySelector("#recap-csv").getAttribute("href"), document.querySelector("#recap-svg").getAttribute("href")]`)
			svg := "/api/leagues/" + created.ID + "/recap.svg"
			if lang == "ko-KR" {
				svg += "?lang=ko"
			}
			if len(links) != 2 || links[0] != "/api/leagues/"+created.ID+"/recap.csv" || links[1] != svg {
				t.Errorf("the recap links %q", links)
			}
			for _, paper := range papers {
				pdf, err := chromedp.Call(p, page.PrintToPDF, page.PrintToPDFParams{PaperWidth: paper.width, PaperHeight: paper.height})
				if err != nil {
					t.Fatalf("printing on %s: %v", paper.name, err)
				}
				if n := len(pdfPage.FindAll(pdf.Data, -1)); n != 1 {
					t.Errorf("printed on %s, the recap is %d pages, want 1", paper.name, n)
				}
			}
			media(t, p, "print")
			defer media(t, p, "")
			shown := eval[string](t, p, `["#league-name", "#team-standings", "#bowler-standings", "#night-matches", "#recap-date", "#secretary", "#schedule", "#history", "#recap", "#tonight", "header"].map((s) => s + ":" + document.querySelector(s).checkVisibility()).join(" ")`)
			if want := "#league-name:true #team-standings:true #bowler-standings:true #night-matches:true #recap-date:true #secretary:false #schedule:false #history:false #recap:false #tonight:false header:false"; shown != want {
				t.Errorf("printed, the page shows %s\nwant %s", shown, want)
			}
			if !eval[bool](t, p, notWider) {
				t.Errorf("printed at a phone's width, the page is %d px wide: %s", eval[int](t, p, `document.documentElement.scrollWidth`),
					eval[string](t, p, `[...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5 && e.checkVisibility() && e.tagName === "TABLE").map((e) => e.tagName + (e.id ? "#" + e.id : "") + "." + e.className + " " + Math.round(e.getBoundingClientRect().right)).join(", ")`))
			}
			screenshot(t, p, "league-print-"+lang+".png")
		})
	}
}

// The league's pages have no accessibility violation axe-core finds, of
// any impact, in English and in Korean, on a phone and a laptop: the
// form (and its refusal), the league as anyone sees it, and as its
// secretary sees it with a night open and with absences ticked. On a
// phone 360, 390 or 430 px wide, Korean is never broken inside a word on
// them, and they are no wider than the screen.
func TestLeaguePagesAccessible(t *testing.T) {
	src := axeSource(t)
	for _, lang := range []string{"en-US", "ko-KR"} {
		t.Run(lang, func(t *testing.T) {
			s := serve(t, lobby.Config{})
			p := browser(t, inLanguage(lang)...)()
			check := func(view string, screens ...screen) {
				t.Helper()
				checkAxe(t, p, src, lang+", "+view, screens...)
				if lang == "ko-KR" {
					checkWords(t, p, view)
				}
			}
			show(t, p, phone)
			do(t, p, "the form", chromedp.Navigate(s.url+"/leagues/new"))
			until(t, p, "the form", `!!document.querySelector("#team-1-b-2")`)
			check("the league form", phone, laptop)
			do(t, p, "three teams, refused", chromedp.Click(chromedp.CSS("#add-team")), chromedp.SendKeys(chromedp.CSS("#lg-name"), "목요일 리그"), chromedp.Click(chromedp.CSS("#create-league")))
			until(t, p, "the refusal", `document.querySelector("#create-error").textContent !== ""`)
			check("the league form, refused", phone)

			l := thursday()
			if lang == "ko-KR" {
				l.Name = "목요일 혼성 리그"
				l.Teams[0].Name, l.Teams[1].Name = "핀 친구들", "스트라이커즈"
				for i, n := range []string{"김민수", "이서연", "윤지호", "박준영", "최유진", "한소희"} {
					l.Teams[i/3].Bowlers[i%3].Name = n
				}
			}
			created := newLeague(t, s, l)
			c := &client.Client{URL: s.url}
			if _, err := c.OpenWeek(t.Context(), created.ID, created.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{l.Teams[0].Bowlers[1].Name}}); err != nil {
				t.Fatal(err)
			}
			bowlNight(t, s, created.ID, created.SecretaryKey, 1, 3, map[string][]int{
				l.Teams[0].Bowlers[0].Name: {150, 160, 170}, l.Teams[0].Bowlers[2].Name: {140, 150, 160},
				l.Teams[1].Bowlers[0].Name: {180, 170, 160}, l.Teams[1].Bowlers[1].Name: {120, 130, 140}, l.Teams[1].Bowlers[2].Name: {200, 110, 150},
			})
			if _, err := c.OpenWeek(t.Context(), created.ID, created.SecretaryKey, 2, protocol.OpenWeek{}); err != nil {
				t.Fatal(err)
			}
			do(t, p, "the league, as anyone", chromedp.Navigate(s.url+"/leagues/"+created.ID))
			until(t, p, "the league", `document.querySelectorAll("#team-standings tbody tr").length === 2 && document.querySelectorAll("#tonight-matches img.lane-qr:not([hidden])").length === 1 && !document.querySelector("#key-entry").hidden`)
			check("the league, as anyone", phone, laptop)

			// The secretary: week 2 open, its closing refused.
			asSecretary(t, p, s, created.ID, created.SecretaryKey)
			do(t, p, "the league, as its secretary", chromedp.Navigate(s.url+"/leagues/"+created.ID))
			until(t, p, "the secretary's controls, week 2 open, each team's QR code", `!document.querySelector("#secretary").hidden && !document.querySelector("#close-part").hidden && document.querySelectorAll("#tonight-matches img.lane-qr:not([hidden])").length === 1 && document.querySelectorAll("#tonight-matches .team-invite img:not([hidden])").length === 2`)
			do(t, p, "close week 2, refused", chromedp.Click(chromedp.CSS("#close-week")))
			until(t, p, "the refusal", `document.querySelector("#secretary-error").textContent !== ""`)
			check("the league, as its secretary, a night open", phone, laptop)

			// The next league's first night, absences ticked.
			l2 := l
			l2.Name += " 2"
			next := newLeague(t, s, l2)
			asSecretary(t, p, s, next.ID, next.SecretaryKey)
			do(t, p, "a new league, as its secretary", chromedp.Navigate(s.url+"/leagues/"+next.ID))
			until(t, p, "the opening's form", `!document.querySelector("#open-form").hidden && document.querySelectorAll("#open-teams input[type=checkbox]").length === 6`)
			do(t, p, "tick an absence", chromedp.Click(chromedp.CSS(`#open-teams input[type=checkbox]`)))
			until(t, p, "the substitute's fields", `document.querySelector("#open-teams .sub").checkVisibility()`)
			check("the league, as its secretary, opening a night", phone, laptop)

		})
	}
}

// The league's pages are served as the page's others are: HTML, asked
// again each time, with the page's security headers; the form at
// /leagues/new, any other id the league's page.
func TestLeaguePagesServed(t *testing.T) {
	srv := httptest.NewServer(web.Handler())
	defer srv.Close()
	for path, script := range map[string]string{"/leagues/new": "/static/js/league-new.js", "/leagues/k3x9mdq2vb": "/static/js/league.js"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || res.Header.Get("Cache-Control") != "no-cache" ||
			!strings.Contains(res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") || !strings.Contains(string(body), `src="`+script+`"`) {
			t.Errorf("GET %s: %d %v, body without %s: %.200s", path, res.StatusCode, res.Header, script, body)
		}
	}
}

// While a night is in play, the league's page reads the league again by
// itself: a score the lanes (here, the API) enter shows in its standings
// and the night's matches without a reload.
func TestLeaguePageFollowsTheNight(t *testing.T) {
	s := serve(t, lobby.Config{})
	created := newLeague(t, s, thursday())
	c := &client.Client{URL: s.url}
	if _, err := c.OpenWeek(t.Context(), created.ID, created.SecretaryKey, 1, protocol.OpenWeek{}); err != nil {
		t.Fatal(err)
	}
	p := browser(t, inLanguage("en-US")...)()
	do(t, p, "the league", chromedp.Navigate(s.url+"/leagues/"+created.ID))
	untilStandings(t, p, s, created.ID, "the standings before a score")
	if _, err := c.Score(t.Context(), created.ID, created.SecretaryKey, protocol.LeagueScore{Week: 1, Bowler: "Park", Game: 1, Score: 212}); err != nil {
		t.Fatal(err)
	}
	untilStandings(t, p, s, created.ID, "Park's 212 in the standings")
	until(t, p, "Park's 212 in the night's matches", `document.querySelector('#night-matches tr[data-bowler="Park"] td').textContent === "212"`)
}

// The standings fit a phone 390 px wide, every column of both tables in
// view without scrolling them sideways, the handicap's too: in English
// and in Korean, with the league's longest names.
func TestLeagueStandingsFitAPhone(t *testing.T) {
	for _, lang := range []string{"en-US", "ko-KR"} {
		t.Run(lang, func(t *testing.T) {
			s := serve(t, lobby.Config{})
			p := browser(t, inLanguage(lang)...)()
			l := thursday()
			l.Teams[0].Name, l.Teams[1].Name = "Pin Pals Bowling Club", "Strikers"
			l.Teams[0].Bowlers[0].Name = "Christopher"
			if lang == "ko-KR" {
				l.Teams[0].Name, l.Teams[1].Name = "핀 친구들 볼링 클럽", "스트라이커즈"
			}
			created := newLeague(t, s, l)
			c := &client.Client{URL: s.url}
			if _, err := c.OpenWeek(t.Context(), created.ID, created.SecretaryKey, 1, protocol.OpenWeek{}); err != nil {
				t.Fatal(err)
			}
			names := map[string][]int{}
			for i, tm := range l.Teams {
				for j, b := range tm.Bowlers {
					names[b.Name] = []int{150 + 10*i + j, 160, 170}
				}
			}
			bowlNight(t, s, created.ID, created.SecretaryKey, 1, 3, names)
			show(t, p, phone)
			do(t, p, "the league", chromedp.Navigate(s.url+"/leagues/"+created.ID))
			untilStandings(t, p, s, created.ID, "the standings")
			cut := `[...document.querySelectorAll("#team-standings, #bowler-standings")].flatMap((tb) => {
				const wrap = tb.parentElement, out = [];
				if (tb.scrollWidth > wrap.clientWidth + 0.5) out.push(tb.id + " is " + tb.scrollWidth + " px wide in " + wrap.clientWidth);
				for (const c of tb.querySelectorAll("th, td")) {
					const r = c.getBoundingClientRect();
					if (r.right > document.documentElement.clientWidth + 0.5) out.push(tb.id + " cuts " + (c.textContent || c.className) + " at " + Math.round(r.right));
				}
				return out.slice(0, 4);
			}).join("; ")`
			if got := eval[string](t, p, cut); got != "" {
				t.Errorf("%s, a phone 390 px wide: %s", lang, got)
			}
			if !eval[bool](t, p, notWider) {
				t.Errorf("%s: the league's page is %d px wide on a phone", lang, eval[int](t, p, `document.documentElement.scrollWidth`))
			}
			do(t, p, "the standings in view", chromedp.ScrollIntoView(chromedp.CSS("#standings")))
			keep(t, p, "standings-"+lang+".png")
			if lang == "ko-KR" {
				checkWords(t, p, "the standings")
			}
		})
	}
}
