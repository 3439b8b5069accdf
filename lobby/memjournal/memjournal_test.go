package memjournal_test

import (
	"testing"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/game/journaltest"
	"github.com/tenpin/tenpin/lobby/memjournal"
)

func TestJournal(t *testing.T) {
	journaltest.Run(t, func(*testing.T) game.Journal { return memjournal.New() })
}

// TestShared runs the suite again with one journal for every subtest, as
// a server uses it: lanes of other subtests must not disturb a subtest.
func TestShared(t *testing.T) {
	j := memjournal.New()
	journaltest.Run(t, func(*testing.T) game.Journal { return j })
}
