package natspeers_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/tenpin/tenpin/lobby/natspeers"
	"github.com/tenpin/tenpin/protocol"
)

// BenchmarkRelayedRoll measures a command through a relay: a player on
// the second node of a cluster of its own rolls on a lane the first
// node runs, and waits for the ack; four watchers on the second node and
// four on the third are sent each board. An op is one command (a roll,
// or the rematch and start between games): to the lane's node, into the
// journal (replicated three times), the board published to both nodes
// and fanned out, the ack back to the roller. cpu-ns/op is the CPU time
// of the whole process (three nodes, their NATS servers, the clients);
// boards/op the boards the watchers were sent.
func BenchmarkRelayedRoll(b *testing.B) {
	nodes := newCluster(b)
	ctx := context.Background()
	l, err := nodes[0].API.Create(ctx, protocol.CreateLane{Name: "relayed bench", GiveAway: true, Open: true})
	if err != nil {
		b.Fatal(err)
	}
	var boards atomic.Int64
	for _, at := range []*node{nodes[1], nodes[1], nodes[1], nodes[1], nodes[2], nodes[2], nodes[2], nodes[2]} {
		w, err := at.API.DialFunc(ctx, l.ID, func([]byte) { boards.Add(1) })
		if err != nil {
			b.Fatal(err)
		}
		defer w.CloseNow()
	}
	p, err := nodes[1].API.Dial(ctx, l.ID)
	if err != nil {
		b.Fatal(err)
	}
	defer p.CloseNow()
	if _, err := p.Join(ctx, "AAA"); err != nil {
		b.Fatal(err)
	}
	if _, err := p.Start(ctx); err != nil {
		b.Fatal(err)
	}
	ball := 0 // of the game, 0 to 19: every ball a gutter
	b.ReportAllocs()
	stop := natspeers.ReportCPU(b)
	boards.Store(0)
	for b.Loop() {
		switch {
		case ball < 20:
			_, err = p.Roll(ctx, ball/2+1, ball%2+1, 0)
		case ball == 20:
			_, err = p.Rematch(ctx)
		default:
			_, err = p.Start(ctx)
			ball = -1
		}
		if err != nil {
			b.Fatalf("ball %d: %v", ball, err)
		}
		ball++
	}
	stop()
	b.ReportMetric(float64(boards.Load())/float64(b.N), "boards/op")
}
