package memjournal_test

import (
	"testing"

	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/lane/league/leaguetest"
	"github.com/tenpin/tenpin/lobby/memjournal"
)

func TestLeagues(t *testing.T) {
	leaguetest.Run(t, func(*testing.T) league.Store { return memjournal.NewLeagues() })
}
