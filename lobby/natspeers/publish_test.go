package natspeers

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/protocol"
)

// TestPublishesOnlyWhatIsRelayed: a lane's boards are published for other
// nodes only while one of its clients is relayed there, so lanes whose
// clients all sit on their lanes' nodes send no board between nodes; and
// a lane with several relayed clients publishes each board once, not once
// for each of them.
func TestPublishesOnlyWhatIsRelayed(t *testing.T) {
	p := startPair(t, "relayedlane") // n2 relays it to a client
	second, _, err := websocket.Dial(t.Context(), p.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.CloseNow()
	cl, err := p.n1.Claim("quietlane")
	if err != nil {
		t.Fatal(err)
	}
	quiet := lane.New("quietlane", "quietlane", lane.Config{})
	cl.Bind(quiet)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go quiet.Run(ctx)
	polltest.Until(t, 10*time.Second, "both relayed clients attached on the lane's node", func() (any, bool) {
		p.n1.mu.Lock()
		o := p.n1.owned["relayedlane"]
		p.n1.mu.Unlock()
		n := o.count()
		return n, n == 2
	})
	sub, err := p.n2.nc.SubscribeSync(subjBoard + ">")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.n2.nc.Flush(); err != nil {
		t.Fatal(err)
	}

	// A player joins the quiet lane on its own node: its boards go to
	// them alone.
	local, ok := quiet.Attach(t.Context(), nopConn{})
	if !ok {
		t.Fatal("the quiet lane stopped")
	}
	defer local.Detach()
	_, quietSeq := quiet.Board()
	local.Read(t.Context(), []byte(`{"type":"join","name":"Quiet","id":"q"}`))
	polltest.Until(t, 10*time.Second, "the quiet lane to show its player", func() (any, bool) {
		_, seq := quiet.Board()
		return seq, seq > quietSeq
	})
	// Then the relayed player joins theirs. One publisher's messages
	// arrive in order: had the quiet lane's boards been published, they
	// would come first.
	if err := p.ws.Write(t.Context(), websocket.MessageText, []byte(`{"type":"join","name":"Relayed","id":"r"}`)); err != nil {
		t.Fatal(err)
	}
	p.read(t, "welcome")
	_, last := p.l.Board()
	// The welcome follows the boards of the join, published by then: a
	// mark published after it, on the same connection, comes after them.
	p.n1.nc.Publish(subjBoard+"mark.0", nil)
	published := make(map[uint64]int)
	for {
		m, err := sub.NextMsg(10 * time.Second)
		if err != nil {
			t.Fatalf("the mark after board %d never came: %v", last, err)
		}
		lane, at, _ := strings.Cut(strings.TrimPrefix(m.Subject, subjBoard), ".")
		if lane == "mark" {
			break
		}
		if lane != "relayedlane" {
			t.Fatalf("published %s: %q; want the relayed lane's boards alone", m.Subject, m.Data)
		}
		seq, err := strconv.ParseUint(at, 10, 64)
		if err != nil {
			t.Fatalf("published %s: no seq", m.Subject)
		}
		if published[seq]++; published[seq] > 1 {
			t.Errorf("board %d published %d times, for a lane's two relayed clients; want once", seq, published[seq])
		}
	}
	if published[last] == 0 {
		t.Errorf("the board of the join (seq %d) was not published; published: %v", last, published)
	}
}

// count is the number of other nodes' connections attached to the lane.
func (o *owned) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.remotes)
}

// nopConn is a client of the lane's own node that takes what it is sent
// and reads none of it.
type nopConn struct{}

func (nopConn) Board([]byte, uint64) int    { return 0 }
func (nopConn) Reply([]byte, uint64)        {}
func (nopConn) Close(protocol.Code, string) {}
