package failover

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/golden"
	"github.com/tenpin/tenpin/lobby/natsstore"
)

// at returns a time s seconds after the kill of the tests' runs.
func at(s float64) time.Time { return kill.Add(time.Duration(s * float64(time.Second))) }

var kill = time.Date(2026, 11, 27, 22, 0, 0, 0, time.UTC)

func TestLaneFigures(t *testing.T) {
	end := at(20)
	tests := []struct {
		name  string
		rolls []roll
		want  Lane
	}{
		{"a lane that went on", []roll{
			{sent: at(-0.2), answered: at(-0.19), acked: true},
			{sent: at(-0.1), answered: at(-0.09), acked: true},
			{sent: at(0.05), answered: at(0.06), acked: true},
			{sent: at(19.95), answered: at(19.96), acked: true},
		}, Lane{Acked: true, NextRoll: 60 * time.Millisecond, LongestGap: 19900 * time.Millisecond, AckedBefore: 2, AckedAfter: 2}},
		{"a lane that stalled, refused meanwhile", []roll{
			{sent: at(-0.1), answered: at(-0.05), acked: true},
			{sent: at(0.1), answered: at(2), acked: false},
			{sent: at(2.1), answered: at(6.5), acked: true},
			{sent: at(6.6), answered: at(6.7), acked: true},
			{sent: at(19.9), answered: at(19.95), acked: true},
		}, Lane{Acked: true, NextRoll: 6500 * time.Millisecond, LongestGap: 13250 * time.Millisecond, AckedBefore: 1, AckedAfter: 3, Failed: 1}},
		{"a roll sent before the kill, acked after, is no next roll", []roll{
			{sent: at(-0.05), answered: at(0.5), acked: true},
			{sent: at(0.6), answered: at(0.7), acked: true},
			{sent: at(19.9), answered: at(19.95), acked: true},
		}, Lane{Acked: true, NextRoll: 700 * time.Millisecond, LongestGap: 19250 * time.Millisecond, AckedAfter: 3}},
		{"a lane that never rolled again stalls to the end", []roll{
			{sent: at(-1), answered: at(-0.9), acked: true},
			{sent: at(0.1), answered: at(15), acked: false},
		}, Lane{LongestGap: 20900 * time.Millisecond, AckedBefore: 1, Failed: 1}},
		{"no roll at all", nil, Lane{LongestGap: 20 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := laneFigures(tt.rolls, kill, end); got != tt.want {
				t.Errorf("laneFigures = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestLobbyGap(t *testing.T) {
	seen := func(s float64, ids ...string) poll {
		p := poll{at: at(s), ok: true, lanes: map[string]bool{}}
		for _, id := range ids {
			p.lanes[id] = true
		}
		return p
	}
	failed := func(s float64) poll { return poll{at: at(s)} }
	end := at(10)
	tests := []struct {
		name  string
		polls []poll
		want  time.Duration
	}{
		{"always listed", []poll{seen(-0.1, "a"), seen(0.1, "a"), seen(0.2, "a")}, 0},
		{"missing after the kill, back", []poll{seen(0.1, "a"), seen(0.2), seen(0.3), seen(1.2, "a")}, time.Second},
		{"a failed reading is no absence", []poll{seen(0.1, "a"), failed(0.2), failed(0.3), seen(0.4, "a")}, 0},
		{"missing to the end", []poll{seen(0.1, "a"), seen(4)}, 6 * time.Second},
		{"an absence over before the kill does not count", []poll{seen(-2), seen(-1, "a"), seen(0.1, "a")}, 0},
		{"one across the kill counts whole", []poll{seen(-1), seen(0.5, "a")}, 1500 * time.Millisecond},
		{"the longest of two", []poll{seen(1), seen(1.5, "a"), seen(2), seen(4, "a")}, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lobbyGap(tt.polls, "a", kill, end); got != tt.want {
				t.Errorf("lobbyGap = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestQuantiles(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		var ds []time.Duration
		for _, n := range ns {
			ds = append(ds, time.Duration(n)*time.Millisecond)
		}
		return ds
	}
	tests := []struct {
		in   []time.Duration
		want Quantiles
	}{
		{nil, Quantiles{}},
		{ms(7), Quantiles{N: 1, P50: 7 * time.Millisecond, P99: 7 * time.Millisecond, Max: 7 * time.Millisecond}},
		{ms(40, 10, 30, 20), Quantiles{N: 4, P50: 20 * time.Millisecond, P99: 40 * time.Millisecond, Max: 40 * time.Millisecond}},
		{ms(5, 1, 2, 3, 4), Quantiles{N: 5, P50: 3 * time.Millisecond, P99: 5 * time.Millisecond, Max: 5 * time.Millisecond}},
	}
	for _, tt := range tests {
		if got := quantiles(tt.in); got != tt.want {
			t.Errorf("quantiles(%v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestPrint pins the text report of a fixed run: tenpin failover's
// output, which OPERATING.md quotes.
func TestPrint(t *testing.T) {
	s := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	res := Result{
		Topology: "embedded NATS cluster", Lanes: 4, Every: 100 * time.Millisecond,
		Warmup: 10 * time.Second, Measure: 20 * time.Second,
		Killed: "n1", Role: "tenpin node running 2 of 4 lanes", Load: "2.10 1.95 1.80",
		PerLane: []Lane{
			{N: 1, ID: "aaaa", Node: "n1", Acked: true, NextRoll: s(4.213), LongestGap: s(4.3), AckedBefore: 98, AckedAfter: 150, Failed: 1},
			{N: 2, ID: "bbbb", Node: "n2", Acked: true, NextRoll: s(0.061), LongestGap: s(0.3), AckedBefore: 97, AckedAfter: 190},
			{N: 3, ID: "cccc", Node: "n3", Acked: true, NextRoll: s(0.092), LongestGap: s(0.31), AckedBefore: 98, AckedAfter: 191},
			{N: 4, ID: "dddd", Node: "n1", LongestGap: s(20.1), AckedBefore: 96, Failed: 3},
		},
		NextRoll:    Quantiles{N: 3, P50: s(0.092), P99: s(4.213), Max: s(4.213)},
		StalledNext: 2, StalledGap: 2, LongestGap: s(20.1),
		Disconnects: []Disconnect{
			{Node: "n3", Lane: 1, Client: "watcher", After: s(0.16), Why: "notice server_restarting, closed 1001 StatusGoingAway"},
			{Node: "n3", Lane: 4, Client: "watcher", After: s(0.161), Why: "notice server_restarting, closed 1001 StatusGoingAway"},
			{Node: "n2", Lane: 1, Client: "watcher", After: s(0.06), Why: "notice server_restarting, closed 1001 StatusGoingAway"},
			{Node: "n2", Lane: 4, Client: "watcher", After: s(0.07), Why: "notice server_restarting, closed 1001 StatusGoingAway"},
			{Node: "n2", Lane: 1, Client: "watcher", After: s(2.5), Why: "connection lost"},
		},
		DeadNode: 4,
		Lobby:    LobbyGap{Polls: 400, Failed: 2, Longest: s(0.3), Lane: 4, Node: "n3"},
	}
	var buf bytes.Buffer
	Print(&buf, res)
	golden.Check(t, "report.golden", buf.Bytes())
}

func TestPickServer(t *testing.T) {
	names := []string{"s1", "s2", "s3"}
	tests := []struct {
		name     string
		kill     Target
		leaders  map[string]string
		want     string
		wantRole string
		wantErr  bool
	}{
		{"the lanes' leader", KillNATSLeader, map[string]string{"TENPIN_LANES": "s2", "KV_TENPIN_KEPT": "s1"},
			"s2", "NATS server leading TENPIN_LANES", false},
		{"the leader, with what else it leads", KillNATSLeader, map[string]string{"TENPIN_LANES": "s3", "KV_B": "s3", "KV_A": "s3"},
			"s3", "NATS server leading KV_A, KV_B, TENPIN_LANES", false},
		{"one leading nothing", KillNATS, map[string]string{"TENPIN_LANES": "s1", "KV_TENPIN_KEPT": "s2"},
			"s3", "NATS server leading no stream", false},
		{"the one leading the fewest", KillNATS, map[string]string{"TENPIN_LANES": "s1", "KV_A": "s2", "KV_B": "s2", "KV_C": "s3"},
			"s3", "NATS server leading KV_C", false},
		{"never the lanes' leader, however little it leads", KillNATS, map[string]string{"TENPIN_LANES": "s1", "KV_A": "s2", "KV_B": "s3"},
			"s2", "NATS server leading KV_A", false},
		{"no leader of the lanes", KillNATSLeader, map[string]string{"KV_A": "s1"}, "", "", true},
		{"a leader that is none of the run's", KillNATSLeader, map[string]string{"TENPIN_LANES": "s9"}, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, role, err := pickServer(tt.kill, tt.leaders, names)
			if (err != nil) != tt.wantErr || got != tt.want || role != tt.wantRole {
				t.Errorf("pickServer = %q, %q, %v; want %q, %q, error %v", got, role, err, tt.want, tt.wantRole, tt.wantErr)
			}
		})
	}
}

// TestCheck: a run the nodes could not make is refused before any
// process starts, saying what is wrong.
func TestCheck(t *testing.T) {
	ok := Config{Lanes: 12, Every: 100 * time.Millisecond, Warmup: 10 * time.Second, Measure: 20 * time.Second, Kill: KillNode}
	for _, tc := range []struct {
		name   string
		change func(*Config)
		want   string // in the error; "" for none
	}{
		{"the defaults", func(*Config) {}, ""},
		{"the most shards", func(c *Config) { c.Shards = natsstore.MaxShards }, ""},
		{"shards below 0", func(c *Config) { c.Shards = -1 }, "-shards -1"},
		{"more shards than a store takes", func(c *Config) { c.Shards = natsstore.MaxShards + 1 }, fmt.Sprintf("-shards %d", natsstore.MaxShards+1)},
		{"no lane", func(c *Config) { c.Lanes = 0 }, "0 lanes"},
		{"a node not of the run", func(c *Config) { c.Node = "n4" }, `node "n4"`},
		{"a NATS server killed without one of the run's own", func(c *Config) { c.Kill = KillNATS }, "-natscluster"},
	} {
		cfg := ok
		tc.change(&cfg)
		err := cfg.Check()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Check() = %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}
