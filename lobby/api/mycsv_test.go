package api

import (
	"encoding/csv"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
)

// A bowler's games.csv dates each game when it was bowled: a game bowled
// on a Friday evening and corrected on the Sunday after (as a league's
// secretary does) is still Friday's, with the corrected score.
func TestMyCSVDatesAGameWhenBowled(t *testing.T) {
	bowled := time.Date(2026, 3, 6, 19, 30, 0, 0, time.UTC)
	corrected := bowled.Add(46 * time.Hour)
	svc := memjournal.NewBowlers()
	key := bowler.NewKey()
	rec, err := svc.Create(t.Context(), bowler.NewID(), bowler.HashKey(key), "Kim", bowled.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	play := func(first int) *bowling.Game {
		var g bowling.Game
		g.Roll(first)
		for !g.Over() {
			g.Roll(min(g.Standing(), 4))
		}
		return &g
	}
	if _, _, err := svc.Add(t.Context(), rec.ID, bowler.FromGame("k3x9abcdef", "Friday night", 1, bowled, "Kim", play(0))); err != nil {
		t.Fatal(err)
	}
	fixed := bowler.FromGame("k3x9abcdef", "Friday night", 1, corrected, "Kim", play(5))
	fixed.Fix = 1
	if _, _, err := svc.Add(t.Context(), rec.ID, fixed); err != nil {
		t.Fatal(err)
	}

	lb := lobby.New(lobby.Config{Lane: lane.Config{Journal: memjournal.New(), Bowlers: svc}})
	srv := httptest.NewServer(New(services(lb), nil))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/api/bowlers/me/games.csv", nil)
	req.Header.Set("Authorization", "Bowler "+key)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(body), "\uFEFF"))).ReadAll()
	if res.StatusCode != http.StatusOK || err != nil || len(rows) != 2 {
		t.Fatalf("GET games.csv = %s, %v, %q; want a header and one game", res.Status, err, rows)
	}
	total := -1
	for i, h := range rows[0] {
		if h == "total" {
			total = i
		}
	}
	if total < 0 {
		t.Fatalf("games.csv's header %q has no total", rows[0])
	}
	if got, want := rows[1][0], bowled.Format(time.RFC3339); got != want {
		t.Errorf("games.csv dates the game %s, want %s, when it was bowled", got, want)
	}
	if got, want := rows[1][total], "81"; got != want {
		t.Errorf("games.csv's total %s, want the corrected %s", got, want)
	}
}
