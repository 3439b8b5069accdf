package memjournal_test

import (
	"testing"

	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/bowler/bowlertest"
	"github.com/tenpin/tenpin/lobby/memjournal"
)

func TestBowlers(t *testing.T) {
	bowlertest.Run(t, func(*testing.T) bowler.Service { return memjournal.NewBowlers() })
}
