package sheet_test

import (
	"bytes"
	"encoding/csv"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/golden"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/lobby/sheet"
)

// The worked example of a league (issue 35, "Done when"): four teams,
// three weeks, three games a night, every ball given (worked_test.go bowls
// them, testdata/worked-balls.txt shows them); Choi absent in week
// 2; "=Spares <&> Co" has one bowler for the others' two, so a vacancy
// every night; Lee has no entering average. Handicap 90 % of 220, 2
// points a game and 2 a series, absent_minus 10, vacancy_score 120. Its
// standings, averages and handicaps below are counted by hand; the test
// checks the league's against them, and the recap files in testdata
// (recap.csv, recap.svg, recap.ko.svg) write them out.
//
// Handicap = ⌊(220 − average) × 0.9⌋.
//
// Week 1 (averages entering): Kim 150 → 63, Park 170 → 45, Choi 160 → 54,
// 홍길동 180 → 36, Jung 140 → 72, Zoë 165 → ⌊49.5⌋ = 49. Lee has none: his
// first night's 405 ÷ 3 = 135 gives ⌊76.5⌋ = 76.
//
//	Pin Pals v Strikers   Kim 160 140 170 +63, Lee 120 150 135 +76 → 419 429 444 = 1292
//	                      Park 180 165 190 +45, Choi 150 170 140 +54 → 429 434 429 = 1292
//	  games 2 to Strikers, 2 to Strikers, 2 to Pin Pals; the series tie splits 2: Pin Pals 3–5, Strikers 5–3
//	핀 킹스 v =Spares      홍길동 200 170 185 +36, Jung 130 145 150 +72 → 438 423 443 = 1304
//	                      Zoë 170 160 155 +49, vacancy 120 → 339 329 324 = 992
//	  핀 킹스 8–0
//
// Week 2 (averages after week 1, fractions dropped): Kim 470/3 = 156 → 57,
// Lee 135 → 76, Park 535/3 = 178 → 37, Choi 460/3 = 153 → 60, 홍길동
// 555/3 = 185 → 31, Jung 425/3 = 141 → 71, Zoë 485/3 = 161 → 53. Choi is
// absent: 153 − 10 = 143 a game, with his 60.
//
//	=Spares v Pin Pals    Zoë 180 150 175 +53, vacancy 120 → 353 323 348 = 1024
//	                      Kim 170 155 165 +57, Lee 140 130 160 +76 → 443 418 458 = 1319
//	  Pin Pals 8–0
//	Strikers v 핀 킹스     Park 160 185 175 +37, Choi absent 143 +60 → 400 425 415 = 1240
//	                      홍길동 190 180 200 +31, Jung 150 135 160 +71 → 442 417 462 = 1321
//	  games 2 to 핀 킹스, 2 to Strikers, 2 to 핀 킹스, the series to 핀 킹스: 6–2
//
// Week 3 (averages after week 2): Kim 960/6 = 160 → 54, Lee 835/6 = 139 →
// 72, Park 1055/6 = 175 → 40, Choi 460/3 = 153 → 60 (absent scores never
// count), 홍길동 1125/6 = 187 → 29, Jung 870/6 = 145 → 67, Zoë 990/6 = 165
// → 49.
//
//	Pin Pals v 핀 킹스     Kim 150 175 160 +54, Lee 155 145 150 +72 → 431 446 436 = 1313
//	                      홍길동 170 210 180 +29, Jung 140 150 130 +67 → 406 456 406 = 1268
//	  games 2 to Pin Pals, 2 to 핀 킹스, 2 to Pin Pals, the series to Pin Pals: 6–2
//	=Spares v Strikers    Zoë 190 170 185 +49, vacancy 120 → 359 339 354 = 1052
//	                      Park 170 160 200 +40, Choi 165 150 175 +60 → 435 410 475 = 1320
//	  Strikers 8–0
//
// Standings after week 3 (points; pins scratch and with handicap, the
// absent's and the vacancy's included; high game and series with
// handicap): 48 points were played for, and 17 + 16 + 15 + 0 = 48.
//
//	1 Pin Pals   17– 7   875+920+935 = 2730   1292+1319+1313 = 3924   458   1319
//	2 핀 킹스     16– 8   980+1015+980 = 2975  1304+1321+1268 = 3893   462   1321
//	3 Strikers   15– 9   995+949+1020 = 2964  1292+1240+1320 = 3852   475   1320
//	4 =Spares     0–24   845+865+905 = 2615   992+1024+1052 = 3068    359   1052
//
// Bowlers (games, pins, average, next night's handicap, high game and
// series scratch):
//
//	Kim    9 1445 160 54 175 490     Lee   9 1285 142 ⌊70.2⌋ = 70 160 450
//	Park   9 1585 176 ⌊39.6⌋ = 39 200 535     Choi  6 950 158 ⌊55.8⌋ = 55 175 490
//	홍길동  9 1685 187 29 210 570     Jung  9 1290 143 ⌊69.3⌋ = 69 160 445
//	Zoë    9 1535 170 45 190 545
var workedSettings = league.Settings{
	Name:          "Thursday <Mixed> & 목요 리그",
	GamesPerNight: 3,
	Handicap:      league.Handicap{Basis: 220, Percent: 90},
	Points:        league.Points{PerGame: 2, PerSeries: 2},
	AbsentMinus:   10,
	VacancyScore:  120,
	Teams: []league.Team{
		{Name: "Pin Pals", Bowlers: []league.Bowler{{Name: "Kim", Average: 150}, {Name: "Lee"}}},
		{Name: "Strikers", Bowlers: []league.Bowler{{Name: "Park", Average: 170}, {Name: "Choi", Average: 160}}},
		{Name: "핀 킹스", Bowlers: []league.Bowler{{Name: "홍길동", Average: 180}, {Name: "Jung", Average: 140}}},
		{Name: "=Spares <&> Co", Bowlers: []league.Bowler{{Name: "Zoë", Average: 165}}},
	},
}

