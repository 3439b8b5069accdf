package lobby_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
	tenpin "github.com/tenpin/tenpin/protocol/client"
)

// issueLeague is the body of issue 35's example, with its teams written
// out.
const issueLeague = `{"name":"Thursday Mixed","games_per_night":3,
 "handicap":{"basis":220,"percent":90},
 "points":{"per_game":2,"per_series":2},
 "absent_minus":10,"vacancy_score":120,
 "teams":[{"name":"Pin Pals","bowlers":[{"name":"Kim","average":150},{"name":"Lee"}]},
          {"name":"Strikers","bowlers":[{"name":"Park","average":170},{"name":"Choi","average":120}]},
          {"name":"Gutter Kings","bowlers":[{"name":"Jung","average":160}]},
          {"name":"Spare Me","bowlers":[{"name":"Han","average":140},{"name":"Yoon","average":190}]}]}`

// send sends method url with the Authorization header auth (if any) and
// a body (if any) of contentType, and returns the status and the body.
func send(t *testing.T, method, url, auth, contentType, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, data
}

// refusal decodes an API error; it fails the test if data is none.
func refusal(t *testing.T, data []byte) protocol.Error {
	t.Helper()
	var e protocol.Error
	if err := protocol.Unmarshal(data, &e); err != nil || e.Code == "" {
		t.Fatalf("not an API error: %s (%v)", data, err)
	}
	return e
}

// watchedLeagues is a memjournal store that remembers the ids of the
// leagues created in it, for tests to see that a refusal created none.
type watchedLeagues struct {
	*memjournal.Leagues
	mu      sync.Mutex
	created []string
}

func (w *watchedLeagues) Create(ctx context.Context, l league.Stored) error {
	err := w.Leagues.Create(ctx, l)
	if err == nil {
		w.mu.Lock()
		w.created = append(w.created, l.ID)
		w.mu.Unlock()
	}
	return err
}

func (w *watchedLeagues) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.created)
}

func newLeagueServer(t *testing.T) (*testServer, *watchedLeagues, *tenpin.Client) {
	t.Helper()
	store := &watchedLeagues{Leagues: memjournal.NewLeagues()}
	s := newServer(t, lobby.Config{Leagues: store})
	return s, store, &tenpin.Client{URL: s.srv.URL}
}

