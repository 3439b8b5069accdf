package lobby

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/relay"
	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/lobby/peers"
	"github.com/tenpin/tenpin/protocol"
)

// The calls lobby/api makes of the lobby for lanes: the store's health,
// creation, finding, and the admission of a WebSocket. Their errors
// carry what a client is told (see lane.ErrorFor).

// Health is what /healthz reports: err is nil while the store takes
// writes (Config.Health, asked for at most healthTimeout), else it
// carries what a client is told (see lane.ErrorFor): storage_full if the
// lanes' budget is full, unavailable otherwise. While the store takes
// writes, full names the kinds of data whose budget in bytes is full
// (Config.Full): the server refuses new data of those kinds alone.
func (lb *Lobby) Health(ctx context.Context) (full []string, err error) {
	if lb.cfg.Health != nil {
		ctx, cancel := context.WithTimeout(ctx, healthTimeout)
		defer cancel()
		switch err := lb.cfg.Health(ctx); {
		case errors.Is(err, game.ErrStorageFull):
			return nil, fmt.Errorf("lobby: health: %w", err) // the store works: it says which budget is full
		case err != nil:
			return nil, fmt.Errorf("%w: %w", protocol.RefuseStoreDown.Error(), err)
		}
	}
	if lb.cfg.Full != nil {
		full = lb.cfg.Full()
	}
	return full, nil
}

// CreateFor creates the lane body asks for, for the client address addr,
// which may hold Config.LanesPerAddr lanes open at once (past it, the
// error wraps [ErrAddrLimit]; the soonest one of them can close is
// Settings.IdleTimeout away). The lane's host key comes with it, unless
// the lane is given away: then it waits for nobody; and its invitation,
// unless the lane is open: then anyone may join it.
func (lb *Lobby) CreateFor(ctx context.Context, body protocol.CreateLane, addr string) (protocol.CreatedLane, error) {
	key, hash := rand.Text(), game.TokenHash{}
	if body.GiveAway {
		key = ""
	} else {
		hash = game.HashToken(key)
	}
	invite, inviteHash := lane.NewInvite(), game.TokenHash{}
	if body.Open {
		invite = ""
	} else {
		inviteHash = game.HashToken(invite)
	}
	l, err := lb.create(ctx, body.Name, addr, body.Private, hash, inviteHash, nil)
	if err != nil {
		return protocol.CreatedLane{}, err
	}
	return protocol.CreatedLane{LaneSummary: l.Summary(), HostKey: key, Invite: invite}, nil
}

// RetrySecs is the seconds a client is told to wait for wait to pass:
// its whole seconds and one more, never fewer than wait.
func RetrySecs(wait time.Duration) int { return int(wait/time.Second) + 1 }

// laneOf returns lane id, wherever in the cluster it runs, or its kept
// night if it closed; ErrNoLane if there is neither (see Find).
func (lb *Lobby) laneOf(ctx context.Context, id string) (Lane, error) {
	var remote *peers.LaneView
	l, err := lb.find(ctx, id, func(ctx context.Context, id string) (err error) {
		remote, err = lb.cfg.Cluster.Lane(ctx, id)
		return err
	})
	switch {
	case l != nil && l.Stopped():
		// Closed a moment ago, and not yet out of the lobby: its kept
		// night, if it has one, is what is true now.
		if k, kerr := lb.nights.kept(ctx, id); kerr == nil {
			return k, nil
		}
		return l, nil
	case l != nil && l.Unsure(), l == nil && err == nil && remote.Unsure:
		// Its node was found paused, and the lane has not claimed it
		// again since: what it shows is from before the pause, and its
		// log may be ahead of it, another node's even, and the bowlers'
		// histories with it. A series that lacks a game a history holds
		// is no answer (the nemesis read such a sheet as the load
		// ended, and found the history "invented"): asked again in a
		// moment, the lane answers from its log.
		return nil, fmt.Errorf("%w: lane %s may be behind its log: its node was paused, and it has not claimed the lane again since", ErrUnavailable, id)
	case l != nil:
		return l, nil
	case err == nil:
		return remoteLane{remote}, nil
	case errors.Is(err, ErrNoLane):
		// Closed, perhaps: its night may be kept.
		k, kerr := lb.nights.kept(ctx, id)
		if kerr == nil {
			return k, nil
		}
		switch why := lb.nights.why(id); {
		case !errors.Is(kerr, errNotKept):
			err = fmt.Errorf("%w: %w", ErrUnavailable, kerr)
		case why != "":
			err = refused(protocol.RefuseLaneNotKept, id, why)
		}
	}
	return nil, err
}

