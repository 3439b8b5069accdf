package protocol

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

func TestDecode(t *testing.T) {
	seven := 7
	tests := []struct {
		in   string
		want Request
		code Code   // "" when accepted
		ref  string // the id a refusal answers to
	}{
		{in: `{"type":"join","name":"PJS"}`, want: Request{Type: TypeJoin, Name: "PJS"}},
		{in: `{"type":"join","name":"pjs","id":"1"}`, want: Request{Type: TypeJoin, Name: "pjs", ID: "1"}},
		{in: `{"type":"resume","token":"abc"}`, want: Request{Type: TypeResume, Token: "abc"}},
		{in: `{"type":"start"}`, want: Request{Type: TypeStart}},
		{in: ` {"type":"roll","pins":7,"frame":3,"ball":2} `, want: Request{Type: TypeRoll, Pins: &seven, Frame: ptr(3), Ball: ptr(2)}},
		{in: `{"type":"roll","pins":7,"frame":3,"ball":1,"name":"bob"}`, want: Request{Type: TypeRoll, Pins: &seven, Frame: ptr(3), Ball: ptr(1), Name: "bob"}},
		{in: `{"type":"leave","id":""}`, want: Request{Type: TypeLeave}},
		{in: `{"type":"rematch"}`, want: Request{Type: TypeRematch}},
		{in: `{"type":"roll","pins":-1,"frame":1,"ball":1}`, want: Request{Type: TypeRoll, Pins: ptr(-1), Frame: ptr(1), Ball: ptr(1)}},   // the lane refuses the count
		{in: `{"type":"roll","pins":11,"frame":10,"ball":3}`, want: Request{Type: TypeRoll, Pins: ptr(11), Frame: ptr(10), Ball: ptr(3)}}, // and a ball that is not up

		// A frame or ball no game has, refused here: a lane computes with them.
		{in: `{"type":"roll","pins":1,"frame":0,"ball":1}`, code: CodeBadMessage},
		{in: `{"type":"roll","pins":1,"frame":11,"ball":1}`, code: CodeBadMessage},
		{in: `{"type":"roll","pins":1,"frame":1,"ball":0}`, code: CodeBadMessage},
		{in: `{"type":"correct","pins":1,"frame":2,"ball":4}`, code: CodeBadMessage},
		{in: `{"type":"correct","pins":1,"frame":2,"ball":9223372036854775807}`, code: CodeBadMessage},
		{in: `{"type":"correct","pins":1,"frame":-9223372036854775808,"ball":1}`, code: CodeBadMessage},

		{in: ``, code: CodeBadMessage},
		{in: `null`, code: CodeBadMessage},
		{in: `[]`, code: CodeBadMessage},
		{in: `"roll"`, code: CodeBadMessage},
		{in: `{"type":"roll","pins":7`, code: CodeBadMessage},
		{in: `{"type":"roll","pins":7}{}`, code: CodeBadMessage},
		{in: `{"type":"roll","pins":7} x`, code: CodeBadMessage},
		{in: `{"type":"roll","pins":"7","id":"a"}`, code: CodeBadMessage, ref: "a"},
		{in: `{"type":"roll","pins":7.5,"id":"b"}`, code: CodeBadMessage, ref: "b"},
		{in: `{"type":"roll","pins":1e400}`, code: CodeBadMessage},
		{in: `{"type":"roll","pins":null,"id":"c"}`, code: CodeBadMessage, ref: "c"},
		{in: `{"type":"roll","id":"d"}`, code: CodeBadMessage, ref: "d"},
		{in: `{"type":"roll","pins":7,"id":"e"}`, code: CodeBadMessage, ref: "e"},
		{in: `{"type":"roll","pins":7,"frame":1,"id":"e"}`, code: CodeBadMessage, ref: "e"},
		{in: `{"type":"roll","pins":7,"ball":1,"id":"e"}`, code: CodeBadMessage, ref: "e"},
		{in: `{"type":"roll","pins":7,"frame":"1","ball":1,"id":"e"}`, code: CodeBadMessage, ref: "e"},
		{in: `{"type":"start","frame":1}`, code: CodeBadMessage},
		{in: `{"type":"join","name":"PJS","ball":1}`, code: CodeBadMessage},
		{in: `{"type":"start","pins":7}`, code: CodeBadMessage},
		{in: `{"type":"join"}`, code: CodeInvalidName}, // a name left empty is a refused name
		{in: `{"type":"join","name":""}`, code: CodeInvalidName},
		{in: `{"type":"join","name":7}`, code: CodeBadMessage},
		{in: `{"type":"resume"}`, code: CodeBadMessage},
		{in: `{"type":"start","extra":1}`, code: CodeBadMessage},
		{in: `{"pins":7}`, code: CodeBadMessage},
		{in: `{"type":7}`, code: CodeBadMessage},
		{in: `{"type":"ROLL","pins":7}`, code: CodeUnknownType},
		{in: `{"type":"dance","id":"f"}`, code: CodeUnknownType, ref: "f"},
		{in: `{"type":"start","id":"` + string(make([]byte, 65)) + `"}`, code: CodeBadMessage},
		{in: `{"type":"start","id":7}`, code: CodeBadMessage},
		{in: `{"type":"join","name":"` + string(make([]byte, 600)) + `"}`, code: CodeBadMessage},

		// The fair-play commands.
		{in: `{"type":"correct","pins":3,"frame":2,"ball":1}`, want: Request{Type: TypeCorrect, Pins: ptr(3), Frame: ptr(2), Ball: ptr(1)}},
		{in: `{"type":"correct","pins":3,"frame":2,"ball":1,"name":"BOB","id":"c"}`, want: Request{Type: TypeCorrect, Pins: ptr(3), Frame: ptr(2), Ball: ptr(1), Name: "BOB", ID: "c"}},
		{in: `{"type":"skip"}`, want: Request{Type: TypeSkip}},
		{in: `{"type":"remove","name":"BOB"}`, want: Request{Type: TypeRemove, Name: "BOB"}},
		{in: `{"type":"correct","pins":3,"id":"c"}`, code: CodeBadMessage, ref: "c"},
		{in: `{"type":"skip","name":"BOB"}`, code: CodeBadMessage},
		{in: `{"type":"remove"}`, code: CodeBadMessage},

		// Strict: names match exactly, once; no -0; UTF-8 only.
		{in: `{"TYPE":"start"}`, code: CodeBadMessage},
		{in: `{"Type":"start","id":"g"}`, code: CodeBadMessage, ref: "g"},
		{in: `{"type":"join","NAME":"PJS","id":"g"}`, code: CodeBadMessage, ref: "g"},
		{in: "{\"type\":\"resume\",\"to\u212Aen\":\"abc\",\"id\":\"g\"}", code: CodeBadMessage, ref: "g"}, // the Kelvin sign folds to k
		{in: `{"type":"resume","to\u212Aen":"abc","id":"g"}`, code: CodeBadMessage, ref: "g"},             // escaped, the same
		{in: `{"type":"start","type":"roll"}`, code: CodeBadMessage},
		{in: `{"type":"start","id":"h","type":"start"}`, code: CodeBadMessage, ref: "h"},
		{in: `{"type":"roll","pins":1,"pins":9,"frame":1,"ball":1,"id":"h"}`, code: CodeBadMessage, ref: "h"},
		{in: `{"type":"start","id":"a","id":"b"}`, code: CodeBadMessage}, // which id would it answer?
		{in: `{"type":"roll","pins":-0,"frame":1,"ball":1,"id":"i"}`, code: CodeBadMessage, ref: "i"},
		{in: `{"type":"roll","pins":0,"frame":-0,"ball":1,"id":"i"}`, code: CodeBadMessage, ref: "i"},
		{in: `{"type":"roll","pins":0,"frame":1,"ball":-0,"id":"i"}`, code: CodeBadMessage, ref: "i"},
		{in: `{"type":"correct","pins":-0,"frame":1,"ball":1}`, code: CodeBadMessage},
		{in: `{"type":"roll","pins":-0.0,"frame":1,"ball":1}`, code: CodeBadMessage},
		{in: `{"type":"roll","pins":0,"frame":1,"ball":1,"id":"x-0"}`, want: Request{Type: TypeRoll, Pins: ptr(0), Frame: ptr(1), Ball: ptr(1), ID: "x-0"}}, // -0 in a string is no number
		{in: `{"type":"resume","token":"9b2c0e8a-0f4d"}`, want: Request{Type: TypeResume, Token: "9b2c0e8a-0f4d"}},
		{in: "{\"type\":\"join\",\"name\":\"P\xffS\",\"id\":\"u\"}", code: CodeBadMessage, ref: "u"},
		{in: "{\"type\":\"join\",\"name\":\"PJS\",\"id\":\"\xff\"}", code: CodeBadMessage},
		{in: `{"type":"start","id":"t"} x`, code: CodeBadMessage, ref: "t"},
		{in: `{"type":"start","id":"\ud800"}`, code: CodeBadMessage}, // half a surrogate pair is no UTF-8
		{in: `{"type":"start","id":"t",}`, code: CodeBadMessage},
	}
	for _, tt := range tests {
		got, err := Decode([]byte(tt.in))
		if tt.code == "" {
			if err != nil || !equal(got, tt.want) {
				t.Errorf("Decode(%s) = %+v, %v, want %+v", tt.in, got, err, tt.want)
			}
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) || pe.Code != tt.code || pe.Message == "" {
			t.Errorf("Decode(%s) error = %v, want code %s", tt.in, err, tt.code)
			continue
		}
		if got.ID != tt.ref || got.Type != "" {
			t.Errorf("Decode(%s) refused = %+v, want only ID %q", tt.in, got, tt.ref)
		}
	}
}