// workedNights are the worked example's nights: who is absent, and each
// bowler's games.
var workedNights = []struct {
	absent []string
	games  map[string][3]int
}{
	{nil, map[string][3]int{
		"Kim": {160, 140, 170}, "Lee": {120, 150, 135}, "Park": {180, 165, 190}, "Choi": {150, 170, 140},
		"홍길동": {200, 170, 185}, "Jung": {130, 145, 150}, "Zoë": {170, 160, 155},
	}},
	{[]string{"Choi"}, map[string][3]int{
		"Kim": {170, 155, 165}, "Lee": {140, 130, 160}, "Park": {160, 185, 175},
		"홍길동": {190, 180, 200}, "Jung": {150, 135, 160}, "Zoë": {180, 150, 175},
	}},
	{nil, map[string][3]int{
		"Kim": {150, 175, 160}, "Lee": {155, 145, 150}, "Park": {170, 160, 200}, "Choi": {165, 150, 175},
		"홍길동": {170, 210, 180}, "Jung": {140, 150, 130}, "Zoë": {190, 170, 185},
	}},
}

// workedLeague returns the worked example after its first nights nights,
// all closed, and the next one's first games if open: bowled of them.
func workedLeague(t *testing.T, nights int, open bool) *league.League {
	t.Helper()
	l, err := league.New(workedSettings)
	if err != nil {
		t.Fatal(err)
	}
	apply := func(e league.Event, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		l.Apply(e)
	}
	for w := range nights + 1 {
		if w == nights && !open {
			break
		}
		night := workedNights[w]
		var absent []league.Absence
		for _, name := range night.absent {
			absent = append(absent, league.Absence{Bowler: name})
		}
		apply(l.Open(w+1, absent))
		for _, team := range workedSettings.Teams {
			for _, b := range team.Bowlers {
				games, ok := night.games[b.Name]
				for g, pins := range games {
					if ok && (w < nights || g == 0) { // the night in play: its first game
						apply(l.Score(league.GameScore{Week: w + 1, Bowler: b.Name, Game: g + 1, Pins: pins}))
					}
				}
			}
		}
		if w < nights {
			apply(l.Close(w + 1))
		}
	}
	return l
}

