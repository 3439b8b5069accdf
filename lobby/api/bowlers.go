package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/qrcode"
	"github.com/tenpin/tenpin/lobby/sheet"
	"github.com/tenpin/tenpin/protocol"
)

// The bowlers' API: a bowler's numbers, history and chart, and their
// devices, authenticated by the header "Authorization: Bowler <key>"
// (never a URL, which logs and Referer headers keep). Its reference is
// package protocol's ("Bowlers").

// Limits of the bowlers' API.
const (
	// codeLife is how long a one-time code links a device.
	codeLife = 10 * time.Minute

	// maxHistoryPage is the most games a page of a history holds, and
	// historyPage how many it holds if not asked.
	maxHistoryPage = 100
	historyPage    = 20

	// chartGames is the most games the chart draws: the latest.
	chartGames = 500

	// maxLinkBody bounds the body of POST /api/bowlers/link.
	maxLinkBody = 1 << 10
)

// bowlerRoutes adds the bowlers' API to mux.
func (a *API) bowlerRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/bowlers/me", a.withBowler(a.getMe))
	mux.HandleFunc("DELETE /api/bowlers/me", a.withBowler(a.deleteMe))
	mux.HandleFunc("GET /api/bowlers/me/games", a.withBowler(a.getMyGames))
	mux.HandleFunc("GET /api/bowlers/me/games.csv", a.withBowler(a.getMyCSV))
	mux.HandleFunc("GET /api/bowlers/me/chart.svg", a.withBowler(a.getMyChart))
	mux.HandleFunc("DELETE /api/bowlers/me/key", a.withBowler(a.forgetDevice))
	mux.HandleFunc("POST /api/bowlers/me/codes", a.withBowler(a.newCode))
	mux.HandleFunc("POST /api/bowlers/me/share", a.withBowler(a.share))
	mux.HandleFunc("DELETE /api/bowlers/me/share", a.withBowler(a.unshare))
	mux.HandleFunc("POST /api/bowlers/link", a.redeem)
	mux.HandleFunc("GET /api/bowlers/shared/{share}", a.withShare(a.getMe))
	mux.HandleFunc("GET /api/bowlers/shared/{share}/games", a.withShare(a.getMyGames))
	mux.HandleFunc("GET /api/bowlers/shared/{share}/chart.svg", a.withShare(a.getMyChart))
}

// bowlerRequest is an authenticated request of the bowlers' API: whose,
// and by which key (zero for a share's).
type bowlerRequest struct {
	rec *bowler.Record
	key bowler.KeyHash
}

// withBowler runs h for the bowler whose key the request carries, or
// answers 401 unknown_bowler (429 for an address that tried too many
// unknown keys).
func (a *API) withBowler(h func(http.ResponseWriter, *http.Request, bowlerRequest)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bowler ")
		if !ok || key == "" {
			a.fail(w, protocol.RefuseBowlerKeyMissing.Error())
			return
		}
		h0 := bowler.HashKey(key)
		a.withRecord(w, r, func(ctx context.Context) (*bowler.Record, error) {
			return a.bowlers.Find(ctx, h0)
		}, func(rec *bowler.Record) { h(w, r, bowlerRequest{rec: rec, key: h0}) })
	}
}

// withShare runs h for the bowler whose share the path names, read-only.
func (a *API) withShare(h func(http.ResponseWriter, *http.Request, bowlerRequest)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		share := bowler.HashKey(r.PathValue("share"))
		a.withRecord(w, r, func(ctx context.Context) (*bowler.Record, error) {
			return a.bowlers.Shared(ctx, share)
		}, func(rec *bowler.Record) { h(w, r, bowlerRequest{rec: rec}) })
	}
}

// withRecord finds a bowler with find and hands them to then, or answers
// why not. Every try costs the address a token, given back if the key
// was known: requests in parallel cannot each slip past the limit.
func (a *API) withRecord(w http.ResponseWriter, r *http.Request, find func(context.Context) (*bowler.Record, error), then func(*bowler.Record)) {
	addr, ok := a.guess(w, r)
	if !ok {
		return
	}
	rec, err := find(r.Context())
	if !errors.Is(err, bowler.ErrUnknown) {
		a.admit.RefundGuess(addr)
	}
	switch {
	case errors.Is(err, bowler.ErrUnknown):
		a.fail(w, protocol.RefuseBowlerUnknown.Error())
	case err != nil:
		a.failBowlers(w, err)
	default:
		then(rec)
	}
}

