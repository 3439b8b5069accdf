package lobby

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"weak"

	"golang.org/x/sync/singleflight"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/relay"
	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/lobby/sheet"
	"github.com/tenpin/tenpin/protocol"
)

// Handler returns the routes of the lobby's HTTP API (/api/…) that
// lobby/api does not serve itself: a lane's games, stats, CSV and
// scorecards, and the leagues; any other /api/ path is 404. Serve
// lobby/api's New, which serves the other routes, the WebSocket endpoint
// and /healthz among them, and answers these with it. What each answers —
// fields, statuses, paging, headers — is documented once, in package
// protocol (go doc ./protocol, "HTTP"). Every response carries the
// headers of [SetHeaders].
func (lb *Lobby) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/lanes/{id}/games", lb.getGames)
	mux.HandleFunc("GET /api/lanes/{id}/stats", lb.getStats)
	mux.HandleFunc("GET /api/lanes/{id}/games.csv", lb.getCSV)
	mux.HandleFunc("GET /api/lanes/{id}/games/{file}", lb.getScorecard)
	lb.leagueRoutes(mux)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		lb.fail(w, refuseNoAPI, r.Method, r.URL.Path)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetHeaders(w.Header())
		mux.ServeHTTP(w, r)
	})
}

// SetHeaders sets the headers every response of the server carries,
// whatever answers it: X-Content-Type-Options: nosniff, so that no
// browser takes an answer for another type than it says (JSON for a page
// or a script), and Referrer-Policy: no-referrer, so that no lane's URL —
// its invitation — leaks to another site.
func SetHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}

// fail answers a request with an API error, the refusal r with its
// arguments (a protocol.Error, with its code's HTTP status), and counts
// it by its code.
func (lb *Lobby) fail(w http.ResponseWriter, r Refusal, args ...any) {
	e := r.Error(args...)
	count(&lb.counters.refused, string(e.Code))
	WriteError(w, e)
}

// failErr answers a request with the refusal err carries (see
// lane.ErrorFor); an error of the server's own is logged, and the client
// is told only that the server failed.
func (lb *Lobby) failErr(w http.ResponseWriter, err error) {
	pe, known := lane.ErrorFor(err)
	if !known {
		lb.log.Error("request failed", "err", err)
	}
	count(&lb.counters.refused, string(pe.Code))
	WriteError(w, pe)
}

// WriteError answers a request with e, with its code's HTTP status.
func WriteError(w http.ResponseWriter, e *protocol.Error) {
	writeJSON(w, e.Code.Status(), e)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, refuseEncoding.Error().Message, http.StatusInternalServerError)
		return
	}
	writeJSONBytes(w, status, data)
}

func writeJSONBytes(w http.ResponseWriter, status int, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(data)
	w.Write([]byte{'\n'})
}

// Healthy returns nil while the store takes writes (Config.Health, asked
// for at most healthTimeout), else an error carrying what a client is
// told (see lane.ErrorFor).
func (lb *Lobby) Healthy(ctx context.Context) error {
	if lb.cfg.Health == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	if err := lb.cfg.Health(ctx); err != nil {
		return fmt.Errorf("%w: %w", refuseStoreDown.Error(), err)
	}
	return nil
}

// CreateFor creates the lane body asks for, for the client address addr,
// which may hold Config.LanesPerAddr lanes open at once (past it, the
// error wraps [ErrAddrLimit]; the soonest one of them can close is
// [Lobby.IdleTimeout] away). The lane's host key comes with it, unless
// the lane is given away: then it waits for nobody.
func (lb *Lobby) CreateFor(ctx context.Context, body protocol.CreateLane, addr string) (protocol.CreatedLane, error) {
	key, hash := rand.Text(), game.TokenHash{}
	if body.GiveAway {
		key = ""
	} else {
		hash = game.HashToken(key)
	}
	l, err := lb.create(ctx, body.Name, addr, body.Private, hash, nil)
	if err != nil {
		return protocol.CreatedLane{}, err
	}
	return protocol.CreatedLane{LaneSummary: l.Summary(), HostKey: key}, nil
}

