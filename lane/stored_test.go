package lane_test

import (
	"context"
	"testing"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/lobby/natsstore"
)

// BenchmarkRollStoredJetStream is BenchmarkRollStored with each roll
// stored in the embedded JetStream on a temporary directory, synced every
// second (the default).
func BenchmarkRollStoredJetStream(b *testing.B) {
	j := openJetStream(b)
	lane.BenchRollStored(b, j)
}

// BenchmarkGameJetStream plays whole games on a lane stored in the
// embedded JetStream: of guests, and of remembered bowlers whose games
// go into their histories in the same store. The difference is what a
// game's end costs for its bowlers.
func BenchmarkGameJetStream(b *testing.B) {
	for _, remembered := range []bool{false, true} {
		name := "players=guests"
		if remembered {
			name = "players=bowlers"
		}
		b.Run(name, func(b *testing.B) {
			j := openJetStream(b)
			var svc bowler.Service
			if remembered {
				var err error
				if svc, err = j.Bowlers(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			lane.BenchGames(b, j, svc)
		})
	}
}

// openJetStream opens a journal on the embedded JetStream in a temporary
// directory, closed with its server when the benchmark ends.
func openJetStream(b *testing.B) *natsstore.Journal {
	conn, err := natsconn.Open(context.Background(), natsconn.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() }) // after the journal's: cleanups run last first
	j, err := natsstore.Open(context.Background(), conn, natsstore.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { j.Close() })
	return j
}
