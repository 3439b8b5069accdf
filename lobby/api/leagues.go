package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// The leagues' API: a league's settings, schedule, standings and history
// for anyone with its id; its nights opened and closed and its scores
// entered or corrected by its secretary, authenticated by the header
// "Authorization: Secretary <key>" (never a URL, which logs and Referer
// headers keep). Its reference is package protocol's ("Leagues").

// Limits of the leagues' API.
const (
	// maxLeagueBody bounds the body of POST /api/leagues: 32 teams of 6
	// bowlers, every name 40 four-byte characters, take under 40 KiB.
	maxLeagueBody = 64 << 10
	// maxLeagueCommand bounds the bodies of a secretary's commands: a
	// night's absent bowlers and substitutes, a score.
	maxLeagueCommand = 8 << 10

	// maxLeagueHistoryPage is the most records a page of a league's
	// history holds, and leagueHistoryPage how many if not asked.
	maxLeagueHistoryPage = 1000
	leagueHistoryPage    = 200
)

// leagueRoutes adds the leagues' API to mux, but for a league's recap
// (recap.csv, recap.svg), which is an export (see recap.go).
func (a *API) leagueRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/leagues", a.createLeague)
	mux.HandleFunc("GET /api/leagues/{id}", a.getLeague)
	mux.HandleFunc("GET /api/leagues/{id}/standings", a.getStandings)
	mux.HandleFunc("GET /api/leagues/{id}/history", a.getLeagueHistory)
	mux.HandleFunc("POST /api/leagues/{id}/weeks/{n}/open", a.openWeek)
	mux.HandleFunc("POST /api/leagues/{id}/weeks/{n}/close", a.closeWeek)
	mux.HandleFunc("GET /api/leagues/{id}/weeks/{n}/invites", a.weekInvites)
	mux.HandleFunc("POST /api/leagues/{id}/scores", a.scoreGame)
	mux.HandleFunc("POST /api/leagues/{id}/balls", a.correctBall)
	mux.HandleFunc("GET /api/leagues/{id}/secretary", a.checkSecretary)
	mux.HandleFunc("POST /api/leagues/{id}/weeks/{n}/matches/{m}/roll", a.laneRoll)
	mux.HandleFunc("POST /api/leagues/{id}/weeks/{n}/matches/{m}/correct", a.laneCorrect)
	mux.HandleFunc("POST /api/leagues/{id}/weeks/{n}/matches/{m}/skip", a.laneSkip)
	mux.HandleFunc("POST /api/leagues/{id}/weeks/{n}/matches/{m}/remove", a.laneRemove)
}

// failLeague answers a league's request that failed with err, an error
// of one of the lobby's league calls: with the refusal it carries, and,
// when the leagues are unavailable (lobby.ErrLeaguesUnavailable), a
// Retry-After of a second; the store's failure is logged.
func (a *API) failLeague(w http.ResponseWriter, err error) {
	if errors.Is(err, lobby.ErrLeaguesUnavailable) {
		if !errors.Is(err, league.ErrConflict) {
			a.log.Warn("leagues not reached", "err", err)
		}
		w.Header().Set("Retry-After", "1")
	}
	a.failErr(w, err)
}

// createLeague answers POST /api/leagues: a league created, within the
// address's rate (lobby.LeagueCreateRate).
func (a *API) createLeague(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	// Only JSON, as for a lane (readJSON): a page of another site cannot
	// send it without a preflight, which is never answered.
	var body protocol.CreateLeague
	if !a.readJSON(w, r, maxLeagueBody, &body, `{"name":"Thursday Mixed","games_per_night":3,"teams":[…]}`, false) {
		return
	}
	if err := lobby.CheckLeague(body); err != nil {
		a.failLeague(w, err)
		return
	}
	// Only a league that would be created costs the address a creation.
	addr := a.admit.ClientAddr(r)
	if ok, wait := a.admit.AllowLeagueCreation(addr, time.Now()); !ok {
		a.tooMany(w, wait, lobby.LimitLeagueCreations, protocol.RefuseLeaguesFast)
		return
	}
	created, err := a.leagues.CreateLeague(r.Context(), body)
	if err != nil {
		a.admit.RefundLeagueCreation(addr)
		a.failLeague(w, err)
		return
	}
	w.Header().Set("Location", "/api/leagues/"+created.ID)
	a.writeJSON(w, http.StatusCreated, created)
}

func (a *API) getLeague(w http.ResponseWriter, r *http.Request) {
	answerLeague(a, w, r, a.leagues.League)
}

func (a *API) getStandings(w http.ResponseWriter, r *http.Request) {
	answerLeague(a, w, r, a.leagues.Standings)
}

// answerLeague answers 200 with what read returns of the league the path
// names, or why it failed.
func answerLeague[T any](a *API, w http.ResponseWriter, r *http.Request, read func(context.Context, string) (T, error)) {
	w.Header().Set("Cache-Control", "no-store")
	v, err := read(r.Context(), r.PathValue("id"))
	if err != nil {
		a.failLeague(w, err)
		return
	}
	a.writeJSON(w, http.StatusOK, v)
}