// TestWorkedLeague: the worked example's standings, averages and
// handicaps, and its second night's games and points, are those counted
// by hand.
func TestWorkedLeague(t *testing.T) {
	l := workedLeague(t, 3, false)
	st := l.Standings()
	wantTeams := []league.TeamStanding{
		{Rank: 1, Name: "Pin Pals", PointsWon: 17, PointsLost: 7, PinsScratch: 2730, PinsHandicap: 3924, HighGame: 458, HighSeries: 1319},
		{Rank: 2, Name: "핀 킹스", PointsWon: 16, PointsLost: 8, PinsScratch: 2975, PinsHandicap: 3893, HighGame: 462, HighSeries: 1321},
		{Rank: 3, Name: "Strikers", PointsWon: 15, PointsLost: 9, PinsScratch: 2964, PinsHandicap: 3852, HighGame: 475, HighSeries: 1320},
		{Rank: 4, Name: "=Spares <&> Co", PointsWon: 0, PointsLost: 24, PinsScratch: 2615, PinsHandicap: 3068, HighGame: 359, HighSeries: 1052},
	}
	wantBowlers := []league.BowlerStanding{
		{Name: "Kim", Team: "Pin Pals", Games: 9, Pins: 1445, Average: 160, Handicap: 54, HighGame: 175, HighSeries: 490},
		{Name: "Lee", Team: "Pin Pals", Games: 9, Pins: 1285, Average: 142, Handicap: 70, HighGame: 160, HighSeries: 450},
		{Name: "Park", Team: "Strikers", Games: 9, Pins: 1585, Average: 176, Handicap: 39, HighGame: 200, HighSeries: 535},
		{Name: "Choi", Team: "Strikers", Games: 6, Pins: 950, Average: 158, Handicap: 55, HighGame: 175, HighSeries: 490},
		{Name: "홍길동", Team: "핀 킹스", Games: 9, Pins: 1685, Average: 187, Handicap: 29, HighGame: 210, HighSeries: 570},
		{Name: "Jung", Team: "핀 킹스", Games: 9, Pins: 1290, Average: 143, Handicap: 69, HighGame: 160, HighSeries: 445},
		{Name: "Zoë", Team: "=Spares <&> Co", Games: 9, Pins: 1535, Average: 170, Handicap: 45, HighGame: 190, HighSeries: 545},
	}
	if st.Closed != 3 || st.Open != 0 {
		t.Errorf("Standings: %d nights closed, week %d open; want 3 and none", st.Closed, st.Open)
	}
	if !reflect.DeepEqual(st.Teams, wantTeams) {
		t.Errorf("teams:\n%+v\nwant, counted by hand:\n%+v", st.Teams, wantTeams)
	}
	if !reflect.DeepEqual(st.Bowlers, wantBowlers) {
		t.Errorf("bowlers:\n%+v\nwant, counted by hand:\n%+v", st.Bowlers, wantBowlers)
	}

	// Week 2, as lane/bowling/DOMAIN.md ("League") counts it.
	night, _ := l.Sheet(2)
	type side struct {
		team     string
		handicap []int
		totals   []int
		won      float64
	}
	var got [][2]side
	for _, m := range night.Matches {
		var pair [2]side
		for i, ts := range []league.TeamSheet{m.Home, m.Away} {
			pair[i] = side{team: ts.Team, totals: ts.Totals, won: ts.PointsWon}
			for _, p := range ts.Places {
				pair[i].handicap = append(pair[i].handicap, p.Handicap)
			}
		}
		got = append(got, pair)
	}
	want := [][2]side{
		{{"=Spares <&> Co", []int{53, 0}, []int{353, 323, 348}, 0}, {"Pin Pals", []int{57, 76}, []int{443, 418, 458}, 8}},
		{{"Strikers", []int{37, 60}, []int{400, 425, 415}, 2}, {"핀 킹스", []int{31, 71}, []int{442, 417, 462}, 6}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("week 2's matches:\n%+v\nwant, counted by hand:\n%+v", got, want)
	}
	choi := night.Matches[1].Home.Places[1]
	if choi.Kind != league.PlaceAbsent || choi.Scores[0] != 143 {
		t.Errorf("Choi's place in week 2: %s scoring %v, want absent scoring 143", choi.Kind, choi.Scores)
	}
	// His absent scores count for his team's pins, not for his line.
	one, two := workedLeague(t, 1, false).Standings(), workedLeague(t, 2, false).Standings()
	strikers := func(st league.Standings) int {
		i := slices.IndexFunc(st.Teams, func(t league.TeamStanding) bool { return t.Name == "Strikers" })
		return st.Teams[i].PinsScratch
	}
	if got := strikers(two) - strikers(one); got != 949 {
		t.Errorf("Strikers' scratch pins of week 2 = %d, want 949 (Park's 520, Choi's absent 3 × 143)", got)
	}
	if b := two.Bowlers[3]; b.Name != "Choi" || b.Games != 3 || b.Average != 153 {
		t.Errorf("Choi after week 2: %+v, want 3 games, average 153", b)
	}
}

// recapDate is when the worked example's last night closed.
var recapDate = time.Date(2026, 12, 3, 22, 30, 0, 0, time.UTC)

func TestRecapCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := sheet.RecapCSV(&buf, sheet.NewRecap(workedLeague(t, 3, false), recapDate, "en")); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "recap.csv", buf.Bytes())

	data, ok := bytes.CutPrefix(buf.Bytes(), []byte("\uFEFF"))
	if !ok {
		t.Fatal("the CSV does not start with a byte order mark: a spreadsheet would not read its names as UTF-8")
	}
	// The default reader wants every row as wide as the first: RFC 4180's
	// rule, which the sections keep by padding.
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse back: %v", err)
	}
	section := func(header []string) [][]string {
		t.Helper()
		for i, r := range rows {
			if slices.Equal(r[:len(header)], header) {
				end := i + 1
				for end < len(rows) && strings.Join(rows[end], "") != "" {
					end++
				}
				return rows[i+1 : end]
			}
		}
		t.Fatalf("no section headed %q in\n%s", header, data)
		return nil
	}
	trim := func(rs [][]string, n int) [][]string {
		out := make([][]string, len(rs))
		for i, r := range rs {
			out[i] = r[:n]
		}
		return out
	}
	for _, tt := range []struct {
		header []string
		want   [][]string
	}{
		{sheet.RecapHeader, [][]string{{"Thursday <Mixed> & 목요 리그", "3", "closed", "2026-12-03T22:30:00Z"}}},
		{sheet.RecapTeamsHeader, [][]string{
			{"1", "Pin Pals", "17", "7", "2730", "3924", "458", "1319"},
			{"2", "핀 킹스", "16", "8", "2975", "3893", "462", "1321"},
			{"3", "Strikers", "15", "9", "2964", "3852", "475", "1320"},
			{"4", "'=Spares <&> Co", "0", "24", "2615", "3068", "359", "1052"}, // not a formula
		}},
		{sheet.RecapBowlersHeader, [][]string{
			{"Kim", "Pin Pals", "9", "1445", "160", "54", "175", "490"},
			{"Lee", "Pin Pals", "9", "1285", "142", "70", "160", "450"},
			{"Park", "Strikers", "9", "1585", "176", "39", "200", "535"},
			{"Choi", "Strikers", "6", "950", "158", "55", "175", "490"},
			{"홍길동", "핀 킹스", "9", "1685", "187", "29", "210", "570"},
			{"Jung", "핀 킹스", "9", "1290", "143", "69", "160", "445"},
			{"Zoë", "'=Spares <&> Co", "9", "1535", "170", "45", "190", "545"},
		}},
		{sheet.RecapMatchesHeader(3), [][]string{
			{"3", "Pin Pals", "핀 킹스", "431", "446", "436", "1313", "406", "456", "406", "1268", "6", "2"},
			{"3", "'=Spares <&> Co", "Strikers", "359", "339", "354", "1052", "435", "410", "475", "1320", "0", "8"},
		}},
	} {
		if got := trim(section(tt.header), len(tt.want[0])); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("section %q:\n%q\nwant\n%q", tt.header[0], got, tt.want)
		}
	}
}

