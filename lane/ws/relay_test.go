package ws

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/relay"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
)

// These tests serve a lane on one server and a relay of it on another,
// each over real WebSockets, as two nodes of a cluster would.

// link joins a relay to its lane in one process: what a cluster carries
// between two nodes, handed over directly.
type link struct {
	l     *lane.Lane
	relay *relay.Relay

	loseBoards atomic.Bool // published boards go missing, as they may between nodes
	gone       atomic.Bool // the lane's node is gone: nothing reaches it, nothing comes back
	// The lane's node died, as a cluster sees it: what the relay sends
	// it is published, so no error says so. mute: nothing comes back;
	// deaf: nothing reaches it either.
	mute, deaf atomic.Bool
	// node counts the lane's moves to another node (see Relay.Follow):
	// what the lane on an earlier node sends goes nowhere.
	node atomic.Int32

	mu      sync.Mutex
	remotes map[uint64]lane.Session
	pubs    map[int32]*relay.Publication // the lane's publication, on each of its nodes
	crossed [][]byte                     // every message read and reply, as it crossed
}

// cross records a message crossing the link.
func (k *link) cross(msg []byte) {
	k.mu.Lock()
	k.crossed = append(k.crossed, slices.Clone(msg))
	k.mu.Unlock()
}

// checkNoneCrossed fails t if any secret is in a message that crossed
// the link.
func (k *link) checkNoneCrossed(t *testing.T, secrets ...string) {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, msg := range k.crossed {
		for _, secret := range secrets {
			if bytes.Contains(msg, []byte(secret)) {
				t.Errorf("%q crossed between the nodes: %s", secret, msg)
			}
		}
	}
}

var errLaneGone = errors.New("test link: the lane has stopped")

func (k *link) remote(conn uint64) lane.Session {
	if k.gone.Load() {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.remotes[conn]
}

func (k *link) Attach(ctx context.Context, conn uint64) error {
	if k.gone.Load() {
		return errLaneGone
	}
	node := k.node.Load()
	k.mu.Lock()
	l := k.l
	pub := k.pubs[node]
	if pub == nil {
		pub = relay.NewPublication(func(board []byte, seq uint64) { k.publish(node, board, seq) })
		if k.pubs == nil {
			k.pubs = make(map[int32]*relay.Publication)
		}
		k.pubs[node] = pub
	}
	k.mu.Unlock()
	rm, ok := relay.Attach(ctx, l, linkSink{k, conn, node}, pub)
	if !ok {
		return errLaneGone
	}
	k.mu.Lock()
	k.remotes[conn] = rm
	k.mu.Unlock()
	return nil
}

func (k *link) Read(ctx context.Context, conn uint64, data []byte) error {
	k.cross(data)
	if k.deaf.Load() {
		return nil
	}
	if rm := k.remote(conn); rm == nil || !rm.Read(ctx, data) {
		return errLaneGone
	}
	return nil
}

func (k *link) Detach(conn uint64) {
	k.mu.Lock()
	rm := k.remotes[conn]
	delete(k.remotes, conn)
	k.mu.Unlock()
	if rm != nil {
		rm.Detach()
	}
}

// publish publishes a board of the lane on node for the relay: lost if
// the link loses boards, or the lane's node is gone or no longer its.
func (k *link) publish(node int32, board []byte, seq uint64) {
	if !k.loseBoards.Load() && !k.gone.Load() && !k.mute.Load() && k.node.Load() == node {
		k.relay.Board(board, seq)
	}
}

type linkSink struct {
	k    *link
	conn uint64
	node int32 // of the lane's node that attached it
}

// cut reports whether what the lane sends the sink goes nowhere.
func (s linkSink) cut() bool {
	return s.k.gone.Load() || s.k.mute.Load() || s.node != s.k.node.Load()
}

// linkSink is the lane.Conn of a client the relay serves, on the lane's
// node: what the lane sends it goes to the relay.
func (s linkSink) Board(board []byte, seq uint64) int {
	if !s.cut() {
		s.k.relay.Deliver(s.conn, board, seq, true)
	}
	return 0
}

func (s linkSink) Reply(msg []byte, seq uint64) {
	s.k.cross(msg)
	if !s.cut() {
		s.k.relay.Deliver(s.conn, msg, seq, false)
	}
}

func (s linkSink) Close(code protocol.Code, reason string) {
	if !s.cut() {
		s.k.relay.Drop(s.conn, code, reason)
	}
}

// serveRelayed serves a lane on one server and a relay of it on another,
// as two nodes of a cluster would.
func serveRelayed(t *testing.T, id string) (owner, other *testServer, k *link) {
	t.Helper()
	return serveRelayedLane(t, id, func(cfg lane.Config) *lane.Lane { return lane.New(id, id, cfg) })
}

// serveRelayedLane is serveRelayed with the lane newLane makes of the
// configuration given.
func serveRelayedLane(t *testing.T, id string, newLane func(lane.Config) *lane.Lane) (owner, other *testServer, k *link) {
	t.Helper()
	k = &link{remotes: make(map[uint64]lane.Session)}
	cfg := lane.Config{Logger: testLogger(t)}
	k.l = newLane(cfg)
	k.relay = relay.New(id, k, cfg)
	owner = serveLane(t, k.l, Config{})
	p := runPoller(t)
	var wg sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, nil)
		if err != nil {
			return
		}
		wg.Go(func() { Serve(context.Background(), conn, k.relay, Config{Poller: p}) })
	}))
	t.Cleanup(func() {
		k.relay.Close(protocol.CodeLaneClosed, "the test is over")
		srv.Close()
		wg.Wait()
	})
	return owner, &testServer{l: k.l, srv: srv, addr: srv.Listener.Addr().String(), served: &wg}, k
}

