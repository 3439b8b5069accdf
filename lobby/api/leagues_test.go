package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
)

// smallLeague is a league's body the league takes: two teams of two.
const smallLeague = `{"name":"Small","games_per_night":1,"weeks":2,
 "teams":[{"name":"Pin Pals","bowlers":[{"name":"Kim","average":150},{"name":"Lee","average":180}]},
          {"name":"Strikers","bowlers":[{"name":"Park","average":170},{"name":"Choi","average":120}]}]}`

// flakyLeagues is a memjournal store that fails every call while down,
// and refuses every append as another writer's (league.ErrConflict)
// while contended.
type flakyLeagues struct {
	*memjournal.Leagues
	down, contended atomic.Bool
}

var errDown = errors.New("leagues store: no responders")

func (f *flakyLeagues) Create(ctx context.Context, l league.Stored) error {
	if f.down.Load() {
		return errDown
	}
	return f.Leagues.Create(ctx, l)
}

func (f *flakyLeagues) Load(ctx context.Context, id string) (league.Stored, error) {
	if f.down.Load() {
		return league.Stored{}, errDown
	}
	return f.Leagues.Load(ctx, id)
}

func (f *flakyLeagues) Append(ctx context.Context, id string, n int, r league.Record) error {
	switch {
	case f.down.Load():
		return errDown
	case f.contended.Load():
		return league.ErrConflict
	}
	return f.Leagues.Append(ctx, id, n, r)
}

// ask serves method path from addr to h, with the Authorization header
// auth (if any) and a JSON body (if any).
func ask(h http.Handler, method, path, addr, auth, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	r.RemoteAddr = addr
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// refusalOf decodes the API error w answered; it fails the test if it
// answered none.
func refusalOf(t *testing.T, w *httptest.ResponseRecorder) protocol.Error {
	t.Helper()
	var e protocol.Error
	if err := protocol.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Code == "" {
		t.Fatalf("not an API error: %d %s (%v)", w.Code, w.Body, err)
	}
	return e
}

// createdLeague creates smallLeague through h, from addr.
func createdLeague(t *testing.T, h http.Handler, addr string) protocol.CreatedLeague {
	t.Helper()
	w := ask(h, "POST", "/api/leagues", addr, "", smallLeague)
	var c protocol.CreatedLeague
	if w.Code != http.StatusCreated || protocol.Unmarshal(w.Body.Bytes(), &c) != nil {
		t.Fatalf("POST /api/leagues: %d %s, want 201", w.Code, w.Body)
	}
	return c
}

// TestLeagueCreationsPerAddress: one address creates LeagueCreateBurst
// leagues, then is answered 429 with Retry-After and nothing is created;
// a league refused (invalid, or not stored) costs no creation; another
// address still creates.
func TestLeagueCreationsPerAddress(t *testing.T) {
	store := &flakyLeagues{Leagues: memjournal.NewLeagues()}
	lb := newInMemory(lobby.Config{Leagues: store})
	h := New(services(lb), nil)
	const addr = "192.0.2.1:5000"
	for i := range lobby.LeagueCreateBurst {
		if i == 3 {
			if w := ask(h, "POST", "/api/leagues", addr, "", `{"name":"No teams","games_per_night":1,"teams":[]}`); w.Code != http.StatusBadRequest || refusalOf(t, w).Code != protocol.CodeInvalidLeague {
				t.Fatalf("a league without teams: %d %s, want 400 invalid_league", w.Code, w.Body)
			}
			store.down.Store(true)
			w := ask(h, "POST", "/api/leagues", addr, "", smallLeague)
			store.down.Store(false)
			if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" {
				t.Fatalf("a league while the store is down: %d %q %s, want 503 with Retry-After: 1", w.Code, w.Header().Get("Retry-After"), w.Body)
			}
		}
		createdLeague(t, h, addr)
	}
	w := ask(h, "POST", "/api/leagues", addr, "", smallLeague)
	if e := refusalOf(t, w); w.Code != http.StatusTooManyRequests || e.Code != protocol.CodeRateLimited || w.Header().Get("Retry-After") == "" {
		t.Errorf("league %d from one address: %d %q %s, want 429 rate_limited with Retry-After", lobby.LeagueCreateBurst+1, w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if n := lb.Admission().RateLimited()[lobby.LimitLeagueCreations]; n != 1 {
		t.Errorf("%s counted %d, want 1", lobby.LimitLeagueCreations, n)
	}
	createdLeague(t, h, "198.51.100.7:4000")
}

// TestLeaguesUnavailable: while the leagues' store does not answer, or
// another writer lands before each change, the leagues' requests are
// answered 503 unavailable with Retry-After: 1, saying which.
func TestLeaguesUnavailable(t *testing.T) {
	store := &flakyLeagues{Leagues: memjournal.NewLeagues()}
	lb := newInMemory(lobby.Config{Leagues: store})
	go lb.Run(t.Context()) // an opening opens its lanes
	h := New(services(lb), nil)
	l := createdLeague(t, h, "192.0.2.1:5000")
	base, key := "/api/leagues/"+l.ID, "Secretary "+l.SecretaryKey
	down := "the leagues' store does not answer; try again in a moment"
	contended := "the league was changed meanwhile, again and again; try again"
	for _, tt := range []struct {
		name               string
		down, contended    bool
		method, path, body string
		auth               string
		want               string
	}{
		{"league", true, false, "GET", base, "", "", down},
		{"standings", true, false, "GET", base + "/standings", "", "", down},
		{"history", true, false, "GET", base + "/history", "", "", down},
		{"secretary", true, false, "GET", base + "/secretary", "", key, down},
		{"create", true, false, "POST", "/api/leagues", smallLeague, "", down},
		{"open", true, false, "POST", base + "/weeks/1/open", "{}", key, down},
		{"open contended", false, true, "POST", base + "/weeks/1/open", "{}", key, contended},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store.down.Store(tt.down)
			store.contended.Store(tt.contended)
			defer store.down.Store(false)
			defer store.contended.Store(false)
			w := ask(h, tt.method, tt.path, "192.0.2.9:5000", tt.auth, tt.body)
			e := refusalOf(t, w)
			if w.Code != http.StatusServiceUnavailable || e.Code != protocol.CodeUnavailable || e.Message != tt.want || w.Header().Get("Retry-After") != "1" {
				t.Errorf("%s %s: %d %s %q, Retry-After %q; want 503 unavailable %q, Retry-After 1", tt.method, tt.path, w.Code, e.Code, e.Message, w.Header().Get("Retry-After"), tt.want)
			}
		})
	}
}

