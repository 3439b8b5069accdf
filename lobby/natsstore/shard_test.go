package natsstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/lobby/natsconn/natstest"
)

// TestShardsStored: a store keeps the count of shards it was made with. A
// journal opened with 0 takes it, one opened with another count is
// refused, naming it, and a store made before there were shards (a stream
// without the count) is one of one shard.
func TestShardsStored(t *testing.T) {
	for _, tc := range []struct {
		name    string
		made    int // 0: a stream made by hand, as before there were shards
		open    int
		want    int // shards of the journal opened; 0: refused
		wantErr string
	}{
		{"new store, default alone", -1, 0, 1, ""},
		{"3 then as stored", 3, 0, 3, ""},
		{"3 then 3", 3, 3, 3, ""},
		{"3 then 1", 3, 1, 0, "made with 3 and this server asks for 1"},
		{"1 then 4", 1, 4, 0, "made with 1 and this server asks for 4"},
		{"before shards, then as stored", 0, 0, 1, ""},
		{"before shards, then 3", 0, 3, 0, "made with 1 and this server asks for 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx := t.Context()
			var lane string
			switch {
			case tc.made > 0:
				j, err := openOn(ctx, natsconn.Config{Dir: dir, Logger: testLogger(t)}, Config{Shards: tc.made})
				if err != nil {
					t.Fatalf("Open with %d shards: %v", tc.made, err)
				}
				// A lane in the last shard: read from the wrong stream, it
				// would be missing.
				for i := 0; lane == "" || j.shardOf(lane).index != tc.made-1; i++ {
					lane = fmt.Sprint("kept-", i)
				}
				if _, err := j.Append(ctx, lane, 0, game.Open(lane, "Kept", 2)); err != nil {
					t.Fatal(err)
				}
				j.Close()
			case tc.made == 0:
				conn, err := natsconn.Open(ctx, natsconn.Config{Dir: dir, Logger: testLogger(t)})
				if err != nil {
					t.Fatal(err)
				}
				_, err = conn.JetStream().CreateStream(ctx, jetstream.StreamConfig{
					Name: StreamName, Subjects: []string{SubjectPrefix + "*", HealthPrefix + "*"}, Storage: jetstream.FileStorage,
				})
				if err == nil {
					lane = "kept"
					_, err = conn.JetStream().Publish(ctx, SubjectPrefix+lane, mustMarshal(t, game.Open(lane, "Kept", 2)))
				}
				conn.Close()
				if err != nil {
					t.Fatalf("a stream as before shards: %v", err)
				}
			}

			j, err := openOn(ctx, natsconn.Config{Dir: dir, Logger: testLogger(t)}, Config{Shards: tc.open})
			if tc.want == 0 {
				if !errors.Is(err, ErrShards) || !contains(err, tc.wantErr) {
					t.Fatalf("Open with %d shards = %v, want ErrShards saying %q", tc.open, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open with %d shards: %v", tc.open, err)
			}
			defer j.Close()
			if got := j.Shards(); got != tc.want {
				t.Errorf("Shards() = %d, want %d", got, tc.want)
			}
			if lane != "" {
				log, err := j.Read(ctx, lane, 0)
				if err != nil || len(log.Events) != 1 {
					t.Errorf("Read(%s) = %d events, %v; want its opening", lane, len(log.Events), err)
				}
			}
		})
	}
}

func mustMarshal(t *testing.T, e game.Event) []byte {
	t.Helper()
	data, err := game.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func contains(err error, s string) bool {
	return err != nil && strings.Contains(err.Error(), s)
}

// leaders returns the name of the server that leads each shard's stream,
// "" for one that has none or does not answer within timeout.
func leaders(ctx context.Context, j *Journal, timeout time.Duration) []string {
	names := make([]string, len(j.shards))
	for _, s := range j.shards {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		info, err := s.stream.Info(ctx)
		cancel()
		if err == nil && info.Cluster != nil {
			names[s.index] = info.Cluster.Leader
		}
	}
	return names
}

// waitFor calls cond every 50 ms until it reports true, failing the test
// if it has not within d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shardCluster starts a NATS cluster of three servers and opens a journal
// of three shards, three copies each, on it.
func shardCluster(t *testing.T) (*natstest.Cluster, *opened) {
	t.Helper()
	if testing.Short() {
		t.Skip("forming a cluster takes seconds")
	}
	c := natstest.NewCluster(t, 3)
	for i := range 3 {
		c.Start(i)
	}
	j, err := openOn(t.Context(), natsconn.Config{URL: c.URLs(), Replicas: 3, Logger: testLogger(t)}, Config{Shards: 3, Shared: true})
	if err != nil {
		t.Fatalf("Open on a cluster of 3: %v", err)
	}
	t.Cleanup(func() { j.Close() })
	return c, j
}

// TestShardLeadersSpread: on a cluster of three servers, the three
// streams are led by three servers once a journal has opened them.
// JetStream alone puts them on three servers two times in nine.
func TestShardLeadersSpread(t *testing.T) {
	_, j := shardCluster(t)
	waitFor(t, 10*time.Second, "every stream led by a server of its own", func() bool {
		l := leaders(t.Context(), j.Journal, time.Second)
		t.Logf("leaders: %q", l)
		return l[0] != "" && l[1] != "" && l[2] != "" && l[0] != l[1] && l[1] != l[2] && l[0] != l[2]
	})
}

// TestShardLeadersRespread: once a server leads two streams while another
// leads none (as after it died and came back), the journal moves one
// over within a look or two (spreadEvery, shortened here).
func TestShardLeadersRespread(t *testing.T) {
	if testing.Short() {
		t.Skip("forming a cluster takes seconds")
	}
	every := spreadEvery
	spreadEvery = time.Second
	t.Cleanup(func() { spreadEvery = every }) // after the journal's Close, registered later
	c := natstest.NewCluster(t, 3)
	for i := range 3 {
		c.Start(i)
	}
	moves := &moveCounter{t: t}
	logger := slog.New(slog.NewTextHandler(moves, &slog.HandlerOptions{Level: slog.LevelInfo}))
	j, err := openOn(t.Context(), natsconn.Config{URL: c.URLs(), Replicas: 3, Logger: logger}, Config{Shards: 3, Shared: true})
	if err != nil {
		t.Fatalf("Open on a cluster of 3: %v", err)
	}
	t.Cleanup(func() { j.Close() })
	ctx := t.Context()
	var l []string
	distinct := func() bool {
		l = leaders(ctx, j.Journal, time.Second)
		return l[0] != "" && l[1] != "" && l[2] != "" && l[0] != l[1] && l[1] != l[2] && l[0] != l[2]
	}
	waitFor(t, 10*time.Second, "every stream led by a server of its own", distinct)
	before := moves.n.Load()
	// Shard 1's leadership to shard 0's leader: it leads two, and the
	// server that led shard 1 none.
	if err := j.stepDown(ctx, j.shards[1].name, l[0]); err != nil {
		t.Fatalf("move %s's leader to %s: %v", j.shards[1].name, l[0], err)
	}
	t.Logf("moved %s's leader from %s to %s", j.shards[1].name, l[1], l[0])
	waitFor(t, 20*time.Second, "a leader moved back by the journal, and every stream led by a server of its own", func() bool {
		return moves.n.Load() > before && distinct()
	})
}

// moveCounter counts the journal's log lines that say it moved a leader,
// and passes every line to the test's log.
type moveCounter struct {
	t testing.TB
	n atomic.Int64
}

func (w *moveCounter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "moved to spread the leaders") {
		w.n.Add(1)
	}
	w.t.Logf("%s", strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// natsProcesses builds cmd/natscluster and runs a NATS cluster of three
// servers, each in a process of its own (natscluster -only), so that one
// can be killed with SIGKILL: a server shut down in this process would
// hand its raft groups' leadership over first, in well under a second
// (nats-server's monitorStream steps down as it exits). It returns the
// processes and their client URLs.
func natsProcesses(t *testing.T) ([]*exec.Cmd, []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("building natscluster and forming a cluster take seconds")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "natscluster")
	build := exec.Command("go", "build", "-o", bin, "github.com/tenpin/tenpin/cmd/natscluster")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build natscluster: %v\n%s", err, out)
	}
	var ports []string
	for range 6 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, fmt.Sprint(ln.Addr().(*net.TCPAddr).Port))
		ln.Close()
	}
	var cmds []*exec.Cmd
	var urls []string
	for i := range 3 {
		cmd := exec.Command(bin, "-only", fmt.Sprint(i+1), "-ports", strings.Join(ports[:3], ","),
			"-cluster-ports", strings.Join(ports[3:], ","), "-dir", filepath.Join(dir, "data"))
		cmd.Stdout, cmd.Stderr = tlog{t}, tlog{t}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
		})
		cmds = append(cmds, cmd)
		urls = append(urls, "nats://127.0.0.1:"+ports[i])
	}
	return cmds, urls
}

