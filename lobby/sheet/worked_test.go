package sheet_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/golden"
	"github.com/tenpin/tenpin/lane/league"
)

// ballsFor returns every ball of a game that scores score: the first of a
// seeded series of games bowled ball by ball (strikes, spares and open
// frames at a league bowler's rates) whose total is score. The same score
// gives the same balls.
func ballsFor(t *testing.T, score int) []int {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(score), 0x1ea9))
	for range 1_000_000 {
		var g bowling.Game
		for !g.Over() {
			standing := g.Standing()
			pins := rng.IntN(standing) // short of the rack, or of the spare
			if standing == 10 && rng.IntN(100) < 35 || standing < 10 && rng.IntN(100) < 50 {
				pins = standing
			}
			if err := g.Roll(pins); err != nil {
				t.Fatal(err)
			}
		}
		if g.Total() == score {
			return g.Rolls()
		}
	}
	t.Fatalf("no game of %d found", score)
	return nil
}

// TestWorkedLeagueEveryBall gives every ball of the worked example's games
// (see workedSettings): each night's matches are bowled ball by ball on a
// shared lane, in turn, as the lanes would; each game's total is the
// score the hand count uses, and the boards are written out in
// testdata/worked-balls.txt. The league counted from those totals has the
// standings TestWorkedLeague checks.
func TestWorkedLeagueEveryBall(t *testing.T) {
	l := workedLeague(t, len(workedNights), false)
	var out strings.Builder
	for w, night := range workedNights {
		s, ok := l.Sheet(w + 1)
		if !ok {
			t.Fatalf("no sheet of week %d", w+1)
		}
		for _, m := range s.Matches {
			var names []bowling.Name
			for _, ts := range []league.TeamSheet{m.Home, m.Away} {
				for _, p := range ts.Places {
					if p.Kind == league.PlaceBowler {
						n, err := bowling.ParseLaneName(p.Name)
						if err != nil {
							t.Fatal(err)
						}
						names = append(names, n)
					}
				}
			}
			for g := range workedSettings.GamesPerNight {
				var match bowling.Match
				balls := make(map[bowling.Name][]int)
				for _, n := range names {
					if err := match.AddName(n); err != nil {
						t.Fatal(err)
					}
					balls[n] = ballsFor(t, night.games[string(n)][g])
				}
				for !match.Over() {
					seat, _, _ := match.Up()
					n := match.At(seat).Name
					if err := match.Roll(balls[n][0]); err != nil {
						t.Fatalf("week %d game %d, %s: %v", w+1, g+1, n, err)
					}
					balls[n] = balls[n][1:]
				}
				for _, p := range match.Players() {
					if want := night.games[string(p.Name)][g]; p.Game.Total() != want {
						t.Errorf("week %d game %d: %s bowled %d, the hand count has %d", w+1, g+1, p.Name, p.Game.Total(), want)
					}
				}
				fmt.Fprintf(&out, "Week %d, game %d: %s v %s\n%s\n", w+1, g+1, m.Home.Team, m.Away.Team, match.Board())
			}
		}
	}
	golden.Check(t, "worked-balls.txt", []byte(out.String()))
}