// TestIssueExampleCreatesALeague: the issue's body creates a league whose
// settings, teams and schedule GET /api/leagues/{id} answers.
func TestIssueExampleCreatesALeague(t *testing.T) {
	s, store, c := newLeagueServer(t)
	status, data := send(t, "POST", s.srv.URL+"/api/leagues", "", "application/json", issueLeague)
	if status != http.StatusCreated {
		t.Fatalf("POST /api/leagues: %d %s, want 201", status, data)
	}
	var created protocol.CreatedLeague
	if err := protocol.Unmarshal(data, &created); err != nil || created.ID == "" || len(created.SecretaryKey) < 20 {
		t.Fatalf("created = %s (%v), want an id and a long key", data, err)
	}
	if store.count() != 1 {
		t.Errorf("%d leagues stored, want 1", store.count())
	}
	l, err := c.League(t.Context(), created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if l.ID != created.ID || l.Name != "Thursday Mixed" || l.GamesPerNight != 3 || l.Handicap != (protocol.LeagueHandicap{Basis: 220, Percent: 90}) ||
		l.Points != (protocol.LeaguePoints{PerGame: 2, PerSeries: 2}) || l.AbsentMinus != 10 || l.VacancyScore != 120 || len(l.Teams) != 4 ||
		l.Teams[0].Bowlers[0] != (protocol.LeagueBowler{Name: "Kim", Average: 150}) || l.Teams[0].Bowlers[1] != (protocol.LeagueBowler{Name: "Lee"}) {
		t.Errorf("GET the league = %+v, want the settings sent", l)
	}
	if l.Week != 1 || l.Open {
		t.Errorf("a new league's night: week %d, open %v; want week 1, not open", l.Week, l.Open)
	}
	// One round robin of 4 teams: 3 weeks of 2 matches, each pair once,
	// as the league schedules it.
	want := league.Schedule(4, 3)
	names := []string{"Pin Pals", "Strikers", "Gutter Kings", "Spare Me"}
	if len(l.Schedule) != 3 {
		t.Fatalf("schedule of %d weeks, want 3", len(l.Schedule))
	}
	for w, week := range l.Schedule {
		for i, m := range week.Matches {
			if week.Week != w+1 || m.Home != names[want[w][i].Home] || m.Away != names[want[w][i].Away] || m.Lane != "" {
				t.Errorf("week %d match %d = %+v, want %s v %s, no lane yet", w+1, i+1, m, names[want[w][i].Home], names[want[w][i].Away])
			}
		}
	}
	if st, err := c.Standings(t.Context(), created.ID); err != nil || st.Week != 0 || len(st.Teams) != 4 || len(st.Bowlers) != 7 {
		t.Errorf("a new league's standings = %+v, %v; want week 0, 4 teams, 7 bowlers", st, err)
	}
}

// TestImpossibleLeagues: each impossible setting is refused 400
// invalid_league saying which, and creates nothing; so do bodies that are
// not a league.
func TestImpossibleLeagues(t *testing.T) {
	s, store, _ := newLeagueServer(t)
	team := func(name string, bowlers ...string) string {
		var b []string
		for _, n := range bowlers {
			b = append(b, `{"name":"`+n+`"}`)
		}
		return `{"name":"` + name + `","bowlers":[` + strings.Join(b, ",") + `]}`
	}
	league := func(extra string, teams ...string) string {
		return `{"name":"Thursday","games_per_night":3,"points":{"per_game":2,"per_series":2},"absent_minus":10,"vacancy_score":120` + extra + `,"teams":[` + strings.Join(teams, ",") + `]}`
	}
	a, b, c := team("A", "Kim"), team("B", "Lee"), team("C", "Park")
	for _, tt := range []struct {
		name, body, says string
	}{
		{"an odd number of teams", league("", a, b, c), "3"},
		{"one team", league("", a), "1"},
		{"a percent over 100", league(`,"handicap":{"basis":220,"percent":101}`, a, b), "101"},
		{"a negative basis", league(`,"handicap":{"basis":-1,"percent":90}`, a, b), "-1"},
		{"an empty team", league("", a, team("B")), "B"},
		{"a name twice", league("", a, team("B", "Kim")), "Kim"},
		{"a name twice, in another case", league("", a, team("B", "KIM")), "KIM"},
		{"a team twice", league("", a, team("A", "Lee")), "A"},
		{"seven bowlers", league("", a, team("B", "Ann", "Bea", "Cy", "Di", "Ed", "Flo", "Gus")), "7"},
		{"no games a night", strings.Replace(league("", a, b), `"games_per_night":3`, `"games_per_night":0`, 1), "0"},
		{"no name", strings.Replace(league("", a, b), `"name":"Thursday"`, `"name":" "`, 1), "name"},
		{"53 weeks", league(`,"weeks":53`, a, b), "53"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, data := send(t, "POST", s.srv.URL+"/api/leagues", "", "application/json", tt.body)
			e := refusal(t, data)
			if status != http.StatusBadRequest || e.Code != protocol.CodeInvalidLeague || !strings.Contains(e.Message, tt.says) {
				t.Errorf("POST a league with %s: %d %s %q; want 400 invalid_league naming %q", tt.name, status, e.Code, e.Message, tt.says)
			}
		})
	}
	for _, tt := range []struct {
		name, contentType, body string
		status                  int
		code                    protocol.Code
	}{
		{"an unknown field", "application/json", strings.Replace(league("", a, b), `"name":"Thursday"`, `"name":"Thursday","night":"thu"`, 1), 400, protocol.CodeBadRequest},
		{"a field twice", "application/json", strings.Replace(league("", a, b), `"name":"Thursday"`, `"name":"Thursday","name":"Friday"`, 1), 400, protocol.CodeBadRequest},
		{"no JSON", "application/json", "name=Thursday", 400, protocol.CodeBadRequest},
		{"a form", "application/x-www-form-urlencoded", league("", a, b), 415, protocol.CodeUnsupportedMediaType},
		{"a body over 64 KiB", "application/json", league(`,"weeks":2`+strings.Repeat(" ", 64<<10), a, b), 413, protocol.CodeTooLarge},
	} {
		status, data := send(t, "POST", s.srv.URL+"/api/leagues", "", tt.contentType, tt.body)
		if e := refusal(t, data); status != tt.status || e.Code != tt.code {
			t.Errorf("POST a league with %s: %d %s, want %d %s", tt.name, status, e.Code, tt.status, tt.code)
		}
	}
	if n := store.count(); n != 0 {
		t.Errorf("the refusals created %d leagues, want none", n)
	}
	if status, data := send(t, "GET", s.srv.URL+"/api/leagues/abcdefghij", "", "", ""); status != 404 || refusal(t, data).Code != protocol.CodeLeagueNotFound {
		t.Errorf("GET an unknown league: %d %s, want 404 league_not_found", status, data)
	}
}

