package lobby

import (
	"errors"
	"fmt"

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
