package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tenpin/tenpin/lane/golden"
)

// serverMessages are one of each message the server sends, with every
// field that can be set set somewhere: each is pinned by its golden file.
func serverMessages() []struct {
	name string
	msg  Message
} {
	score := func(n int) *int { return &n }
	avg := func(x float64) *float64 { return &x }
	return []struct {
		name string
		msg  Message
	}{
		{"welcome", &Welcome{Type: TypeWelcome, Ref: "1", Seat: 0, Name: "PJS", Token: "9b2c0e8a-0f4d-4c1e-9a57-0e6f3c2d1b4a"}},
		{"welcome-resumed", &Welcome{Type: TypeWelcome, Seat: 2, Name: "BOB", Token: "0c8d6b8e-7a55-4b5e-8d0a-2b1c9d3e4f50"}},
		{"board-empty", &Board{Type: TypeBoard, Lane: "k3x9", Name: "Friday night", Seq: 1, Phase: PhaseWaiting, Players: []Player{}, Spectators: 1}},
		{"board-waiting", &Board{Type: TypeBoard, Lane: "k3x9", Name: `"Quotes" & <tags>`, Seq: 4294967298, Phase: PhaseWaiting, Host: "PJS",
			Players: []Player{{Name: "PJS", Connected: true, Frames: []Frame{}}, {Name: "BOB", Frames: []Frame{}}}}},
		{"board-playing", &Board{Type: TypeBoard, Lane: "k3x9", Name: "Friday night", Seq: 12, Phase: PhasePlaying,
			Up: &Up{Seat: 1, Frame: 3, Ball: 2, Standing: 3}, Host: "PJS", Spectators: 3,
			Players: []Player{
				{Name: "PJS", Connected: true, Total: 47, Frames: []Frame{
					{Marks: "X", Rolls: []int{10}, Score: score(20)},
					{Marks: "8|/", Rolls: []int{8, 2}, Score: score(38), Corrected: true},
					{Marks: "8|1", Rolls: []int{8, 1}, Score: score(47)},
				}},
				{Name: "BOB", Connected: true, Total: 9, Frames: []Frame{
					{Marks: "-|9", Rolls: []int{0, 9}, Score: score(9)},
					{Marks: "X", Rolls: []int{10}},
					{Marks: "7", Rolls: []int{7}},
				}},
				{Name: "ANN", Away: true, Frames: []Frame{{Marks: "5|4", Rolls: []int{5, 4}, Score: score(9)}, {Marks: "-|-", Rolls: []int{0, 0}, Score: score(9)}}, Total: 9},
				{Name: "DAN", Left: true, Frames: []Frame{{Marks: "1|2", Rolls: []int{1, 2}, Score: score(3)}}, Total: 3},
			},
			Stats: []PlayerStats{
				{Name: "PJS", Strikes: 1, StrikeChances: 3, Spares: 1, SpareChances: 2, FirstBallAvg: avg(8.67)},
				{Name: "BOB", Strikes: 1, StrikeChances: 3, SpareChances: 1, Opens: 1, FirstBallAvg: avg(5.67)},
				{Name: "ANN", StrikeChances: 2, SpareChances: 2, Opens: 2, FirstBallAvg: avg(2.5)},
				{Name: "DAN", StrikeChances: 1, SpareChances: 1, Opens: 1, FirstBallAvg: avg(1)},
			}}},
		{"board-finished", &Board{Type: TypeBoard, Lane: "k3x9", Name: "Friday night", Seq: 40, Phase: PhaseFinished, Host: "PJS",
			Players: []Player{{Name: "PJS", Connected: true, Total: 300, Frames: []Frame{
				{Marks: "X", Rolls: []int{10}, Score: score(30)}, {Marks: "X", Rolls: []int{10}, Score: score(60)},
				{Marks: "X", Rolls: []int{10}, Score: score(90)}, {Marks: "X", Rolls: []int{10}, Score: score(120)},
				{Marks: "X", Rolls: []int{10}, Score: score(150)}, {Marks: "X", Rolls: []int{10}, Score: score(180)},
				{Marks: "X", Rolls: []int{10}, Score: score(210)}, {Marks: "X", Rolls: []int{10}, Score: score(240)},
				{Marks: "X", Rolls: []int{10}, Score: score(270)}, {Marks: "X|X|X", Rolls: []int{10, 10, 10}, Score: score(300)},
			}}},
			Series: []SeriesPlayer{{Name: "PJS", Games: 2, Total: 451}},
			Stats: []PlayerStats{{Name: "PJS", Games: 2, Pins: 451, Average: avg(225.5), High: 300, Strikes: 16, StrikeChances: 20,
				Spares: 3, SpareChances: 4, Opens: 1, FirstBallAvg: avg(9.35), Splits: 1, Fouls: 1, CleanGames: 1}}}},
		{"ack", &Ack{Type: TypeAck, Ref: "7", Seq: 13}},
		{"error", &Error{Type: TypeError, Code: CodeNotYourTurn, Message: "it is ABC's turn, not PJS's", Ref: "7"}},
		{"notice", &Error{Type: TypeError, Code: CodeServerRestarting, Message: "the server is restarting: reconnect and resume"}},
	}
}

