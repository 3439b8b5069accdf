package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby/natsconn/natstest"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// startNodes starts n tenpin processes as the nodes of one cluster, each
// with its own data directory and embedded NATS server, as the README's
// "Running a cluster" says. Each node's NATS server listens on a port the
// OS picks (-cluster 127.0.0.1:0), which it prints; the next node routes
// to the nodes before it, and all keep three copies (-replicas), the
// first one too, which has no routes to count. They share a secret, so
// their routes are authenticated and encrypted as in production.
func startNodes(t *testing.T, n int) []*child {
	t.Helper()
	dir := t.TempDir()
	secret := filepath.Join(dir, "cluster.secret")
	if err := os.WriteFile(secret, []byte(rand.Text()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	nodes := make([]*child, n)
	var routes []string
	for i := range nodes {
		name := fmt.Sprint("n", i+1)
		args := []string{"-data", filepath.Join(dir, name), "-node", name, "-cluster", "127.0.0.1:0", "-cluster-secret-file", secret, "-replicas", fmt.Sprint(min(3, n))}
		if len(routes) > 0 {
			args = append(args, "-routes", strings.Join(routes, ","))
		}
		nodes[i] = launchChild(t, nil, args...)
		line, err := nodes[i].out.ReadString('\n')
		url, ok := strings.CutPrefix(strings.TrimSpace(line), "tenpin cluster routes to this node: ")
		if err != nil || !ok {
			t.Fatalf("node %s did not say where it listens for the others: %q, %v; stderr: %s", name, line, err, nodes[i].stderr)
		}
		routes = append(routes, url)
	}
	for _, c := range nodes { // each waits for the others to form the cluster
		c.await(t)
	}
	return nodes
}

// seat is a player of a test game through one node, who reconnects to it
// and resumes their seat whenever the connection ends.
type seat struct {
	t     *testing.T
	api   *client.Client
	lane  string
	name  string
	conn  *client.Conn
	token string
}

func (s *seat) dial(ctx context.Context) error {
	conn, err := s.api.Dial(ctx, s.lane)
	if err != nil {
		return err
	}
	if s.token == "" {
		w, err := conn.Join(ctx, s.name)
		if err != nil {
			conn.CloseNow()
			return err
		}
		s.token = w.Token
	} else if _, err := conn.Resume(ctx, s.token); err != nil {
		conn.CloseNow()
		return err
	}
	if s.conn != nil {
		s.conn.CloseNow()
	}
	s.conn = conn
	return nil
}

// do runs a command until the lane takes it, reconnecting as needed
// within two minutes; a stale roll is an earlier try that landed but whose
// ack was lost with its connection.
func (s *seat) do(what string, cmd func(ctx context.Context, c *client.Conn) error) {
	s.t.Helper()
	var logged string // the last error logged: a node down fails every try alike
	// A node woken from a pause may take a minute to read its log again.
	polltest.Until(s.t, 2*time.Minute, fmt.Sprintf("%s's %s to be taken", s.name, what), func() (any, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := cmd(ctx, s.conn)
		var pe *protocol.Error
		if err != nil && err.Error() != logged {
			logged = err.Error()
			s.t.Logf("%s: %s: %v", s.name, what, err)
		}
		if err == nil || errors.As(err, &pe) && pe.Code == protocol.CodeStaleRoll {
			return nil, true
		}
		select {
		case <-s.conn.Done():
			if derr := s.dial(ctx); derr != nil {
				s.t.Logf("%s: reconnecting: %v", s.name, derr)
			}
		default:
		}
		return err, false
	})
}

// startGame creates a lane named name on the node laneAt, seats a player
// on each node of at (AAA, BBB, …), and has the first start the game.
// It returns the lane's id and the players, whose connections close when
// the test ends.
func startGame(t *testing.T, ctx context.Context, name string, laneAt *child, at ...*child) (string, []*seat) {
	t.Helper()
	lane, err := (&client.Client{URL: laneAt.url}).Create(ctx, protocol.CreateLane{Name: name, GiveAway: true, Open: true})
	if err != nil {
		t.Fatal(err)
	}
	players := make([]*seat, len(at))
	for i, n := range at {
		p := &seat{t: t, api: &client.Client{URL: n.url}, lane: lane.ID, name: playerName(i)}
		if err := p.dial(ctx); err != nil {
			t.Fatalf("%s joins: %v", p.name, err)
		}
		t.Cleanup(func() { p.conn.CloseNow() })
		players[i] = p
	}
	if _, err := players[0].conn.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return lane.ID, players
}

// playerName is the i-th player's name: AAA, BBB, …
func playerName(i int) string { return strings.Repeat(string(rune('A'+i)), 3) }

// TestClusterGameSurvivesAKilledNode starts three tenpin processes as a
// cluster, plays a game on a lane run by the third with players on the
// first two, kills the third with SIGKILL halfway, and checks that the
// game goes on through the others to the end with every ball. It reports
// how long the lane stalled: from the kill to the next accepted roll.
func TestClusterGameSurvivesAKilledNode(t *testing.T) {
	if testing.Short() {
		t.Skip("three processes form a cluster in seconds")
	}
	nodes := startNodes(t, 3)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	laneID, players := startGame(t, ctx, "kill -9", nodes[2], nodes[0], nodes[1])
	// Someone watches the lobby on the first node all along, as a page
	// does: the lane must not leave it while it moves to another node.
	absent := watchListed(ctx, nodes[0], laneID)
	pins := []int{5, 4}
	var killed time.Time
	for frame := 1; frame <= 10; frame++ {
		if frame == 6 {
			nodes[2].kill(t)
			killed = time.Now()
		}
		for _, p := range players {
			for ball := 1; ball <= 2; ball++ {
				p.do(fmt.Sprintf("frame %d ball %d", frame, ball), func(ctx context.Context, c *client.Conn) error {
					_, err := c.Roll(ctx, frame, ball, pins[ball-1])
					return err
				})
				if !killed.IsZero() {
					t.Logf("the lane took its first roll %v after the kill", time.Since(killed).Round(time.Millisecond))
					killed = time.Time{}
				}
			}
		}
	}
	if d := absent(); d > 2*time.Second {
		t.Errorf("the lane was missing from %s's lobby for %v after its node was killed, want at most 2s", nodes[0].url, d)
	}
	for _, n := range nodes[:2] {
		board, err := (&client.Client{URL: n.url}).Board(ctx, laneID)
		if err != nil {
			t.Fatalf("the board on %s: %v", n.url, err)
		}
		if board.Phase != protocol.PhaseFinished {
			t.Errorf("the game on %s is %s, want finished", n.url, board.Phase)
		}
		for _, p := range board.Players {
			if p.Total != 90 || len(p.Frames) != 10 {
				t.Errorf("%s on %s: %d frames, %d; want 10 frames of 5 and 4, 90", p.Name, n.url, len(p.Frames), p.Total)
			}
		}
	}
}

// watchListed lists the lanes on node every 100 ms until the returned
// function is called, which returns the longest time lane id was missing
// from the list.
func watchListed(ctx context.Context, at *child, id string) func() time.Duration {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan time.Duration, 1)
	go func() {
		api := &client.Client{URL: at.url}
		var longest time.Duration
		var since time.Time // when the lane went missing; zero while listed
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			lanes, err := api.Lanes(ctx)
			switch now := time.Now(); {
			case ctx.Err() != nil:
				done <- longest
				return
			case err == nil && slices.ContainsFunc(lanes, func(l protocol.LaneSummary) bool { return l.ID == id }):
				since = time.Time{}
			case since.IsZero():
				since = now
			default:
				longest = max(longest, now.Sub(since))
			}
			select {
			case <-ctx.Done():
			case <-tick.C:
			}
		}
	}()
	return func() time.Duration {
		cancel()
		return <-done
	}
}

