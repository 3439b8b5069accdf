package natspeers_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby/natspeers"
	"github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/lobby/server/servertest"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// The tests of this package that need a cluster form their own, of three
// nodes, with newCluster: each node is what tenpin serve runs — an
// embedded NATS server routed to the others, the journal on it, the lobby
// and its HTTP server — in this process. Tests that stop a node have a
// cluster each; those that leave it whole share one per group, as
// subtests: forming a cluster takes seconds.

// wait bounds every wait for something a test expects; failing over takes
// seconds (a new stream leader, a node declared dead).
const wait = 30 * time.Second

type node = servertest.Node

// newCluster forms a cluster of three nodes for tb, which stops it when it
// ends. Forming one takes about 11 s on a 2-core VM, nearly all of it
// waiting for JetStream to elect its first leaders (nats-server's
// election timeout is 4 to 9 s), little of it CPU: the tests that form
// one run in parallel with each other (t.Parallel), never beside the
// tests that count goroutines, which run first.
func newCluster(tb testing.TB) []*node {
	tb.Helper()
	start := time.Now()
	nodes := servertest.StartCluster(tb, 3, server.Config{})
	tb.Logf("the cluster formed in %v", time.Since(start).Round(time.Millisecond))
	return nodes
}

// player is a client of one lane through one node: it checks that the
// boards it is sent never go back, and that each ack comes after a board
// at least as new.
type player struct {
	t     *testing.T
	name  string
	at    *node
	lane  string
	conn  *client.Conn
	token string
	// invite is the invitation its join carries: "" on an open lane.
	invite string
	board  *protocol.Board // the newest
}

func dial(t *testing.T, at *node, id, name string) *player {
	t.Helper()
	p := &player{t: t, name: name, at: at, lane: id}
	p.connect()
	return p
}

// connect dials the player's lane on its node, again while the node
// answers 503 (the lane cannot be reached now), as pages do: a lane just
// created on one node is reached from another once that node has heard of
// it, which takes a moment.
func (p *player) connect() {
	p.t.Helper()
	var conn *client.Conn
	var err error
	polltest.Until(p.t, wait, fmt.Sprintf("%s to hear of lane %s", p.at.Name, p.lane), func() (any, bool) {
		ctx, cancel := context.WithTimeout(p.t.Context(), wait)
		defer cancel()
		conn, err = p.at.API.Dial(ctx, p.lane)
		var pe *protocol.Error
		return err, !errors.As(err, &pe) || pe.Code != protocol.CodeUnavailable
	})
	if err != nil {
		p.t.Fatalf("%s dials lane %s on %s: %v", p.name, p.lane, p.at.Name, err)
	}
	p.conn = conn
	p.t.Cleanup(func() { conn.CloseNow() })
}

// drain takes the boards the connection has queued, without waiting.
func (p *player) drain() {
	p.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for {
		m, err := p.conn.Next(ctx)
		if err != nil {
			return
		}
		if b, ok := m.(*protocol.Board); ok {
			if p.board != nil && b.Seq <= p.board.Seq {
				p.t.Errorf("%s on %s: board seq %d after %d", p.name, p.at.Name, b.Seq, p.board.Seq)
			}
			p.board = b
		}
	}
}

// acked checks an ack: the board it acknowledges came before it.
func (p *player) acked(what string, a *protocol.Ack) {
	p.t.Helper()
	p.drain()
	if p.board == nil || p.board.Seq < a.Seq {
		p.t.Errorf("%s on %s: ack of %s (seq %d) before its board (newest %v)", p.name, p.at.Name, what, a.Seq, p.board)
	}
}

// waitBoard waits for a board that ok accepts.
func (p *player) waitBoard(what string, ok func(*protocol.Board) bool) *protocol.Board {
	p.t.Helper()
	p.drain()
	ctx, cancel := context.WithTimeout(p.t.Context(), wait)
	defer cancel()
	for p.board == nil || !ok(p.board) {
		m, err := p.conn.Next(ctx)
		if err != nil {
			p.t.Fatalf("%s on %s waits for %s: %v (newest board %+v)", p.name, p.at.Name, what, err, p.board)
		}
		if b, isBoard := m.(*protocol.Board); isBoard {
			if p.board != nil && b.Seq <= p.board.Seq {
				p.t.Errorf("%s on %s: board seq %d after %d", p.name, p.at.Name, b.Seq, p.board.Seq)
			}
			p.board = b
		}
	}
	return p.board
}

