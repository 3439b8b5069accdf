// Package api serves the lobby's HTTP API and its WebSocket endpoint:
// what each route answers is documented once, in package protocol (go
// doc ./protocol, "HTTP").
//
// It serves package lobby's services, each through a small interface of
// the calls it makes of it, given to [New] as [Services]:
//
//   - [Lanes] (a lobby.Lobby) creates, lists and finds the lanes, admits
//     the WebSockets to them, and says whether the store takes writes;
//   - [Admission] (a lobby.Admission) is the door: which client address
//     a request counts against, what it may create and guess and how
//     fast, its WebSockets' limits, and the refusals counted;
//   - [Leagues] (a lobby.Leagues) runs the leagues' nights on the lanes;
//   - the bowlers are a bowler.Service;
//
// and the settings it reads (URLs, OriginPatterns, IdleTimeout).
// lobby/server wires them from a lobby, in one place (server.API).
//
// It is apart from package lobby, as benbjohnson/wtf's http/ is apart
// from its domain: the lobby keeps the lanes, their admission and their
// journal, and says what a lane is and why it refuses; this package only
// turns requests into the services' calls and their answers into
// responses, with the caches and the rates per client address that are
// the API's own: the invitations' QR codes, the list's pages, and the
// exports — a lane's games, numbers, CSV and scorecards, a league's
// recaps — built once for each change. A WebSocket to a lane is admitted
// by the lanes (Lanes.Admit: the limits, then the lane, here or through
// a relay); this package upgrades it, or tells the refusal, and hands
// the connection to lane/ws.
package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/qrcode"
	"github.com/tenpin/tenpin/protocol"
)

// API is the lobby's HTTP API.
type API struct {
	lanes   Lanes          // the lanes, wherever they run
	admit   Admission      // the door: addresses, their limits, the refusals counted
	leagues Leagues        // the leagues run on the lanes
	bowlers bowler.Service // nil: no bowlers kept
	log     *slog.Logger

	urls           []string      // Services.URLs
	originPatterns []string      // Services.OriginPatterns
	idleTimeout    time.Duration // Services.IdleTimeout

	qrs          qrcode.Cache       // the invitations' QR codes, drawn once each
	qrDraws      *lobby.AddrLimiter // QR codes drawn, per client address
	list         listCache          // GET /api/lanes, encoded
	built        builtCache         // the exports built lately, lanes' and leagues'
	exportsAsked *lobby.AddrLimiter // exports asked for, per client address
}

// New returns the HTTP API of svc, logging to log (nil: nowhere). Every
// response carries the headers of [SetHeaders].
func New(svc Services, log *slog.Logger) http.Handler {
	_, h := newAPI(svc, log)
	return h
}

// newAPI returns the API of svc and the handler that serves it.
func newAPI(svc Services, log *slog.Logger) (*API, http.Handler) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &API{
		lanes: svc.Lanes, admit: svc.Admission, leagues: svc.Leagues, bowlers: svc.Bowlers, log: log,
		urls: svc.URLs, originPatterns: svc.OriginPatterns, idleTimeout: svc.IdleTimeout,
		qrDraws:      lobby.NewAddrLimiter(lobby.QRRate, lobby.QRBurst),
		exportsAsked: lobby.NewAddrLimiter(lobby.ExportRate, lobby.ExportBurst),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/lanes", a.listLanes)
	mux.HandleFunc("POST /api/lanes", a.createLane)
	mux.HandleFunc("GET /api/lanes/{id}", a.getBoard)
	mux.HandleFunc("GET /api/lanes/{id}/board.txt", a.getBoardText)
	mux.HandleFunc("GET /api/lanes/{id}/invite", a.getInvite)
	mux.HandleFunc("GET /api/lanes/{id}/qr.png", a.getQR)
	mux.HandleFunc("GET /api/lanes/{id}/games", a.getGames)
	mux.HandleFunc("GET /api/lanes/{id}/stats", a.getStats)
	mux.HandleFunc("GET /api/lanes/{id}/games.csv", a.getCSV)
	mux.HandleFunc("GET /api/lanes/{id}/games/{file}", a.getScorecard)
	mux.HandleFunc("GET /api/leagues/{id}/recap.csv", a.getRecapCSV)
	mux.HandleFunc("GET /api/leagues/{id}/recap.svg", a.getRecapSVG)
	mux.HandleFunc("GET /api/nodes", a.getNodes)
	mux.HandleFunc("GET /ws/lanes/{id}", a.serveWS)
	mux.HandleFunc("GET /healthz", a.health)
	a.bowlerRoutes(mux)
	a.leagueRoutes(mux)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		a.fail(w, protocol.RefuseNoAPI.Error(r.Method, r.URL.Path))
	})
	return a, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetHeaders(w.Header())
		mux.ServeHTTP(w, r)
	})
}

// fail answers a request with e, with its code's HTTP status, and counts
// it by its code.
func (a *API) fail(w http.ResponseWriter, e *protocol.Error) {
	a.admit.CountRefusal(e.Code, "")
	WriteError(w, e)
}

// failErr answers a request with the refusal err carries (see
// lane.ErrorFor); an error of the server's own is logged, and the client
// is told only that the server failed.
func (a *API) failErr(w http.ResponseWriter, err error) {
	pe, known := lane.ErrorFor(err)
	if !known {
		a.log.Error("request failed", "err", err)
	}
	a.fail(w, pe)
}

// tooMany answers 429 rate_limited, refused by limit (one of lobby's
// Limit constants), the refusal why with its arguments and the seconds to
// wait, with a Retry-After of wait (at least a second).
func (a *API) tooMany(w http.ResponseWriter, wait time.Duration, limit string, why protocol.Refusal, args ...any) {
	secs := lobby.RetrySecs(wait)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	e := why.Error(append(args, secs)...)
	a.admit.CountRefusal(e.Code, limit)
	WriteError(w, e)
}

// lane returns the lane a request's path names, wherever in the cluster
// it runs, or answers the request with why it cannot.
func (a *API) lane(w http.ResponseWriter, r *http.Request) (lobby.Lane, bool) {
	id := r.PathValue("id")
	l, err := a.lanes.Find(r.Context(), id)
	if err != nil {
		a.failLane(w, id, err)
		return nil, false
	}
	return l, true
}

// failLane answers a request for lane id, which the lobby could not find
// (err wraps lobby.ErrNoLane: 404) or reach (503, to be asked again in a
// second, and logged).
func (a *API) failLane(w http.ResponseWriter, id string, err error) {
	if !errors.Is(err, lobby.ErrNoLane) {
		a.log.Warn("lane not reached", "lane", id, "err", err)
		w.Header().Set("Retry-After", "1")
	}
	a.failErr(w, err)
}

// writeJSONBytes answers data, encoded JSON, with status.
func writeJSONBytes(w http.ResponseWriter, status int, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(data)
	w.Write([]byte{'\n'})
}

// writeJSON answers v as JSON with status. Should v not encode (a float
// that is no number, in a league's points), the answer is the server's
// failure, logged, not a success with no body.
func (a *API) writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		a.failErr(w, fmt.Errorf("api: encoding an answer of %T: %w", v, err))
		return
	}
	writeJSONBytes(w, status, data)
}
