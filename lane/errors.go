package lane

import (
	"errors"
	"strings"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// errorCodes maps the domain's errors to the codes a client is sent: the
// one place where the rules meet the wire. The first that matches counts.
// Refusals of the server itself (the lobby's limits, a lane that cannot be
// reached) are made as a *protocol.Error where they happen, with a text
// meant for the client, and need no entry.
var errorCodes = []struct {
	err  error
	code protocol.Code
}{
	{bowling.ErrInvalidName, protocol.CodeInvalidName},
	{bowling.ErrNameTaken, protocol.CodeNameTaken},
	{game.ErrLaneFull, protocol.CodeLaneFull},
	{game.ErrGameStarted, protocol.CodeGameStarted},
	{bowling.ErrStarted, protocol.CodeGameStarted},
	{game.ErrNotPlaying, protocol.CodeNotPlaying},
	{bowling.ErrGameOver, protocol.CodeNotPlaying},
	{bowling.ErrNotYourTurn, protocol.CodeNotYourTurn},
	{bowling.ErrInvalidPins, protocol.CodeInvalidPins},
	{bowling.ErrTooManyPins, protocol.CodeInvalidPins},
	{bowling.ErrUnknownPlayer, protocol.CodeNotSeated},
	{bowling.ErrNoPlayers, protocol.CodeNotSeated},
	{game.ErrNotFinished, protocol.CodeNotFinished},
	{game.ErrClosed, protocol.CodeLaneClosed},
	{game.ErrStaleRoll, protocol.CodeStaleRoll},
	{game.ErrNotHost, protocol.CodeNotHost},
	{game.ErrNotAway, protocol.CodeNotAway},
	{game.ErrCreatorAway, protocol.CodeCreatorAway},
	{game.ErrNotOnRoster, protocol.CodeNotOnRoster},
	{game.ErrRemoved, protocol.CodeRemoved},
	{bowling.ErrInvalidCorrection, protocol.CodeInvalidCorrection},
}

// internalMessage is all a client is told of an error the table does not
// know: its text is the server's, not meant for clients, and goes to the
// log instead.
const internalMessage = "the server could not handle that"

// ErrorFor returns the refusal a client is sent for err, on a lane's
// socket or from the HTTP API: a copy of the *protocol.Error err is or
// wraps, or the code of the domain error it wraps (with its message but
// for the sentinel's prefix). Any other error is the server's own failure:
// the client is told only that (internal), and known reports false so
// that the caller logs err.
func ErrorFor(err error) (pe *protocol.Error, known bool) {
	if errors.As(err, &pe) {
		cp := *pe
		return &cp, true
	}
	for _, ec := range errorCodes {
		if errors.Is(err, ec.err) {
			return protocol.Errorf(ec.code, "%s", strings.TrimPrefix(err.Error(), ec.err.Error()+": ")), true
		}
	}
	return protocol.Errorf(protocol.CodeInternal, internalMessage), false
}
