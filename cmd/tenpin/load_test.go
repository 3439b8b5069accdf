package main

import (
	"encoding/json"
	"strings"
	"testing"
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
