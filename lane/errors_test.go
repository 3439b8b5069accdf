package lane

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/protocol"
)

func TestErrorFor(t *testing.T) {
	for _, tc := range []struct {
		err      error
		code     protocol.Code
		wantText string
		known    bool
	}{
		{fmt.Errorf("%w: it is BOB's turn, not PJS's", bowling.ErrNotYourTurn), protocol.CodeNotYourTurn, "it is BOB's turn, not PJS's", true},
		{fmt.Errorf("%w: frame 1 ball 1 cannot be 9: …", bowling.ErrInvalidCorrection), protocol.CodeInvalidCorrection, "frame 1 ball 1 cannot be 9: …", true},
		{fmt.Errorf("%w: BOB is connected", game.ErrNotAway), protocol.CodeNotAway, "BOB is connected", true},
		{fmt.Errorf("%w: Kim bowls for Pin Pals", game.ErrNotYourTeam), protocol.CodeNotYourTeam, "Kim bowls for Pin Pals", true},
		{&bowling.RollError{Roll: 2, Pins: 9, Err: bowling.ErrTooManyPins}, protocol.CodeInvalidPins, "", true},
		{protocol.Errorf(protocol.CodeSpectatorsFull, "full"), protocol.CodeSpectatorsFull, "full", true},
		{fmt.Errorf("lobby: limit: %w", protocol.Errorf(protocol.CodeRateLimited, "slow down")), protocol.CodeRateLimited, "slow down", true},
		{errors.New("nats: open /data/index.db: too many open files"), protocol.CodeInternal, protocol.CodeInternal.Text(), false},
		// A league's, wrapped by whoever asked: the client reads from the
		// sentinel on, or the table's own words for a store's error.
		{fmt.Errorf("lobby: league %q: %w", "k3x9abcdef", league.ErrNotFound), protocol.CodeLeagueNotFound, "no such league: check its link", true},
		{fmt.Errorf("lobby: decide: %w: week 2's night has not been opened", league.ErrWeek), protocol.CodeWrongWeek, "week 2's night has not been opened", true},
		{fmt.Errorf("%w: \"Zed\" bowls in no place of week 1", league.ErrUnknownBowler), protocol.CodeInvalidScore, `"Zed" bowls in no place of week 1`, true},
		{fmt.Errorf("%w: 3 teams", league.ErrInvalid), protocol.CodeInvalidLeague, "3 teams", true},
		{league.ErrConflict, protocol.CodeInternal, protocol.CodeInternal.Text(), false}, // the store's: the caller says it
	} {
		got, known := ErrorFor(tc.err)
		if got.Code != tc.code || tc.wantText != "" && got.Message != tc.wantText || got.Type != protocol.TypeError || known != tc.known {
			t.Errorf("ErrorFor(%v) = %+v, %v; want code %s, message %q, %v", tc.err, got, known, tc.code, tc.wantText, tc.known)
		}
	}
}

// TestErrorForCopies checks that the refusal returned for a
// *protocol.Error is a copy: a caller sets its Ref, and a sentinel
// refusal shared by every lane must not change.
func TestErrorForCopies(t *testing.T) {
	sentinel := protocol.Errorf(protocol.CodeBadToken, "no seat")
	got, _ := ErrorFor(sentinel)
	got.Ref = "7"
	if sentinel.Ref != "" {
		t.Errorf("ErrorFor returned the sentinel itself: its Ref is now %q", sentinel.Ref)
	}
}