// guess spends a token of the request's address on a key, code or share
// to try (lobby.KeyGuessRate, shared with the leagues' keys), and returns
// the address; past its limit, or on a server that keeps no bowlers, it
// answers the request and reports false. The caller refunds the token if
// what was tried was known.
func (a *API) guess(w http.ResponseWriter, r *http.Request) (string, bool) {
	if a.bowlers == nil {
		a.fail(w, protocol.RefuseNoBowlers.Error())
		return "", false
	}
	addr := a.admit.ClientAddr(r)
	if ok, wait := a.admit.AllowGuess(addr, time.Now()); !ok {
		a.tooMany(w, wait, lobby.LimitKeyGuesses, protocol.RefuseBowlerGuesses)
		return "", false
	}
	return addr, true
}

// percent returns made ÷ tries in percent to one decimal, or nil.
func percent(made, tries int) *float64 {
	if tries == 0 {
		return nil
	}
	x := math.Round(float64(made)*1000/float64(tries)) / 10
	return &x
}

// bowlerOf is what the API shows of a bowler's record.
func bowlerOf(rec *bowler.Record, own bool) protocol.Bowler {
	s := rec.Stats
	out := protocol.Bowler{
		Name: rec.Name, Games: s.Games, Pins: s.Pins, HighGame: s.High, HighSeries: rec.HighSeries,
		StrikePct: percent(s.Strikes, s.StrikeChances), SparePct: percent(s.Spares, s.SpareChances),
		CleanGames: s.CleanGames,
		Splits:     protocol.Made{Made: s.SplitsMade, Tries: s.Splits},
		SinglePins: protocol.Made{Made: s.SinglePinsMade, Tries: s.SinglePins},
		Leaves:     []protocol.Leave{},
		Shared:     own && !rec.Share.IsZero(),
	}
	if avg, ok := rec.Average(); ok {
		out.Average = &avg
	}
	if fb, ok := s.FirstBallAverage(); ok {
		x := math.Round(fb*100) / 100
		out.FirstBallAverage = &x
	}
	for _, l := range rec.TopLeaves(10) {
		out.Leaves = append(out.Leaves, protocol.Leave{Pins: l.Pins, Tries: l.Tries, Made: l.Made})
	}
	return out
}

func (a *API) getMe(w http.ResponseWriter, r *http.Request, b bowlerRequest) {
	a.writeJSON(w, http.StatusOK, bowlerOf(b.rec, !b.key.IsZero()))
}

// getMyGames answers a page of the history: ?limit= games (1 to 100; 20
// if omitted) before the game ?before= names (a page's next).
func (a *API) getMyGames(w http.ResponseWriter, r *http.Request, b bowlerRequest) {
	q := r.URL.Query()
	limit, before := historyPage, 0
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxHistoryPage {
			a.fail(w, protocol.RefusePageLimit.Error(maxHistoryPage, s))
			return
		}
		limit = n
	}
	if s := q.Get("before"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			a.fail(w, protocol.RefuseHistoryBefore.Error(s))
			return
		}
		before = n
	}
	last := b.rec.Stats.Games
	if before == 0 || before > last+1 {
		before = last + 1
	}
	games, err := a.bowlers.Games(r.Context(), b.rec.ID, before, limit)
	if err != nil {
		a.failBowlers(w, err)
		return
	}
	out := protocol.BowlerGames{Games: make([]protocol.BowlerGame, len(games))}
	for i, g := range games {
		out.Games[i] = protocol.BowlerGame{Lane: g.Lane, LaneName: g.LaneName, Game: g.Game, At: g.At, Name: g.Name, Score: g.Score, Frames: g.Marks, Sheet: "/lanes/" + g.Lane}
	}
	if next := before - len(games); next > 1 && len(games) > 0 {
		out.Next = strconv.Itoa(next)
	}
	a.writeJSON(w, http.StatusOK, out)
}

// failBowlers answers a request whose store request failed.
func (a *API) failBowlers(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, bowler.ErrUnknown):
		a.fail(w, protocol.RefuseBowlerDeleted.Error())
		return
	case errors.Is(err, game.ErrStorageFull):
		a.failErr(w, err) // storage_full, saying which budget
		return
	}
	a.log.Warn("bowlers not reached", "err", err)
	w.Header().Set("Retry-After", "1")
	a.fail(w, protocol.RefuseBowlersDown.Error())
}