// TestSecretaryGuesses: a secretary's key tried on a league is a key
// guessed, counted against the address (lobby.KeyGuessBurst, shared with
// the bowlers' keys): another key, or any key on a league there is not,
// costs one; the secretary's key costs nothing, even when the league
// refuses what it asks; and no key costs anything while the store does
// not answer, for none could be checked.
func TestSecretaryGuesses(t *testing.T) {
	store := &flakyLeagues{Leagues: memjournal.NewLeagues()}
	lb := newInMemory(lobby.Config{Leagues: store})
	h := New(services(lb), nil)
	l := createdLeague(t, h, "192.0.2.1:5000")
	// A league another node made: this one has not loaded it, and must
	// ask the store.
	elsewhere := createdLeague(t, New(services(newInMemory(lobby.Config{Leagues: store})), nil), "192.0.2.1:5000")
	for _, tt := range []struct {
		name, addr         string
		method, path, auth string
		down               bool
		status             int
		costs              bool
	}{
		{"wrong key", "203.0.113.1:1", "POST", "/api/leagues/" + l.ID + "/weeks/2/close", "Secretary wrong", false, http.StatusForbidden, true},
		{"no such league", "203.0.113.2:1", "POST", "/api/leagues/AAAAAAAAAAAAAAAAAAAAAAAAAA/weeks/2/close", "Secretary " + l.SecretaryKey, false, http.StatusNotFound, true},
		{"refused", "203.0.113.3:1", "POST", "/api/leagues/" + l.ID + "/weeks/2/close", "Secretary " + l.SecretaryKey, false, http.StatusConflict, false},
		{"checked", "203.0.113.4:1", "GET", "/api/leagues/" + l.ID + "/secretary", "Secretary " + l.SecretaryKey, false, http.StatusNoContent, false},
		{"store down", "203.0.113.5:1", "GET", "/api/leagues/" + elsewhere.ID + "/secretary", "Secretary wrong", true, http.StatusServiceUnavailable, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store.down.Store(tt.down)
			defer store.down.Store(false)
			for i := range lobby.KeyGuessBurst + 1 {
				w := ask(h, tt.method, tt.path, tt.addr, tt.auth, "")
				switch {
				case w.Code == tt.status:
				case w.Code == http.StatusTooManyRequests && tt.costs && i == lobby.KeyGuessBurst:
					return // the burst spent: refused as it should be
				default:
					t.Fatalf("request %d: %d %s, want %d", i+1, w.Code, w.Body, tt.status)
				}
			}
			if tt.costs {
				t.Errorf("%d requests from one address were all answered %d: no 429", lobby.KeyGuessBurst+1, tt.status)
			}
		})
	}
}
