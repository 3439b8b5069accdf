package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/cmd/tenpin/internal/loadgen"
	"github.com/tenpin/tenpin/lane/golden"
)

// TestLoadRun plays a short load run against a real server: it checks
// correctness, not speed. Every board in order, every total right, every
// connection clean. Ten lanes: under the race detector, on two busy
// cores, twenty lanes of four made about 60 rolls each in the 5 seconds,
// short of a game, now and then.
func TestLoadRun(t *testing.T) {
	srv := serveForTest(t, "-create-burst", "100", "-debug-addr", "127.0.0.1:0") // every lane from one address
	ws := "ws" + strings.TrimPrefix(srv.url, "http")
	stdout, stderr, code := runCmd(t, "", "load", "-url", ws, "-lanes", "10", "-players", "4", "-spectators", "6",
		"-duration", "5s", "-think", "10ms", "-ramp", "500ms", "-json", "-debug-url", srv.debug)
	if code != 0 {
		t.Fatalf("load exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var rep loadReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	t.Logf("rolls %d, boards %d, games %d, ack p99 %.1fms, fan-out p99 %.1fms", rep.Rolls, rep.Boards, rep.Games, rep.Ack.P99, rep.Fanout.P99)
	if rep.Errors != 0 || rep.ConnectFailures != 0 || rep.Connections != 100 {
		t.Errorf("errors %d, connect failures %d, connections %d; want 0, 0, 100: %v", rep.Errors, rep.ConnectFailures, rep.Connections, rep.ErrorSamples)
	}
	if rep.Games == 0 || rep.Rolls == 0 || rep.Fanout.Count == 0 || rep.Ack.Count == 0 {
		t.Errorf("the run played nothing: %+v", rep)
	}
	if rep.ServerDuring["connections"] != 100 || rep.ServerDuring["rss_bytes"] == 0 {
		t.Errorf("the server's counters during the run, read from its debug listener: %v; want 100 connections and its RSS", rep.ServerDuring)
	}
	if err := srv.stop(); err != nil {
		t.Errorf("server: %v", err)
	}
}

func TestLoadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"load", "-url", "http://x"},
		{"load", "-players", "9"},
		{"load", "-lanes", "0"},
		{"load", "-games", "-1"},
		{"load", "-think", "-1s"},
		{"load", "-ramp", "-1s"},
		{"load", "-sources", "300"},
	} {
		if _, stderr, code := runCmd(t, "", args...); code != 1 || !strings.Contains(stderr, "load:") {
			t.Errorf("tenpin %v: status %d, %q; want 1 and the reason", args, code, stderr)
		}
	}
}

// TestLoadReportText: the report tenpin load prints, the pace its lanes
// kept included.
func TestLoadReportText(t *testing.T) {
	rep := loadReport{
		Config:  loadConfig{URL: "ws://127.0.0.1:18080", Lanes: 1900, Players: 4, Spectators: 6, Think: 8 * time.Second},
		Seconds: 120, Connections: 19000, Connect: loadgen.Summary{P50: 0.4, P99: 3.2, Max: 9.1},
		Rolls: 27360, RollsPerSec: 228, Games: 310, Boards: 273600, BoardsPerSec: 2280, BytesPerSec: 2.9e6,
		Ack:          loadgen.Summary{P50: 0.8, P90: 1.9, P99: 6.3, Max: 20.5, Count: 27360},
		Fanout:       loadgen.Summary{P50: 0.9, P90: 2.1, P99: 7.0, Max: 22.4, Count: 27360},
		ServerDuring: map[string]float64{"connections": 19000, "goroutines": 19400, "heap_bytes": 200 << 20, "rss_bytes": 400 << 20},
	}
	var b bytes.Buffer
	rep.print(&b)
	golden.Check(t, "load-report.golden", b.Bytes())
}