// TestRecapInPlay: a night in play is recapped as far as bowled: its
// first game counted, the rest empty, the points won so far; before the
// first night, the standings' entering averages and no matches.
func TestRecapInPlay(t *testing.T) {
	rows := func(r sheet.Recap) [][]string {
		t.Helper()
		var buf bytes.Buffer
		if err := sheet.RecapCSV(&buf, r); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(buf.String(), "\uFEFF"))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	got := rows(sheet.NewRecap(workedLeague(t, 1, true), recapDate, "en"))
	if want := []string{"Thursday <Mixed> & 목요 리그", "2", "open"}; !slices.Equal(got[1][:3], want) {
		t.Errorf("the night: %q, want %q", got[1][:3], want)
	}
	// Week 2's first games: Spares 353 v Pin Pals 443, Strikers 400 v
	// 핀 킹스 442 (see the worked example).
	last := got[len(got)-2:]
	want := [][]string{
		{"2", "'=Spares <&> Co", "Pin Pals", "353", "", "", "", "443", "", "", "", "0", "2"},
		{"2", "Strikers", "핀 킹스", "400", "", "", "", "442", "", "", "", "0", "2"},
	}
	if !reflect.DeepEqual(last, want) {
		t.Errorf("week 2 in play, its first game bowled:\n%q\nwant\n%q", last, want)
	}

	got = rows(sheet.NewRecap(workedLeague(t, 0, false), time.Time{}, "en"))
	if want := []string{"Thursday <Mixed> & 목요 리그", "0", ""}; !slices.Equal(got[1][:3], want) {
		t.Errorf("before the first night: %q, want %q", got[1][:3], want)
	}
	lee := slices.IndexFunc(got, func(r []string) bool { return r[0] == "Lee" })
	if lee < 0 || !slices.Equal(got[lee][:8], []string{"Lee", "Pin Pals", "0", "0", "", "", "0", "0"}) {
		t.Errorf("Lee before the first night: %q, want no average nor handicap", got[max(lee, 0)])
	}
	if !slices.Equal(got[len(got)-1][:3], []string{"week", "home", "away"}) {
		t.Errorf("before the first night the recap has matches: %q", got[len(got)-1])
	}
}

