// Package failover measures what a kill -9 does to a three-node tenpin
// cluster under a steady load, so that the figures OPERATING.md gives for
// the production topology can be made again by anyone: tenpin failover
// (cmd/tenpin) runs it.
//
// # The run
//
// The cluster is package cluster's: three tenpin serve processes on an
// embedded NATS cluster, or on an external one — the operator's (-nats),
// or three natscluster -only processes the run starts itself, so that
// one of them can be killed. Lanes are created on the nodes in turn; each
// has one player, connected to the lane's node, who rolls a gutter ball
// at a fixed interval (starting and rematching its games as their host),
// and a watcher on each of the two other nodes, whose connections those
// nodes relay. With Relayed the player connects to another node than the
// lane's, whose relay carries its rolls, and the watchers to the two
// others (one of them the lane's). After a warm-up one process is killed with SIGKILL: a
// tenpin node, the NATS server that leads the lanes' stream, or a NATS
// server that leads none of it. Every client whose connection ends
// connects again, to the same node while it answers, else to the next;
// a player resumes its seat.
//
// # What is measured
//
// For each lane, the time from the kill to the acknowledgement of the
// first roll sent after it (its next roll), and the longest time between
// two acknowledged rolls that ends after the kill, the stall of a lane
// counted from its last ack before the kill. Every connection the server
// ends on a node that survives is counted (a relayed client's included):
// a failover that hides itself from clients counts none. And every
// 100 ms each surviving node's lobby list (GET /api/lanes) is read: the
// lobby gap is the longest any lane of the run was missing from one.
package failover

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tenpin/tenpin/cmd/tenpin/internal/cluster"
	"github.com/tenpin/tenpin/lobby/natsstore"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// Target is the process a run kills.
type Target string

// The targets.
const (
	// KillNode kills a tenpin node that runs lanes.
	KillNode Target = "node"
	// KillNATSLeader kills the NATS server that leads the lanes' stream
	// (the first shard's).
	KillNATSLeader Target = "nats-leader"
	// KillNATS kills a NATS server that does not lead the lanes' stream,
	// the one that leads the fewest streams.
	KillNATS Target = "nats"
)

// lanesStream is the stream that holds every lane's events (tenpin's
// JetStream journal names it so), or with -shards those of the first
// shard: its leader is the NATS server whose death stalls every lane, or
// that shard's share of them.
const lanesStream = "TENPIN_LANES"

const (
	// commandTimeout bounds a command's wait for its answer: longer than
	// a stream's leader election (4–9 s), so that a roll the store holds
	// up is measured to its answer.
	commandTimeout = 15 * time.Second
	// pollEvery is how often each node's lobby list is read.
	pollEvery = 100 * time.Millisecond
	// pollTimeout bounds one reading of a lobby list; one that fails is
	// no evidence either way.
	pollTimeout = 2 * time.Second
	// startTimeout bounds the cluster's start: nodes on an external NATS
	// cluster wait for its servers to elect a meta leader.
	startTimeout = 2 * time.Minute
	// Stalled is the time after which a lane counts as stalled.
	Stalled = time.Second
)

// Config is what a run does.
type Config struct {
	// Spawn returns the command that runs "tenpin serve" with args: the
	// program itself, or a test binary that runs it.
	Spawn func(args []string) *exec.Cmd
	// Dir holds the processes' data and logs (name.log).
	Dir string
	// NATS, if set, is the client URLs of the operator's NATS cluster:
	// the nodes use it, and the run cannot kill its servers.
	NATS string
	// NATSCluster, if set, is the path of the natscluster program
	// (cmd/natscluster): the run starts the three NATS servers as
	// processes of their own, and the nodes use them.
	NATSCluster string

	Lanes   int
	Every   time.Duration // between a player's rolls
	Warmup  time.Duration // from the last lane's first roll to the kill
	Measure time.Duration // from the kill to the run's end
	Kill    Target
	// Node is the tenpin node KillNode kills; "" is the first lane's.
	Node string
	// Term stops the process with SIGTERM, as a planned restart does,
	// rather than SIGKILL.
	Term bool
	// Rolling restarts every tenpin node in turn instead of one kill:
	// each stopped with SIGTERM, started again, and left Settle to
	// catch up once it serves before the next is stopped.
	Rolling bool
	Settle  time.Duration
	// Shards, if above 0, is the nodes' -shards: the streams the lanes
	// are spread over (0: tenpin serve's default).
	Shards int
	// Relayed seats each lane's player on another node than the lane's,
	// which relays its rolls: the next after the lane's for the first
	// lane of each node, the one before it for the second, and so on. A
	// killed node's clients reconnect to the next node, so half its lanes
	// are taken over where their player is, and half where it is not.
	Relayed bool

	// Log, if set, gets a line for each noteworthy event.
	Log io.Writer
}