// AllowCreation spends one of the lane creations the client address addr
// may make (Config.CreateRate, Config.CreateBurst) if it has one left;
// otherwise it says how long until it will.
func (lb *Lobby) AllowCreation(addr string, now time.Time) (bool, time.Duration) {
	return lb.admit.creations.Allow(addr, now)
}

// LanesPerAddr is how many lanes a client address may hold open at once
// (Config.LanesPerAddr; below 1, no limit).
func (lb *Lobby) LanesPerAddr() int { return lb.cfg.LanesPerAddr }

// tooMany answers 429 rate_limited, the refusal why with its arguments
// and the seconds to wait, with a Retry-After of wait (at least a
// second).
func (lb *Lobby) tooMany(w http.ResponseWriter, wait time.Duration, why Refusal, args ...any) {
	secs := retrySecs(wait)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	lb.fail(w, why, append(args, secs)...)
}

// retrySecs is the seconds a client is told to wait for wait to pass:
// its whole seconds and one more, never fewer than wait.
func retrySecs(wait time.Duration) int { return int(wait/time.Second) + 1 }

// IdleTimeout is how long a lane with nobody connected stays open.
func (lb *Lobby) IdleTimeout() time.Duration {
	return cmp.Or(lb.cfg.Lane.IdleTimeout, lane.IdleTimeout)
}

// readJSON reads a request's JSON body as ReadJSON does, or answers why
// not.
func (lb *Lobby) readJSON(w http.ResponseWriter, r *http.Request, limit int64, v any, example string, empty bool) bool {
	if err := ReadJSON(w, r, limit, v, example, empty); err != nil {
		lb.failErr(w, err)
		return false
	}
	return true
}

// ReadJSON reads a request's JSON body, up to limit bytes, strictly into
// v — as strictly as a lane's messages: exact names, each once — or
// returns the refusal a client is told (see lane.ErrorFor): 413
// too_large, 415 for a body not labelled JSON (see CheckJSON), 400
// bad_request saying what is wrong after the example of a body. An empty
// body, whatever its label, is {} if empty is true.
func ReadJSON(w http.ResponseWriter, r *http.Request, limit int64, v any, example string, empty bool) error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
		return refuseTooLarge.Error(limit)
	}
	if err == nil && empty && len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if err := CheckJSON(r); err != nil {
		return err
	}
	if err == nil {
		err = protocol.Unmarshal(data, v)
	}
	if err != nil {
		return refuseBadBody.Error(example, strings.TrimPrefix(err.Error(), protocol.ErrUndecodable.Error()+": "))
	}
	return nil
}

// CheckJSON returns nil if the request's Content-Type header says
// application/json (with parameters, such as charset, or without), else
// the refusal a client is told: 415 unsupported_media_type.
func CheckJSON(r *http.Request) error {
	if !isJSON(r.Header.Get("Content-Type")) {
		return refuseNotJSON.Error()
	}
	return nil
}

// isJSON reports whether a Content-Type header says application/json
// (with parameters, such as charset, or without).
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// lane returns the lane a request's path names, wherever in the cluster
// it runs, or answers the request with why it cannot.
func (lb *Lobby) lane(w http.ResponseWriter, r *http.Request) (Lane, bool) {
	id := r.PathValue("id")
	l, err := lb.laneOf(r.Context(), id)
	if err != nil {
		lb.failFind(w, id, err)
		return nil, false
	}
	return l, true
}

