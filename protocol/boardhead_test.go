package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestBoardFieldOrder pins what DecodeBoardHead and BoardSeq rely on: a
// Board encodes "type" first, and "players" after the head's fields.
func TestBoardFieldOrder(t *testing.T) {
	b := Board{Type: TypeBoard, Lane: "l", Name: `a","players":[`, Seq: 7, Phase: PhasePlaying,
		Up: &Up{Seat: 1, Frame: 2, Ball: 1, Standing: 10}, Host: "PJS", Players: []Player{{Name: "PJS", Frames: []Frame{}}}}
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, boardPrefix) {
		t.Fatalf("a board does not start with %s: %s", boardPrefix, data)
	}
	players := bytes.LastIndex(data, playersKey)
	for _, key := range []string{`"seq":`, `"phase":`, `"up":`, `"host":`} {
		if i := bytes.Index(data, []byte(key)); i < 0 || i > players {
			t.Errorf("%s comes after the players in %s", key, data)
		}
	}
	var h BoardHead
	var buf []byte
	if !DecodeBoardHead(data, &buf, &h) || h.Seq != 7 || h.Phase != PhasePlaying || h.Up == nil || !reflect.DeepEqual(*h.Up, *b.Up) || h.Host != "PJS" {
		t.Errorf("DecodeBoardHead(%s) = %+v", data, h)
	}
	if seq, ok := BoardSeq(data); !ok || seq != 7 {
		t.Errorf("BoardSeq = %d, %v; want 7", seq, ok)
	}
}

func TestDecodeBoardHead(t *testing.T) {
	tests := []struct {
		in    string
		ok    bool
		seq   uint64
		phase Phase
		up    int // -1: nobody
	}{
		{`{"type":"board","lane":"x","name":"n","seq":7,"phase":"playing","up":{"seat":2,"standing":10},"players":[{"name":"AAA"}]}`, true, 7, PhasePlaying, 2},
		{`{"type":"board","lane":"x","name":"a\",\"players\":[","seq":3,"phase":"waiting","up":null,"players":[]}`, true, 3, PhaseWaiting, -1},
		{`{"type":"board","lane":"x","seq":4}`, false, 0, "", -1},
		{`{"type":"ack","ref":"1","seq":3,"players":[]}`, false, 0, "", -1},
		{`{"type":"board","seq":,"players":[]}`, false, 0, "", -1},
	}
	var buf []byte
	for _, tt := range tests {
		var h BoardHead
		ok := DecodeBoardHead([]byte(tt.in), &buf, &h)
		up := -1
		if h.Up != nil {
			up = h.Up.Seat
		}
		if ok != tt.ok || ok && (h.Seq != tt.seq || h.Phase != tt.phase || up != tt.up) {
			t.Errorf("DecodeBoardHead(%s) = %v, %+v; want %v, seq %d, phase %q, up %d", tt.in, ok, h, tt.ok, tt.seq, tt.phase, tt.up)
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
		seq, ok := BoardSeq([]byte(tt.in))
		if seq != tt.seq || ok != tt.want {
			t.Errorf("BoardSeq(%s) = %d, %v; want %d, %v", tt.in, seq, ok, tt.seq, tt.want)
		}
	}
}

// TestDecodeBoardPlayer pins the partial decoding of a player against the
// full decoding of the board, for every seat of a golden board.
func TestDecodeBoardPlayer(t *testing.T) {
	for _, name := range []string{"board-playing", "board-finished", "board-waiting"} {
		data, err := os.ReadFile(filepath.Join("testdata", name+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.TrimSpace(data)
		m, err := DecodeMessage(data)
		if err != nil {
			t.Fatal(err)
		}
		b := m.(*Board)
		if !IsBoard(data) {
			t.Errorf("IsBoard(%s) = false", name)
		}
		for seat, want := range b.Players {
			p := Player{Name: "stale", Away: true} // what a reused Player held before
			if err := DecodeBoardPlayer(data, seat, &p); err != nil || !reflect.DeepEqual(p, want) {
				t.Errorf("DecodeBoardPlayer(%s, %d) = %+v, %v; want %+v", name, seat, p, err, want)
			}
		}
		for _, seat := range []int{-1, len(b.Players)} {
			var p Player
			if err := DecodeBoardPlayer(data, seat, &p); !errors.Is(err, ErrUndecodable) {
				t.Errorf("DecodeBoardPlayer(%s, %d) error = %v, want one that wraps ErrUndecodable", name, seat, err)
			}
		}
	}
	for _, in := range []string{
		`{"type":"ack","ref":"1","seq":3}`,
		`{"type":"board","lane":"x","seq":4}`,
		`{"type":"board","lane":"x","seq":4,"players":{}}`,
		`{"type":"board","lane":"x","seq":4,"players":[{"name":"AAA","color":"red"}]}`,
		`{"type":"board","lane":"x","seq":4,"players":[{"name":"AAA","total":"9"}]}`,
		`{"type":"board","lane":"x","seq":4,"players":[{"name":"AAA","name":"BBB"}]}`,
		`{"type":"board","lane":"x","seq":4,"players":[{"name":"AAA"`,
	} {
		var p Player
		if err := DecodeBoardPlayer([]byte(in), 0, &p); !errors.Is(err, ErrUndecodable) {
			t.Errorf("DecodeBoardPlayer(%s, 0) = %+v, %v; want an error that wraps ErrUndecodable", in, p, err)
		}
	}
	if IsBoard([]byte(`{"type":"ack","ref":"1","seq":3}`)) || IsBoard([]byte(` {"type":"board"}`)) {
		t.Error("IsBoard takes an ack, or a board not as the server writes it, for a board")
	}
}