// TestServerMessagesGolden pins every server message's encoding (as the
// server makes it, with encoding/json) and its decoding by DecodeMessage.
func TestServerMessagesGolden(t *testing.T) {
	for _, tt := range serverMessages() {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden.Check(t, tt.name+".golden", got)
			path := filepath.Join("testdata", tt.name+".golden")
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := DecodeMessage(bytes.TrimSpace(want))
			if err != nil || !reflect.DeepEqual(m, tt.msg) {
				t.Errorf("DecodeMessage(%s) = %+v, %v; want %+v", path, m, err, tt.msg)
			}
		})
	}
}

func TestDecodeMessage(t *testing.T) {
	tests := []struct {
		in   string
		want Message // nil: refused
	}{
		{`{"type":"ack","ref":"1","seq":2}`, &Ack{Type: TypeAck, Ref: "1", Seq: 2}},
		{`{"seq":2,"ref":"1","type":"ack"}`, &Ack{Type: TypeAck, Ref: "1", Seq: 2}},      // type last: found the long way
		{`{"type":"\u0061ck","ref":"1","seq":2}`, &Ack{Type: TypeAck, Ref: "1", Seq: 2}}, // escaped
		{` {"type":"error","code":"lane_closed","message":"gone"} `, &Error{Type: TypeError, Code: CodeLaneClosed, Message: "gone"}},
		{`{"type":"board","lane":"l","seq":3,"players":[],"up":null}`, &Board{Type: TypeBoard, Lane: "l", Seq: 3, Players: []Player{}}},

		{``, nil},
		{`null`, nil},
		{`[]`, nil},
		{`{}`, nil},
		{`{"type":"dance"}`, nil},
		{`{"type":"join","name":"PJS"}`, nil}, // a client's message
		{`{"type":7}`, nil},
		{`{"type":"ack","ref":"1","seq":2} x`, nil},
		{`{"type":"ack","ref":"1","seq":2}{}`, nil},
		{`{"type":"ack","ref":"1","seq":2,"extra":1}`, nil},
		{`{"type":"ack","ref":"1","seq":"2"}`, nil},
		{`{"type":"ack","ref":"1","seq":2.5}`, nil},
		{`{"type":"ack","ref":"1","seq":-1}`, nil},
		{`{"TYPE":"ack","ref":"1","seq":2}`, nil},
		{`{"type":"ack","REF":"1","seq":2}`, nil},
		{"{\"type\":\"welcome\",\"seat\":0,\"name\":\"PJS\",\"to\u212Aen\":\"t\"}", nil},
		{`{"type":"ack","ref":"1","ref":"2","seq":2}`, nil},
		{`{"type":"ack","type":"board","ref":"1","seq":2}`, nil},
		{`{"seq":2,"type":"ack","type":"board"}`, nil},
		{`{"type":"ack","ref":"1","seq":-0}`, nil},
		{`{"type":"welcome","seat":-0,"name":"PJS","token":"t"}`, nil},
		{`{"type":"board","seq":1,"players":[{"name":"PJS","connected":true,"frames":[{"marks":"-","rolls":[-0],"score":null}],"total":0}]}`, nil},
		{"{\"type\":\"error\",\"code\":\"internal\",\"message\":\"\xff\"}", nil},
	}
	for _, tt := range tests {
		m, err := DecodeMessage([]byte(tt.in))
		switch {
		case tt.want == nil && (err == nil || !errors.Is(err, ErrUndecodable)):
			t.Errorf("DecodeMessage(%s) = %+v, %v; want an error that wraps ErrUndecodable", tt.in, m, err)
		case tt.want != nil && (err != nil || !reflect.DeepEqual(m, tt.want)):
			t.Errorf("DecodeMessage(%s) = %+v, %v; want %+v", tt.in, m, err, tt.want)
		}
	}
}