// getLeagueHistory answers a page of the league's records, oldest first:
// ?limit= records (1 to maxLeagueHistoryPage; leagueHistoryPage if
// omitted) after the record ?after= numbers (0, or omitted: from the
// first).
func (a *API) getLeagueHistory(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	q := r.URL.Query()
	limit := leagueHistoryPage
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLeagueHistoryPage {
			a.fail(w, protocol.RefusePageLimit.Error(maxLeagueHistoryPage, s))
			return
		}
		limit = n
	}
	h, err := a.leagues.LeagueHistory(r.Context(), r.PathValue("id"), q.Get("after"), limit)
	if err != nil {
		a.failLeague(w, err)
		return
	}
	a.writeJSON(w, http.StatusOK, h)
}

// secretaryKey returns the key a secretary's request carries, or answers
// 401 secretary_required: before its body is read, for a request without
// the key is refused whatever its body.
func (a *API) secretaryKey(w http.ResponseWriter, r *http.Request) (string, bool) {
	w.Header().Set("Cache-Control", "no-store")
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Secretary ")
	if !ok || key == "" {
		a.fail(w, protocol.RefuseSecretaryKeyMissing.Error())
		return "", false
	}
	return key, true
}

// secretaryWeek returns the secretary's key a request carries and the
// week its path names, or answers why not.
func (a *API) secretaryWeek(w http.ResponseWriter, r *http.Request) (string, int, bool) {
	key, ok := a.secretaryKey(w, r)
	if !ok {
		return "", 0, false
	}
	week, ok := a.week(w, r)
	return key, week, ok
}

// week returns the week the path names, or answers why not.
func (a *API) week(w http.ResponseWriter, r *http.Request) (int, bool) {
	s := r.PathValue("n")
	n, err := strconv.Atoi(s)
	if err != nil || strconv.Itoa(n) != s || n < 1 {
		a.fail(w, protocol.RefuseBadWeek.Error(s))
		return 0, false
	}
	return n, true
}

// asSecretary makes call, one of the lobby's calls for a league's
// secretary, with a key-guess token of the request's address spent
// (lobby.KeyGuessRate, shared with the bowlers' keys), or answers 429
// past them; call answers the request if it succeeds. The token is given
// back unless the key was not the league's (lobby.ErrNotSecretary) or
// there is no such league to check it against: requests in parallel
// cannot each slip past the limit.
func (a *API) asSecretary(w http.ResponseWriter, r *http.Request, call func(context.Context) error) {
	addr := a.admit.ClientAddr(r)
	if ok, wait := a.admit.AllowGuess(addr, time.Now()); !ok {
		a.tooMany(w, wait, lobby.LimitKeyGuesses, protocol.RefuseKeyGuesses)
		return
	}
	err := call(r.Context())
	if !errors.Is(err, lobby.ErrNotSecretary) && !errors.Is(err, league.ErrNotFound) {
		a.admit.RefundGuess(addr)
	}
	if err != nil {
		a.failLeague(w, err)
	}
}

// asSecretaryAnswer makes call as asSecretary does, and answers 200 with
// what it returns.
func asSecretaryAnswer[T any](a *API, w http.ResponseWriter, r *http.Request, call func(context.Context) (T, error)) {
	a.asSecretary(w, r, func(ctx context.Context) error {
		v, err := call(ctx)
		if err != nil {
			return err
		}
		a.writeJSON(w, http.StatusOK, v)
		return nil
	})
}

// checkSecretary answers 204 if the request's key is the league's
// secretary's (a page asks before it shows the secretary's controls), or
// why not, as any secretary's request is refused; it changes nothing.
func (a *API) checkSecretary(w http.ResponseWriter, r *http.Request) {
	key, ok := a.secretaryKey(w, r)
	if !ok {
		return
	}
	a.asSecretary(w, r, func(ctx context.Context) error {
		if err := a.leagues.CheckSecretary(ctx, r.PathValue("id"), key); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	})
}

// openWeek opens a week's night (see lobby.Lobby.OpenWeek) and answers
// its matches with their lanes.
func (a *API) openWeek(w http.ResponseWriter, r *http.Request) {
	key, week, ok := a.secretaryWeek(w, r)
	if !ok {
		return
	}
	var body protocol.OpenWeek
	if !a.readJSON(w, r, maxLeagueCommand, &body, `{"absent":["Lee"],"substitutes":[{"for":"Lee","name":"Jung"}]}`, true) {
		return
	}
	asSecretaryAnswer(a, w, r, func(ctx context.Context) (protocol.OpenedWeek, error) {
		return a.leagues.OpenWeek(ctx, r.PathValue("id"), key, week, body)
	})
}

// weekInvites answers an open week's matches with their lanes and their
// teams' invitations: the secretary's.
func (a *API) weekInvites(w http.ResponseWriter, r *http.Request) {
	key, week, ok := a.secretaryWeek(w, r)
	if !ok {
		return
	}
	asSecretaryAnswer(a, w, r, func(ctx context.Context) (protocol.OpenedWeek, error) {
		return a.leagues.WeekInvites(ctx, r.PathValue("id"), key, week)
	})
}