func ptr(n int) *int { return &n }

func equal(a, b Request) bool {
	for _, p := range [][2]**int{{&a.Pins, &b.Pins}, {&a.Frame, &b.Frame}, {&a.Ball, &b.Ball}} {
		x, y := *p[0], *p[1]
		if (x == nil) != (y == nil) || x != nil && *x != *y {
			return false
		}
		*p[0], *p[1] = nil, nil
	}
	if (a.Deck == nil) != (b.Deck == nil) || a.Deck != nil && !slices.Equal(*a.Deck, *b.Deck) {
		return false
	}
	a.Deck, b.Deck = nil, nil
	return a == b
}

func TestDecodeMessagesNameTheField(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"type":"roll","pins":"7"}`, `bad_message: not a tenpin message: "pins" must be a whole number, not a JSON string`},
		{`{"type":"roll","pins":7.5}`, `bad_message: not a tenpin message: "pins" must be a whole number, not a JSON number 7.5`},
		{`{"type":"start","color":1}`, `bad_message: not a tenpin message: unknown field "color"`},
		{`{"type":"roll"}`, `bad_message: roll message needs "pins", "deck" or "foul"`},
		{`{"type":"roll","foul":false,"frame":1,"ball":1}`, `bad_message: roll message needs "pins", "deck" or "foul"`},
		{`{"type":"roll","deck":[1,"2"],"frame":1,"ball":1}`, `bad_message: not a tenpin message: "deck"[1] must be a whole number, not a JSON string`},
		{`{"type":"roll","deck":[1,2,3,4,5,6,7,8,9,10,1],"frame":1,"ball":1}`, `invalid_pins: "deck" names 11 pins: a deck has at most 10`},
		{`{"type":"start","deck":[]}`, `bad_message: start message takes no "deck"`},
		{`{"type":"skip","foul":true}`, `bad_message: skip message takes no "foul"`},
		{`{"type":"roll","pins":3}`, `bad_message: roll message needs "frame"`},
		{`{"type":"roll","pins":3,"frame":1}`, `bad_message: roll message needs "ball"`},
		{`{"type":"start","pins":1}`, `bad_message: start message takes no "pins"`},
		{`{"type":"dance"}`, `unknown_type: unknown message type "dance"`},
		{`{"type":`, `bad_message: not a tenpin message: incomplete JSON`},
		{`{"type"}`, `bad_message: not a tenpin message: invalid JSON at byte 8`},
		{`{"TYPE":"start"}`, `bad_message: not a tenpin message: unknown field "TYPE"`},
		{`{"type":"start","type":"roll"}`, `bad_message: not a tenpin message: "type" is given twice`},
		{`{"type":"roll","pins":-0,"frame":1,"ball":1}`, `bad_message: not a tenpin message: "pins" is -0: zero is written 0`},
		{`{"type":"start"} {}`, `bad_message: not a tenpin message: data after the JSON object`},
		{`[1]`, `bad_message: not a tenpin message: a message is a JSON object, not a JSON array`},
		{"{\"type\":\"join\",\"name\":\"\xff\"}", `bad_message: not a tenpin message: not UTF-8`},
	}
	for _, tt := range tests {
		if _, err := Decode([]byte(tt.in)); err == nil || err.Error() != tt.want {
			t.Errorf("Decode(%s) error = %v, want %q", tt.in, err, tt.want)
		}
	}
}

// FuzzDecode: no input panics; an accepted message has a known type and
// exactly the fields that type takes, and encoded again it decodes to the
// same request; a refused one has a code.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"type":"join","name":"PJS","id":"1"}`, `{"type":"roll","pins":7}`, `{"type":"resume","token":"x"}`,
		`{"type":"start"}`, `{"type":"roll","pins":"7"}`, `{"type":"roll","pins":7.5}`, `[1,2]`, `{"type":`,
		`{"type":"roll","pins":-0,"frame":1,"ball":1}`, `{"type":"correct","pins":3,"frame":2,"ball":1,"name":"BOB"}`,
		`{"type":"skip","id":"s"}`, `{"type":"remove","name":"BOB"}`, `{"TYPE":"start"}`, `{"type":"start","type":"roll"}`,
		`{"type":"roll","deck":[7,10],"frame":1,"ball":1}`, `{"type":"roll","foul":true,"frame":1,"ball":2}`,
		`{"type":"correct","deck":[],"pins":2,"frame":1,"ball":2,"name":"Jo"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(data)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Code == "" {
				t.Fatalf("Decode(%q) error %v has no code", data, err)
			}
			if len(r.ID) > MaxIDLength || r.Type != "" {
				t.Fatalf("Decode(%q) refused = %+v, want at most an id", data, r)
			}
			return
		}
		var name, token, pins, optName bool
		switch r.Type {
		case TypeJoin, TypeRemove:
			name = true
		case TypeResume:
			token = true
		case TypeRoll, TypeCorrect:
			pins, optName = true, true
		case TypeStart, TypeLeave, TypeRematch, TypeSkip:
		default:
			t.Fatalf("Decode(%q) accepted type %q", data, r.Type)
		}
		ball := r.Pins != nil || r.Deck != nil || r.Foul
		if (r.Name != "") != name && !optName || (r.Token != "") != token ||
			ball != pins || (r.Frame != nil) != pins || (r.Ball != nil) != pins || r.Deck != nil && len(*r.Deck) > MaxDeck {
			t.Fatalf("Decode(%q) accepted %s %+v", data, r.Type, r)
		}
		if len(r.ID) > MaxIDLength {
			t.Fatalf("Decode(%q) accepted an id of %d bytes", data, len(r.ID))
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if r2, err := Decode(again); err != nil || !equal(r, r2) {
			t.Fatalf("Decode(%q) = %+v, encoded %s, decoded again %+v, %v", data, r, again, r2, err)
		}
	})
}
