package lane

import (
	"errors"
	"strings"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/protocol"
)

// errorCodes maps the domain's errors — a game's, a lane's, a league's —
// to the codes a client is sent: the one place where the rules meet the
// wire, here because lane imports the domain and protocol, and protocol
// must not import the domain. The first that matches counts. What each
// code means on the wire (its HTTP and close status, its own words) is
// protocol's table of codes; refusals of the server itself (the lobby's
// limits, a lane that cannot be reached) are made as a *protocol.Error
// from protocol's table of refusals, with a text meant for the client,
// and need no entry.
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
	{game.ErrInvitationRequired, protocol.CodeInvitationRequired},
	{game.ErrNotYourTeam, protocol.CodeNotYourTeam},
	{game.ErrRemoved, protocol.CodeRemoved},
	{bowling.ErrInvalidCorrection, protocol.CodeInvalidCorrection},

	// A store's: the budget of a kind of data is full (the message says
	// which), on a lane's socket and on the API alike.
	{game.ErrStorageFull, protocol.CodeStorageFull},

	// A league's, on the leagues' API. An opening's unknown name is made
	// an invalid night before it gets here (see lobby's OpenWeek).
	{league.ErrInvalid, protocol.CodeInvalidLeague},
	{league.ErrWeek, protocol.CodeWrongWeek},
	{league.ErrInvalidNight, protocol.CodeInvalidNight},
	{league.ErrInvalidScore, protocol.CodeInvalidScore},
	{league.ErrUnknownBowler, protocol.CodeInvalidScore},
	{league.ErrIncomplete, protocol.CodeNightIncomplete},
	{league.ErrTooManyCorrections, protocol.CodeTooManyCorrections},
	{league.ErrNotFound, protocol.CodeLeagueNotFound},
}

// ErrorFor returns the refusal a client is sent for err, on a lane's
// socket or from the HTTP API: a copy of the *protocol.Error err is or
// wraps, or the code of the domain error it wraps, with the code's own
// words where it has them ([protocol.Code.Text]: a store's error names
// the server's parts), else its message from after the sentinel's text
// (what the caller wrapped around it before names the server's parts
// too). Any other error is the server's own failure: the client is told
// only that (internal, in its own words), and known reports false so
// that the caller logs err.
func ErrorFor(err error) (pe *protocol.Error, known bool) {
	if errors.As(err, &pe) {
		cp := *pe
		return &cp, true
	}
	for _, ec := range errorCodes {
		if errors.Is(err, ec.err) {
			msg := ec.code.Text()
			if msg == "" {
				msg = err.Error()
				if _, after, ok := strings.Cut(msg, ec.err.Error()+": "); ok {
					msg = after
				}
			}
			return protocol.Errorf(ec.code, "%s", msg), true
		}
	}
	return protocol.Errorf(protocol.CodeInternal, "%s", protocol.CodeInternal.Text()), false
}
