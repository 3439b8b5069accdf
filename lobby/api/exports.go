package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/sheet"
	"github.com/tenpin/tenpin/protocol"
)

// A lane's exports — its games, numbers, CSV and scorecards — and a
// league's recaps (recap.go) cost milliseconds to build on a long series:
// each is built once for each change (a lane's board's seq, a league's
// count of records), by one request however many ask for it at once, and
// kept (builtCache); a client that has it (If-None-Match: its ETag) is
// answered 304; and one address may ask for lobby.ExportRate a second, in
// bursts of lobby.ExportBurst.

func (a *API) getGames(w http.ResponseWriter, r *http.Request) {
	a.export(w, r, "games", "application/json", nil, func(l lobby.Lane) ([]byte, error) {
		if here, ok := l.(*lane.Lane); ok {
			return a.built.assemble(l.ID(), here, "games", `{"games":[`, ",", "]}", gameJSON)
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
		return nil, fmt.Errorf("api: a game's JSON starts %.20q, not with its number", b)
	}
	return gamePart{b[:len(head):len(head)], b[len(head)+1:]}, nil
}

func (a *API) getStats(w http.ResponseWriter, r *http.Request) {
	a.export(w, r, "stats", "application/json", nil, func(l lobby.Lane) ([]byte, error) {
		return json.Marshal(l.Stats())
	})
}

// getCSV answers the lane's series as a spreadsheet's file.
func (a *API) getCSV(w http.ResponseWriter, r *http.Request) {
	a.export(w, r, "csv", "text/csv; charset=utf-8", func(h http.Header, l lobby.Lane) {
		h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="tenpin-%s.csv"`, l.ID()))
	}, func(l lobby.Lane) ([]byte, error) {
		if here, ok := l.(*lane.Lane); ok {
			return a.built.assemble(l.ID(), here, "csv", csvHead(), "", "", gameRows)
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
// scorecard, its words in the language of ?lang= (en or ko), dated today,
// or the night it was bowled if the lane closed.
func (a *API) getScorecard(w http.ResponseWriter, r *http.Request) {
	num, ok := strings.CutSuffix(r.PathValue("file"), ".svg")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || num != strconv.Itoa(n) {
		a.fail(w, protocol.RefuseNoScorecard.Error(r.Method, r.URL.Path))
		return
	}
	lang := r.URL.Query().Get("lang")
	if lang != "ko" {
		lang = "en"
	}
	a.export(w, r, "svg-"+num+"-"+lang, "image/svg+xml; charset=utf-8", func(h http.Header, l lobby.Lane) {
		h.Set("Content-Disposition", fmt.Sprintf(`inline; filename="tenpin-%s-%d.svg"`, l.ID(), n))
		// The image has no script and escapes its names; should one ever
		// slip in, an SVG opened on its own must not run it.
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	}, func(l lobby.Lane) ([]byte, error) {
		card := sheet.Card{Lane: l.Name(), Date: time.Now(), Lang: lang}
		if closed, kept := lobby.ClosedAt(l); kept {
			card.Date = closed // the night's, not today's
		}
		if here, ok := l.(*lane.Lane); ok {
			return a.built.scorecard(l.ID(), here, n, card)
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
var errNoGame = errors.New("api: no such game")

// export answers one of a lane's exports (its games, numbers, CSV, a
// scorecard), of kind and contentType; decorate, if not nil, sets the
// export's own headers, and build builds it of the lane.
func (a *API) export(w http.ResponseWriter, r *http.Request, kind, contentType string, decorate func(http.Header, lobby.Lane), build func(lobby.Lane) ([]byte, error)) {
	if !a.exportAllowed(w, r, protocol.RefuseLaneGamesFast) {
		return
	}
	l, found := a.lane(w, r)
	if !found {
		return
	}
	seq, _ := protocol.BoardSeq(l.BoardJSON())
	err := a.answerExport(w, r, exported{key: l.ID(), seq: seq, kind: kind, contentType: contentType},
		func(h http.Header) {
			if decorate != nil {
				decorate(h, l)
			}
		}, func() ([]byte, error) { return build(l) })
	switch {
	case err == nil:
	case errors.Is(err, errNoGame):
		a.fail(w, protocol.RefuseNoGame.Error(l.ID(), strings.TrimSuffix(r.PathValue("file"), ".svg")))
	default:
		a.failErr(w, err)
	}
}

// exportAllowed reports whether the request's address may ask for an
// export now (lobby.ExportRate, lobby.ExportBurst), or answers 429 saying
// why not.
func (a *API) exportAllowed(w http.ResponseWriter, r *http.Request, why protocol.Refusal) bool {
	if ok, wait := a.exportsAsked.Allow(a.admit.ClientAddr(r), time.Now()); !ok {
		a.tooMany(w, wait, lobby.LimitExports, why)
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
	private     bool // one client's (a bowler's): no shared cache keeps it
}

// etag is the export's ETag.
func (x exported) etag() string { return fmt.Sprintf(`"%s-%d-%s"`, x.key, x.seq, x.kind) }

// answerExport answers export x: 304 to a request that has it, else
// built by build if it is not kept (see builtCache), and written in its
// turn. decorate, if not nil, sets the export's own headers. An error of
// build's is returned, for the caller to answer; all else is answered.
func (a *API) answerExport(w http.ResponseWriter, r *http.Request, x exported, decorate func(http.Header), build func() ([]byte, error)) error {
	etag := x.etag()
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache") // ask each time: the ETag says whether it changed
	if x.private {
		h.Set("Cache-Control", "private, no-cache")
	}
	if etagMatch(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	release, ok := a.built.turn(r.Context())
	if !ok {
		h.Del("ETag")
		w.Header().Set("Retry-After", "1")
		a.fail(w, protocol.RefuseExportsBusy.Error())
		return nil
	}
	defer release()
	// A client too slow to take the export holds its turn no longer; the
	// connection's next request, if any, is not held to it.
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Now().Add(exportWriteTimeout))
	defer rc.SetWriteDeadline(time.Time{})
	data, err := a.built.build(x.key, x.seq, x.kind, build)
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
