package natspeers_test

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"

	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby/natspeers"
	"github.com/tenpin/tenpin/protocol"
)

// TestMessagesBetweenNodes runs the tests of what crosses between the
// nodes of one cluster, which none of them stops: each sniffs the
// subjects of lanes of its own.
func TestMessagesBetweenNodes(t *testing.T) {
	t.Parallel()
	nodes := newCluster(t)
	for _, tt := range []struct {
		name string
		test func(*testing.T, []*node)
	}{
		{"RelayedCommandIsAnsweredOnce", testRelayedCommandIsAnsweredOnce},
		{"RelayRepairsALostBoard", testRelayRepairsALostBoard},
		{"NoSecretCrossesNodes", testNoSecretCrossesNodes},
	} {
		t.Run(tt.name, func(t *testing.T) { tt.test(t, nodes) })
	}
}

// sniffer keeps the messages on some subjects of a cluster, as they
// cross between its nodes, in the order they came on each.
type sniffer struct {
	mu   sync.Mutex
	msgs map[string][]*natsgo.Msg // by the subscription's subject
	more chan struct{}
}

// sniff subscribes to subjects on the last of nodes, which hears what
// every node publishes on them.
func sniff(t *testing.T, nodes []*node, subjects ...string) *sniffer {
	t.Helper()
	s := &sniffer{msgs: make(map[string][]*natsgo.Msg), more: make(chan struct{}, 1)}
	nc := nodes[len(nodes)-1].Conn.NATS()
	for _, subj := range subjects {
		sub, err := nc.Subscribe(subj, func(m *natsgo.Msg) {
			s.mu.Lock()
			s.msgs[subj] = append(s.msgs[subj], m)
			s.mu.Unlock()
			select {
			case s.more <- struct{}{}:
			default:
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sub.Unsubscribe() })
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	// The other nodes' servers learn of the subscriptions over their
	// routes, a moment later: a message published there before would not
	// be sniffed. A probe subscribed last, heard from each node, says
	// they have learnt of all (a route passes them on in order).
	probe := "tenpin.test.sniff." + rand.Text()
	heard := make(chan string, 16)
	sub, err := nc.Subscribe(probe, func(m *natsgo.Msg) { heard <- string(m.Data) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes[:len(nodes)-1] {
		polltest.Until(t, wait, n.Name+"'s server to learn of the sniffer's subscriptions", func() (any, bool) {
			for {
				select {
				case from := <-heard:
					if from == n.Name {
						return nil, true
					}
				default: // probe again: the last may have gone before the server learnt
					n.Conn.NATS().Publish(probe, []byte(n.Name))
					return "no probe heard back", false
				}
			}
		})
	}
	return s
}

// until waits until ok holds of the messages sniffed on subj.
func (s *sniffer) until(t *testing.T, subj, what string, ok func([]*natsgo.Msg) bool) []*natsgo.Msg {
	t.Helper()
	deadline := time.After(wait)
	for {
		s.mu.Lock()
		msgs := append([]*natsgo.Msg(nil), s.msgs[subj]...)
		s.mu.Unlock()
		if ok(msgs) {
			return msgs
		}
		select {
		case <-s.more:
		case <-deadline:
			t.Fatalf("no %s on %s within %v; sniffed %d messages", what, subj, wait, len(msgs))
		}
	}
}

func (s *sniffer) on(subj string) []*natsgo.Msg {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*natsgo.Msg(nil), s.msgs[subj]...)
}

// frame is a message to a connection of another node, as sniffed.
type frame struct {
	kind byte
	seq  uint64
	ref  string // a reply's
}

func frames(t *testing.T, msgs []*natsgo.Msg) []frame {
	t.Helper()
	var out []frame
	for _, m := range msgs {
		kind, _, seq, data, ok := natspeers.Unframe(m.Data)
		if !ok {
			t.Fatalf("%s: a message that is no frame: %q", m.Subject, m.Data)
		}
		f := frame{kind: kind, seq: seq}
		if kind == natspeers.KindReply {
			var r struct{ Ref string }
			json.Unmarshal(data, &r)
			f.ref = r.Ref
		}
		out = append(out, f)
	}
	return out
}

// testRelayedCommandIsAnsweredOnce: a roll from a client of another node
// crosses to the lane's node once, published (no request, so no
// "queued" answer: its reply subject is for NATS alone, which answers
// only when no node listens for the lane), and comes back answered once,
// on the connection's subject: the board it acknowledges, then the ack,
// in that order.
func testRelayedCommandIsAnsweredOnce(t *testing.T, nodes []*node) {
	id := createLane(t, nodes[0], "answered once")
	aaa := dial(t, nodes[1], id, "AAA")
	aaa.join()
	ctx := t.Context()
	if _, err := aaa.conn.Start(ctx); err != nil {
		t.Fatal(err)
	}
	reads := "tenpin.own." + id + ".read.>"
	to := "tenpin.to." + nodes[1].Name + "." + id + ".>"
	unread := "tenpin.unread." + nodes[1].Name + "." + id
	s := sniff(t, nodes, reads, to, unread)
	aaa.roll(1, 1, 3)
	aaa.roll(1, 2, 4) // its ack comes after every answer to the first on the connection's subject
	got := s.until(t, to, "both acks", func(msgs []*natsgo.Msg) bool {
		n := 0
		for _, f := range frames(t, msgs) {
			if f.kind == natspeers.KindReply {
				n++
			}
		}
		return n >= 2
	})
	// Each subject has its own subscription, which hands its messages
	// over on its own goroutine: the reads, sent before the acks, may be
	// handed over after them.
	readMsgs := s.until(t, reads, "both rolls", func(msgs []*natsgo.Msg) bool { return len(msgs) >= 2 })
	if len(readMsgs) != 2 {
		t.Fatalf("two rolls crossed %d times to the lane's node, want twice", len(readMsgs))
	}
	for _, m := range readMsgs {
		if m.Reply != unread {
			t.Errorf("a roll crossed with the reply subject %q, want %q (NATS's alone)", m.Reply, unread)
		}
	}
	for _, a := range s.on(unread) {
		t.Errorf("a roll was answered on %s: %q %v", a.Subject, a.Data, a.Header)
	}
	var replies []frame
	var board uint64
	for _, f := range frames(t, got) {
		switch f.kind {
		case natspeers.KindBoard:
			board = f.seq
		case natspeers.KindReply:
			replies = append(replies, f)
			if f.seq > board {
				t.Errorf("the answer to %q follows the board of seq %d, and came after %d", f.ref, f.seq, board)
			}
		default:
			t.Errorf("the connection was closed: %+v", f)
		}
	}
	var refs []string
	for _, f := range replies {
		refs = append(refs, f.ref)
	}
	if len(refs) != 2 || refs[0] == "" || refs[1] == "" || refs[0] == refs[1] {
		t.Errorf("two rolls were answered %q on the connection's subject, want once each", refs)
	}
}

// testRelayRepairsALostBoard: a node that relays a lane misses every
// board the lane publishes (core NATS delivers at most once); its watcher
// still sees the lane's latest board, the last of a game included, which
// no later board repairs: the relay's alive, every few seconds, tells the
// lane's node the newest board it has, and the answer is a newer one.
func testRelayRepairsALostBoard(t *testing.T, nodes []*node) {
	id := createLane(t, nodes[0], "lost boards")
	aaa := dial(t, nodes[0], id, "AAA")
	watcher := dial(t, nodes[2], id, "a watcher")
	watcher.waitBoard("a board", func(*protocol.Board) bool { return true })
	if !nodes[2].Cluster.LoseBoards(id) {
		t.Fatalf("%s relays no lane %s", nodes[2].Name, id)
	}
	aaa.join()
	ctx := t.Context()
	if _, err := aaa.conn.Start(ctx); err != nil {
		t.Fatal(err)
	}
	a, err := aaa.conn.Roll(ctx, 1, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got := watcher.waitBoard(fmt.Sprint("the board of seq ", a.Seq), func(b *protocol.Board) bool { return b.Seq >= a.Seq })
	t.Logf("the lost board came %v after the ack", time.Since(start))
	if got.Seq != a.Seq || len(got.Players) != 1 || len(got.Players[0].Frames) != 1 || !slices.Equal(got.Players[0].Frames[0].Rolls, []int{3}) {
		t.Errorf("the watcher sees seq %d, %+v; want seq %d, AAA with a 3", got.Seq, got.Players, a.Seq)
	}
}
