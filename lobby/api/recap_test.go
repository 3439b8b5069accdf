package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
	tenpin "github.com/tenpin/tenpin/protocol/client"
)

// TestRecapKeptBuilt: a league's recap is kept built for the change it
// was asked at, by its count of records, until the league changes; each
// kind of recap is kept apart.
func TestRecapKeptBuilt(t *testing.T) {
	lb := newInMemory(lobby.Config{Leagues: memjournal.NewLeagues()})
	go lb.Run(t.Context())
	a, h := newAPI(services(lb), nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := &tenpin.Client{URL: srv.URL}
	l, err := c.CreateLeague(t.Context(), protocol.CreateLeague{
		Name: "Small", GamesPerNight: 1, Weeks: 2, Points: protocol.LeaguePoints{PerGame: 2},
		Teams: []protocol.LeagueTeam{
			{Name: "Pin Pals", Bowlers: []protocol.LeagueBowler{{Name: "Kim", Average: 150}}},
			{Name: "Strikers", Bowlers: []protocol.LeagueBowler{{Name: "Park", Average: 170}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ask := func(file string) {
		t.Helper()
		res, err := http.Get(srv.URL + "/api/leagues/" + l.ID + "/" + file)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", file, res.StatusCode, data)
		}
	}
	kept := func(change uint64, kind string) bool {
		_, ok := a.built.get("league-"+l.ID, change, kind)
		return ok
	}

	ask("recap.csv")
	if !kept(0, "recap-csv") || kept(0, "recap-svg-en") {
		t.Errorf("after recap.csv at change 0: csv kept %v, svg kept %v; want true, false", kept(0, "recap-csv"), kept(0, "recap-svg-en"))
	}
	if _, err := c.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{}); err != nil {
		t.Fatal(err)
	}
	ask("recap.svg?lang=ko")
	for _, tc := range []struct {
		change uint64
		kind   string
		want   bool
	}{
		{0, "recap-csv", false}, // the league changed since
		{1, "recap-csv", false}, // not asked for since
		{1, "recap-svg-ko", true},
	} {
		if got := kept(tc.change, tc.kind); got != tc.want {
			t.Errorf("after the week opened and recap.svg?lang=ko: %s of change %d kept %v, want %v", tc.kind, tc.change, got, tc.want)
		}
	}
}

// downLeagues is a leagues' store that does not answer.
type downLeagues struct{ league.Store }

func (downLeagues) Load(context.Context, string) (league.Stored, error) {
	return league.Stored{}, errors.New("leagues: the store does not answer")
}

// TestRecapStoreDown: a recap asked for while the leagues' store does not
// answer is 503 unavailable, with a Retry-After, and is not cached.
func TestRecapStoreDown(t *testing.T) {
	lb := newInMemory(lobby.Config{Leagues: downLeagues{memjournal.NewLeagues()}})
	go lb.Run(t.Context())
	h := New(services(lb), nil)
	for _, file := range []string{"recap.csv", "recap.svg"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/api/leagues/k3x9k3x9k3/"+file, nil))
		var e protocol.Error
		json.Unmarshal(w.Body.Bytes(), &e)
		if w.Code != http.StatusServiceUnavailable || e.Code != protocol.CodeUnavailable || w.Header().Get("Retry-After") != "1" || w.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s, the store down: %d %s, Retry-After %q, Cache-Control %q; want 503 unavailable, 1, no-store",
				file, w.Code, w.Body, w.Header().Get("Retry-After"), w.Header().Get("Cache-Control"))
		}
	}
}