// watcher follows what one client is sent: every board's seq must grow,
// and every ack must come after a board at least as new.
type watcher struct {
	t     *testing.T
	name  string
	c     *testClient
	board wireMsg // the newest
}

func (w *watcher) next(what string, match func(wireMsg) bool) wireMsg {
	w.t.Helper()
	return w.c.expect(w.t, what, func(m wireMsg) bool {
		switch m.Type {
		case "board":
			if m.Seq <= w.board.Seq && w.board.Seq != 0 {
				w.t.Errorf("%s: board seq %d after %d", w.name, m.Seq, w.board.Seq)
			}
			w.board = m
		case "ack":
			if m.Seq > w.board.Seq {
				w.t.Errorf("%s: ack of seq %d before its board (newest %d)", w.name, m.Seq, w.board.Seq)
			}
		}
		return match(m)
	})
}

func (w *watcher) send(msg string) { w.t.Helper(); w.c.send(w.t, msg) }

func TestRelayedPlayersPlayAGame(t *testing.T) {
	owner, other, _ := serveRelayed(t, "relayed")
	a := &watcher{t: t, name: "AAA on the lane's node", c: owner.dial(t)}
	b := &watcher{t: t, name: "BBB through the relay", c: other.dial(t)}
	spec := &watcher{t: t, name: "a watcher through the relay", c: other.dial(t)}
	for _, p := range []struct {
		w    *watcher
		name string
	}{{a, "AAA"}, {b, "BBB"}} {
		p.w.send(fmt.Sprintf(`{"type":"join","name":%q,"id":"join"}`, p.name))
		p.w.next("welcome", func(m wireMsg) bool { return m.Type == "welcome" && m.Ref == "join" })
	}
	a.send(`{"type":"start","id":"start"}`)
	a.next("ack of start", func(m wireMsg) bool { return m.Ref == "start" })

	seats := []*watcher{a, b}
	for i := 0; ; i++ {
		var board protocol.Board
		json.Unmarshal(owner.l.BoardJSON(), &board)
		if board.Up == nil {
			break
		}
		up := seats[board.Up.Seat]
		ref := fmt.Sprint("r", i)
		up.send(fmt.Sprintf(`{"type":"roll","pins":%d,"frame":%d,"ball":%d,"id":%q}`, 3+i%2, board.Up.Frame, board.Up.Ball, ref))
		if m := up.next("answer to "+ref, func(m wireMsg) bool { return m.Ref == ref }); m.Type != "ack" {
			t.Fatalf("%s: %s", ref, m.raw)
		}
	}
	final := owner.l.BoardJSON()
	var want protocol.Board
	json.Unmarshal(final, &want)
	if want.Phase != protocol.PhaseFinished {
		t.Fatalf("the game did not finish: %s", final)
	}
	for _, w := range []*watcher{a, b, spec} {
		if w.board.Seq != want.Seq {
			w.next("the final board", func(m wireMsg) bool { return m.Type == "board" && m.Seq == want.Seq })
		}
		if w.board.raw != string(final) {
			t.Errorf("%s's final board:\n%s\nwant\n%s", w.name, w.board.raw, final)
		}
	}
	if want.Spectators != 1 || !want.Players[0].Connected || !want.Players[1].Connected {
		t.Errorf("the board shows %d watchers, connected %v and %v; want 1, both connected", want.Spectators, want.Players[0].Connected, want.Players[1].Connected)
	}

	// BBB's connection ends on the relay's node: the lane shows them gone.
	b.c.ws.Close(websocket.StatusNormalClosure, "")
	a.next("a board without BBB", func(m wireMsg) bool {
		var board protocol.Board
		json.Unmarshal([]byte(m.raw), &board)
		return m.Type == "board" && !board.Players[1].Connected
	})
}

