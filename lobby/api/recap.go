package api

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/tenpin/tenpin/lobby/sheet"
	"github.com/tenpin/tenpin/protocol"
)

// A league's weekly recap, its standings and last night as a spreadsheet's
// file and as an image (package sheet), is an export as a lane's are: built
// once for each change of the league (its count of records, which only
// grow), answered 304 to a client that has it, a few at a time, and
// counted against the address's lobby.ExportRate.

// getRecapCSV answers the league's recap as a spreadsheet's file.
func (a *API) getRecapCSV(w http.ResponseWriter, r *http.Request) {
	a.recap(w, r, "recap-csv", "text/csv; charset=utf-8", "attachment", "csv", "", sheet.RecapCSV)
}

// getRecapSVG answers the league's standings as an image, its words in
// the language of ?lang= (en or ko).
func (a *API) getRecapSVG(w http.ResponseWriter, r *http.Request) {
	lang := r.URL.Query().Get("lang")
	if lang != "ko" {
		lang = "en"
	}
	a.recap(w, r, "recap-svg-"+lang, "image/svg+xml; charset=utf-8", "inline", "svg", lang, sheet.RecapSVG)
}

// recap answers an export of the recap of the league the path names,
// written by write. The file is named for the league's id and the
// recap's week, never its name: an id is plain ASCII.
func (a *API) recap(w http.ResponseWriter, r *http.Request, kind, contentType, disposition, ext, lang string, write func(io.Writer, sheet.Recap) error) {
	if !a.exportAllowed(w, r, protocol.RefuseExportsFast) {
		return
	}
	id := r.PathValue("id")
	rc, err := a.leagues.Recap(r.Context(), id, lang)
	if err != nil {
		w.Header().Set("Cache-Control", "no-store")
		a.failLeague(w, err)
		return
	}
	x := exported{key: "league-" + id, seq: uint64(rc.Change), kind: kind, contentType: contentType}
	err = a.answerExport(w, r, x, func(h http.Header) {
		h.Set("Content-Disposition", fmt.Sprintf(`%s; filename="tenpin-league-%s-week-%d.%s"`, disposition, id, rc.Sheet.Night.Week, ext))
		if ext == "svg" {
			// As a lane's scorecard: no script should one slip in.
			h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		}
	}, func() ([]byte, error) {
		var buf bytes.Buffer
		err := write(&buf, rc.Sheet)
		return buf.Bytes(), err
	})
	if err != nil {
		a.failErr(w, err)
	}
}
