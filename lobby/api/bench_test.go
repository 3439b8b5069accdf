package api

import (
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
)

// Helpers of the API's benchmarks.

// envInt returns the environment's variable name, a positive number, or
// def if it is not set.
func envInt(b *testing.B, name string, def int) int {
	if s := os.Getenv(name); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("%s=%q: want a positive number", name, s)
		}
		return n
	}
	return def
}

// quantile returns the q-quantile of ds, in milliseconds.
func quantile(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds()) / 1000
}

// randomGame is a finished game of random balls, each named by the pins
// it leaves standing (so its leaves are known), as the pin deck enters
// them.
func randomGame(r *rand.Rand) bowling.Game {
	var g bowling.Game
	for !g.Over() {
		rack, ok := g.Rack()
		if !ok {
			g.Roll(r.IntN(g.Standing() + 1))
			continue
		}
		pins := rack.Pins()
		r.Shuffle(len(pins), func(i, j int) { pins[i], pins[j] = pins[j], pins[i] })
		d, _ := bowling.NewDeck(pins[:r.IntN(len(pins)+1)]...)
		g.RollDeck(d)
	}
	return g
}