// TestRelayedAckFollowsItsBoardAtOnce: with every board the lane
// publishes for the other nodes lost, a relayed client is still sent each
// ack right after the board it acknowledges, and at once: the lane sends
// that board on the connection's own way first, and the relay holds
// nothing back, waits for nothing and asks for nothing. In a synctest
// bubble, without a network: the relay's connection is an outbox no writer
// empties, and no time passes.
func TestRelayedAckFollowsItsBoardAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := &link{remotes: make(map[uint64]lane.Session)}
		cfg := lane.Config{Logger: testLogger(t)}
		k.l = lane.New("lost-boards", "lost boards", cfg)
		k.relay = relay.New(k.l.ID(), k, cfg)
		k.loseBoards.Store(true) // no published board reaches the relay
		ctx, cancel := context.WithCancel(t.Context())
		ran := make(chan error, 1)
		go func() { ran <- k.l.Run(ctx) }()
		defer func() { cancel(); <-ran }()

		c := newConn()
		s, ok := k.relay.Attach(t.Context(), c)
		if !ok {
			t.Fatal("the relay refused a connection")
		}
		// sent returns what c was sent since the last look, in order: each
		// message's type and ref, a board's type and seq.
		sent := func() (msgs []string) {
			for _, m := range c.take(nil) {
				var w wireMsg
				json.Unmarshal(m.data, &w)
				if w.Type == "board" {
					msgs = append(msgs, fmt.Sprint("board ", w.Seq))
				} else {
					msgs = append(msgs, w.Type+" "+w.Ref)
				}
			}
			return msgs
		}
		newest := func() string {
			_, seq := k.l.Board()
			return fmt.Sprint("board ", seq)
		}
		start := time.Now()
		synctest.Wait()
		sent() // the board that counts the newcomer is published: lost
		for _, m := range []struct {
			msg, answer string
			board       bool // a change: its board comes first
		}{
			{`{"type":"join","name":"AAA","id":"join"}`, "welcome join", true},
			{`{"type":"start","id":"start"}`, "ack start", true},
			{`{"type":"roll","frame":1,"ball":1,"pins":3,"id":"r1"}`, "ack r1", true},
			{`{"type":"roll","frame":1,"ball":1,"pins":3,"id":"again"}`, "ack again", false}, // sent again: no change, its board sent already
			{`{"type":"roll","frame":1,"ball":1,"pins":4,"id":"stale"}`, "error stale", false},
		} {
			s.Read(t.Context(), []byte(m.msg))
			synctest.Wait()
			want := []string{m.answer}
			if m.board {
				want = []string{newest(), m.answer}
			}
			if msgs := sent(); !slices.Equal(msgs, want) {
				t.Errorf("%s was answered %q, want %q", m.msg, msgs, want)
			}
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("the answers took %v, want no time at all", waited)
		}
		k.relay.Close(protocol.CodeLaneClosed, "the test is over")
	})
}

