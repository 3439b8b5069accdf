package main

import (
	"bytes"
	"context"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"
)

func TestDecode(t *testing.T) {
	// board is a board of the peers, whose up names no ball; tenpinBoard
	// one of tenpin's, which does.
	board := `{"type":"board","lane":"k3x9","name":"a \"seq\":9 name","seq":12,"phase":"playing","up":{"seat":1,"frame":3,"standing":7},"players":[],"spectators":3}`
	tenpinBoard := `{"type":"board","lane":"k3x9","name":"x","seq":12,"phase":"playing","up":{"seat":1,"frame":3,"ball":2,"standing":7},"players":[]}`
	finished := `{"type":"board","lane":"x","name":"y","seq":3,"phase":"finished","up":null,"players":[]}`
	push := `{"push":{"channel":"lane:k3x9","pub":{"data":` + board + `}}}`
	tests := []struct {
		proto, data string
		want        []msg
	}{
		{"tenpin", board, []msg{{kind: kindBoard, seq: 12, phase: "playing", up: 1, standing: 7, frame: 3, size: len(board)}}},
		{"tenpin", tenpinBoard, []msg{{kind: kindBoard, seq: 12, phase: "playing", up: 1, standing: 7, frame: 3, ball: 2, size: len(tenpinBoard)}}},
		{"tenpin", finished, []msg{{kind: kindBoard, seq: 3, phase: "finished", up: -1, size: len(finished)}}},
		{"tenpin", `{"type":"ack","ref":"7","seq":13}`, []msg{{kind: kindReply, id: 7, seq: 13}}},
		{"tenpin", `{"type":"welcome","ref":"2","seat":3,"name":"AAD","token":"t"}`, []msg{{kind: kindReply, id: 2, seat: 3}}},
		{"tenpin", `{"type":"error","code":"not_your_turn","message":"no","ref":"4"}`, []msg{{kind: kindRefusal, id: 4, text: "not_your_turn: no"}}},
		{"centrifuge", push + "\n" + `{"id":5,"rpc":{"data":{"seq":12}}}`,
			[]msg{{kind: kindBoard, seq: 12, phase: "playing", up: 1, standing: 7, frame: 3, size: len(push)}, {kind: kindReply, id: 5, seq: 12}}},
		{"centrifuge", `{}`, []msg{{kind: kindPing}}},
		{"centrifuge", `{"id":1,"connect":{"client":"c","version":"","ping":25,"pong":true}}`, []msg{{kind: kindReply, id: 1}}},
		{"centrifuge", `{"id":3,"rpc":{"data":{"seat":2}}}`, []msg{{kind: kindReply, id: 3, seat: 2}}},
		{"centrifuge", `{"id":9,"error":{"code":400,"message":"invalid_pins"}}`, []msg{{kind: kindRefusal, id: 9, text: "400: invalid_pins"}}},
	}
	for _, tt := range tests {
		var got []msg
		if err := protocols[tt.proto].decode([]byte(tt.data), func(m msg) { got = append(got, m) }); err != nil {
			t.Errorf("%s: decode(%s): %v", tt.proto, tt.data, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: decode(%s)\n got %+v\nwant %+v", tt.proto, tt.data, got, tt.want)
		}
	}
}

func TestDecodeRefusesJunk(t *testing.T) {
	for _, data := range []string{`{"type":"board","seq":1}`, `{"type":"nope"}`, `not json`} {
		if err := protocols["tenpin"].decode([]byte(data), func(msg) {}); err == nil {
			t.Errorf("tenpin: decode(%s) = nil error", data)
		}
	}
	if err := protocols["centrifuge"].decode([]byte(`{"push":{"channel":"x","join":{}}}`), func(msg) {}); err == nil {
		t.Error("centrifuge: a push that is no board decoded")
	}
}

func TestHistQuantiles(t *testing.T) {
	var h hist
	for i := 1; i <= 100_000; i++ {
		h.add(time.Duration(i) * time.Microsecond) // 1 µs to 100 ms, evenly
	}
	for _, q := range []float64{0.5, 0.99} {
		want := q * 100 // ms
		if got := h.quantile(q); math.Abs(got-want)/want > 0.02 {
			t.Errorf("quantile(%v) = %.3f ms, want %.3f ± 2%%", q, got, want)
		}
	}
	if got := h.summary().Max; got != 100 {
		t.Errorf("max = %v ms, want 100", got)
	}
}

func TestRunRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-proto", "mqtt"},
		{"-lanes", "0"},
		{"-players", "9"},
		{"-spectators", "-1"},
		{"-duration", "10s", "-ramp", "10s"},
		{"-think", "-1s"},
		{"-url", "http://127.0.0.1:38080"},
		{"extra"},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, &stdout, &stderr); !errors.Is(err, errUsage) {
			t.Errorf("run(%q) = %v, want %v", args, err, errUsage)
		}
		if stdout.Len() > 0 {
			t.Errorf("run(%q) printed %q", args, stdout.String())
		}
	}
}
