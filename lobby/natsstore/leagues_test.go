package natsstore

import (
	"testing"

	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/lane/league/leaguetest"
)

// TestLeagues runs the league.Store contract on the embedded JetStream
// store, a new store each test.
func TestLeagues(t *testing.T) {
	leaguetest.Run(t, func(t *testing.T) league.Store {
		s, err := open(t, t.TempDir()).Leagues(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
