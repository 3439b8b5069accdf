package natscluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/lobby/server/servertest"
	"github.com/tenpin/tenpin/protocol"
)

// TestSurvivorKeepsItsClients: the node that runs a lane stops abruptly
// in the middle of a game whose player and watcher are connected to
// another node, which relays the lane to them. That node takes the lane
// over and hands them to it: neither is disconnected, no board goes
// back, and the player bowls the game to its end, every roll acked.
//
// It stops a node: it runs a cluster of its own, not the package's.
func TestSurvivorKeepsItsClients(t *testing.T) {
	cl := servertest.StartCluster(t, 3, server.Config{})
	owner, survivor := cl[2], cl[0]
	id := createLane(t, owner, "survivor")
	aaa := dial(t, survivor, id, "AAA")
	watcher := dial(t, survivor, id, "watcher")
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
	if _, ok := survivor.Lobby.Get(id); !ok {
		t.Errorf("lane %s does not run on %s, whose clients it had", id, survivor.Name)
	}
	b := watcher.waitBoard("the final board", func(b *protocol.Board) bool { return b.Phase == protocol.PhaseFinished })
	if len(b.Players) != 1 || b.Players[0].Total != wantTotal || !b.Players[0].Connected || b.Spectators != 1 {
		t.Errorf("the final board shows %d watchers and %+v; want AAA connected with %d, and 1 watcher", b.Spectators, b.Players, wantTotal)
	}
	for _, p := range []*player{aaa, watcher} {
		select {
		case <-p.conn.Done():
			t.Errorf("%s's connection to %s closed", p.name, survivor.Name)
		default:
		}
	}
}
