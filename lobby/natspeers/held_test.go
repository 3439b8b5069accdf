package natspeers_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby/natspeers"
	"github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/lobby/server/servertest"
	"github.com/tenpin/tenpin/protocol"
)

// deafCluster forms a cluster of three nodes that never take a silent
// node for dead while a test runs (a node timeout of an hour): a lane
// whose node stops can move only by what the relays do before the
// heartbeats' verdict. Its tests put off their relays' alive too (see
// PostponeAlive), the other way they find the lane's node gone.
func deafCluster(t *testing.T) []*node {
	t.Helper()
	return servertest.StartCluster(t, 3, server.Config{Cluster: natspeers.Config{Heartbeat: servertest.Heartbeat, NodeTimeout: time.Hour}})
}

// relayedGame has a lane on nodes[2], its player AAA on nodes[0] and a
// watcher on nodes[1], both relayed; AAA starts a game and bowls its
// first frame. It returns the two and the seq of the newest board either
// was sent, once both relays have stopped telling the lane's node their
// connections (alive).
func relayedGame(t *testing.T, nodes []*node) (aaa, watcher *player, seq uint64) {
	t.Helper()
	id := createLane(t, nodes[2], "relayed")
	aaa = dial(t, nodes[0], id, "AAA")
	watcher = dial(t, nodes[1], id, "watcher")
	aaa.join()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	a, err := aaa.conn.Start(ctx)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	aaa.acked("start", a)
	for ball, pins := range balls {
		aaa.roll(1, ball+1, pins)
	}
	b := watcher.waitBoard("AAA's first frame", func(b *protocol.Board) bool {
		return len(b.Players) == 1 && b.Players[0].Total == balls[0]+balls[1]
	})
	for _, n := range nodes[:2] {
		if !n.Cluster.PostponeAlive(id) {
			t.Fatalf("%s relays no lane %s", n.Name, id)
		}
	}
	return aaa, watcher, max(b.Seq, aaa.board.Seq)
}

// TestRelaysFollowTheClaim: the node that runs a lane stops while the
// lane's player and a watcher are on the two other nodes, which relay
// it, and which take no node for dead (see deafCluster). The player's
// node is asked for the lane's board over HTTP: no node answers for the
// lane, so it takes it over from the log. At once, with no message from
// either client, its relay hands the player to the lane there, and the
// other node's relay follows the lane there: the lane's new board shows
// the player connected and the watcher counted, to both. The player then
// bowls on.
func TestRelaysFollowTheClaim(t *testing.T) {
	t.Parallel()
	nodes := deafCluster(t)
	aaa, watcher, seq := relayedGame(t, nodes)
	nodes[2].Stop()
	t.Logf("%s, which ran the lane, stopped", nodes[2].Name)
	polltest.Until(t, wait, nodes[0].Name+" to take the lane over", func() (any, bool) {
		_, err := nodes[0].API.Board(t.Context(), aaa.lane)
		return err, err == nil
	})
	if _, ok := nodes[0].Lobby.Get(aaa.lane); !ok {
		t.Fatalf("%s answered for lane %s, but does not run it", nodes[0].Name, aaa.lane)
	}
	both := func(b *protocol.Board) bool {
		return b.Seq > seq && len(b.Players) == 1 && b.Players[0].Connected && b.Spectators == 1
	}
	aaa.waitBoard("the board of the lane taken over, showing AAA and the watcher", both)
	watcher.waitBoard("the board of the lane taken over, showing AAA and the watcher", both)
	aaa.roll(2, 1, balls[0])
}

// TestRelayedRollFindsTheLaneGone: the node that runs a lane stops while
// the lane's player and a watcher are on the two other nodes, which
// relay it, and which take no node for dead (see deafCluster); nobody
// else comes for the lane. The player's next roll finds no node
// listening for the lane: its node takes the lane over at once, hands
// the player to it, and has the roll read again, acked; the watcher's
// relay follows the lane there.
func TestRelayedRollFindsTheLaneGone(t *testing.T) {
	t.Parallel()
	nodes := deafCluster(t)
	aaa, watcher, seq := relayedGame(t, nodes)
	nodes[2].Stop()
	t.Logf("%s, which ran the lane, stopped", nodes[2].Name)
	aaa.roll(2, 1, balls[0])
	if _, ok := nodes[0].Lobby.Get(aaa.lane); !ok {
		t.Errorf("%s acked AAA's roll, but does not run lane %s", nodes[0].Name, aaa.lane)
	}
	watcher.waitBoard("the board of the lane taken over, showing the roll and the watcher", func(b *protocol.Board) bool {
		return b.Seq > seq && len(b.Players[0].Frames) > 1 && slices.Equal(b.Players[0].Frames[1].Rolls, balls[:1]) && b.Spectators == 1
	})
}
