package lane_test

import (
	"context"
	"testing"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lobby/nats"
)

// BenchmarkRollStoredJetStream is BenchmarkRollStored with each roll
// stored in the embedded JetStream on a temporary directory, synced every
// second (the default).
func BenchmarkRollStoredJetStream(b *testing.B) {
	j, err := nats.Open(context.Background(), nats.StoreConfig{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
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
			j, err := nats.Open(context.Background(), nats.StoreConfig{Dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			var svc bowler.Service
			if remembered {
				if svc, err = j.Bowlers(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			lane.BenchGames(b, j, svc)
		})
	}
}