func TestDecodeMessageSaysWhy(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"type":"ack","ref":"1","seq":"2"}`, `protocol: undecodable server message: "seq" must be a whole number, not a JSON string`},
		{`{"type":"ack","ref":"1","seq":2,"extra":1}`, `protocol: undecodable server message: unknown field "extra"`},
		{`{"type":"ack","ref":"1","ref":"2","seq":2}`, `protocol: undecodable server message: "ref" is given twice`},
		{`{"type":"board","players":[{"name":"PJS","total":-0}]}`, `protocol: undecodable server message: "/players/0/total" is -0: zero is written 0`},
		{`{"type":"board","players":[{"name":"PJS","total":"0"}]}`, `protocol: undecodable server message: "/players/0/total" must be a whole number, not a JSON string`},
		{`{"type":"dance"}`, `protocol: undecodable server message: unknown type "dance"`},
		{`{"seq":1}`, `protocol: undecodable server message: no "type"`},
	}
	for _, tt := range tests {
		if _, err := DecodeMessage([]byte(tt.in)); err == nil || err.Error() != tt.want {
			t.Errorf("DecodeMessage(%s) error = %v, want %q", tt.in, err, tt.want)
		}
	}
}

// FuzzDecodeMessage: no input panics, and a message DecodeMessage accepts,
// encoded again as the server encodes, decodes again to a message that
// encodes the same: what was accepted meant exactly one message.
func FuzzDecodeMessage(f *testing.F) {
	for _, tt := range serverMessages() {
		data, _ := json.Marshal(tt.msg)
		f.Add(data)
	}
	for _, s := range []string{
		`{"seq":2,"ref":"1","type":"ack"}`, `{"type":"ack","ref":"1","seq":-0}`, `{"type":"ack","ref":"1","ref":"2"}`,
		`{"TYPE":"ack"}`, `{"type":"board","players":[{"frames":[{"rolls":[1e2]}]}]}`, `{"type":"error","code":"x","message":"\u2028"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeMessage(data)
		if err != nil {
			if m != nil || !errors.Is(err, ErrUndecodable) {
				t.Fatalf("DecodeMessage(%q) = %v, %v; want nil and an error that wraps ErrUndecodable", data, m, err)
			}
			return
		}
		once, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("DecodeMessage(%q) = %+v, which does not encode: %v", data, m, err)
		}
		m2, err := DecodeMessage(once)
		if err != nil {
			t.Fatalf("DecodeMessage(%q) = %+v, encoded %s, which does not decode: %v", data, m, once, err)
		}
		if reflect.TypeOf(m2) != reflect.TypeOf(m) {
			t.Fatalf("DecodeMessage(%q) is a %T, encoded and decoded again a %T", data, m, m2)
		}
		if twice, _ := json.Marshal(m2); !bytes.Equal(once, twice) {
			t.Fatalf("DecodeMessage(%q) encodes as\n%s\nthen as\n%s", data, once, twice)
		}
	})
}