// TestClusterFencesAPausedNode: the node that runs a lane is paused
// (SIGSTOP) in the middle of a game. Its player on another node goes on:
// that node takes the lane over once the paused node stops answering, and
// enters the absent player's balls too. When the paused node wakes up
// (SIGCONT), the player connected to it rolls through the lane it still
// holds: the fence refuses its append, the lane stops and sends the
// player away, and the player resumes their seat through the node that
// runs the lane now. No ball is lost or counted twice.
func TestClusterFencesAPausedNode(t *testing.T) {
	if testing.Short() {
		t.Skip("three processes form a cluster in seconds")
	}
	nodes := startNodes(t, 3)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	laneID, players := startGame(t, ctx, "paused", nodes[2], nodes[2], nodes[0]) // AAA on the lane's node
	aaa, bbb := players[0], players[1]
	pins := []int{5, 4}
	roll := func(by *seat, name string, frame int) {
		for ball := 1; ball <= 2; ball++ {
			by.do(fmt.Sprintf("%s's frame %d ball %d", name, frame, ball), func(ctx context.Context, c *client.Conn) error {
				_, err := c.RollFor(ctx, name, frame, ball, pins[ball-1])
				return err
			})
		}
	}
	roll(aaa, "AAA", 1)
	roll(bbb, "BBB", 1)

	paused := nodes[2].cmd.Process
	if err := paused.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	roll(bbb, "AAA", 2) // AAA is offline for the node that takes the lane over
	t.Logf("the lane took its first roll %v after its node was paused", time.Since(stopped).Round(time.Millisecond))
	roll(bbb, "BBB", 2)
	if err := paused.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}

	// AAA's connection to the woken node is still open: its lane must
	// not take the roll, and sends AAA away to resume elsewhere.
	old := aaa.conn
	roll(aaa, "AAA", 3)
	if aaa.conn == old {
		t.Error("AAA's roll was taken by the lane on the node that had been paused")
	}
	roll(bbb, "BBB", 3)
	for frame := 4; frame <= 10; frame++ {
		roll(aaa, "AAA", frame)
		roll(bbb, "BBB", frame)
	}
	for _, n := range nodes {
		board, err := (&client.Client{URL: n.url}).Board(ctx, laneID)
		if err != nil {
			t.Fatalf("the board on %s: %v", n.url, err)
		}
		for _, p := range board.Players {
			if board.Phase != protocol.PhaseFinished || p.Total != 90 || len(p.Frames) != 10 {
				t.Errorf("%s on %s: %s, %d frames, %d; want finished, 10 frames of 5 and 4, 90", p.Name, n.url, board.Phase, len(p.Frames), p.Total)
			}
		}
	}
}