// Result is what a run measured: see the package doc.
type Result struct {
	Topology string        `json:"topology"`
	Lanes    int           `json:"lanes"`
	Relayed  bool          `json:"relayed,omitempty"` // the players on relays: see Config
	Every    time.Duration `json:"every_ns"`
	Warmup   time.Duration `json:"warmup_ns"`
	Measure  time.Duration `json:"measure_ns"`
	// Killed is the process killed (n1, s2), and Role what it was.
	Killed string `json:"killed"`
	Role   string `json:"role"`
	// Signal is how: SIGKILL, or SIGTERM for a planned stop.
	Signal string `json:"signal"`
	// Load is the machine's load average (1, 5 and 15 minutes) at the
	// kill, where the system tells it.
	Load string `json:"load,omitempty"`

	PerLane  []Lane    `json:"per_lane"`
	NextRoll Quantiles `json:"next_roll"`
	// StalledNext counts the lanes whose next roll came more than
	// Stalled after the kill, or never; StalledGap those whose longest
	// gap between acks was longer than Stalled.
	StalledNext int           `json:"stalled_next"`
	StalledGap  int           `json:"stalled_gap"`
	LongestGap  time.Duration `json:"longest_gap_ns"`

	// Disconnects are the connections on surviving nodes that ended
	// after the kill, not by the client; DeadNode counts those on the
	// killed node, and BeforeKill those that ended before it.
	Disconnects []Disconnect `json:"disconnects"`
	DeadNode    int          `json:"dead_node_disconnects"`
	BeforeKill  int          `json:"before_kill_disconnects"`

	Lobby LobbyGap `json:"lobby"`
}

// Lane is one lane's figures.
type Lane struct {
	N    int    `json:"n"` // from 1, in the order of creation
	ID   string `json:"id"`
	Node string `json:"node"` // where it was created
	// Player is the node its player connected to first: Node's, unless
	// the run was Relayed.
	Player string `json:"player"`
	// Acked says whether a roll sent after the kill was acknowledged;
	// NextRoll is then the time from the kill to that ack.
	Acked    bool          `json:"acked"`
	NextRoll time.Duration `json:"next_roll_ns"`
	// LongestGap is the longest time between two acks that ends after
	// the kill (from the last ack before it), the run's end counting as
	// an ack.
	LongestGap  time.Duration `json:"longest_gap_ns"`
	AckedBefore int           `json:"acked_before"`
	AckedAfter  int           `json:"acked_after"`
	// Failed counts the rolls sent after the kill that were refused
	// (unavailable, mostly) or not answered.
	Failed int `json:"failed"`
}

// Quantiles are a figure's p50, p99 and max, nearest rank.
type Quantiles struct {
	N   int           `json:"n"`
	P50 time.Duration `json:"p50_ns"`
	P99 time.Duration `json:"p99_ns"`
	Max time.Duration `json:"max_ns"`
}

// Disconnect is a connection that ended.
type Disconnect struct {
	Node   string        `json:"node"`
	Lane   int           `json:"lane"`
	Client string        `json:"client"` // player, watcher
	After  time.Duration `json:"after_ns"`
	Why    string        `json:"why"`
}

// LobbyGap is what the survivors' lobby lists showed after the kill.
type LobbyGap struct {
	Polls  int `json:"polls"`
	Failed int `json:"failed"`
	// Longest is the longest time a lane of the run was missing from a
	// survivor's list: from the first reading without it to the next
	// reading with it, or the run's end.
	Longest time.Duration `json:"longest_ns"`
	Lane    int           `json:"lane,omitempty"`
	Node    string        `json:"node,omitempty"`
}

