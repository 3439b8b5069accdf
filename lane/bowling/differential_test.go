package bowling

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveScores is a deliberately plain scorer, written apart from Game: it
// walks the flat list of rolls frame by frame, the way the scoring rules
// are usually taught, and returns each frame's cumulative score (-1 while it
// can still change) and whether the game is over.
func naiveScores(rolls []int) ([NumFrames]int, bool) {
	var out [NumFrames]int
	for f := range out {
		out[f] = -1
	}
	at := func(i int) (int, bool) {
		if i < len(rolls) {
			return rolls[i], true
		}
		return 0, false
	}
	i, total, over := 0, 0, false
	for f := range NumFrames {
		first, ok1 := at(i)
		second, ok2 := at(i + 1)
		third, ok3 := at(i + 2)
		if f == NumFrames-1 {
			bonus := ok1 && ok2 && (first == 10 || first+second == 10)
			done := ok1 && ok2 && (!bonus || ok3)
			if done {
				total += first + second
				if bonus {
					total += third
				}
				out[f], over = total, true
			}
			break
		}
		if !ok1 {
			break
		}
		if first == 10 {
			if !ok2 || !ok3 {
				break
			}
			total += 10 + second + third
			out[f] = total
			i++
			continue
		}
		if !ok2 {
			break
		}
		if first+second == 10 {
			if !ok3 {
				break
			}
			total += 10 + third
		} else {
			total += first + second
		}
		out[f] = total
		i += 2
	}
	return out, over
}

// randomGame bowls a random legal game with its own reckoning of the
// pins standing, leaning towards strikes and spares so that the bonus rules
// are exercised often.
func randomGame(r *rand.Rand) []int {
	ball := func(standing int) int {
		if r.IntN(4) == 0 {
			return standing
		}
		return r.IntN(standing + 1)
	}
	var rolls []int
	for range NumFrames - 1 {
		first := ball(10)
		rolls = append(rolls, first)
		if first < 10 {
			rolls = append(rolls, ball(10-first))
		}
	}
	a := ball(10)
	b := 0
	if a == 10 {
		b = ball(10)
	} else {
		b = ball(10 - a)
	}
	rolls = append(rolls, a, b)
	switch {
	case a == 10 && b < 10:
		rolls = append(rolls, ball(10-b))
	case a == 10 || a+b == 10:
		rolls = append(rolls, ball(10))
	}
	return rolls
}

func TestDifferentialAgainstNaiveScorer(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 11))
	const games = 12000
	for n := range games {
		rolls := randomGame(r)
		if n%2 == 1 { // every other game is cut short: a game in progress
			rolls = rolls[:r.IntN(len(rolls)+1)]
		}
		g, err := Replay(rolls)
		if err != nil {
			t.Fatalf("game %d: Replay(%v) refused a legal roll: %v", n, rolls, err)
		}
		want, wantOver := naiveScores(rolls)
		for i, f := range g.Frames() {
			got := -1
			if s, ok := f.Score(); ok {
				got = s
			}
			if got != want[i] {
				t.Fatalf("game %d %v: frame %d score = %d, naive scorer says %d", n, rolls, i+1, got, want[i])
			}
		}
		if g.Over() != wantOver {
			t.Fatalf("game %d %v: Over() = %v, naive scorer says %v", n, rolls, g.Over(), wantOver)
		}
		if got := g.Rolls(); !slices.Equal(got, rolls) && !(len(got) == 0 && len(rolls) == 0) {
			t.Fatalf("game %d: Rolls() = %v, want %v", n, got, rolls)
		}
	}
}
