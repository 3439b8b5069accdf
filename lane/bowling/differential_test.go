package bowling

import (
	"errors"
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

// naivePositions walks rolls the way a scorer on paper does and returns
// the frame (1–10) and ball (1–3) of each, or false if the rolls are not a
// game: too many pins on a rack, or a roll after the tenth frame.
func naivePositions(rolls []int) ([][2]int, bool) {
	var out [][2]int
	frame, ball, standing := 1, 1, NumPins
	for _, p := range rolls {
		if frame > NumFrames || p < 0 || p > standing {
			return nil, false
		}
		out = append(out, [2]int{frame, ball})
		standing -= p
		if frame < NumFrames {
			if standing == 0 || ball == 2 {
				frame, ball, standing = frame+1, 1, NumPins
			} else {
				ball++
			}
			continue
		}
		// The tenth frame: a third ball only after a strike or a spare.
		switch {
		case ball == 3 || ball == 2 && standing > 0 && rolls[len(out)-2] != NumPins:
			frame++
		default:
			ball++
			if standing == 0 {
				standing = NumPins
			}
		}
	}
	return out, true
}

// TestDifferentialCorrections corrects random balls of random games to
// random values and checks Correct against the naive scorer: a correction
// is accepted exactly when the corrected rolls are a game whose every roll
// keeps its frame and ball, and the corrected game then scores as the
// naive scorer scores those rolls.
func TestDifferentialCorrections(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 12))
	accepted := 0
	for n := range 12000 {
		rolls := randomGame(r)
		rolls = rolls[:1+r.IntN(len(rolls))]
		g, err := Replay(rolls)
		if err != nil {
			t.Fatal(err)
		}
		before, _ := naivePositions(rolls)
		i, pins := r.IntN(len(rolls)), r.IntN(NumPins+1)
		fixed := slices.Clone(rolls)
		fixed[i] = pins
		after, legal := naivePositions(fixed)
		want := legal && slices.Equal(before, after) && pins != rolls[i]

		was, err := g.Correct(before[i][0], before[i][1], pins)
		if (err == nil) != want {
			t.Fatalf("game %d %v: correcting roll %d (frame %d ball %d) to %d: err = %v, naive says accepted = %v", n, rolls, i, before[i][0], before[i][1], pins, err, want)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidCorrection) {
				t.Fatalf("game %d: refusal %v does not wrap ErrInvalidCorrection", n, err)
			}
			if got := g.Rolls(); !slices.Equal(got, rolls) {
				t.Fatalf("game %d: a refused correction changed the rolls to %v", n, got)
			}
			continue
		}
		accepted++
		if was != rolls[i] {
			t.Fatalf("game %d: Correct returned was = %d, the roll was %d", n, was, rolls[i])
		}
		wantScores, wantOver := naiveScores(fixed)
		for f, fr := range g.Frames() {
			got := -1
			if s, ok := fr.Score(); ok {
				got = s
			}
			if got != wantScores[f] {
				t.Fatalf("game %d %v corrected to %v: frame %d score = %d, naive scorer says %d", n, rolls, fixed, f+1, got, wantScores[f])
			}
		}
		if g.Over() != wantOver {
			t.Fatalf("game %d: Over() = %v after a correction, naive scorer says %v", n, g.Over(), wantOver)
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d of 12000 random corrections were accepted: the test is not exercising Correct", accepted)
	}
}