// Unrecovered returns the lanes no roll sent after the kill was
// acknowledged on: a run that measured nothing for them.
func (r Result) Unrecovered() []int {
	var ns []int
	for _, l := range r.PerLane {
		if !l.Acked {
			ns = append(ns, l.N)
		}
	}
	return ns
}

// run is one run of the probe.
type run struct {
	cfg   Config
	nodes []*cluster.Process
	http  *http.Client
	start time.Time
	lanes []*laneState

	mu          sync.Mutex
	kill        time.Time // zero until the kill
	killed      string
	stops       []stop // a rolling restart's, each node's from its SIGTERM to its serving again
	disconnects []disconnect
	polls       [cluster.Size][]poll

	logMu sync.Mutex
}

func (r *run) logf(format string, args ...any) {
	if r.cfg.Log == nil {
		return
	}
	r.logMu.Lock()
	defer r.logMu.Unlock()
	fmt.Fprintf(r.cfg.Log, "%6.1fs %s\n", time.Since(r.start).Seconds(), fmt.Sprintf(format, args...))
}

// Check says what is wrong with the run cfg asks for, if anything, but
// for Spawn and Dir.
func (cfg Config) Check() error {
	switch {
	case cfg.Lanes < 1:
		return fmt.Errorf("failover: %d lanes: want 1 or more", cfg.Lanes)
	case cfg.Shards < 0 || cfg.Shards > natsstore.MaxShards:
		return fmt.Errorf("failover: -shards %d: want 0 (the default) to %d", cfg.Shards, natsstore.MaxShards)
	case cfg.Every <= 0, cfg.Warmup <= 0, cfg.Measure <= 0:
		return errors.New("failover: want a positive roll interval, warm-up and measure time")
	case cfg.NATS != "" && cfg.NATSCluster != "":
		return errors.New("failover: the nodes use the operator's NATS (-nats) or the run's own (-natscluster), not both")
	}
	switch cfg.Kill {
	case KillNode:
		if cfg.Node != "" && !slices.Contains([]string{"n1", "n2", "n3"}, cfg.Node) {
			return fmt.Errorf("failover: node %q: the nodes are n1, n2 and n3", cfg.Node)
		}
	case KillNATSLeader, KillNATS:
		if cfg.NATSCluster == "" {
			return fmt.Errorf("failover: -kill %s kills a NATS server, which must be a process of the run's own: give -natscluster the path of natscluster (go build -o /tmp/natscluster ./cmd/natscluster); with the operator's NATS (-nats), kill -9 its nats-server yourself and watch the nodes' lanes", cfg.Kill)
		}
	default:
		return fmt.Errorf("failover: kill %q: want node, nats-leader or nats", cfg.Kill)
	}
	return nil
}