func (p *player) join() {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.t.Context(), wait)
	defer cancel()
	w, err := p.conn.JoinInvited(ctx, p.name, p.invite)
	if err != nil {
		p.t.Fatalf("%s joins on %s: %v", p.name, p.at.Name, err)
	}
	p.token = w.Token
}

// roll rolls one ball, and checks its ack.
func (p *player) roll(frame, ball, pins int) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.t.Context(), wait)
	defer cancel()
	a, err := p.conn.Roll(ctx, frame, ball, pins)
	if err != nil {
		p.t.Fatalf("%s rolls frame %d ball %d on %s: %v", p.name, frame, ball, p.at.Name, err)
	}
	p.acked(fmt.Sprintf("frame %d ball %d", frame, ball), a)
}

// A game of two players, 3 then 4 pins every frame: both end on 70.
var balls = []int{3, 4}

const wantTotal = 70

func createLane(t *testing.T, at *node, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	l, err := at.API.Create(ctx, protocol.CreateLane{Name: name, GiveAway: true, Open: true}) // whoever joins first hosts it, with no invitation
	if err != nil {
		t.Fatalf("creating a lane on %s: %v", at.Name, err)
	}
	return l.ID
}

func startGame(t *testing.T, host, other *player) {
	t.Helper()
	host.join()
	other.join()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	a, err := host.conn.Start(ctx)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	host.acked("start", a)
}

// TestLanesAcrossNodes runs the tests of lanes played, listed and
// compacted across the nodes of one cluster, which none of them stops:
// each creates lanes of its own, and leaves the cluster as it found it.
func TestLanesAcrossNodes(t *testing.T) {
	t.Parallel()
	nodes := newCluster(t)
	for _, tt := range []struct {
		name string
		test func(*testing.T, []*node)
	}{
		{"GameAcrossNodes", testGameAcrossNodes},
		{"CompactionAcrossNodes", testCompactionAcrossNodes},
		{"ListKeepsASilentNodesLanes", testListKeepsASilentNodesLanes},
		{"ListKnowsLanesUnasked", testListKnowsLanesUnasked},
		{"SecretaryAcrossNodes", testSecretaryAcrossNodes},
		{"UnsureLaneAnswersFromNothing", testUnsureLaneAnswersFromNothing},
	} {
		t.Run(tt.name, func(t *testing.T) { tt.test(t, nodes) })
	}
}

// testUnsureLaneAnswersFromNothing: a lane whose node was found paused
// is unsure of its log until it has claimed its lane again (see
// lane.Lane.Unsure): its series is from before the pause, and its log may
// hold more. Neither its node nor another answers it meanwhile, but
// unavailable, to be asked again; then both do.
func testUnsureLaneAnswersFromNothing(t *testing.T, nodes []*node) {
	ctx := t.Context()
	id := createLane(t, nodes[0], "unsure")
	// The second node answers 503 until it has heard where the lane runs.
	polltest.Until(t, wait, "the lane's series through the second node", func() (any, bool) {
		_, err := nodes[1].API.Games(ctx, id)
		return err, err == nil
	})
	nodes[0].Cluster.CountPause()
	for _, n := range nodes[:2] {
		var pe *protocol.Error
		if g, err := n.API.Games(ctx, id); !errors.As(err, &pe) || pe.Code != protocol.CodeUnavailable {
			t.Errorf("the series of a lane unsure of its log, through %s: %+v, %v; want %s", n.Name, g, err, protocol.CodeUnavailable)
		}
	}
	nodes[0].Lobby.PeerLanes().Wake(ctx) // its lanes read their logs back, and claim their lanes again
	for _, n := range nodes[:2] {
		polltest.Until(t, wait, "the series through "+n.Name+" once the lane claimed its lane again", func() (any, bool) {
			_, err := n.API.Games(ctx, id)
			return err, err == nil
		})
	}
}