// createSmall creates the hand-counted league: two teams of two, one game
// a night, two weeks, handicap 90 % of 200.
func createSmall(t *testing.T, c *tenpin.Client) protocol.CreatedLeague {
	t.Helper()
	l, err := c.CreateLeague(t.Context(), protocol.CreateLeague{
		Name: "Small", GamesPerNight: 1, Handicap: &protocol.LeagueHandicap{Basis: 200, Percent: 90},
		Points: protocol.LeaguePoints{PerGame: 2, PerSeries: 2}, AbsentMinus: 10, VacancyScore: 120, Weeks: 2,
		Teams: []protocol.LeagueTeam{
			{Name: "Pin Pals", Bowlers: []protocol.LeagueBowler{{Name: "Kim", Average: 150}, {Name: "Lee", Average: 180}}},
			{Name: "Strikers", Bowlers: []protocol.LeagueBowler{{Name: "Park", Average: 170}, {Name: "Choi", Average: 120}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func code(err error) protocol.Code {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// TestSecretaryKey: a secretary's request without the key is 401, with
// another key 403, and changes nothing; wrong keys are charged to the
// address as unknown bowler keys are, right ones are not.
func TestSecretaryKey(t *testing.T) {
	s, _, c := newLeagueServer(t)
	l := createSmall(t, c)
	base := s.srv.URL + "/api/leagues/" + l.ID
	open := `{"absent":["Lee"]}`
	for _, tt := range []struct {
		auth   string
		status int
		code   protocol.Code
	}{
		{"", 401, protocol.CodeSecretaryRequired},
		{"Secretary ", 401, protocol.CodeSecretaryRequired},
		{"Bearer " + l.SecretaryKey, 401, protocol.CodeSecretaryRequired},
		{"Secretary wrong", 403, protocol.CodeNotSecretary},
		{"Secretary " + l.SecretaryKey + "x", 403, protocol.CodeNotSecretary},
	} {
		for _, req := range []struct{ path, body string }{{"/weeks/1/open", open}, {"/weeks/1/close", ""}, {"/scores", `{"week":1,"bowler":"Kim","game":1,"score":150}`}} {
			status, data := send(t, "POST", base+req.path, tt.auth, "application/json", req.body)
			e := refusal(t, data)
			if status != tt.status || e.Code != tt.code {
				t.Errorf("POST %s with %q: %d %s, want %d %s", req.path, tt.auth, status, e.Code, tt.status, tt.code)
			}
			if strings.Contains(string(data), l.SecretaryKey) {
				t.Errorf("POST %s: the answer quotes the key: %s", req.path, data)
			}
		}
	}
	// Without the key, whatever the body: 401.
	for _, body := range []string{"", "not json", `{"week":1,"extra":true}`} {
		if status, data := send(t, "POST", base+"/scores", "", "text/plain", body); status != 401 || refusal(t, data).Code != protocol.CodeSecretaryRequired {
			t.Errorf("POST /scores without a key, body %q: %d %s, want 401 secretary_required", body, status, data)
		}
	}
	if got, _ := c.League(t.Context(), l.ID); got.Open || s.lobby.Len() != 0 {
		t.Errorf("after refusals: night open %v, %d lanes; want nothing changed", got.Open, s.lobby.Len())
	}
	if h, _ := c.LeagueHistory(t.Context(), l.ID); len(h) != 0 {
		t.Errorf("after refusals: %d records, want none", len(h))
	}

	// 6 wrong keys so far: 14 more are refused 403, then 429. A right
	// key costs nothing, before and after.
	for range 5 {
		if _, err := c.Score(t.Context(), l.ID, l.SecretaryKey, protocol.LeagueScore{Week: 1, Bowler: "Kim", Game: 1, Score: 150}); code(err) != protocol.CodeWrongWeek {
			t.Fatalf("a score before the night, with the right key: %v, want wrong_week", err)
		}
	}
	for i := range 14 {
		if status, _ := send(t, "POST", base+"/scores", "Secretary guess", "application/json", `{"week":1,"bowler":"Kim","game":1,"score":1}`); status != 403 {
			t.Fatalf("wrong key %d: %d, want 403", 7+i, status)
		}
	}
	status, data := send(t, "POST", base+"/scores", "Secretary guess", "application/json", `{"week":1,"bowler":"Kim","game":1,"score":1}`)
	if status != http.StatusTooManyRequests || refusal(t, data).Code != protocol.CodeRateLimited {
		t.Errorf("the 21st wrong key: %d %s, want 429 rate_limited", status, data)
	}
}

// TestLeagueNight: a night of the hand-counted league through the API.
// Lee is absent; one game: Kim 160, Park 175, Choi 130.
//
//	handicaps ⌊(200 − average) × 90 %⌋: Kim 45, Lee 18, Park 27, Choi 72
//	Pin Pals: Kim 160 + Lee absent 180 − 10 = 330 scratch, + 45 + 18 = 393
//	Strikers: Park 175 + Choi 130 = 305 scratch, + 27 + 72 = 404
//	Strikers win the game (2) and the series (2): 4–0
//
// Kim's 160 corrected to 200 after the night closed: Pin Pals 370, 433,
// and win 4–0 instead; Kim's average 200, next handicap 0.
func TestLeagueNight(t *testing.T) {
	s, _, c := newLeagueServer(t)
	l := createSmall(t, c)
	ctx := t.Context()

	// Refusals of the opening change nothing and open no lane.
	for _, tt := range []struct {
		week int
		body protocol.OpenWeek
		code protocol.Code
	}{
		{2, protocol.OpenWeek{}, protocol.CodeWrongWeek},
		{1, protocol.OpenWeek{Absent: []string{"Zed"}}, protocol.CodeInvalidNight},
		{1, protocol.OpenWeek{Absent: []string{"Lee", "Lee"}}, protocol.CodeInvalidNight},
		{1, protocol.OpenWeek{Substitutes: []protocol.LeagueSubstitute{{For: "Lee", Name: "Kim"}}}, protocol.CodeInvalidNight},
		{1, protocol.OpenWeek{Substitutes: []protocol.LeagueSubstitute{{For: "Lee", Name: "Jo"}, {For: "Lee", Name: "Al"}}}, protocol.CodeInvalidNight},
		// Nobody to bowl on the match's lane: a plain refusal, not a 503
		// to try again.
		{1, protocol.OpenWeek{Absent: []string{"Kim", "Lee", "Park", "Choi"}}, protocol.CodeInvalidNight},
	} {
		if _, err := c.OpenWeek(ctx, l.ID, l.SecretaryKey, tt.week, tt.body); code(err) != tt.code {
			t.Errorf("open week %d with %+v: %v, want %s", tt.week, tt.body, err, tt.code)
		}
	}
	if s.lobby.Len() != 0 {
		t.Fatalf("refused openings opened %d lanes", s.lobby.Len())
	}

	opened, err := c.OpenWeek(ctx, l.ID, l.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Lee"}})
	if err != nil {
		t.Fatal(err)
	}
	if opened.Week != 1 || len(opened.Matches) != 1 || opened.Matches[0].Home != "Pin Pals" || opened.Matches[0].Away != "Strikers" || opened.Matches[0].Lane == "" {
		t.Fatalf("opened = %+v, want week 1, Pin Pals v Strikers on a lane", opened)
	}
	laneID := opened.Matches[0].Lane
	board, err := c.Board(ctx, laneID)
	if err != nil {
		t.Fatalf("GET the night's lane: %v", err)
	}
	if !strings.Contains(board.Name, "Pin Pals") || !strings.Contains(board.Name, "Strikers") {
		t.Errorf("the night's lane is named %q, want the match's teams", board.Name)
	}
	got, _ := c.League(ctx, l.ID)
	if !got.Open || got.Week != 1 || got.Schedule[0].Matches[0].Lane != laneID || got.Schedule[1].Matches[0].Lane != "" {
		t.Errorf("the league after the opening: week %d open %v, schedule %+v; want week 1 open, its match on %s", got.Week, got.Open, got.Schedule, laneID)
	}
	if _, err := c.OpenWeek(ctx, l.ID, l.SecretaryKey, 1, protocol.OpenWeek{}); code(err) != protocol.CodeWrongWeek || s.lobby.Len() != 1 {
		t.Errorf("open week 1 again: %v with %d lanes; want wrong_week and still 1 lane", err, s.lobby.Len())
	}

	score := func(bowler string, pins int) (*protocol.LeagueRecord, error) {
		return c.Score(ctx, l.ID, l.SecretaryKey, protocol.LeagueScore{Week: 1, Bowler: bowler, Game: 1, Score: pins})
	}
	for _, tt := range []struct {
		bowler string
		pins   int
		game   int
		code   protocol.Code
	}{
		{"Lee", 150, 1, protocol.CodeInvalidScore}, // absent
		{"Zed", 150, 1, protocol.CodeInvalidScore}, // nobody
		{"Kim", 301, 1, protocol.CodeInvalidScore}, // no game scores that
		{"Kim", 150, 2, protocol.CodeInvalidScore}, // one game a night
		{"Kim", -1, 1, protocol.CodeInvalidScore},  // nor that
	} {
		if _, err := c.Score(ctx, l.ID, l.SecretaryKey, protocol.LeagueScore{Week: 1, Bowler: tt.bowler, Game: tt.game, Score: tt.pins}); code(err) != tt.code {
			t.Errorf("score %s game %d %d: %v, want %s", tt.bowler, tt.game, tt.pins, err, tt.code)
		}
	}
	if _, err := score("Kim", 160); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CloseWeek(ctx, l.ID, l.SecretaryKey, 1); code(err) != protocol.CodeNightIncomplete {
		t.Errorf("close with Park's and Choi's games to score: %v, want night_incomplete", err)
	}
	for _, g := range []struct {
		name string
		pins int
	}{{"Park", 175}, {"Choi", 130}} { // in the order the history below wants
		if _, err := score(g.name, g.pins); err != nil {
			t.Fatal(err)
		}
	}
	// The night counts before it closes.
	st, err := c.Standings(ctx, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantTeams := []protocol.LeagueTeamStanding{
		{Name: "Strikers", PointsWon: 4, PointsLost: 0, PinsScratch: 305, PinsHandicap: 404, HighGame: 404, HighSeries: 404},
		{Name: "Pin Pals", PointsWon: 0, PointsLost: 4, PinsScratch: 330, PinsHandicap: 393, HighGame: 393, HighSeries: 393},
	}
	if st.Week != 0 || !reflect.DeepEqual(st.Teams, wantTeams) {
		t.Errorf("standings with the night scored, open:\n%+v week %d\nwant\n%+v week 0", st.Teams, st.Week, wantTeams)
	}
	if _, err := c.CloseWeek(ctx, l.ID, l.SecretaryKey, 1); err != nil {
		t.Fatal(err)
	}
	st, _ = c.Standings(ctx, l.ID)
	wantBowlers := []protocol.LeagueBowlerStanding{
		{Name: "Kim", Team: "Pin Pals", Games: 1, Pins: 160, Average: 160, Handicap: 36, HighGame: 160, HighSeries: 160},
		{Name: "Lee", Team: "Pin Pals", Games: 0, Pins: 0, Average: 180, Handicap: 18},
		{Name: "Park", Team: "Strikers", Games: 1, Pins: 175, Average: 175, Handicap: 22, HighGame: 175, HighSeries: 175},
		{Name: "Choi", Team: "Strikers", Games: 1, Pins: 130, Average: 130, Handicap: 63, HighGame: 130, HighSeries: 130},
	}
	if st.Week != 1 || !reflect.DeepEqual(st.Teams, wantTeams) || !reflect.DeepEqual(st.Bowlers, wantBowlers) {
		t.Errorf("standings after week 1 closed:\n%+v\n%+v week %d\nwant\n%+v\n%+v week 1", st.Teams, st.Bowlers, st.Week, wantTeams, wantBowlers)
	}

	// A correction after the close.
	rec, err := score("Kim", 200)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Kind != "corrected" || rec.Was == nil || *rec.Was != 160 || *rec.Score != 200 || rec.By != "secretary" {
		t.Errorf("the correction's record = %+v, want corrected from 160 to 200 by the secretary", rec)
	}
	if again, err := score("Kim", 200); err != nil || again != nil {
		t.Errorf("the same score again = %+v, %v; want no change (204)", again, err)
	}
	st, _ = c.Standings(ctx, l.ID)
	wantTeams = []protocol.LeagueTeamStanding{
		{Name: "Pin Pals", PointsWon: 4, PointsLost: 0, PinsScratch: 370, PinsHandicap: 433, HighGame: 433, HighSeries: 433},
		{Name: "Strikers", PointsWon: 0, PointsLost: 4, PinsScratch: 305, PinsHandicap: 404, HighGame: 404, HighSeries: 404},
	}
	if !reflect.DeepEqual(st.Teams, wantTeams) || st.Bowlers[0].Average != 200 || st.Bowlers[0].Handicap != 0 {
		t.Errorf("standings after Kim's 160 became 200:\n%+v, Kim %+v\nwant\n%+v, Kim average 200, handicap 0", st.Teams, st.Bowlers[0], wantTeams)
	}

	history, err := c.LeagueHistory(ctx, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i, r := range history {
		if r.N != i+1 || r.At.IsZero() {
			t.Errorf("record %d: n %d at %v", i+1, r.N, r.At)
		}
		line := r.By + " " + r.Kind + " " + r.Bowler
		if r.Kind == "opened" {
			line += strings.Join(r.Absent, ",") + " on " + strings.Join(r.Lanes, ",")
		}
		if r.Was != nil {
			line += " was " + itoa(*r.Was)
		}
		if r.Score != nil {
			line += " " + itoa(*r.Score)
		}
		lines = append(lines, line)
	}
	want := []string{"secretary opened Lee on " + laneID, "secretary scored Kim 160", "secretary scored Park 175", "secretary scored Choi 130", "secretary closed ", "secretary corrected Kim was 160 200"}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("history:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestLaneReportsAScore: a lane's report is recorded by it; reported
// again, it is no change.
func TestLaneReportsAScore(t *testing.T) {
	s, _, c := newLeagueServer(t)
	l := createSmall(t, c)
	opened, err := c.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{})
	if err != nil {
		t.Fatal(err)
	}
	by := "lane " + opened.Matches[0].Lane
	night := s.lobby.LeagueNight()
	m := game.LeagueLane{League: l.ID, Week: 1, Games: 1, Places: []game.LeaguePlace{{Name: "Park", Team: 1}}}
	park := map[bowling.Name]int{"Park": 212}
	for range 2 {
		if _, err := night.Scores(t.Context(), opened.Matches[0].Lane, m, 1, park); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := night.Scores(t.Context(), opened.Matches[0].Lane, m, 2, park); !errors.Is(err, league.ErrInvalidScore) {
		t.Errorf("a lane's score of a game the night has not: %v, want ErrInvalidScore", err)
	}
	h, _ := c.LeagueHistory(t.Context(), l.ID)
	if len(h) != 2 || h[1].By != by || h[1].Kind != "scored" || *h[1].Score != 212 {
		t.Errorf("history = %+v, want the opening and one score by %q", h, by)
	}
}

// TestLeagueChangedElsewhere: two servers on one store, each with the
// league loaded; a score entered on one, then one on the other, which
// finds the league changed, loads it again and lands after it.
func TestLeagueChangedElsewhere(t *testing.T) {
	store := memjournal.NewLeagues()
	a := newServer(t, lobby.Config{Leagues: store})
	b := newServer(t, lobby.Config{Leagues: store})
	ca, cb := &tenpin.Client{URL: a.srv.URL}, &tenpin.Client{URL: b.srv.URL}
	l := createSmall(t, ca)
	if _, err := ca.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cb.League(t.Context(), l.ID); err != nil { // b loads it now
		t.Fatal(err)
	}
	if _, err := ca.Score(t.Context(), l.ID, l.SecretaryKey, protocol.LeagueScore{Week: 1, Bowler: "Kim", Game: 1, Score: 150}); err != nil {
		t.Fatal(err)
	}
	if _, err := cb.Score(t.Context(), l.ID, l.SecretaryKey, protocol.LeagueScore{Week: 1, Bowler: "Lee", Game: 1, Score: 170}); err != nil {
		t.Fatalf("a score on the server whose league was changed elsewhere: %v", err)
	}
	h, _ := cb.LeagueHistory(t.Context(), l.ID)
	if len(h) != 3 || h[1].Bowler != "Kim" || h[2].Bowler != "Lee" {
		t.Errorf("history on b = %+v, want the opening, Kim's score, Lee's", h)
	}
}

// TestSecretaryCheck: GET /api/leagues/{id}/secretary says whether a key
// is the secretary's, as a page asks before showing the secretary's
// controls, and changes nothing.
func TestSecretaryCheck(t *testing.T) {
	s, _, c := newLeagueServer(t)
	l := createSmall(t, c)
	url := s.srv.URL + "/api/leagues/" + l.ID + "/secretary"
	for _, tt := range []struct {
		auth   string
		status int
	}{
		{"Secretary " + l.SecretaryKey, http.StatusNoContent},
		{"Secretary wrong", http.StatusForbidden},
		{"", http.StatusUnauthorized},
	} {
		if status, data := send(t, "GET", url, tt.auth, "", ""); status != tt.status {
			t.Errorf("GET …/secretary with %q: %d %s, want %d", tt.auth, status, data, tt.status)
		}
	}
	if h, _ := c.LeagueHistory(t.Context(), l.ID); len(h) != 0 {
		t.Errorf("after the checks: %d records, want none", len(h))
	}
}

// TestLeagueCorrectionsBounded: a secretary may correct a game 30 times
// (league.MaxCorrections), then is refused 409 too_many_corrections:
// a night's records, and so a league's, stay bounded.
func TestLeagueCorrectionsBounded(t *testing.T) {
	_, _, c := newLeagueServer(t)
	l := createSmall(t, c)
	ctx := t.Context()
	if _, err := c.OpenWeek(ctx, l.ID, l.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Lee"}}); err != nil {
		t.Fatal(err)
	}
	for i := range league.MaxCorrections + 1 {
		if _, err := c.Score(ctx, l.ID, l.SecretaryKey, protocol.LeagueScore{Week: 1, Bowler: "Kim", Game: 1, Score: 100 + i}); err != nil {
			t.Fatalf("score %d of Kim's game: %v", i+1, err)
		}
	}
	_, err := c.Score(ctx, l.ID, l.SecretaryKey, protocol.LeagueScore{Week: 1, Bowler: "Kim", Game: 1, Score: 200})
	if code(err) != protocol.CodeTooManyCorrections || !strings.Contains(err.Error(), "409") {
		t.Errorf("a 31st correction: %v, want 409 too_many_corrections", err)
	}
	h, err := c.LeagueHistory(ctx, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != league.MaxCorrections+2 { // the opening, the score, its corrections
		t.Errorf("the history holds %d records, want %d", len(h), league.MaxCorrections+2)
	}
}