func TestRecapSVG(t *testing.T) {
	for _, tt := range []struct {
		lang, file string
		words      []string
	}{
		{"en", "recap.svg", []string{"Standings · after week 3 · 2026-12-03", "High series"}},
		{"ko", "recap.ko.svg", []string{"순위표 · 3주차 후 · 2026-12-03", "하이 시리즈"}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			var buf bytes.Buffer
			if err := sheet.RecapSVG(&buf, sheet.NewRecap(workedLeague(t, 3, false), recapDate, tt.lang)); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tt.file, buf.Bytes())
			texts := svgTexts(t, buf.Bytes())
			for _, want := range append(tt.words, "Thursday <Mixed> & 목요 리그", "=Spares <&> Co", "핀 킹스", "3924", "17", "24") {
				if !slices.Contains(texts, want) {
					t.Errorf("the recap has no text %q: %q", want, texts)
				}
			}
		})
	}
}

func TestRecapSVGShrinksAWideName(t *testing.T) {
	wide := strings.Repeat("가", 20) // 40 columns
	r := sheet.Recap{League: "L", Standings: league.Standings{Teams: []league.TeamStanding{{Rank: 1, Name: wide}, {Rank: 2, Name: "Jo"}}}}
	var buf bytes.Buffer
	if err := sheet.RecapSVG(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, `style="font-size:10.8px">`+wide+`<`) {
		t.Errorf("a team name of 40 columns is not written smaller:\n%s", out)
	}
	if !strings.Contains(out, `<text class="t" x="74" y="204">Jo<`) {
		t.Errorf("a short name is not written at its usual size:\n%s", out)
	}
}