// TestShardStallsAlone kills with SIGKILL the NATS server that leads one
// shard's stream: while that stream has no leader (its followers wait
// 4–9 s before they elect one), appends to the lanes of the other shards
// go on. With every lane in one stream, they would all wait.
func TestShardStallsAlone(t *testing.T) {
	cmds, urls := natsProcesses(t)
	ctx := t.Context()
	j, err := openOn(ctx, natsconn.Config{URL: strings.Join(urls, ","), Replicas: 3, Logger: testLogger(t)}, Config{Shards: 3, Shared: true})
	if err != nil {
		t.Fatalf("Open on a cluster of 3: %v", err)
	}
	defer j.Close()
	var l []string
	waitFor(t, 10*time.Second, "every stream led by a server of its own", func() bool {
		l = leaders(ctx, j.Journal, time.Second)
		return l[0] != "" && l[1] != "" && l[2] != "" && l[0] != l[1] && l[1] != l[2] && l[0] != l[2]
	})
	// A lane in each shard.
	lanes := make([]string, 3)
	last := make([]uint64, 3)
	for i := 0; lanes[0] == "" || lanes[1] == "" || lanes[2] == ""; i++ {
		id := fmt.Sprint("stall-", i)
		if k := j.shardOf(id).index; lanes[k] == "" {
			lanes[k] = id
			p, err := j.Append(ctx, id, 0, game.Open(id, "Stall", 2))
			if err != nil {
				t.Fatal(err)
			}
			last[k] = p
		}
	}
	// natscluster names its servers s1, s2 and s3.
	dead := int(l[0][len(l[0])-1]-'0') - 1
	// A journal on a server that stays up, so that no reconnection
	// delays its appends.
	other, err := openOn(ctx, natsconn.Config{URL: urls[(dead+1)%3], Replicas: 3, Logger: testLogger(t)}, Config{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	if err := cmds[dead].Process.Kill(); err != nil {
		t.Fatalf("kill %s: %v", l[0], err)
	}
	cmds[dead].Wait()
	leaderless := func() bool { return leaders(ctx, other.Journal, 500*time.Millisecond)[0] == "" }
	if !leaderless() {
		t.Fatalf("stream %s has a leader right after its leader %s was killed", j.shards[0].name, l[0])
	}
	for round := range 5 {
		for k := 1; k < 3; k++ {
			p, err := other.Append(ctx, lanes[k], last[k], game.Event{Kind: game.Claimed, Epoch: uint64(round + 1), Node: "b"})
			if err != nil {
				t.Fatalf("round %d: append to lane %s of shard %d while shard 0 elects: %v", round, lanes[k], k, err)
			}
			last[k] = p
		}
	}
	if !leaderless() {
		t.Fatalf("stream %s elected a leader while the others appended: the test proved nothing", j.shards[0].name)
	}
	// And shard 0 serves again once it has elected a leader.
	waitFor(t, 30*time.Second, "shard 0 led again", func() bool { return !leaderless() })
	if _, err := other.Append(ctx, lanes[0], last[0], game.Event{Kind: game.Claimed, Epoch: 1, Node: "b"}); err != nil {
		t.Errorf("append to lane %s of shard 0 once it has a leader: %v", lanes[0], err)
	}
}