// TestClusterLoadRun: tenpin load spreads its lanes and connections over
// the three nodes of a cluster (each lane's players and watchers on all
// three), and every board, ack and total checks out.
func TestClusterLoadRun(t *testing.T) {
	if testing.Short() {
		t.Skip("three processes form a cluster in seconds")
	}
	nodes := startNodes(t, 3)
	var urls []string
	for _, n := range nodes {
		urls = append(urls, "ws"+strings.TrimPrefix(n.url, "http"))
	}
	// Two players a lane: on three nodes of two busy cores, under the
	// race detector, a lane of four finished no game in 5 s now and then.
	stdout, stderr, code := runCmd(t, "", "load", "-url", strings.Join(urls, ","), "-lanes", "9", "-players", "2", "-spectators", "8",
		"-duration", "8s", "-think", "60ms", "-ramp", "500ms", "-json")
	if code != 0 {
		t.Fatalf("load exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var rep loadReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	t.Logf("rolls %d, boards %d, games %d, ack p99 %.1fms, fan-out p99 %.1fms", rep.Rolls, rep.Boards, rep.Games, rep.Ack.P99, rep.Fanout.P99)
	if rep.Errors != 0 || rep.ConnectFailures != 0 || rep.Connections != 90 {
		t.Errorf("errors %d, connect failures %d, connections %d; want 0, 0, 90: %v", rep.Errors, rep.ConnectFailures, rep.Connections, rep.ErrorSamples)
	}
	if rep.Games == 0 || rep.Rolls == 0 || rep.Fanout.Count == 0 || rep.Ack.Count == 0 {
		t.Errorf("the run played nothing: %+v", rep)
	}
}

// TestClusterOnAnExternalNATS: two tenpin nodes against an external NATS
// cluster of three servers (-nats, each its own -node, no lease between
// them, three copies by default): a player on each node, the lane on the
// first; the first is killed, and the game goes on through the second,
// which takes the lane over.
func TestClusterOnAnExternalNATS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	url := natstest.StartCluster(t, 3)
	var nodes []*child
	for i := range 2 {
		nodes = append(nodes, startChild(t, "-nats", url, "-node", fmt.Sprint("x", i+1)))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	laneID, players := startGame(t, ctx, "external", nodes[0], nodes[0], nodes[1])
	bbb := players[1]
	for frame := 1; frame <= 10; frame++ {
		if frame == 4 {
			nodes[0].kill(t)
		}
		for _, p := range players {
			by := p
			if frame >= 4 {
				by = bbb // AAA's node is gone, and AAA with it: BBB enters AAA's balls
			}
			for ball := 1; ball <= 2; ball++ {
				by.do(fmt.Sprintf("%s's frame %d ball %d", p.name, frame, ball), func(ctx context.Context, c *client.Conn) error {
					_, err := c.RollFor(ctx, p.name, frame, ball, 3+ball)
					return err
				})
			}
		}
	}
	board, err := (&client.Client{URL: nodes[1].url}).Board(ctx, laneID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range board.Players {
		if board.Phase != protocol.PhaseFinished || p.Total != 90 {
			t.Errorf("%s: %s, %d; want finished and 90", p.Name, board.Phase, p.Total)
		}
	}
}

// TestClusterLoadSurvivesAKilledNode: tenpin load against three nodes, one
// of which is killed with SIGKILL in the middle of the run. The clients
// the dead node served, and those whose lanes it ran, connect again and
// resume their seats; the games go on, and every board, ack and total
// still checks out.
func TestClusterLoadSurvivesAKilledNode(t *testing.T) {
	if testing.Short() {
		t.Skip("three processes form a cluster in seconds")
	}
	nodes := startNodes(t, 3)
	var urls []string
	for _, n := range nodes {
		urls = append(urls, "ws"+strings.TrimPrefix(n.url, "http"))
	}
	// The third node is killed once the load's progress shows every
	// client connected and rolls going: in the middle of its games.
	progress := &loadProgress{conns: 6 * (2 + 2), rolling: make(chan struct{})}
	loadDone := make(chan struct{})
	killed := make(chan bool, 1)
	go func() {
		select {
		case <-progress.rolling:
			nodes[2].kill(t)
			killed <- true
		case <-loadDone:
			killed <- false
		}
	}()
	var out bytes.Buffer
	err := run(t.Context(), []string{"load", "-url", strings.Join(urls, ","), "-lanes", "6", "-players", "2", "-spectators", "2",
		"-duration", "20s", "-think", "100ms", "-ramp", "500ms", "-json"}, strings.NewReader(""), &out, progress)
	close(loadDone)
	code := exitCode(err, progress)
	stdout, stderr := out.String(), progress.String()
	if !<-killed {
		t.Fatalf("the load never showed its %d connections up and rolls going, and no node was killed\nstdout:\n%s\nstderr:\n%s", progress.conns, stdout, stderr)
	}
	if code != 0 {
		t.Fatalf("load exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var rep loadReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	t.Logf("rolls %d, games %d, reconnects %d (p50 %.0fms, max %.0fms), errors %d", rep.Rolls, rep.Games, rep.Reconnects, rep.Reconnect.P50, rep.Reconnect.Max, rep.Errors)
	if rep.Errors != 0 || rep.ConnectFailures != 0 || rep.SkippedSeqs > 1000 {
		t.Errorf("errors %d, connect failures %d, skipped seqs %d; want none: %v", rep.Errors, rep.ConnectFailures, rep.SkippedSeqs, rep.ErrorSamples)
	}
	if rep.Reconnects == 0 || rep.Games == 0 {
		t.Errorf("%d reconnects, %d games: the kill should have sent clients to reconnect, and games should have finished", rep.Reconnects, rep.Games)
	}
}

// loadProgress is tenpin load's stderr: it keeps what is written, and
// closes rolling at the first progress line that shows conns connections
// and rolls going.
type loadProgress struct {
	conns   int
	rolling chan struct{}

	mu   sync.Mutex
	buf  bytes.Buffer
	seen bool
}

func (p *loadProgress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf.Write(b)
	for line := range strings.Lines(string(b)) {
		var secs float64
		var conns, rolls int
		if n, _ := fmt.Sscanf(strings.TrimSpace(line), "%fs conns %d rolls/s %d", &secs, &conns, &rolls); n == 3 && conns >= p.conns && rolls > 0 && !p.seen {
			p.seen = true
			close(p.rolling)
		}
	}
	return len(b), nil
}

func (p *loadProgress) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.String()
}
