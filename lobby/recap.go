package lobby

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/tenpin/tenpin/lobby/sheet"
)

// A league's weekly recap, its standings and last night as a spreadsheet's
// file and as an image (package sheet), is an export as a lane's are: built
// once for each change of the league (its count of records, which only
// grow), answered 304 to a client that has it, a few at a time, and
// counted against the address's ExportRate.

// getRecapCSV answers the league's recap as a spreadsheet's file.
func (lb *Lobby) getRecapCSV(w http.ResponseWriter, r *http.Request) {
	lb.recap(w, r, "recap-csv", "text/csv; charset=utf-8", "attachment", "csv", "", sheet.RecapCSV)
}

// getRecapSVG answers the league's standings as an image, its words in
// the language of ?lang= (en or ko).
func (lb *Lobby) getRecapSVG(w http.ResponseWriter, r *http.Request) {
	lang := r.URL.Query().Get("lang")
	if lang != "ko" {
		lang = "en"
	}
	lb.recap(w, r, "recap-svg-"+lang, "image/svg+xml; charset=utf-8", "inline", "svg", lang, sheet.RecapSVG)
}

// recap answers an export of the recap of the league the path names,
// written by write. The file is named for the league's id and the
// recap's week, never its name: an id is plain ASCII.
func (lb *Lobby) recap(w http.ResponseWriter, r *http.Request, kind, contentType, disposition, ext, lang string, write func(io.Writer, sheet.Recap) error) {
	if !lb.exportAllowed(w, r, refuseExportsFast) {
		return
	}
	var (
		x  exported
		rc sheet.Recap
	)
	// Under the league's lock, only what the recap needs is read (a pass
	// over the teams and bowlers, and the night's sheet): its building
	// and writing wait for a turn, which must not keep the league's
	// scores waiting.
	err := lb.withLeague(r.Context(), r.PathValue("id"), func(e *leagueEntry) error {
		x = exported{key: "league-" + e.id, seq: uint64(len(e.stored.Records)), kind: kind, contentType: contentType}
		date := e.stored.Created
		if n := len(e.stored.Records); n > 0 {
			date = e.stored.Records[n-1].At
		}
		rc = sheet.NewRecap(e.l, date, lang)
		return nil
	})
	if err != nil {
		w.Header().Set("Cache-Control", "no-store")
		lb.failLeague(w, err)
		return
	}
	err = lb.answerExport(w, r, x, func(h http.Header) {
		h.Set("Content-Disposition", fmt.Sprintf(`%s; filename="tenpin-league-%s-week-%d.%s"`, disposition, x.key[len("league-"):], rc.Night.Week, ext))
		if ext == "svg" {
			// As a lane's scorecard: no script should one slip in.
			h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		}
	}, func() ([]byte, error) {
		var buf bytes.Buffer
		err := write(&buf, rc)
		return buf.Bytes(), err
	})
	if err != nil {
		lb.failErr(w, err)
	}
}
