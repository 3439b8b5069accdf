package lobby

import (
	"context"

	"github.com/tenpin/tenpin/lobby/sheet"
)

// A LeagueRecap is what a league's weekly recap is drawn from — its
// standings and its last night (package sheet) — read at one change of the
// league.
type LeagueRecap struct {
	// Change is the league's count of records, which only grows: each
	// change of the league makes a new one, and a new recap.
	Change int
	// Sheet is the recap, dated the league's latest change: its
	// Night.Week is the night in play, or else the last one closed, 0
	// before the first night opens.
	Sheet sheet.Recap
}

// Recap returns the recap of league id as it stands, the image's words in
// lang (see sheet.Recap). Its error carries what a client is told (see
// lane.ErrorFor), wrapping [ErrLeaguesUnavailable] if it is worth trying
// again in a moment.
func (lg *Leagues) Recap(ctx context.Context, id, lang string) (LeagueRecap, error) {
	var rc LeagueRecap
	// Under the league's lock, only what the recap needs is read (a pass
	// over the teams and bowlers, and the night's sheet): drawing it and
	// writing it wait for their turn, which must not keep the league's
	// scores waiting.
	err := lg.withLeague(ctx, id, func(e *leagueEntry) error {
		date := e.stored.Created
		if n := len(e.stored.Records); n > 0 {
			date = e.stored.Records[n-1].At
		}
		rc = LeagueRecap{Change: len(e.stored.Records), Sheet: sheet.NewRecap(e.l, date, lang)}
		return nil
	})
	if err != nil {
		return LeagueRecap{}, leagueError(err)
	}
	return rc, nil
}