// laneOf returns lane id, wherever in the cluster it runs, or its kept
// night if it closed; ErrNoLane if there is neither (see failFind).
func (lb *Lobby) laneOf(ctx context.Context, id string) (Lane, error) {
	var remote *LaneView
	l, err := lb.find(ctx, id, func(ctx context.Context, id string) (err error) {
		remote, err = lb.cfg.Cluster.Lane(ctx, id)
		return err
	})
	switch {
	case l != nil && l.Stopped():
		// Closed a moment ago, and not yet out of the lobby: its kept
		// night, if it has one, is what is true now.
		if k, kerr := lb.kept(ctx, id); kerr == nil {
			return k, nil
		}
		return l, nil
	case l != nil:
		return l, nil
	case err == nil:
		return remoteLane{remote}, nil
	case errors.Is(err, ErrNoLane):
		// Closed, perhaps: its night may be kept.
		k, kerr := lb.kept(ctx, id)
		if kerr == nil {
			return k, nil
		}
		if !errors.Is(kerr, errNotKept) {
			err = fmt.Errorf("%w: %w", ErrUnavailable, kerr)
		}
	}
	return nil, err
}

// Find returns lane id as the API shows it, wherever in the cluster it
// runs, or its kept night if it closed. What its error tells the client
// comes with it (see lane.ErrorFor): for an error wrapping [ErrNoLane],
// that there is neither; for any other, that the lane cannot be reached
// now.
func (lb *Lobby) Find(ctx context.Context, id string) (Lane, error) {
	l, err := lb.laneOf(ctx, id)
	switch {
	case err == nil:
		return l, nil
	case errors.Is(err, ErrNoLane):
		return nil, fmt.Errorf("%w: %w", ErrNoLane, refuseLaneNotFound.Error(id))
	}
	return nil, fmt.Errorf("%w: %w", refuseLaneUnreached.Error(id), err)
}

// CountRefusal counts a request the API refused, by its code, and by the
// limit per client address that refused it if one did (limit is not
// ""): see [Lobby.Refused] and [Lobby.RateLimited].
func (lb *Lobby) CountRefusal(code protocol.Code, limit string) {
	count(&lb.counters.refused, string(code))
	if limit != "" {
		lb.rateLimited(limit)
	}
}

// failFind answers a request for lane id that could not be found.
func (lb *Lobby) failFind(w http.ResponseWriter, id string, err error) {
	if errors.Is(err, ErrNoLane) {
		lb.fail(w, refuseLaneNotFound, id)
		return
	}
	lb.log.Warn("lane not reached", "lane", id, "err", err)
	w.Header().Set("Retry-After", "1")
	lb.fail(w, refuseLaneUnreached, id)
}

func (lb *Lobby) getGames(w http.ResponseWriter, r *http.Request) {
	lb.export(w, r, "games", "application/json", nil, func(l Lane) ([]byte, error) {
		if here, ok := l.(*lane.Lane); ok {
			return lb.built.assemble(l.ID(), here, "games", `{"games":[`, ",", "]}", gameJSON)
		}
		return json.Marshal(l.Games())
	})
}

// gameJSON is g's part of the games export: its JSON object as
// json.Marshal writes it in [protocol.Games], the number left out.
func gameJSON(g protocol.Game) (gamePart, error) {
	g.Game = 0
	b, err := json.Marshal(g)
	if err != nil {
		return nil, err
	}
	const head = `{"game":`
	if !bytes.HasPrefix(b, []byte(head+"0,")) {
		return nil, fmt.Errorf("lobby: a game's JSON starts %.20q, not with its number", b)
	}
	return gamePart{b[:len(head):len(head)], b[len(head)+1:]}, nil
}

func (lb *Lobby) getStats(w http.ResponseWriter, r *http.Request) {
	lb.export(w, r, "stats", "application/json", nil, func(l Lane) ([]byte, error) {
		return json.Marshal(l.Stats())
	})
}

