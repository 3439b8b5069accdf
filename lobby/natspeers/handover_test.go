package natspeers_test

import (
	"context"
	"testing"
	"time"

	"github.com/tenpin/tenpin/protocol"
)

// TestSurvivorsKeepTheirClients: the node that runs a lane stops
// abruptly in the middle of a game whose player and watcher are
// connected to the two other nodes, which relay the lane to them. Both
// try to take the lane over: one does, and hands its client to it; the
// other's relay follows the lane there. Neither client is disconnected,
// no board goes back, and the player bowls the game to its end, every
// roll acked.
//
// It stops a node: it runs a cluster of its own.
func TestSurvivorsKeepTheirClients(t *testing.T) {
	t.Parallel()
	cl := newCluster(t)
	owner := cl[2]
	id := createLane(t, owner, "survivors")
	aaa := dial(t, cl[0], id, "AAA")
	watcher := dial(t, cl[1], id, "watcher")
	aaa.join()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	a, err := aaa.conn.Start(ctx)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	aaa.acked("start", a)
	for frame := 1; frame <= 10; frame++ {
		if frame == 4 {
			owner.Stop()
			t.Logf("%s, which ran the lane, stopped", owner.Name)
		}
		for ball, pins := range balls {
			start := time.Now()
			aaa.roll(frame, ball+1, pins) // fails if the connection closed
			if frame == 4 && ball == 0 {
				t.Logf("the first roll after the stop took %v", time.Since(start))
			}
		}
	}
	_, on1 := cl[0].Lobby.Get(id)
	_, on2 := cl[1].Lobby.Get(id)
	if on1 == on2 {
		t.Errorf("lane %s runs on %s: %t, on %s: %t; want one of them", id, cl[0].Name, on1, cl[1].Name, on2)
	}
	// The watcher's relay may attach it to the lane's new node after the
	// last ball: a presence change shows on the next board, within the
	// presence interval. A watcher the lane never counted again never
	// shows, and fails the wait.
	b := watcher.waitBoard("the final board, the watcher counted", func(b *protocol.Board) bool {
		return b.Phase == protocol.PhaseFinished && b.Spectators == 1
	})
	if len(b.Players) != 1 || b.Players[0].Total != wantTotal || !b.Players[0].Connected || b.Spectators != 1 {
		t.Errorf("the final board shows %d watchers and %+v; want AAA connected with %d, and 1 watcher", b.Spectators, b.Players, wantTotal)
	}
	for _, p := range []*player{aaa, watcher} {
		select {
		case <-p.conn.Done():
			t.Errorf("%s's connection to %s closed", p.name, p.at.Name)
		default:
		}
	}
}
