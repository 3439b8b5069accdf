// Package relaytest attaches clients to a lane as another node of a
// cluster would, through a relay of their own, with no network between:
// what the relay forwards is handed to the lane at once, on the caller's
// goroutine, and what the lane sends comes back to the relay the same
// way. It suits tests in a synctest bubble, where no real connection may
// run.
package relaytest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/relay"
	"github.com/tenpin/tenpin/protocol"
)

// Player attaches a client to l through a relay of its own, as another
// node's would, and returns its session and the function that sends a
// message as the client. The test fails if the lane has stopped.
func Player(t testing.TB, l *lane.Lane) (s lane.Session, send func(string)) {
	t.Helper()
	up := &direct{t: t, l: l}
	up.relay = relay.New(l.ID(), up, lane.Config{})
	// The lane's boards are published to this relay alone: it is the
	// only other node.
	up.pub = relay.NewPublication(up.relay.Board)
	s, ok := up.relay.Attach(t.Context(), new(sink))
	if !ok || up.rm == nil {
		t.Fatalf("lane %s stopped before a client attached", l.ID())
	}
	return s, func(msg string) {
		t.Helper()
		if !s.Read(t.Context(), []byte(msg)) {
			t.Fatalf("the relay of lane %s closed before it read %s", l.ID(), msg)
		}
	}
}

// sink is the client's connection: it keeps what it is sent, which
// nothing reads.
type sink struct {
	mu   sync.Mutex
	msgs []string
}

func (s *sink) Board(board []byte, seq uint64) int {
	s.Reply(board, seq)
	return 0
}

func (s *sink) Reply(msg []byte, seq uint64) {
	s.mu.Lock()
	s.msgs = append(s.msgs, string(msg))
	s.mu.Unlock()
}

func (s *sink) Close(protocol.Code, string) {}

// direct is the upstream of a relay with one connection: what a cluster
// carries between two nodes, handed over at once.
type direct struct {
	t     testing.TB
	l     *lane.Lane
	relay *relay.Relay
	rm    lane.Session // the connection, attached to the lane
	pub   *relay.Publication
}

var errStopped = errors.New("relaytest: the lane has stopped")

func (d *direct) Attach(ctx context.Context, conn uint64) error {
	rm, ok := relay.Attach(ctx, d.l, relayed{d.relay, conn}, d.pub)
	if !ok {
		return errStopped
	}
	d.rm = rm
	return nil
}

func (d *direct) Read(ctx context.Context, _ uint64, data []byte) error {
	if !d.rm.Read(ctx, data) {
		d.t.Errorf("lane %s stopped before it read %s", d.l.ID(), data)
		return errStopped
	}
	return nil
}

func (d *direct) Detach(uint64) { d.rm.Detach() }

// relayed is the lane.Conn of a relay's connection, on the lane's side:
// what the lane sends it goes to the relay.
type relayed struct {
	r    *relay.Relay
	conn uint64
}

func (c relayed) Board(board []byte, seq uint64) int {
	c.r.Deliver(c.conn, board, seq, true)
	return 0
}

func (c relayed) Reply(msg []byte, seq uint64) { c.r.Deliver(c.conn, msg, seq, false) }

func (c relayed) Close(code protocol.Code, reason string) { c.r.Drop(c.conn, code, reason) }
