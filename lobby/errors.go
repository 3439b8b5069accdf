package lobby

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/protocol"
)

// Errors of the lobby. Each comes wrapped with the refusal a client is
// sent for it (see refused), so that the HTTP API answers every error one
// way, with lane.ErrorFor, while callers still tell them apart with
// errors.Is.
var (
	ErrLaneName = errors.New("lobby: invalid lane name")
	ErrFull     = errors.New("lobby: full")
	ErrClosed   = errors.New("lobby: closed")
	// ErrUnavailable: the journal did not store a new lane's opening, or
	// a lane could not be read back.
	ErrUnavailable = errors.New("lobby: store unavailable")

	// errAddrLimit: a client address holds all the connections or lanes
	// it may.
	errAddrLimit = errors.New("lobby: limit per client address")
	// errRefusing: an address over its connection limit with its
	// refusals in flight already.
	errRefusing = errors.New("lobby: refusals per client address")
)

// refused returns an error that is sentinel for the lobby's code and, for
// its client, a refusal with code and a text meant for the client. A cause
// wrapped around it stays in the log: lane.ErrorFor sends only the
// refusal's text.
func refused(sentinel error, code protocol.Code, format string, args ...any) error {
	return fmt.Errorf("%w: %w", sentinel, protocol.Errorf(code, format, args...))
}

// errShuttingDown refuses what comes while the lobby closes.
var errShuttingDown = refused(ErrClosed, protocol.CodeShuttingDown, "the server is shutting down")

// leagueCodes maps the league's errors to the codes a client is sent, as
// lane's errorCodes does the lanes': the one place where a league's rules
// meet the wire. The first that matches counts: an opening's unknown
// name is made an invalid night before it gets here (see openWeek).
var leagueCodes = []struct {
	err  error
	code protocol.Code
}{
	{league.ErrInvalid, protocol.CodeInvalidLeague},
	{league.ErrWeek, protocol.CodeWrongWeek},
	{league.ErrInvalidNight, protocol.CodeInvalidNight},
	{league.ErrInvalidScore, protocol.CodeInvalidScore},
	{league.ErrUnknownBowler, protocol.CodeInvalidScore},
	{league.ErrIncomplete, protocol.CodeNightIncomplete},
	{league.ErrNotFound, protocol.CodeLeagueNotFound},
	{bowling.ErrInvalidCorrection, protocol.CodeInvalidCorrection}, // a ball's correction
}

// leagueError returns the refusal a client is sent for a league's error,
// its message the error's but for the sentinel's prefix; false for an
// error that is none of the league's.
func leagueError(err error) (*protocol.Error, bool) {
	for _, lc := range leagueCodes {
		if !errors.Is(err, lc.err) {
			continue
		}
		if lc.err == league.ErrNotFound {
			// The store's text names its own parts: say it plainly.
			return protocol.Errorf(lc.code, "no such league: check its link"), true
		}
		msg := err.Error()
		if i := strings.Index(msg, lc.err.Error()+": "); i >= 0 {
			msg = msg[i+len(lc.err.Error())+2:]
		}
		return protocol.Errorf(lc.code, "%s", msg), true
	}
	return nil, false
}