// closeWeek closes a week's night: its averages stand.
func (a *API) closeWeek(w http.ResponseWriter, r *http.Request) {
	key, week, ok := a.secretaryWeek(w, r)
	if !ok {
		return
	}
	var body struct{}
	if !a.readJSON(w, r, maxLeagueCommand, &body, "{}", true) {
		return
	}
	asSecretaryAnswer(a, w, r, func(ctx context.Context) (protocol.LeagueRecord, error) {
		return a.leagues.CloseWeek(ctx, r.PathValue("id"), key, week)
	})
}

// scoreGame enters or corrects a game's score: 200 with the record made,
// or 204 if the game has that score already.
func (a *API) scoreGame(w http.ResponseWriter, r *http.Request) {
	key, ok := a.secretaryKey(w, r)
	if !ok {
		return
	}
	var body protocol.LeagueScore
	if !a.readJSON(w, r, maxLeagueCommand, &body, `{"week":1,"bowler":"Kim","game":1,"score":180}`, false) {
		return
	}
	a.asSecretary(w, r, func(ctx context.Context) error {
		rec, changed, err := a.leagues.ScoreGame(ctx, r.PathValue("id"), key, body)
		switch {
		case err != nil:
			return err
		case !changed:
			w.WriteHeader(http.StatusNoContent)
		default:
			a.writeJSON(w, http.StatusOK, rec)
		}
		return nil
	})
}

// correctBall corrects a ball of a game already scored, as the night's
// lane has the game (see lobby.Lobby.CorrectBall): 200 with the record
// made.
func (a *API) correctBall(w http.ResponseWriter, r *http.Request) {
	key, ok := a.secretaryKey(w, r)
	if !ok {
		return
	}
	var body protocol.LeagueBall
	if !a.readJSON(w, r, maxLeagueCommand, &body, `{"week":1,"bowler":"Kim","game":1,"frame":3,"ball":2,"pins":7}`, false) {
		return
	}
	asSecretaryAnswer(a, w, r, func(ctx context.Context) (protocol.LeagueRecord, error) {
		return a.leagues.CorrectBall(ctx, r.PathValue("id"), key, body)
	})
}

// onNightLane answers a secretary's command on a league night's lane —
// the lane of the path's match of its week — with the lane's board once
// the lane has stored it: body, decoded as example shows it (nil for a
// command without one), then call.
func (a *API) onNightLane(w http.ResponseWriter, r *http.Request, body any, example string,
	call func(ctx context.Context, id, key string, week, match int) ([]byte, error)) {
	key, week, ok := a.secretaryWeek(w, r)
	if !ok {
		return
	}
	s := r.PathValue("m")
	match, err := strconv.Atoi(s)
	if err != nil || strconv.Itoa(match) != s || match < 1 {
		a.fail(w, protocol.RefuseBadMatch.Error(s))
		return
	}
	if body == nil {
		body = &struct{}{}
	}
	if !a.readJSON(w, r, maxLeagueCommand, body, example, example == "{}") {
		return
	}
	a.asSecretary(w, r, func(ctx context.Context) error {
		board, err := call(ctx, r.PathValue("id"), key, week, match)
		if err != nil {
			return err
		}
		writeJSONBytes(w, http.StatusOK, board)
		return nil
	})
}

// laneRoll enters a ball of any place on a night's lane (the secretary's).
func (a *API) laneRoll(w http.ResponseWriter, r *http.Request) {
	var b protocol.LeagueLaneBall
	a.onNightLane(w, r, &b, `{"name":"Kim","frame":3,"ball":1,"pins":7}`, func(ctx context.Context, id, key string, week, match int) ([]byte, error) {
		return a.leagues.SecretaryRoll(ctx, id, key, week, match, b)
	})
}

// laneCorrect corrects a ball of any place of the game in play on a
// night's lane (the secretary's).
func (a *API) laneCorrect(w http.ResponseWriter, r *http.Request) {
	var b protocol.LeagueLaneBall
	a.onNightLane(w, r, &b, `{"name":"Kim","frame":3,"ball":1,"pins":7}`, func(ctx context.Context, id, key string, week, match int) ([]byte, error) {
		return a.leagues.SecretaryCorrect(ctx, id, key, week, match, b)
	})
}

// laneSkip passes by the bowler up on a night's lane, offline for the
// away time (the secretary's, as anyone's on the lane).
func (a *API) laneSkip(w http.ResponseWriter, r *http.Request) {
	a.onNightLane(w, r, nil, "{}", a.leagues.SecretarySkip)
}

// laneRemove gives a place of a night's lane back from the phone that
// holds it (the secretary's).
func (a *API) laneRemove(w http.ResponseWriter, r *http.Request) {
	var p protocol.LeaguePlace
	a.onNightLane(w, r, &p, `{"name":"Kim"}`, func(ctx context.Context, id, key string, week, match int) ([]byte, error) {
		return a.leagues.SecretaryRemove(ctx, id, key, week, match, p)
	})
}