// bowlerExport names an export of b's history, of kind: its key is a
// hash of the bowler's id (an ETag shows no id), its change a hash of
// what every game added or corrected changes (the record's numbers and
// its latest games), so that it is built once a change however often it
// is asked for.
func bowlerExport(b bowlerRequest, kind, contentType string) exported {
	id := sha256.Sum256([]byte(b.rec.ID))
	h := fnv.New64a()
	fmt.Fprint(h, b.rec.Stats, b.rec.HighSeries, b.rec.Recent)
	return exported{key: fmt.Sprintf("bowler-%x", id[:8]), seq: h.Sum64(), kind: kind, contentType: contentType, private: true}
}

// getMyCSV answers the whole history as a spreadsheet's file, newest
// first, read a page at a time: an export, under the export rate, built
// once a change of the bowler.
func (a *API) getMyCSV(w http.ResponseWriter, r *http.Request, b bowlerRequest) {
	if !a.exportAllowed(w, r, protocol.RefuseExportsFast) {
		return
	}
	err := a.answerExport(w, r, bowlerExport(b, "my-csv", "text/csv; charset=utf-8"), func(h http.Header) {
		h.Set("Content-Disposition", `attachment; filename="tenpin-my-games.csv"`)
	}, func() ([]byte, error) { return a.myCSV(r.Context(), b) })
	if err != nil {
		a.failBowlers(w, err)
	}
}

// myCSV builds b's history as games.csv.
func (a *API) myCSV(ctx context.Context, b bowlerRequest) ([]byte, error) {
	var page []bowler.Game
	before := b.rec.Stats.Games + 1
	var buf bytes.Buffer
	err := sheet.HistoryCSV(&buf, func() (sheet.HistoryGame, bool, error) {
		if len(page) == 0 {
			if before <= 1 {
				return sheet.HistoryGame{}, false, nil
			}
			var err error
			if page, err = a.bowlers.Games(ctx, b.rec.ID, before, maxHistoryPage); err != nil || len(page) == 0 {
				return sheet.HistoryGame{}, false, err
			}
			before -= len(page)
		}
		g := page[0]
		page = page[1:]
		return historyGame(g), true, nil
	})
	return buf.Bytes(), err
}

// historyGame is a game of a history as a lane's series shows it.
func historyGame(g bowler.Game) sheet.HistoryGame {
	frames := make([]protocol.Frame, len(g.Marks))
	for i, m := range g.Marks {
		frames[i] = protocol.Frame{Marks: m}
	}
	p := protocol.GamePlayer{Name: g.Name, Frames: frames, Total: g.Score, Strikes: g.Stats.Strikes, Spares: g.Stats.Spares, Opens: g.Stats.Opens,
		Stats: lane.PlayerStats(bowling.Name(g.Name), g.Stats)}
	return sheet.HistoryGame{At: g.At, Lane: g.Lane, LaneName: g.LaneName, Game: protocol.Game{Game: g.Game, Finished: true, Players: []protocol.GamePlayer{p}}}
}

// getMyChart answers the chart of the latest games' scores and the
// running average, as an SVG in the language of ?lang=: an export, under
// the export rate, built once a change of the bowler and language.
func (a *API) getMyChart(w http.ResponseWriter, r *http.Request, b bowlerRequest) {
	if !a.exportAllowed(w, r, protocol.RefuseExportsFast) {
		return
	}
	lang := r.URL.Query().Get("lang")
	if lang != "ko" {
		lang = "en" // one chart a language the chart speaks, whatever is asked
	}
	err := a.answerExport(w, r, bowlerExport(b, "my-chart-"+lang, "image/svg+xml; charset=utf-8"), func(h http.Header) {
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	}, func() ([]byte, error) { return a.myChart(r.Context(), b, lang) })
	if err != nil {
		a.failBowlers(w, err)
	}
}

// myChart builds b's chart in lang.
func (a *API) myChart(ctx context.Context, b bowlerRequest, lang string) ([]byte, error) {
	last := b.rec.Stats.Games
	var games []bowler.Game
	for before := last + 1; before > 1 && len(games) < chartGames; {
		page, err := a.bowlers.Games(ctx, b.rec.ID, before, min(maxHistoryPage, chartGames-len(games)))
		if err != nil {
			return nil, err
		}
		if len(page) == 0 {
			break
		}
		games = append(games, page...)
		before -= len(page)
	}
	// Oldest first, and the running average from the pins before them.
	points := make([]sheet.ChartPoint, len(games))
	pins, n := b.rec.Stats.Pins, b.rec.Stats.Games
	for _, g := range games {
		pins -= g.Score
		n--
	}
	for i := range games {
		g := games[len(games)-1-i]
		pins += g.Score
		n++
		points[i] = sheet.ChartPoint{At: g.At, Score: g.Score, Average: pins / max(n, 1)}
	}
	var buf bytes.Buffer
	err := sheet.Chart(&buf, points, lang)
	return buf.Bytes(), err
}

