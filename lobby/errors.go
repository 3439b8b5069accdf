package lobby

import (
	"errors"
	"fmt"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/lobby/peers"
	"github.com/tenpin/tenpin/protocol"
)

// Errors of the lobby. Each comes wrapping the refusal a client is sent
// for it (see refused), so that the HTTP API answers every error one way,
// with lane.ErrorFor, while callers still tell them apart with errors.Is.
var (
	ErrLaneName = errors.New("lobby: invalid lane name")
	ErrFull     = errors.New("lobby: full")
	ErrClosed   = errors.New("lobby: closed")
	// ErrUnavailable: the journal did not store a new lane's opening, or
	// a lane could not be read back (the peers' error: a cluster's node
	// tells it from another lane's).
	ErrUnavailable = peers.ErrUnavailable

	// ErrAddrLimit: a client address holds all the connections or lanes
	// it may (see Lobby.CreateFor).
	ErrAddrLimit = errors.New("lobby: limit per client address")
	// errRefusing: an address over its connection limit with its
	// refusals in flight already.
	errRefusing = errors.New("lobby: refusals per client address")
)

// sentinels are the errors the lobby's refusals come as (see refused),
// for the refusals its callers tell apart: the lobby's own, or the
// league's or the rules' where a refusal is one of theirs made by the
// lobby. The words are protocol's (its table of refusals); which code a
// bare domain error is sent with is lane's ErrorFor.
var sentinels = map[protocol.Refusal]error{
	protocol.RefuseLaneName:          ErrLaneName,
	protocol.RefuseLanesServer:       ErrFull,
	protocol.RefuseLanesAddr:         ErrAddrLimit,
	protocol.RefuseNotStored:         ErrUnavailable,
	protocol.RefuseLaneNotKept:       ErrNoLane,
	protocol.RefuseShuttingDown:      ErrClosed,
	protocol.RefuseConnsServer:       ErrFull,
	protocol.RefuseConnsAddr:         ErrAddrLimit,
	protocol.RefuseConnsAddrRefusing: errRefusing,
	protocol.RefuseSubstituteName:    league.ErrInvalidNight,
	protocol.RefuseSubstitutes:       league.ErrInvalidNight,
	protocol.RefuseFixNoLanes:        bowling.ErrInvalidCorrection,
	protocol.RefuseFixLaneGone:       bowling.ErrInvalidCorrection,
	protocol.RefuseFixNotBowled:      bowling.ErrInvalidCorrection,
	protocol.RefuseFixInPlay:         bowling.ErrInvalidCorrection,
	protocol.RefuseFixNotBowler:      bowling.ErrInvalidCorrection,
	protocol.RefuseNightNotOpen:      league.ErrWeek,
	protocol.RefuseNoMatch:           ErrNoLane,
	protocol.RefuseMatchLaneGone:     ErrNoLane,
	protocol.RefuseMatchLaneThere:    ErrUnavailable,
}

// refused returns the refusal r as an error: its sentinel, if it has one,
// wrapping what its client is told. A cause wrapped around it stays in the
// log: lane.ErrorFor sends only the refusal's text.
func refused(r protocol.Refusal, args ...any) error {
	pe := r.Error(args...)
	s := sentinels[r]
	if s == nil {
		return pe
	}
	return fmt.Errorf("%w: %w", s, pe)
}

// errShuttingDown refuses what comes while the lobby closes.
var errShuttingDown = refused(protocol.RefuseShuttingDown)
