package lane

import (
	"fmt"
	"reflect"
	"testing"
)

// TestGameIsTheSeriesGame: a game of the series built alone, as a
// scorecard asks for it, is that game as the whole series shows it.
func TestGameIsTheSeriesGame(t *testing.T) {
	l := New("games", "games", Config{})
	var players []*Client
	for i := range 2 {
		c := attach(l)
		l.send(c, fmt.Sprintf(`{"type":"join","name":"P%c"}`, 'A'+i))
		players = append(players, c)
	}
	l.send(players[0], `{"type":"start"}`)
	pins := 0
	for len(l.Games().Games) < 3 || len(l.Games().Games[2].Players[1].Frames) < 4 {
		rollOnce(l, players, &pins)
	}
	games := l.Games()
	for n := 0; n <= len(games.Games)+1; n++ {
		got, ok := l.Game(n)
		if n < 1 || n > len(games.Games) {
			if ok {
				t.Errorf("Game(%d) = %+v, true; want false, of a series of %d", n, got, len(games.Games))
			}
			continue
		}
		if want := games.Games[n-1]; !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("Game(%d) = %+v, %v; want %+v", n, got, ok, want)
		}
	}
}
