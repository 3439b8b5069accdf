package lobby

import (
	"context"
	"errors"
	"fmt"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/protocol"
)

// A league night's lane has no host among its bowlers: its games start
// and follow by themselves, and the league's secretary has the host's
// powers there, from the league's page — over HTTP, for the secretary
// is not on the lane. Each command reaches the lane's inbox, on this
// node or through the node that runs it (Cluster.Secretary), and is
// decided by the lane goroutine like any player's (lane.Lane.Secretary).

// SecretaryRoll enters a ball of any place of the game in play on the
// lane of match (from 1) of week's night of league id, for its secretary,
// whose key is key, and returns the lane's board after it.
func (lg *Leagues) SecretaryRoll(ctx context.Context, id, key string, week, match int, b protocol.LeagueLaneBall) ([]byte, error) {
	return lg.onNightLane(ctx, id, key, week, match, laneBall(protocol.TypeRoll, b))
}

// SecretaryCorrect corrects a ball of any place of the game in play on
// the lane of a match, as SecretaryRoll enters one.
func (lg *Leagues) SecretaryCorrect(ctx context.Context, id, key string, week, match int, b protocol.LeagueLaneBall) ([]byte, error) {
	return lg.onNightLane(ctx, id, key, week, match, laneBall(protocol.TypeCorrect, b))
}

// SecretarySkip passes by the bowler up on the lane of a match, offline
// for the away time, as anyone on the lane may.
func (lg *Leagues) SecretarySkip(ctx context.Context, id, key string, week, match int) ([]byte, error) {
	return lg.onNightLane(ctx, id, key, week, match, protocol.Request{Type: protocol.TypeSkip})
}

// SecretaryRemove takes a place of the lane of a match from the phone
// that holds it: the place is given back, and another phone may claim
// it; its frames stay, and it bowls on.
func (lg *Leagues) SecretaryRemove(ctx context.Context, id, key string, week, match int, p protocol.LeaguePlace) ([]byte, error) {
	return lg.onNightLane(ctx, id, key, week, match, protocol.Request{Type: protocol.TypeRemove, Name: p.Name})
}

// laneBall is a secretary's ball as a lane's message of type t.
func laneBall(t protocol.Type, b protocol.LeagueLaneBall) protocol.Request {
	return protocol.Request{Type: t, Name: b.Name, Frame: &b.Frame, Ball: &b.Ball, Pins: b.Pins, Deck: b.Deck, Foul: b.Foul}
}

// onNightLane hands m, a command of league id's secretary (key), to the
// lane of match (from 1) of week's night, which must be open, and
// returns the lane's board once the lane has stored it. The lane is
// found under the league's lock and reached after it: the league's
// pages and its lanes' reports must not wait for a lane.
func (lg *Leagues) onNightLane(ctx context.Context, id, key string, week, match int, m protocol.Request) ([]byte, error) {
	if m.Type != protocol.TypeSkip && m.Name == "" {
		return nil, refused(protocol.RefuseNoPlace, m.Type)
	}
	if m.Type == protocol.TypeRoll || m.Type == protocol.TypeCorrect {
		if m.Pins == nil && m.Deck == nil && !m.Foul {
			return nil, protocol.RefuseNoPins.Error(m.Type)
		}
		if m.Deck != nil && len(*m.Deck) > protocol.MaxDeck {
			return nil, protocol.RefuseDeckSize.Error(len(*m.Deck), protocol.MaxDeck)
		}
	}
	var laneID string
	err := lg.asSecretary(ctx, id, key, func(e *leagueEntry) error {
		if open, isOpen := e.l.Night(); !isOpen || open != week {
			return refused(protocol.RefuseNightNotOpen, week)
		}
		lanes := nightLanes(e.stored.Records)[week]
		if match < 1 || match > len(lanes) {
			return refused(protocol.RefuseNoMatch, week, match, len(lanes))
		}
		laneID = lanes[match-1]
		return nil
	})
	if err != nil {
		return nil, leagueError(err)
	}
	l, err := lg.lanes.find(ctx, laneID, func(ctx context.Context, id string) error {
		_, err := lg.lanes.cfg.Cluster.Lane(ctx, id)
		return err
	})
	switch {
	case errors.Is(err, ErrNoLane):
		return nil, refused(protocol.RefuseMatchLaneGone, match, week, laneID)
	case err != nil:
		return nil, lookupError(laneID, err)
	case l == nil:
		// Another node runs it: that node's lane decides the command.
		board, err := lg.lanes.cfg.Cluster.Secretary(ctx, laneID, m)
		var pe *protocol.Error
		if err != nil && !errors.As(err, &pe) {
			return nil, fmt.Errorf("%w: %w", refused(protocol.RefuseMatchLaneThere, match, week, laneID), err)
		}
		return board, err
	}
	if err := l.Secretary(ctx, m); err != nil {
		if errors.Is(err, lane.ErrStopped) {
			return nil, refused(protocol.RefuseMatchLaneGone, match, week, laneID)
		}
		return nil, err
	}
	return l.BoardJSON(), nil
}
