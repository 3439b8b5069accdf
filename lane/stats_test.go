package lane

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// seriesStats adds up each bowler's games of a series and the game in
// play from scratch: what the lane's nightStats, which adds up only what
// changed, must show.
func seriesStats(series []game.Result, playing []bowling.Player) protocol.Stats {
	var t tally
	t.addSeries(series)
	for _, p := range playing {
		t.add(p.Name, &p.Game)
	}
	return protocol.Stats{Players: t.wire()}
}

// TestBoardCarriesTheNightsNumbers: every board carries the night's
// numbers, added up as the stats API adds them from the whole series and
// the game in play — through balls, a correction, a rematch and the
// games of a series — and a change that is no ball (a spectator) keeps
// them as they were.
func TestBoardCarriesTheNightsNumbers(t *testing.T) {
	l, players := benchLane(nil, 1)
	pins := 0
	check := func(what string) {
		t.Helper()
		var b protocol.Board
		if err := json.Unmarshal(l.BoardJSON(), &b); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want := seriesStats(l.state.Series(), l.state.Match().Players()).Players
		if len(want) == 0 {
			want = nil
		}
		if !reflect.DeepEqual(b.Stats, want) {
			t.Fatalf("%s: the board's stats = %+v, want %+v", what, b.Stats, want)
		}
		if got := l.Stats().Players; len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Stats() = %+v, want %+v", what, got, want)
		}
	}
	check("before a ball")
	for i := range 260 { // three games and some: each game's end joins the series
		rollBy(l, players, &pins, i%2 == 0)
		check("a roll")
		if i == 30 {
			l.send(players[0], `{"type":"correct","frame":1,"ball":1,"pins":0}`)
			check("a correction")
		}
	}
	before := l.enc.night.encoded
	attach(l)
	l.changed()
	check("a spectator")
	if &before[0] != &l.enc.night.encoded[0] {
		t.Errorf("a spectator's board added the numbers up again")
	}
	if len(l.state.Series()) < 2 {
		t.Fatalf("the test played %d games of the series, want 2 or more", len(l.state.Series()))
	}
}
