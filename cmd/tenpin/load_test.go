package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tenpin/tenpin/protocol"
)

// TestLoadRun plays a short load run against a real server: it checks
// correctness, not speed. Every board in order, every total right, every
// connection clean.
func TestLoadRun(t *testing.T) {
	url, stop := startServer(t)
	ws := "ws" + strings.TrimPrefix(url, "http")
	stdout, stderr, code := runCmd(t, "", "load", "-url", ws, "-lanes", "20", "-players", "4", "-spectators", "6",
		"-duration", "5s", "-think", "10ms", "-ramp", "500ms", "-json")
	if code != 0 {
		t.Fatalf("load exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var rep loadReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	t.Logf("rolls %d, boards %d, games %d, ack p99 %.1fms, fan-out p99 %.1fms", rep.Rolls, rep.Boards, rep.Games, rep.Ack.P99, rep.Fanout.P99)
	if rep.Errors != 0 || rep.ConnectFailures != 0 || rep.Connections != 200 {
		t.Errorf("errors %d, connect failures %d, connections %d; want 0, 0, 200: %v", rep.Errors, rep.ConnectFailures, rep.Connections, rep.ErrorSamples)
	}
	if rep.Games == 0 || rep.Rolls == 0 || rep.Fanout.Count == 0 || rep.Ack.Count == 0 {
		t.Errorf("the run played nothing: %+v", rep)
	}
	if err := stop(); err != nil {
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

func TestDecodeBoardHead(t *testing.T) {
	tests := []struct {
		in    string
		ok    bool
		seq   uint64
		phase protocol.Phase
		up    int // -1: nobody
	}{
		{`{"type":"board","lane":"x","name":"n","seq":7,"phase":"playing","up":{"seat":2,"standing":10},"players":[{"name":"AAA"}]}`, true, 7, protocol.PhasePlaying, 2},
		{`{"type":"board","lane":"x","name":"a\",\"players\":[","seq":3,"phase":"waiting","up":null,"players":[]}`, true, 3, protocol.PhaseWaiting, -1},
		{`{"type":"board","lane":"x","seq":4}`, false, 0, "", -1},
		{`{"type":"ack","ref":"1","seq":3,"players":[]}`, false, 0, "", -1},
		{`{"type":"board","seq":,"players":[]}`, false, 0, "", -1},
	}
	var buf []byte
	for _, tt := range tests {
		var m message
		ok := decodeBoardHead([]byte(tt.in), &buf, &m)
		up := -1
		if m.Up != nil {
			up = m.Up.Seat
		}
		if ok != tt.ok || ok && (m.Seq != tt.seq || m.Phase != tt.phase || up != tt.up || m.Players != nil) {
			t.Errorf("decodeBoardHead(%s) = %v, seq %d, phase %q, up %d, players %v; want %v, %d, %q, %d and no players",
				tt.in, ok, m.Seq, m.Phase, up, m.Players, tt.ok, tt.seq, tt.phase, tt.up)
		}
	}
}

func TestBoardSeq(t *testing.T) {
	tests := []struct {
		in   string
		seq  uint64
		want bool
	}{
		{`{"type":"board","lane":"x","name":"a\",\"seq\":9","seq":12,"phase":"waiting"}`, 12, true},
		{`{"type":"board","lane":"x","name":"n","seq":0}`, 0, true},
		{`{"type":"ack","ref":"1","seq":3}`, 0, false},
		{`{"type":"board","seq":}`, 0, false},
	}
	for _, tt := range tests {
		seq, ok := boardSeq([]byte(tt.in))
		if seq != tt.seq || ok != tt.want {
			t.Errorf("boardSeq(%s) = %d, %v; want %d, %v", tt.in, seq, ok, tt.seq, tt.want)
		}
	}
}