// Do runs the probe as cfg says. An error is a run that could not be
// made: a cluster that did not start, a lane not created, a target not
// found.
func Do(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Spawn == nil || cfg.Dir == "" {
		return Result{}, errors.New("failover: Config needs Spawn and Dir")
	}
	if err := cfg.Check(); err != nil {
		return Result{}, err
	}
	r := &run{cfg: cfg, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}, start: time.Now()}
	defer r.http.CloseIdleConnections()
	res := Result{Lanes: cfg.Lanes, Relayed: cfg.Relayed, Every: cfg.Every, Warmup: cfg.Warmup, Measure: cfg.Measure, Topology: "embedded NATS cluster"}

	natsURLs := cfg.NATS
	var servers []*cluster.Process
	if cfg.NATSCluster != "" {
		var err error
		servers, natsURLs, err = cluster.NATSServers(cfg.NATSCluster, cfg.Dir)
		if err != nil {
			return res, err
		}
		defer func() {
			for _, s := range servers {
				s.Stop()
			}
		}()
		res.Topology = "external NATS cluster of 3 processes (natscluster -only)"
	} else if cfg.NATS != "" {
		res.Topology = "external NATS at " + cfg.NATS
	}
	spawn := cfg.Spawn
	if cfg.Shards > 0 {
		spawn = func(args []string) *exec.Cmd {
			return cfg.Spawn(append(args, "-shards", strconv.Itoa(cfg.Shards)))
		}
	}
	nodes, err := cluster.Nodes(spawn, cfg.Dir, natsURLs)
	if err != nil {
		return res, err
	}
	r.nodes = nodes
	defer func() {
		for _, n := range nodes {
			n.Stop()
		}
	}()
	startCtx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if err := cluster.StartAll(startCtx, servers); err != nil {
		return res, err
	}
	if err := cluster.StartAll(startCtx, nodes); err != nil {
		return res, err
	}
	for _, n := range nodes {
		if err := n.Healthy(startCtx, r.http); err != nil {
			return res, err
		}
	}
	cancel()
	r.logf("cluster up: %s, %s, %s", nodes[0].URL, nodes[1].URL, nodes[2].URL)

	// The clients end before the processes: the deferred calls run last
	// to first.
	loadCtx, stopLoad := context.WithCancel(ctx)
	var load sync.WaitGroup
	defer load.Wait()
	defer stopLoad()
	if err := r.startLanes(loadCtx, &load); err != nil {
		return res, err
	}
	for i := range nodes {
		load.Go(func() { r.pollLobby(loadCtx, i) })
	}
	r.logf("%d lanes playing; the kill in %v", cfg.Lanes, cfg.Warmup)
	select {
	case <-time.After(cfg.Warmup):
	case <-ctx.Done():
		return res, ctx.Err()
	}

	if cfg.Rolling {
		if err := r.roll(ctx, &res); err != nil {
			return res, err
		}
		end := time.Now()
		stopLoad()
		load.Wait()
		r.summarize(&res, end)
		return res, nil
	}
	victim, role, err := r.target(ctx, servers, natsURLs)
	if err != nil {
		return res, err
	}
	res.Killed, res.Role, res.Load = victim.Name, role, loadAverage()
	r.mu.Lock()
	r.kill = time.Now()
	if cfg.Kill == KillNode {
		r.killed = victim.Name
	}
	r.mu.Unlock()
	var sig os.Signal = os.Kill
	res.Signal = "SIGKILL"
	if cfg.Term {
		sig, res.Signal = syscall.SIGTERM, "SIGTERM"
	}
	if err := victim.End(sig); err != nil {
		return res, err
	}
	r.logf("killed %s (%s) with %s", victim.Name, role, res.Signal)
	select {
	case <-time.After(cfg.Measure):
	case <-ctx.Done():
		return res, ctx.Err()
	}
	end := time.Now()
	stopLoad()
	load.Wait()
	r.summarize(&res, end)
	return res, nil
}

// stop is a node of a rolling restart between its SIGTERM and its
// serving again: its own clients' connections end then.
type stop struct {
	node     string
	from, to time.Time
}

// stopping reports whether node was being restarted at t.
func (r *run) stopping(node string, t time.Time) bool {
	for _, s := range r.stops {
		if s.node == node && !t.Before(s.from) && !t.After(s.to) {
			return true
		}
	}
	return false
}