func TestRelayWhoseLaneStoppedSendsItsClientsAway(t *testing.T) {
	_, other, k := serveRelayed(t, "gone")
	p := &watcher{t: t, name: "AAA through the relay", c: other.dial(t)}
	p.send(`{"type":"join","name":"AAA","id":"join"}`)
	p.next("welcome", func(m wireMsg) bool { return m.Type == "welcome" })
	k.gone.Store(true) // the lane's node is gone: the next message finds nobody
	p.send(`{"type":"start","id":"start"}`)
	m := p.next("the notice", func(m wireMsg) bool { return m.Type == "error" })
	if m.Code != string(protocol.CodeServerRestarting) {
		t.Errorf("got %s, want %s", m.raw, protocol.CodeServerRestarting)
	}
	<-p.c.done
	if got := websocket.CloseStatus(p.c.err); got != websocket.StatusGoingAway {
		t.Errorf("closed with %v, want %v", got, websocket.StatusGoingAway)
	}
	other.served.Wait() // the server is done with the connection
	if n := k.relay.Len(); n != 0 {
		t.Errorf("the relay holds %d connections after closing", n)
	}
	select {
	case <-k.relay.Done():
	default:
		t.Error("the relay is not done")
	}
}

// TestRelayedClientsSeeNoBoardAgainWhenTheLaneMoves: a lane that reads
// in its log that another server took it over stops, and sends its
// clients of other nodes the notice after the board they are owed. That
// board is the one they were shown already, under the seq they were shown
// it: the lane must not number it with the other server's epoch, which a
// relay takes for a newer board, and shows its connections again (the
// nemesis test saw "seq 0:15 after 0:15, within connection").
func TestRelayedClientsSeeNoBoardAgainWhenTheLaneMoves(t *testing.T) {
	ctx := t.Context()
	j := memjournal.New()
	_, other, k := serveRelayedLane(t, "moved", func(cfg lane.Config) *lane.Lane {
		cfg.Journal, cfg.Node = j, "n1"
		l, err := lane.Open(ctx, "moved", "moved", cfg)
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
	p := &watcher{t: t, name: "AAA through the relay", c: other.dial(t)}
	p.send(`{"type":"join","name":"AAA","id":"join"}`)
	p.next("welcome", func(m wireMsg) bool { return m.Type == "welcome" })
	p.send(`{"type":"start","id":"start"}`)
	p.next("the start's ack", func(m wireMsg) bool { return m.Type == "ack" })
	p.send(`{"type":"roll","pins":3,"frame":1,"ball":1,"id":"r"}`)
	p.next("the roll's ack", func(m wireMsg) bool { return m.Type == "ack" })

	log, err := j.Read(ctx, "moved", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lane.Restore(ctx, log, lane.Config{Journal: j, Node: "n2"}); err != nil {
		t.Fatal(err)
	}
	k.l.Wake(ctx) // as after its node was found paused
	m := p.next("the notice", func(m wireMsg) bool { return m.Type == "error" })
	if m.Code != string(protocol.CodeServerRestarting) {
		t.Errorf("got %s, want %s", m.raw, protocol.CodeServerRestarting)
	}
	<-p.c.done
}

// nowhere is the upstream of a relay whose lane the test plays itself.
type nowhere struct{}

func (nowhere) Attach(context.Context, uint64) error       { return nil }
func (nowhere) Read(context.Context, uint64, []byte) error { return nil }
func (nowhere) Detach(uint64)                              {}

// TestRelayBoardAheadIsTheConnectionsAlone: a board sent to one
// connection alone that overtakes a board published for all still on its
// way goes to that connection alone, so that the others see every board;
// the board next to the relay's newest goes to every connection at once,
// and the same board published later to none.
func TestRelayBoardAheadIsTheConnectionsAlone(t *testing.T) {
	r := relay.New("ahead", nowhere{}, lane.Config{Logger: testLogger(t)})
	defer r.Close(protocol.CodeLaneClosed, "the test is over")
	roller, other := newConn(), newConn()
	rollerID := attachRelayed(t, r, roller)
	otherID := attachRelayed(t, r, other)
	board := func(seq uint64) []byte { return fmt.Appendf(nil, `{"type":"board","seq":%d}`, seq) }
	seqs := func(c *Conn) (out []uint64) {
		for _, m := range c.take(nil) {
			var w wireMsg
			json.Unmarshal(m.data, &w)
			out = append(out, w.Seq)
		}
		return out
	}
	for _, step := range []struct {
		what          string
		do            func()
		roller, other []uint64
	}{
		// The lane sends each connection its first board on attaching;
		// the relay sends none before (see TestRelayNewcomerSeesNoOlderBoard).
		{"board 9 to the roller, attaching", func() { r.Deliver(rollerID, board(9), 9, true) }, []uint64{9}, nil},
		{"board 9 to the other, attaching", func() { r.Deliver(otherID, board(9), 9, true) }, nil, []uint64{9}},
		{"board 10 published", func() { r.Board(board(10), 10) }, []uint64{10}, []uint64{10}},
		{"board 12 to the roller", func() { r.Deliver(rollerID, board(12), 12, true) }, []uint64{12}, nil},
		{"board 11 published", func() { r.Board(board(11), 11) }, nil, []uint64{11}},
		{"board 12 published", func() { r.Board(board(12), 12) }, nil, []uint64{12}},
		{"board 13 to the roller", func() { r.Deliver(rollerID, board(13), 13, true) }, []uint64{13}, []uint64{13}},
		{"board 13 published", func() { r.Board(board(13), 13) }, nil, nil},
	} {
		step.do()
		if got := seqs(roller); !slices.Equal(got, step.roller) {
			t.Errorf("after %s the roller was sent boards %v, want %v", step.what, got, step.roller)
		}
		if got := seqs(other); !slices.Equal(got, step.other) {
			t.Errorf("after %s the other connection was sent boards %v, want %v", step.what, got, step.other)
		}
	}
}

// TestRelayedSecretsStayOnTheirNode: through a relay, the host joins with
// the lane's host key among joins the lane refuses, and resumes the seat
// on another connection; a join that does not decode, key and all, is
// refused on the relay's side. Each connection is answered as one of the
// lane's node would be, every welcome with the token itself, while neither
// the key nor the token is in anything that crosses between the nodes:
// the relay sends their hashes, and swaps the hash in a welcome for the
// token. A welcome with a hash the relay holds no token for closes the
// connection, rather than hand the client a hash for a token.
func TestRelayedSecretsStayOnTheirNode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const key = "the lane's host key"
		k := &link{remotes: make(map[uint64]lane.Session)}
		cfg := lane.Config{Logger: testLogger(t), HostKey: game.HashToken(key)}
		k.l = lane.New("secrets", "secrets", cfg)
		k.relay = relay.New(k.l.ID(), k, cfg)
		ctx, cancel := context.WithCancel(t.Context())
		ran := make(chan error, 1)
		go func() { ran <- k.l.Run(ctx) }()
		defer func() { cancel(); <-ran }()
		defer k.relay.Close(protocol.CodeLaneClosed, "the test is over")

		// answers returns what c was sent since the last look, boards
		// aside: each message's type, ref and code, and a welcome's name
		// and token.
		answers := func(c *Conn) (out []string) {
			for _, m := range c.take(nil) {
				var w protocol.Welcome
				var e protocol.Error
				switch {
				case json.Unmarshal(m.data, &w) == nil && w.Type == protocol.TypeWelcome:
					out = append(out, fmt.Sprintf("welcome %s %s %s", w.Ref, w.Name, w.Token))
				case json.Unmarshal(m.data, &e) == nil && e.Type == protocol.TypeError:
					out = append(out, fmt.Sprintf("error %s %s", e.Ref, e.Code))
				}
			}
			return out
		}
		first, second := newConn(), newConn()
		s1, _ := k.relay.Attach(t.Context(), first)
		for _, msg := range []string{
			`{"type":"join","name":"AAA","host_key":"` + key + `","id":"undecodable","seat":1}`,
			`{"type":"join","name":"A1","id":"invalid"}`,
			`{"type":"join","name":"AAA","host_key":"` + key + `","id":"host"}`,
			`{"type":"join","name":"BBB","id":"again"}`,
		} {
			s1.Read(t.Context(), []byte(msg))
		}
		synctest.Wait()
		got := answers(first)
		var token string
		if len(got) == 4 {
			token = strings.TrimPrefix(got[2], "welcome host AAA ")
		}
		if _, err := uuid.Parse(token); err != nil || !slices.Equal(got, []string{"error undecodable bad_message", "error invalid invalid_name", "welcome host AAA " + token, "error again already_seated"}) {
			t.Fatalf("four joins through the relay were answered %q; want bad_message, invalid_name, a welcome with a token, already_seated", got)
		}
		var board protocol.Board
		json.Unmarshal(k.l.BoardJSON(), &board)
		if board.Host != "AAA" {
			t.Errorf("the lane's host is %q, want AAA, who joined with the key", board.Host)
		}

		s2, _ := k.relay.Attach(t.Context(), second)
		s2.Read(t.Context(), []byte(`{"type":"resume","token":"`+token+`","id":"back"}`))
		synctest.Wait()
		if got := answers(second); !slices.Equal(got, []string{"welcome back AAA " + token}) {
			t.Errorf("the resume through the relay was answered %q, want a welcome with its token", got)
		}
		if got := answers(first); !slices.Equal(got, []string{"error  seat_taken_over"}) {
			t.Errorf("the connection whose seat was resumed was sent %q, want seat_taken_over", got)
		}

		k.checkNoneCrossed(t, key, token)

		conns := k.relay.Conns()
		k.relay.Deliver(slices.Max(conns), []byte(`{"type":"welcome","ref":"x","seat":0,"name":"AAA","token":"`+strings.Repeat("0", 64)+`"}`), 0, false)
		second.mu.Lock()
		status, dropped := second.closeStatus, second.dropped
		second.mu.Unlock()
		if got := answers(second); len(got) != 0 || !dropped || status != websocket.StatusInternalError {
			t.Errorf("a welcome with a hash the relay holds no token for: the connection was sent %q, closed %t with %v; want nothing sent, closed with %v", got, dropped, status, websocket.StatusInternalError)
		}
	})
}