// deleteMe erases the bowler: their record, history, keys and share.
// The lanes' sheets keep the games under the names bowled, nothing more.
func (a *API) deleteMe(w http.ResponseWriter, r *http.Request, b bowlerRequest) {
	if err := a.bowlers.Delete(r.Context(), b.rec.ID); err != nil {
		a.failBowlers(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// forgetDevice revokes the key the request carries: this device's.
func (a *API) forgetDevice(w http.ResponseWriter, r *http.Request, b bowlerRequest) {
	if err := a.bowlers.Revoke(r.Context(), b.key); err != nil {
		a.failBowlers(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// newCode makes a one-time code that links another device, under the
// export rate: each draws a QR code.
func (a *API) newCode(w http.ResponseWriter, r *http.Request, b bowlerRequest) {
	if !a.exportAllowed(w, r, protocol.RefuseExportsFast) {
		return
	}
	code := rand.Text()
	expires := time.Now().Add(codeLife).UTC().Truncate(time.Second)
	err := a.bowlers.AddCode(r.Context(), b.rec.ID, bowler.HashKey(code), b.key, expires)
	if errors.Is(err, bowler.ErrTooManyCodes) {
		a.fail(w, protocol.RefuseTooManyCodes.Error(bowler.MaxCodes, int(codeLife/time.Minute)))
		return
	}
	if err != nil {
		a.failBowlers(w, err)
		return
	}
	link := a.baseURL(r) + "/me#link=" + code
	png, err := qrcode.PNG(link) // not kept: a code is a secret for ten minutes
	if err != nil {
		a.log.Error("a link code's QR code not drawn") // its error would quote the code
		a.fail(w, protocol.RefuseCodeQR.Error())
		return
	}
	a.writeJSON(w, http.StatusCreated, protocol.LinkCode{Code: code, Expires: expires, URL: link, QR: "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)})
}

// redeem takes a one-time code and answers a new key of the code's
// bowler for the device that sent it.
func (a *API) redeem(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if err := CheckJSON(r); err != nil {
		a.failErr(w, err)
		return
	}
	addr, ok := a.guess(w, r)
	if !ok {
		return
	}
	const example = `{"code":"…"}, the code another device showed`
	var body protocol.Link
	if !a.readJSON(w, r, maxLinkBody, &body, example, false) {
		return
	}
	if body.Code == "" {
		a.fail(w, protocol.RefuseBadBodyShape.Error(example))
		return
	}
	key := bowler.NewKey()
	_, err := a.bowlers.Redeem(r.Context(), bowler.HashKey(body.Code), bowler.HashKey(key), time.Now())
	if !errors.Is(err, bowler.ErrCode) && !errors.Is(err, bowler.ErrCodeUsed) && !errors.Is(err, bowler.ErrUnknown) {
		a.admit.RefundGuess(addr)
	}
	switch {
	case errors.Is(err, bowler.ErrCodeUsed):
		a.fail(w, protocol.RefuseCodeUsed.Error())
	case errors.Is(err, bowler.ErrCode), errors.Is(err, bowler.ErrUnknown):
		a.fail(w, protocol.RefuseCodeUnknown.Error())
	case err != nil:
		a.failBowlers(w, err)
	default:
		a.writeJSON(w, http.StatusOK, protocol.BowlerKey{BowlerKey: key})
	}
}

// share makes a new read-only link to the bowler's page, revoking any
// before.
func (a *API) share(w http.ResponseWriter, r *http.Request, b bowlerRequest) {
	share := rand.Text()
	if err := a.bowlers.Share(r.Context(), b.rec.ID, bowler.HashKey(share)); err != nil {
		a.failBowlers(w, err)
		return
	}
	a.writeJSON(w, http.StatusCreated, protocol.Share{Share: share, URL: a.baseURL(r) + "/b/" + share})
}

// unshare revokes the bowler's read-only link.
func (a *API) unshare(w http.ResponseWriter, r *http.Request, b bowlerRequest) {
	if err := a.bowlers.Share(r.Context(), b.rec.ID, bowler.KeyHash{}); err != nil {
		a.failBowlers(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