// roll restarts the nodes in turn, each with SIGTERM, and started again
// once it has ended; the next is stopped once the last serves and had
// cfg.Settle to catch up. The lanes play on for cfg.Measure after the
// last.
func (r *run) roll(ctx context.Context, res *Result) error {
	res.Killed, res.Signal, res.Load = "every node", "SIGTERM", loadAverage()
	res.Role = fmt.Sprintf("a rolling restart of the %d tenpin nodes, each started again once stopped and given %v once it serves", len(r.nodes), r.cfg.Settle)
	r.mu.Lock()
	r.kill = time.Now()
	r.mu.Unlock()
	for i, n := range r.nodes {
		from := time.Now()
		if err := n.End(syscall.SIGTERM); err != nil {
			return err
		}
		r.logf("stopped %s with SIGTERM", n.Name)
		startCtx, cancel := context.WithTimeout(ctx, startTimeout)
		err := cluster.StartAll(startCtx, []*cluster.Process{n})
		if err == nil {
			err = n.Healthy(startCtx, r.http)
		}
		cancel()
		if err != nil {
			return err
		}
		r.mu.Lock()
		r.stops = append(r.stops, stop{node: n.Name, from: from, to: time.Now()})
		r.mu.Unlock()
		r.logf("%s serves again", n.Name)
		wait := r.cfg.Settle
		if i == len(r.nodes)-1 {
			wait = r.cfg.Measure
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// target finds the process to kill and says what it is.
func (r *run) target(ctx context.Context, servers []*cluster.Process, natsURLs string) (*cluster.Process, string, error) {
	if r.cfg.Kill == KillNode {
		name := r.cfg.Node
		if name == "" {
			name = r.lanes[0].node
		}
		for _, n := range r.nodes {
			if n.Name == name {
				return n, fmt.Sprintf("tenpin node running %d of %d lanes", r.lanesOn(name), len(r.lanes)), nil
			}
		}
		return nil, "", fmt.Errorf("failover: no node %s", name)
	}
	leaders, err := streamLeaders(ctx, natsURLs)
	if err != nil {
		return nil, "", err
	}
	var names []string
	for _, s := range servers {
		names = append(names, s.Name)
	}
	name, role, err := pickServer(r.cfg.Kill, leaders, names)
	if err != nil {
		return nil, "", err
	}
	i := slices.Index(names, name)
	return servers[i], role, nil
}

// pickServer picks the NATS server of names that kill targets, given the
// server leading each stream, and says what it leads: KillNATSLeader the
// leader of the lanes' stream, KillNATS another, the one leading the
// fewest streams (the first of them in names).
func pickServer(kill Target, leaders map[string]string, names []string) (name, role string, err error) {
	lead := leaders[lanesStream]
	if lead == "" {
		return "", "", fmt.Errorf("failover: stream %s has no leader to kill", lanesStream)
	}
	led := map[string][]string{} // the streams each server leads
	for stream, server := range leaders {
		led[server] = append(led[server], stream)
	}
	for _, n := range names {
		switch {
		case kill == KillNATSLeader && n == lead:
			name = n
		case kill == KillNATS && n != lead && (name == "" || len(led[n]) < len(led[name])):
			name = n
		}
	}
	if name == "" {
		return "", "", fmt.Errorf("failover: no NATS server of %v to kill for -kill %s: %s leads %s", names, kill, lead, lanesStream)
	}
	streams := led[name]
	slices.Sort(streams)
	if len(streams) == 0 {
		return name, "NATS server leading no stream", nil
	}
	return name, "NATS server leading " + strings.Join(streams, ", "), nil
}

// streamLeaders returns the server that leads each stream of the NATS
// cluster at urls, by its name.
func streamLeaders(ctx context.Context, urls string) (map[string]string, error) {
	nc, err := nats.Connect(urls, nats.Name("tenpin failover"))
	if err != nil {
		return nil, fmt.Errorf("failover: connect to NATS to find the leaders: %w", err)
	}
	defer nc.Close()
	js, err := nc.JetStream(nats.Context(ctx))
	if err != nil {
		return nil, fmt.Errorf("failover: JetStream: %w", err)
	}
	leaders := map[string]string{}
	for si := range js.StreamsInfo(nats.Context(ctx)) {
		if si.Cluster != nil {
			leaders[si.Config.Name] = si.Cluster.Leader
		}
	}
	if _, ok := leaders[lanesStream]; !ok {
		// The listing skips what it could not read: ask for the one the
		// run needs, to say why.
		si, err := js.StreamInfo(lanesStream, nats.Context(ctx))
		if err != nil {
			return nil, fmt.Errorf("failover: stream %s: %w", lanesStream, err)
		}
		if si.Cluster != nil {
			leaders[lanesStream] = si.Cluster.Leader
		}
	}
	return leaders, nil
}

func (r *run) lanesOn(node string) int {
	n := 0
	for _, l := range r.lanes {
		if l.node == node {
			n++
		}
	}
	return n
}

// loadAverage returns the system's load averages, or "" where it has no
// /proc/loadavg.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// createLane creates a lane on node i, given away so that its player
// hosts it, and open: its player joins with no invitation.
func (r *run) createLane(ctx context.Context, name string, i int) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	l, err := (&client.Client{URL: r.nodes[i].URL, HTTPClient: r.http}).Create(cctx, protocol.CreateLane{Name: name, GiveAway: true, Open: true})
	if err != nil {
		return "", fmt.Errorf("failover: create lane %q on %s: %w", name, r.nodes[i].Name, err)
	}
	return l.ID, nil
}