// testSecretaryAcrossNodes: a league night opened on the first node
// runs its lane there; the secretary's commands sent to the other nodes
// reach it: a ball entered, and the lane's refusals told as the lane
// said them.
func testSecretaryAcrossNodes(t *testing.T, nodes []*node) {
	ctx := t.Context()
	l, err := nodes[0].API.CreateLeague(ctx, protocol.CreateLeague{
		Name: "Small", GamesPerNight: 1, Points: protocol.LeaguePoints{PerGame: 2, PerSeries: 2}, AbsentMinus: 10, VacancyScore: 120,
		Teams: []protocol.LeagueTeam{
			{Name: "Pin Pals", Bowlers: []protocol.LeagueBowler{{Name: "Kim", Average: 150}}},
			{Name: "Strikers", Bowlers: []protocol.LeagueBowler{{Name: "Park", Average: 170}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	opened, err := nodes[0].API.OpenWeek(ctx, l.ID, l.SecretaryKey, 1, protocol.OpenWeek{})
	if err != nil {
		t.Fatal(err)
	}
	id := opened.Matches[0].Lane
	five, six := 5, 6
	var b *protocol.Board
	// The second node answers 503 until it has heard where the lane runs.
	polltest.Until(t, wait, "the secretary's ball through the second node", func() (any, bool) {
		b, err = nodes[1].API.LaneRoll(ctx, l.ID, l.SecretaryKey, 1, 1, protocol.LeagueLaneBall{Name: "Kim", Frame: 1, Ball: 1, Pins: &five})
		return err, err == nil
	})
	if got := b.Players[0].Frames[0].Rolls; !slices.Equal(got, []int{5}) {
		t.Errorf("Kim's frame 1 in the answer: %v, want [5]", got)
	}
	var pe *protocol.Error
	if _, err := nodes[2].API.LaneRoll(ctx, l.ID, l.SecretaryKey, 1, 1, protocol.LeagueLaneBall{Name: "Kim", Frame: 1, Ball: 1, Pins: &six}); !errors.As(err, &pe) || pe.Code != protocol.CodeStaleRoll {
		t.Errorf("a stale ball through the third node: %v, want %s", err, protocol.CodeStaleRoll)
	}
	if b, err = nodes[0].API.Board(ctx, id); err != nil || !slices.Equal(b.Players[0].Frames[0].Rolls, []int{5}) {
		t.Errorf("the lane's board on its node: %+v, %v; want Kim's 5 alone", b, err)
	}
}

// testGameAcrossNodes: a lane created on the first node; its players on
// the first and second, a watcher on the third. They play a game to the
// end: every ack comes after its board, no board goes back, everyone ends
// with the same board, which counts the watcher and shows both players
// connected; and every node lists the lane.
func testGameAcrossNodes(t *testing.T, nodes []*node) {
	id := createLane(t, nodes[0], "across nodes")
	aaa := dial(t, nodes[0], id, "AAA")
	bbb := dial(t, nodes[1], id, "BBB")
	watcher := dial(t, nodes[2], id, "a watcher")
	startGame(t, aaa, bbb)
	for frame := 1; frame <= 10; frame++ {
		for _, p := range []*player{aaa, bbb} {
			for ball, pins := range balls {
				p.roll(frame, ball+1, pins)
			}
		}
	}
	var final *protocol.Board
	for _, p := range []*player{aaa, bbb, watcher} {
		b := p.waitBoard("the final board", func(b *protocol.Board) bool {
			return b.Phase == protocol.PhaseFinished && b.Spectators == 1 && b.Players[0].Connected && b.Players[1].Connected
		})
		if final == nil {
			final = b
		} else if !reflect.DeepEqual(b, final) {
			t.Errorf("%s on %s ends with\n%+v\nwant\n%+v", p.name, p.at.Name, b, final)
		}
	}
	for _, pl := range final.Players {
		if pl.Total != wantTotal {
			t.Errorf("%s scored %d, want %d", pl.Name, pl.Total, wantTotal)
		}
	}
	for _, n := range nodes {
		ctx, cancel := context.WithTimeout(t.Context(), wait)
		lanes, err := n.API.Lanes(ctx)
		cancel()
		if err != nil {
			t.Fatalf("listing on %s: %v", n.Name, err)
		}
		found := false
		for _, l := range lanes {
			found = found || l.ID == id
		}
		if !found {
			t.Errorf("%s does not list lane %s: %+v", n.Name, id, lanes)
		}
	}

	// The watcher's connection ends: the players' boards count nobody.
	watcher.conn.Close()
	aaa.waitBoard("a board with no watcher", func(b *protocol.Board) bool { return b.Spectators == 0 })
}

// testCompactionAcrossNodes: the leader compacts the shared journal once
// every node has snapshotted its lanes, and not while a lane in it runs
// on no node: the orphan's log is all it has. The leader takes the orphan
// over; then the compaction drops what the snapshots replaced, and every
// lane's log starts with a snapshot that replays to the lane.
func testCompactionAcrossNodes(t *testing.T, nodes []*node) {
	ctx := t.Context()
	var ids []string
	for i, n := range nodes {
		id := createLane(t, n, fmt.Sprint("compact ", i))
		p := dial(t, n, id, "AAA")
		p.join()
		ids = append(ids, id)
	}
	j := nodes[0].Journal
	open := game.Open("orphanlane", "orphan", 4)
	if _, err := j.Append(ctx, "orphanlane", 0, open); err != nil {
		t.Fatal(err)
	}
	var leader *node
	for _, n := range nodes {
		if n.Cluster.Leader() {
			leader = n
		}
	}
	if leader == nil {
		t.Fatal("no node leads")
	}
	// The first round is refused: a mark set now would let the next round
	// drop the orphan's opening. The leader takes the orphan over.
	if err := leader.Lobby.Compact(ctx); err == nil || !strings.Contains(err.Error(), "orphanlane") {
		t.Fatalf("compaction with a lane that runs nowhere: %v, want it refused", err)
	}
	if log, err := j.Read(ctx, "orphanlane", 0); err != nil || len(log.Events) == 0 || log.Events[0].Kind != game.Opened {
		t.Fatalf("the orphan's log after the refused compaction: %+v, %v", log.Events, err)
	}
	// The refused compaction has taken the orphan over before it returns.
	// (Dialling the lane would claim it, the test's point being that the
	// compaction does.)
	if _, ok := leader.Lobby.Get("orphanlane"); !ok {
		t.Fatalf("%s, the leader, did not take the orphan over in its compaction", leader.Name)
	}
	for round := range 2 { // the first sets the mark, the second drops what came before it
		if err := leader.Lobby.Compact(ctx); err != nil {
			t.Fatalf("round %d of compaction once the orphan runs: %v", round+1, err)
		}
	}
	ids = append(ids, "orphanlane")
	for _, id := range ids {
		log, err := j.Read(ctx, id, 0)
		if err != nil || len(log.Events) == 0 || log.Events[0].Kind != game.Snapshot {
			t.Fatalf("lane %s's log after the compaction: %+v, %v; want a snapshot first", id, log.Events, err)
		}
		if st := game.Replay(log.Events); st.ID() != id || (id != "orphanlane" && len(st.Match().Players()) != 1) {
			t.Errorf("lane %s replays to %s with %d players, want itself (with AAA, but for the orphan)", id, st.ID(), len(st.Match().Players()))
		}
	}
}

// rollSurely rolls one ball through whatever happens to the lane's node:
// when the connection ends it reconnects (to the same node, which takes
// the lane over or relays it from the node that did) and resumes the
// seat; a command the lane could not take is sent again. A stale roll
// means an earlier try landed but its ack was lost with the connection.
func (p *player) rollSurely(frame, ball, pins int) {
	p.t.Helper()
	var ack *protocol.Ack
	polltest.Until(p.t, wait, fmt.Sprintf("%s's frame %d ball %d to be taken", p.name, frame, ball), func() (any, bool) {
		select {
		case <-p.conn.Done():
			p.reconnect()
		default:
		}
		ctx, cancel := context.WithTimeout(p.t.Context(), 5*time.Second)
		defer cancel()
		a, err := p.conn.Roll(ctx, frame, ball, pins)
		if err == nil {
			ack = a
		}
		var pe *protocol.Error
		return err, err == nil || errors.As(err, &pe) && pe.Code == protocol.CodeStaleRoll
	})
	if ack != nil {
		p.acked(fmt.Sprintf("frame %d ball %d", frame, ball), ack)
	}
}

// reconnect dials the lane again and resumes the player's seat, trying
// again while the cluster is failing over.
func (p *player) reconnect() {
	p.t.Helper()
	polltest.Until(p.t, wait, fmt.Sprintf("%s to resume its seat on lane %s through %s", p.name, p.lane, p.at.Name), func() (any, bool) {
		ctx, cancel := context.WithTimeout(p.t.Context(), 5*time.Second)
		defer cancel()
		conn, err := p.at.API.Dial(ctx, p.lane)
		if err != nil {
			return err, false
		}
		if _, err := conn.Resume(ctx, p.token); err != nil {
			conn.CloseNow()
			return err, false
		}
		p.conn, p.board = conn, nil
		p.t.Cleanup(func() { conn.CloseNow() })
		return nil, true
	})
}

// testListKeepsASilentNodesLanes: a node that stops answering lists of
// lanes (it died, or is too busy to answer in time) does not take its
// lanes out of the other nodes' lobbies: they list them as it last did,
// while another node takes them over.
func testListKeepsASilentNodesLanes(t *testing.T, nodes []*node) {
	id := createLane(t, nodes[2], "silent node")
	list := func(within time.Duration) ([]protocol.LaneSummary, bool, error) {
		ctx, cancel := context.WithTimeout(t.Context(), within)
		defer cancel()
		lanes, err := nodes[0].Cluster.Lanes(ctx)
		return lanes, slices.ContainsFunc(lanes, func(l protocol.LaneSummary) bool { return l.ID == id }), err
	}
	if lanes, ok, err := list(wait); err != nil || !ok {
		t.Fatalf("%s lists %+v, %v; want lane %s of %s among them", nodes[0].Name, lanes, err, id, nodes[2].Name)
	}
	defer nodes[2].Cluster.MuteLists(t)()
	lanes, ok, err := list(200 * time.Millisecond) // a lobby waits 500 ms
	if err == nil {
		t.Errorf("%s answered a list while muted", nodes[2].Name)
	}
	if !ok {
		t.Errorf("with %s silent, %s lists %+v, without its lane %s", nodes[2].Name, nodes[0].Name, lanes, id)
	}
}

// testListKnowsLanesUnasked: a node knows the other nodes' lanes of a
// moment ago though nobody asked it for a list: it asks them every few
// seconds, so that a node that dies before anyone listed its lanes does
// not take them out of the others' lobbies.
func testListKnowsLanesUnasked(t *testing.T, nodes []*node) {
	id := createLane(t, nodes[2], "listed unasked")
	polltest.Until(t, wait+2*natspeers.ListEvery, fmt.Sprintf("%s to know lane %s of %s", nodes[1].Name, id, nodes[2].Name), func() (any, bool) {
		listed := nodes[1].Cluster.Listed()
		return listed, slices.Contains(listed, id)
	})
}

// TestFailover: the node that runs a lane stops abruptly in the middle of
// a game whose players are on the two other nodes. They reconnect, one
// of those nodes takes the lane over from the journal, the other relays
// it, and the game goes on to the end with every acknowledged ball.
//
// It stops a node: it runs a cluster of its own.
func TestFailover(t *testing.T) {
	t.Parallel()
	nodes := newCluster(t)
	owner := nodes[2]
	id := createLane(t, owner, "failover")
	aaa := dial(t, nodes[0], id, "AAA")
	bbb := dial(t, nodes[1], id, "BBB")
	startGame(t, aaa, bbb)
	for frame := 1; frame <= 10; frame++ {
		if frame == 6 {
			owner.Stop()
			t.Logf("%s, which ran the lane, stopped", owner.Name)
		}
		for _, p := range []*player{aaa, bbb} {
			for ball, pins := range balls {
				start := time.Now()
				p.rollSurely(frame, ball+1, pins)
				if frame == 6 && ball == 0 && p == aaa {
					t.Logf("the first roll after the stop took %v", time.Since(start))
				}
			}
		}
	}
	_, on1 := nodes[0].Lobby.Get(id)
	_, on2 := nodes[1].Lobby.Get(id)
	if on1 == on2 {
		t.Errorf("lane %s runs on %s: %t, on %s: %t; want one of them", id, nodes[0].Name, on1, nodes[1].Name, on2)
	}
	for _, p := range []*player{aaa, bbb} {
		b := p.waitBoard("the final board", func(b *protocol.Board) bool { return b.Phase == protocol.PhaseFinished })
		for _, pl := range b.Players {
			if pl.Total != wantTotal || len(pl.Frames) != 10 {
				t.Errorf("%s sees %s with %d frames and %d, want 10 frames and %d", p.name, pl.Name, len(pl.Frames), pl.Total, wantTotal)
			}
			for i, f := range pl.Frames {
				if !reflect.DeepEqual(f.Rolls, balls) {
					t.Errorf("%s sees %s's frame %d as %v, want %v", p.name, pl.Name, i+1, f.Rolls, balls)
				}
			}
		}
	}
}
