package server_test

import (
	"reflect"
	"testing"

	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/lobby/server/servertest"
	"github.com/tenpin/tenpin/protocol"
)

// TestStoredLeaguesComeBack: a league kept in the data directory's
// JetStream store — its settings, its night, its scores and its lanes —
// is the same league when the server starts again on it, and takes
// changes after them.
func TestStoredLeaguesComeBack(t *testing.T) {
	dir := t.TempDir()
	first := servertest.Start(t, server.Config{Store: natsconn.Config{Dir: dir}})
	ctx := t.Context()
	l, err := first.API.CreateLeague(ctx, protocol.CreateLeague{
		Name: "Thursday Mixed", GamesPerNight: 1, Handicap: &protocol.LeagueHandicap{Basis: 220, Percent: 90},
		Points: protocol.LeaguePoints{PerGame: 2, PerSeries: 2}, AbsentMinus: 10, VacancyScore: 120,
		Teams: []protocol.LeagueTeam{
			{Name: "Pin Pals", Bowlers: []protocol.LeagueBowler{{Name: "Kim", Average: 150}, {Name: "Lee"}}},
			{Name: "Strikers", Bowlers: []protocol.LeagueBowler{{Name: "Park", Average: 170}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.API.OpenWeek(ctx, l.ID, l.SecretaryKey, 1, protocol.OpenWeek{Substitutes: []protocol.LeagueSubstitute{{For: "Lee", Name: "Jung", Average: 140}}}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []protocol.LeagueScore{{Week: 1, Bowler: "Kim", Game: 1, Score: 160}, {Week: 1, Bowler: "Jung", Game: 1, Score: 150}} {
		if _, err := first.API.Score(ctx, l.ID, l.SecretaryKey, s); err != nil {
			t.Fatal(err)
		}
	}
	league, _ := first.API.League(ctx, l.ID)
	standings, _ := first.API.Standings(ctx, l.ID)
	history, _ := first.API.LeagueHistory(ctx, l.ID)
	first.Shutdown()

	again := servertest.Start(t, server.Config{Store: natsconn.Config{Dir: dir}})
	gotLeague, err := again.API.League(ctx, l.ID)
	if err != nil {
		t.Fatalf("the league after a restart: %v", err)
	}
	gotStandings, _ := again.API.Standings(ctx, l.ID)
	gotHistory, _ := again.API.LeagueHistory(ctx, l.ID)
	if !reflect.DeepEqual(gotLeague, league) || !reflect.DeepEqual(gotStandings, standings) || !reflect.DeepEqual(gotHistory, history) {
		t.Errorf("after a restart:\n%+v\n%+v\n%+v\nwant\n%+v\n%+v\n%+v", gotLeague, gotStandings, gotHistory, league, standings, history)
	}
	if len(history) != 3 || gotLeague.Schedule[0].Matches[0].Lane == "" {
		t.Errorf("before the restart: %d records, lane %q; want 3 and the night's lane", len(history), gotLeague.Schedule[0].Matches[0].Lane)
	}
	// The secretary's key is kept too, and a change lands after the
	// records there were.
	if _, err := again.API.Score(ctx, l.ID, l.SecretaryKey, protocol.LeagueScore{Week: 1, Bowler: "Park", Game: 1, Score: 190}); err != nil {
		t.Fatalf("a score after the restart: %v", err)
	}
	if _, err := again.API.CloseWeek(ctx, l.ID, l.SecretaryKey, 1); err != nil {
		t.Fatalf("closing the night after the restart: %v", err)
	}
	if st, _ := again.API.Standings(ctx, l.ID); st.Week != 1 {
		t.Errorf("standings after the close: week %d, want 1", st.Week)
	}
}