// Find returns lane id as the API shows it, wherever in the cluster it
// runs, or its kept night if it closed. What its error tells the client
// comes with it (see lane.ErrorFor): for an error wrapping [ErrNoLane],
// that there is neither; for any other, that the lane cannot be reached
// now.
func (lb *Lobby) Find(ctx context.Context, id string) (Lane, error) {
	l, err := lb.laneOf(ctx, id)
	if err != nil {
		return nil, lookupError(id, err)
	}
	return l, nil
}

// lookupError is err, of looking for lane id, with what its client is
// told: that there is no such lane ([ErrNoLane]), or that it cannot be
// reached now.
func lookupError(id string, err error) error {
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Code == protocol.CodeStorageFull {
		return err // a lane closed unkept: its refusal says why (see laneOf)
	}
	if errors.Is(err, ErrNoLane) {
		return fmt.Errorf("%w: %w", ErrNoLane, protocol.RefuseLaneNotFound.Error(id))
	}
	return fmt.Errorf("%w: %w", protocol.RefuseLaneUnreached.Error(id), err)
}

// An AdmitError is why [Lobby.Admit] turned a WebSocket connection away
// at the lobby's door: the server or the client's address holds its
// limit, or the lobby is closing. It says how the refusal is told; what
// the client is told is Err's (see lane.ErrorFor).
type AdmitError struct {
	Err error // wraps the refusal a client is told, and the lobby's sentinel if it has one

	// Limit is the limit per client address that refused the
	// connection (LimitConnsPerAddr or LimitLaneConns), or "" when the
	// server's limit or its closing did.
	Limit string

	// Upgraded says the refusal is told after the upgrade, in a close
	// frame (see ws.Refuse): a page cannot read the status of a refused
	// upgrade, only a close. The refused socket counts among the
	// server's connections until Admit's release is called, once it is
	// told.
	Upgraded bool

	// RetryAfter, for a refusal told before the upgrade, is the seconds
	// the client should wait before it tries again (0: not said).
	RetryAfter int
}

func (e *AdmitError) Error() string { return e.Err.Error() }
func (e *AdmitError) Unwrap() error { return e.Err }

// Admit decides whether the client address addr may open a WebSocket
// connection to lane id, and returns the endpoint to attach it to — the
// lane, or a relay to the node of the cluster that runs it — and the
// function that counts the connection out once it has ended. In order:
//
//  1. the connection is counted in the server's and addr's
//     (Config.MaxConnections, Config.ConnsPerAddr);
//  2. only then is the lane looked for: in a cluster, looking may cost
//     requests to other nodes, and the limits come first;
//  3. the connection is counted in addr's on the lane
//     (Config.ConnsPerLaneAddr).
//
// A refusal of steps 1 and 3 is an [*AdmitError], which says how it is
// told; release is then nil, except for a refusal told after the upgrade,
// whose socket counts until release is called. A lane not found is
// ErrNoLane, and one not reached an error carrying what its client is
// told, as [Lobby.Find]'s.
func (lb *Lobby) Admit(ctx context.Context, id, addr string) (to lane.Endpoint, release func(), err error) {
	done, err := lb.admit.connOpened(addr)
	switch {
	case errors.Is(err, errRefusing):
		// Past its refusals in flight, the address gets a plain 429: one
		// of them will have been let go within ws.RefuseTimeout.
		secs := RetrySecs(ws.RefuseTimeout)
		return nil, nil, &AdmitError{Err: fmt.Errorf("%w: %w", protocol.RefuseRefusalsInFlight.Error(secs), err), Limit: LimitConnsPerAddr, RetryAfter: secs}
	case errors.Is(err, ErrAddrLimit):
		return nil, done, &AdmitError{Err: err, Limit: LimitConnsPerAddr, Upgraded: true}
	case err != nil:
		// The server holds its limit, or is closing: a moment for
		// connections to end, or for the node to be back.
		return nil, nil, &AdmitError{Err: err, RetryAfter: 5}
	}
	var rl *relay.Relay
	l, err := lb.find(ctx, id, func(ctx context.Context, id string) (err error) {
		rl, err = lb.cfg.Cluster.Relay(ctx, id)
		return err
	})
	if err != nil {
		done()
		return nil, nil, lookupError(id, err)
	}
	to = l
	if l == nil {
		to = rl
	}
	left, room := lb.admit.laneConnOpened(id, addr)
	if !room {
		return nil, done, &AdmitError{Err: protocol.RefuseConnsLaneAddr.Error(lb.cfg.ConnsPerLaneAddr), Limit: LimitLaneConns, Upgraded: true}
	}
	return to, func() {
		done()
		left()
	}, nil
}