// TestRelayNewcomerSeesNoOlderBoard: a connection attached to a relay is
// sent none of the boards published for all before the board the lane
// sends it on attaching: the relay's may lag behind the lane, and the
// client may have seen a later board on the lane's own node before it
// reconnected here. Its seq would go back.
func TestRelayNewcomerSeesNoOlderBoard(t *testing.T) {
	r := relay.New("newcomer", nowhere{}, lane.Config{Logger: testLogger(t)})
	defer r.Close(protocol.CodeLaneClosed, "the test is over")
	board := func(seq uint64) []byte { return fmt.Appendf(nil, `{"type":"board","seq":%d}`, seq) }
	old := newConn()
	r.Deliver(attachRelayed(t, r, old), board(360), 360, true)
	old.take(nil)

	c := newConn()
	id := attachRelayed(t, r, c)
	r.Board(board(361), 361) // published before the newcomer attached, still on its way
	r.Deliver(id, board(363), 363, true)
	r.Board(board(362), 362)
	r.Board(board(363), 363)
	r.Board(board(364), 364)
	var got []uint64
	for _, m := range c.take(nil) {
		var w wireMsg
		json.Unmarshal(m.data, &w)
		got = append(got, w.Seq)
	}
	if want := []uint64{363, 364}; !slices.Equal(got, want) {
		t.Errorf("the newcomer was sent boards %v, want %v", got, want)
	}
}

