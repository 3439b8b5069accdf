package lane_test

import (
	"context"
	"testing"

	"github.com/tenpin/tenpin/lane"
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