// getCSV answers the lane's series as a spreadsheet's file.
func (lb *Lobby) getCSV(w http.ResponseWriter, r *http.Request) {
	lb.export(w, r, "csv", "text/csv; charset=utf-8", func(h http.Header, l Lane) {
		h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="tenpin-%s.csv"`, l.ID()))
	}, func(l Lane) ([]byte, error) {
		if here, ok := l.(*lane.Lane); ok {
			return lb.built.assemble(l.ID(), here, "csv", csvHead(), "", "", gameRows)
		}
		var buf bytes.Buffer
		err := sheet.CSV(&buf, l.Games())
		return buf.Bytes(), err
	})
}

// csvHead is how games.csv starts, before the games' rows.
var csvHead = sync.OnceValue(func() string {
	var b strings.Builder
	sheet.CSV(&b, protocol.Games{}) // a strings.Builder takes every write
	return b.String()
})

// gameRows is g's part of games.csv: its rows, each but for the number
// that starts it.
func gameRows(g protocol.Game) (gamePart, error) {
	rows, err := sheet.Rows(g)
	return append(gamePart{nil}, rows...), err
}

// getScorecard answers games/{n}.svg: game n of the lane's series as a
// scorecard, its words in the language of ?lang= (en or ko).
func (lb *Lobby) getScorecard(w http.ResponseWriter, r *http.Request) {
	num, ok := strings.CutSuffix(r.PathValue("file"), ".svg")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || num != strconv.Itoa(n) {
		lb.fail(w, refuseNoScorecard, r.Method, r.URL.Path)
		return
	}
	lang := r.URL.Query().Get("lang")
	if lang != "ko" {
		lang = "en"
	}
	lb.export(w, r, "svg-"+num+"-"+lang, "image/svg+xml; charset=utf-8", func(h http.Header, l Lane) {
		h.Set("Content-Disposition", fmt.Sprintf(`inline; filename="tenpin-%s-%d.svg"`, l.ID(), n))
		// The image has no script and escapes its names; should one ever
		// slip in, an SVG opened on its own must not run it.
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	}, func(l Lane) ([]byte, error) {
		card := sheet.Card{Lane: l.Name(), Date: time.Now(), Lang: lang}
		if k, ok := l.(*keptLane); ok {
			card.Date = k.ClosedAt // the night's, not today's
		}
		if here, ok := l.(*lane.Lane); ok {
			return lb.built.scorecard(l.ID(), here, n, card)
		}
		var buf bytes.Buffer
		g, ok := l.Game(n)
		if !ok {
			return nil, errNoGame
		}
		err := sheet.SVG(&buf, g, card)
		return buf.Bytes(), err
	})
}

// errNoGame: a scorecard asked for of a game the lane's series does not
// hold (yet).
var errNoGame = errors.New("lobby: no such game")

// export answers one of a lane's exports (its games, numbers, CSV, a
// scorecard), which cost milliseconds to build on a long series: each is
// built once for each change of the lane (its board's seq), by one
// request however many ask for it at once, and kept; a client that has
// it (If-None-Match: its ETag) is answered 304; and one address may ask
// for ExportRate a second, in bursts of ExportBurst. decorate, if not
// nil, sets the export's own headers.
func (lb *Lobby) export(w http.ResponseWriter, r *http.Request, kind, contentType string, decorate func(http.Header, Lane), build func(Lane) ([]byte, error)) {
	if !lb.exportAllowed(w, r, refuseLaneGamesFast) {
		return
	}
	l, found := lb.lane(w, r)
	if !found {
		return
	}
	seq, _ := protocol.BoardSeq(l.BoardJSON())
	err := lb.answerExport(w, r, exported{key: l.ID(), seq: seq, kind: kind, contentType: contentType},
		func(h http.Header) {
			if decorate != nil {
				decorate(h, l)
			}
		}, func() ([]byte, error) { return build(l) })
	switch {
	case err == nil:
	case errors.Is(err, errNoGame):
		lb.fail(w, refuseNoGame, l.ID(), strings.TrimSuffix(r.PathValue("file"), ".svg"))
	default:
		lb.failErr(w, err)
	}
}

// exportAllowed reports whether the request's address may ask for an
// export now (ExportRate, ExportBurst), or answers 429 saying why not.
func (lb *Lobby) exportAllowed(w http.ResponseWriter, r *http.Request, why Refusal) bool {
	if ok, wait := lb.admit.exportsAsked.Allow(lb.ClientAddr(r), time.Now()); !ok {
		lb.rateLimited(LimitExports)
		lb.tooMany(w, wait, why)
		return false
	}
	return true
}

// exported names an export: whose (key: a lane's id, or a league's
// "league-" and id), of which change (seq), which kind, and its type.
type exported struct {
	key         string
	seq         uint64
	kind        string
	contentType string
}

// etag is the export's ETag.
func (x exported) etag() string { return fmt.Sprintf(`"%s-%d-%s"`, x.key, x.seq, x.kind) }

// answerExport answers export x: 304 to a request that has it, else
// built by build if it is not kept (see builtCache), and written in its
// turn. decorate, if not nil, sets the export's own headers. An error of
// build's is returned, for the caller to answer; all else is answered.
func (lb *Lobby) answerExport(w http.ResponseWriter, r *http.Request, x exported, decorate func(http.Header), build func() ([]byte, error)) error {
	etag := x.etag()
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache") // ask each time: the ETag says whether it changed
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	release, ok := lb.built.turn(r.Context())
	if !ok {
		h.Del("ETag")
		w.Header().Set("Retry-After", "1")
		lb.fail(w, refuseExportsBusy)
		return nil
	}
	defer release()
	// A client too slow to take the export holds its turn no longer; the
	// connection's next request, if any, is not held to it.
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Now().Add(exportWriteTimeout))
	defer rc.SetWriteDeadline(time.Time{})
	data, err := lb.built.build(x.key, x.seq, x.kind, build)
	if err != nil {
		h.Del("ETag")
		return err
	}
	if decorate != nil {
		decorate(h)
	}
	h.Set("Content-Type", x.contentType)
	w.Write(data)
	if x.contentType == "application/json" {
		w.Write([]byte{'\n'})
	}
	return nil
}

// builtCache keeps the exports built lately: each lane's (and league's),
// of its latest change (seq) only, since a change makes every one stale. At most
// builtCacheBytes in all; past it, the other lanes' go, the lane being
// built for keeps its own.
type builtCache struct {
	mu    sync.Mutex
	lanes map[string]*builtLane
	bytes int // of the exports kept, in all lanes
	// building holds the exports being built: the requests of one that
	// come meanwhile wait for it rather than build it again (right after
	// a ball, every page of a lane may ask for the same one).
	building singleflight.Group
	once     sync.Once
	turns    chan struct{} // a token for each export being answered
}

// Exports are answered — built, if need be, and written — a few at a
// time, however many are asked for: a lane of a hundred games' games are
// 440 kB of JSON, and fifty of them at once, from fifty addresses each
// within its rate, kept the lanes' goroutines waiting for a core (other
// lanes' rolls' p99 from 1.2 to 11 ms; 3 to 7 ms with turns: see
// cmd/tenpin/PERFORMANCE.md, "Exports beside the lanes"). The others wait
// their turn, up to exportTurnWait (then 503 unavailable); a turn's
// writes must be done within exportWriteTimeout, so that a client that
// reads slowly does not hold it.
const (
	exportTurnWait     = 10 * time.Second
	exportWriteTimeout = 10 * time.Second
)

// exportTurns is how many exports are answered at once: half the cores,
// so that the lanes always have the others.
var exportTurns = max(1, runtime.GOMAXPROCS(0)/2)

// turn waits for a turn to answer an export, and returns the function
// that ends it; false if none came within exportTurnWait or ctx ended.
func (c *builtCache) turn(ctx context.Context) (func(), bool) {
	c.once.Do(func() { c.turns = make(chan struct{}, exportTurns) })
	t := time.NewTimer(exportTurnWait)
	defer t.Stop()
	select {
	case c.turns <- struct{}{}:
		return func() { <-c.turns }, true
	case <-t.C:
	case <-ctx.Done():
	}
	return nil, false
}

// builtLane is one lane's exports of its change seq, by kind, and the
// parts of them its finished games make, which outlive a change.
type builtLane struct {
	seq  uint64
	data map[string][]byte
	// parts are what its finished games make of its exports, by kind and
	// the game's lane.Series.Number, built once, as a finished game never
	// changes, from the series of the lane of. A lane restored or taken
	// over since is another *lane.Lane: its parts are built again.
	of    weak.Pointer[lane.Lane]
	parts map[partKey]keptPart
	first int // the Number of the first game of the series, as last kept
}

type partKey struct {
	kind   string
	number int
}

// keptPart is a finished game's part of an export, and what else it was
// built for, if anything: a scorecard's place in the series and day.
type keptPart struct {
	gamePart
	as string
}

// gamePart is a game's part of an export but for its number in the
// series, which changes once the series moves past its longest (see
// lane.Series.Number): the number goes between its pieces.
type gamePart [][]byte

// appendTo appends the part as of game n of the series.
func (p gamePart) appendTo(b []byte, n int) []byte {
	for i, piece := range p {
		if i > 0 {
			b = strconv.AppendInt(b, int64(n), 10)
		}
		b = append(b, piece...)
	}
	return b
}

// size is how many bytes the part's pieces take, the number left out.
func (p gamePart) size() int {
	n := 0
	for _, piece := range p {
		n += len(piece)
	}
	return n
}

// assemble returns export kind of l, lane id, as it stands: head, each
// game's part as part writes it, sep between, then tail. The parts of its
// finished games are built once, and kept with the lane's exports; only
// the game in play's is built each time.
func (c *builtCache) assemble(id string, l *lane.Lane, kind, head, sep, tail string, part func(protocol.Game) (gamePart, error)) ([]byte, error) {
	s, of := l.Series(), weak.Make(l)
	parts := make([]gamePart, s.Finished(), s.Finished()+1)
	c.takeParts(id, of, kind, s, parts)
	var fresh map[partKey]keptPart
	for i := range parts {
		if parts[i] != nil {
			continue
		}
		g, _ := s.Game(i + 1)
		p, err := part(g)
		if err != nil {
			return nil, err
		}
		parts[i] = p
		if fresh == nil {
			fresh = make(map[partKey]keptPart)
		}
		fresh[partKey{kind, s.Number(i + 1)}] = keptPart{gamePart: p}
	}
	if fresh != nil {
		c.keepParts(id, of, s.Number(1), fresh)
	}
	if g, ok := s.Game(s.Finished() + 1); ok {
		p, err := part(g)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	size := len(head) + len(sep)*max(len(parts)-1, 0) + len(tail)
	for i, p := range parts {
		size += p.size() + (len(p)-1)*len(strconv.Itoa(i+1))
	}
	b := append(make([]byte, 0, size), head...)
	for i, p := range parts {
		if i > 0 {
			b = append(b, sep...)
		}
		b = p.appendTo(b, i+1)
	}
	return append(b, tail...), nil
}

// scorecard returns game n of l's series, lane id, drawn as card says. A
// finished game's card is drawn once for its place in the series and its
// day, and kept with the lane's exports.
func (c *builtCache) scorecard(id string, l *lane.Lane, n int, card sheet.Card) ([]byte, error) {
	s, of := l.Series(), weak.Make(l)
	k, as := partKey{"svg-" + card.Lang, s.Number(n)}, strconv.Itoa(n)+" "+card.Date.Format(time.DateOnly)
	finished := n >= 1 && n <= s.Finished()
	if finished {
		if p, ok := c.takePart(id, of, k, as); ok {
			return p[0], nil
		}
	}
	g, ok := s.Game(n)
	if !ok {
		return nil, errNoGame
	}
	var buf bytes.Buffer
	if err := sheet.SVG(&buf, g, card); err != nil {
		return nil, err
	}
	if finished {
		c.keepParts(id, of, s.Number(1), map[partKey]keptPart{k: {gamePart{buf.Bytes()}, as}})
	}
	return buf.Bytes(), nil
}

// takeParts fills parts — game n's at n-1 — with the parts kept of
// export kind of series s of lane id.
func (c *builtCache) takeParts(id string, of weak.Pointer[lane.Lane], kind string, s lane.Series, parts []gamePart) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.lanes[id]
	if l == nil || l.of != of {
		return
	}
	for i := range parts {
		if p, ok := l.parts[partKey{kind, s.Number(i + 1)}]; ok {
			parts[i] = p.gamePart
		}
	}
}

// takePart returns part k of lane id if it is kept, built for as.
func (c *builtCache) takePart(id string, of weak.Pointer[lane.Lane], k partKey, as string) (gamePart, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.lanes[id]
	if l == nil || l.of != of {
		return nil, false
	}
	p, ok := l.parts[k]
	return p.gamePart, ok && p.as == as
}

// keepParts keeps parts of lane id, whose series now starts with game
// number first, in place of any kept by their keys, and forgets those of
// the games before first, which the series no longer holds.
func (c *builtCache) keepParts(id string, of weak.Pointer[lane.Lane], first int, parts map[partKey]keptPart) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.lane(id)
	if l.of != of {
		c.bytes -= l.dropParts(func(partKey) bool { return true })
		l.of, l.first = of, 0
	}
	if first > l.first {
		c.bytes -= l.dropParts(func(k partKey) bool { return k.number < first })
		l.first = first
	}
	if l.parts == nil {
		l.parts = make(map[partKey]keptPart)
	}
	added := 0
	for k, p := range parts {
		added += p.size() - l.parts[k].size()
		l.parts[k] = p
	}
	c.fit(id, added)
}

// dropParts forgets the parts whose keys drop says, and returns how many
// bytes they took.
func (l *builtLane) dropParts(drop func(partKey) bool) int {
	n := 0
	for k, p := range l.parts {
		if drop(k) {
			n += p.size()
			delete(l.parts, k)
		}
	}
	return n
}

// builtCacheBytes bounds the exports kept, and their parts: a lane of a
// hundred games of four bowlers has 440 kB of games, 42 kB of CSV and 12
// kB a scorecard (two languages of each game: 2.4 MB), the same again in
// parts, so a few such lanes at once. A scorecard kept both ways is
// counted twice: the bound errs on the side of less.
const builtCacheBytes = 16 << 20

// build returns the export kind of lane id at its change seq, built by
// build if it is not kept.
func (c *builtCache) build(id string, seq uint64, kind string, build func() ([]byte, error)) ([]byte, error) {
	if d, ok := c.get(id, seq, kind); ok {
		return d, nil
	}
	v, err, _ := c.building.Do(id+" "+strconv.FormatUint(seq, 10)+" "+kind, func() (any, error) {
		if d, ok := c.get(id, seq, kind); ok {
			return d, nil // built while this request waited for the lock
		}
		d, err := build()
		if err == nil {
			c.put(id, seq, kind, d)
		}
		return d, err
	})
	d, _ := v.([]byte)
	return d, err
}

func (c *builtCache) get(id string, seq uint64, kind string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.lanes[id]
	if l == nil || l.seq != seq {
		return nil, false
	}
	d, ok := l.data[kind]
	return d, ok
}

func (c *builtCache) put(id string, seq uint64, kind string, d []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.lane(id)
	switch {
	case seq < l.seq:
		return // built of a change already past
	case seq > l.seq || l.data == nil:
		for _, d := range l.data {
			c.bytes -= len(d)
		}
		l.seq, l.data = seq, make(map[string][]byte)
	}
	c.bytes -= len(l.data[kind])
	l.data[kind] = d
	c.fit(id, len(d))
}

// lane returns the exports kept of lane id, added if there are none.
func (c *builtCache) lane(id string) *builtLane {
	l := c.lanes[id]
	if l == nil {
		if c.lanes == nil {
			c.lanes = make(map[string]*builtLane)
		}
		l = new(builtLane)
		c.lanes[id] = l
	}
	return l
}

// fit counts added bytes more kept for lane id and, past
// builtCacheBytes, forgets the other lanes' exports: first those of
// their latest change, which their parts build again at little cost,
// then their parts.
func (c *builtCache) fit(id string, added int) {
	c.bytes += added
	for other, l := range c.lanes {
		if c.bytes <= builtCacheBytes {
			return
		}
		if other != id {
			for _, d := range l.data {
				c.bytes -= len(d)
			}
			l.data = nil
		}
	}
	for other, l := range c.lanes {
		if c.bytes <= builtCacheBytes {
			return
		}
		if other != id {
			c.bytes -= l.dropParts(func(partKey) bool { return true })
			delete(c.lanes, other)
		}
	}
}

// An AdmitError is why [Lobby.Admit] turned a WebSocket connection away
// at the lobby's door: the server or the client's address holds its
// limit, or the lobby is closing. It says how the refusal is told; what
// the client is told is Err's (see lane.ErrorFor).
type AdmitError struct {
	Err error // wraps the refusal a client is told, and the lobby's sentinel if it has one

	// Limit is the limit per client address that refused the
	// connection (LimitConnsPerAddr or LimitLaneConns), or "" when the
	// server's limit or its closing did.
	Limit string

	// Upgraded says the refusal is told after the upgrade, in a close
	// frame (see ws.Refuse): a page cannot read the status of a refused
	// upgrade, only a close. The refused socket counts among the
	// server's connections until Admit's release is called, once it is
	// told.
	Upgraded bool

	// RetryAfter, for a refusal told before the upgrade, is the seconds
	// the client should wait before it tries again (0: not said).
	RetryAfter int
}

func (e *AdmitError) Error() string { return e.Err.Error() }
func (e *AdmitError) Unwrap() error { return e.Err }

// Admit decides whether the client address addr may open a WebSocket
// connection to lane id, and returns the endpoint to attach it to — the
// lane, or a relay to the node of the cluster that runs it — and the
// function that counts the connection out once it has ended. In order:
//
//  1. the connection is counted in the server's and addr's
//     (Config.MaxConnections, Config.ConnsPerAddr);
//  2. only then is the lane looked for: in a cluster, looking may cost
//     requests to other nodes, and the limits come first;
//  3. the connection is counted in addr's on the lane
//     (Config.ConnsPerLaneAddr).
//
// A refusal of steps 1 and 3 is an [*AdmitError], which says how it is
// told; release is then nil, except for a refusal told after the upgrade,
// whose socket counts until release is called. A lane not found is
// ErrNoLane, and one not reached an error carrying what its client is
// told, as [Lobby.Find]'s.
func (lb *Lobby) Admit(ctx context.Context, id, addr string) (to lane.Endpoint, release func(), err error) {
	done, err := lb.admit.connOpened(addr)
	switch {
	case errors.Is(err, errRefusing):
		// Past its refusals in flight, the address gets a plain 429: one
		// of them will have been let go within ws.RefuseTimeout.
		secs := retrySecs(ws.RefuseTimeout)
		return nil, nil, &AdmitError{Err: fmt.Errorf("%w: %w", refuseRefusalsInFlight.Error(secs), err), Limit: LimitConnsPerAddr, RetryAfter: secs}
	case errors.Is(err, ErrAddrLimit):
		return nil, done, &AdmitError{Err: err, Limit: LimitConnsPerAddr, Upgraded: true}
	case err != nil:
		// The server holds its limit, or is closing: a moment for
		// connections to end, or for the node to be back.
		return nil, nil, &AdmitError{Err: err, RetryAfter: 5}
	}
	var rl *relay.Relay
	l, err := lb.find(ctx, id, func(ctx context.Context, id string) (err error) {
		rl, err = lb.cfg.Cluster.Relay(ctx, id)
		return err
	})
	switch {
	case errors.Is(err, ErrNoLane):
		done()
		return nil, nil, fmt.Errorf("%w: %w", ErrNoLane, refuseLaneNotFound.Error(id))
	case err != nil:
		done()
		return nil, nil, fmt.Errorf("%w: %w", refuseLaneUnreached.Error(id), err)
	}
	to = l
	if l == nil {
		to = rl
	}
	left, room := lb.admit.laneConnOpened(id, addr)
	if !room {
		return nil, done, &AdmitError{Err: refuseConnsLaneAddr.Error(lb.cfg.ConnsPerLaneAddr), Limit: LimitLaneConns, Upgraded: true}
	}
	return to, func() {
		done()
		left()
	}, nil
}