// attachRelayed attaches c to r and returns its number.
func attachRelayed(t *testing.T, r *relay.Relay, c *Conn) uint64 {
	t.Helper()
	before := r.Conns()
	r.Attach(t.Context(), c)
	for _, id := range r.Conns() {
		if !slices.Contains(before, id) {
			return id
		}
	}
	t.Fatal("the relay has no new connection")
	return 0
}

// TestRelayedBowlerKeysStayOnTheirNode: through a relay, a join asking to
// be remembered is welcomed with a new bowler's key, which the relay drew
// and the lane's node knows only as its hash, and makes the bowler with
// at the first ball; a join with that key on
// another connection is known as the same bowler, whose seat it may not
// take twice. Neither key crosses between the nodes.
func TestRelayedBowlerKeysStayOnTheirNode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := &link{remotes: make(map[uint64]lane.Session)}
		bowlers := memjournal.NewBowlers()
		cfg := lane.Config{Logger: testLogger(t), Bowlers: bowlers}
		k.l = lane.New("bowlers", "bowlers", cfg)
		k.relay = relay.New(k.l.ID(), k, cfg)
		ctx, cancel := context.WithCancel(t.Context())
		ran := make(chan error, 1)
		go func() { ran <- k.l.Run(ctx) }()
		defer func() { cancel(); <-ran }()
		defer k.relay.Close(protocol.CodeLaneClosed, "the test is over")

		// reply is c's reply to ref: a welcome, or an error in Code.
		type reply struct {
			protocol.Welcome
			Code protocol.Code `json:"code"`
		}
		replyTo := func(c *Conn, ref string) reply {
			for _, m := range c.take(nil) {
				var r reply
				if json.Unmarshal(m.data, &r) == nil && r.Ref == ref {
					return r
				}
			}
			return reply{}
		}
		first, second := newConn(), newConn()
		s1, _ := k.relay.Attach(t.Context(), first)
		s1.Read(t.Context(), []byte(`{"type":"join","name":"Mina","remember":true,"id":"new"}`))
		synctest.Wait()
		key := replyTo(first, "new").BowlerKey
		// Her first ball makes her bowler.
		s1.Read(t.Context(), []byte(`{"type":"start","id":"s"}`))
		s1.Read(t.Context(), []byte(`{"type":"roll","pins":7,"frame":1,"ball":1,"id":"r"}`))
		synctest.Wait()
		r, err := bowlers.Find(t.Context(), bowler.HashKey(key))
		if key == "" || err != nil {
			t.Fatalf("the remembered join's key %q finds %v, %v; want the new bowler", key, r, err)
		}
		s2, _ := k.relay.Attach(t.Context(), second)
		s2.Read(t.Context(), []byte(`{"type":"join","name":"Jo","bowler_key":"`+key+`","id":"again"}`))
		synctest.Wait()
		// The relay gave the lane the key's hash, and the lane knew the
		// bowler: Mina's, whose seat Jo may not take as well.
		if got := replyTo(second, "again"); got.Type != protocol.TypeError || got.Code != protocol.CodeAlreadySeated || got.BowlerKey != "" {
			t.Errorf("a join with Mina's key through the relay = %+v, want refused %s (her bowler holds her seat), no new key", got, protocol.CodeAlreadySeated)
		}
		var board protocol.Board
		json.Unmarshal(k.l.BoardJSON(), &board)
		if len(board.Players) != 1 {
			t.Errorf("the lane seated %d players, want Mina only: one bowler, one seat", len(board.Players))
		}
		k.checkNoneCrossed(t, key)
	})
}
