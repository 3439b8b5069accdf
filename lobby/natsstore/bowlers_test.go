package natsstore

import (
	"testing"

	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/bowler/bowlertest"
)

// TestBowlers runs the bowler.Service contract on the embedded JetStream
// store, a new store each test.
func TestBowlers(t *testing.T) {
	bowlertest.Run(t, func(t *testing.T) bowler.Service {
		b, err := open(t, t.TempDir()).Bowlers(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return b
	})
}
