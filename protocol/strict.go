package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// strict is how every tenpin message is decoded, both ways: a member's
// name matches a field's exactly (no case folding: "TYPE" is not "type",
// nor "to\u212Aen" "token"), appears once (no last-one-wins), and names a
// field of the message; strings are valid UTF-8. The second to fourth are
// JSON v2's defaults, spelt out here because the protocol depends on
// them. Numbers written -0 are refused by negativeZero, which JSON v2
// takes for 0.
var strict = json.JoinOptions(
	json.RejectUnknownMembers(true),
	json.MatchCaseInsensitiveNames(false),
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
)

// ErrUndecodable is wrapped by the errors of [DecodeMessage] and
// [Unmarshal]: the server's message is not one the protocol defines.
var ErrUndecodable = errors.New("protocol: undecodable server message")

// Unmarshal decodes one of this package's types — a body of the HTTP API
// ([LaneSummary], [Lanes], [Board], [Games], [Error]) or a server message — from
// data into v, as strictly as [Decode] reads client messages: exact names,
// each once, no unknown member, no -0, nothing after the value. Its errors
// wrap [ErrUndecodable] and say why.
func Unmarshal(data []byte, v any) error {
	if err := json.Unmarshal(data, v, strict); err != nil {
		return fmt.Errorf("%w: %s", ErrUndecodable, describe(data, err))
	}
	if p := negativeZero(data); p != "" {
		return fmt.Errorf("%w: %s is -0: zero is written 0", ErrUndecodable, field(p))
	}
	return nil
}

// decoder is a pooled jsontext decoder and its reader: one is a few
// kilobytes, too much to make for every message.
type decoder struct {
	r bytes.Reader
	jsontext.Decoder
}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

// newDecoder returns a pooled decoder of data, with opts; free gives it
// back.
func newDecoder(data []byte, opts ...jsontext.Options) *decoder {
	d := decoders.Get().(*decoder)
	d.r.Reset(data)
	d.Reset(&d.r, opts...)
	return d
}

func (d *decoder) free() {
	d.r.Reset(nil)
	d.Reset(&d.r)
	decoders.Put(d)
}

// lax are the options of the decoders that look into a message strict
// refused, or that it took already: they must read it whatever it holds.
var lax = json.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

var minusZero = []byte("-0")

// negativeZero returns the JSON pointer of the first number in data
// written -0, or "" if there is none (or data is not valid JSON, which the
// caller has refused already). A -0 is a valid JSON number, and one that
// JSON v2 decodes to 0, but no tenpin message is written with one: a
// message that has one was not made by a tenpin encoder.
func negativeZero(data []byte) jsontext.Pointer {
	if !bytes.Contains(data, minusZero) {
		return "" // the usual case, and cheap: no "-0" anywhere, not even in a string
	}
	dec := newDecoder(data, lax)
	defer dec.free()
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return ""
		}
		if tok.Kind() == '0' && tok.String() == "-0" {
			return dec.StackPointer()
		}
	}
}

// readID returns the id of a refused message, or "" if it has none that
// can be echoed back: the message must be a JSON object, complete, whose
// one "id" member is a valid string of at most MaxIDLength bytes.
// Whatever else is wrong with the message does not matter here.
func readID(data []byte) string {
	dec := newDecoder(data, lax)
	defer dec.free()
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return ""
	}
	id, ids := "", 0
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return ""
		}
		if name.String() == "id" {
			ids++
			if dec.PeekKind() == '"' {
				v, err := dec.ReadValue()
				if err != nil {
					return ""
				}
				// Raw, because the decoder, told to allow invalid UTF-8
				// elsewhere, would make it valid here.
				s, err := jsontext.AppendUnquote(nil, v)
				if err != nil || !utf8.Valid(v) {
					ids++ // not one to echo
				}
				id = string(s)
				continue
			}
			id = ""
		}
		if err := dec.SkipValue(); err != nil {
			return ""
		}
	}
	if _, err := dec.ReadToken(); err != nil || ids != 1 {
		return ""
	}
	return validID(id)
}

// describe turns a JSON v2 error into a short reason that names the field,
// without echoing the payload (beyond a number that is not a whole one).
func describe(data []byte, err error) string {
	var se *json.SemanticError
	var sy *jsontext.SyntacticError
	switch {
	case errors.As(err, &sy):
		switch {
		case errors.Is(sy.Err, io.ErrUnexpectedEOF):
			return "incomplete JSON"
		case errors.Is(sy.Err, jsontext.ErrDuplicateName):
			return fmt.Sprintf("%s is given twice", field(sy.JSONPointer))
		case !utf8.Valid(data):
			return "not UTF-8"
		case trailing(data, sy.ByteOffset):
			return "data after the JSON object"
		}
		return fmt.Sprintf("invalid JSON at byte %d", sy.ByteOffset+1) // counted from 1
	case errors.As(err, &se):
		if errors.Is(se.Err, json.ErrUnknownName) {
			return "unknown field " + field(se.JSONPointer)
		}
		got := kindName(se.JSONKind)
		if se.JSONKind == '0' && len(se.JSONValue) > 0 {
			got += " " + string(se.JSONValue)
		}
		if se.JSONPointer == "" {
			return "a message is a JSON object, not a JSON " + got
		}
		return fmt.Sprintf("%s must be %s, not a JSON %s", field(se.JSONPointer), goKind(se.GoType), got)
	}
	return "invalid JSON"
}

// trailing reports whether a syntax error at offset is data after a
// complete JSON value.
func trailing(data []byte, offset int64) bool {
	return offset > 0 && offset <= int64(len(data)) && jsontext.Value(bytes.TrimSpace(data[:offset])).IsValid()
}

// field names the member at p: "pins" for a member of the message itself,
// "/players/0/total" deeper down.
func field(p jsontext.Pointer) string {
	if p.Parent() == "" {
		return strconv.Quote(p.LastToken())
	}
	if p.Parent().Parent() == "" { // an element of a top-level array, as "deck"'s
		return fmt.Sprintf("%q[%s]", p.Parent().LastToken(), p.LastToken())
	}
	return strconv.Quote(string(p))
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}

func goKind(t reflect.Type) string {
	if t == nil {
		return "something else"
	}
	if t == reflect.TypeFor[time.Time]() {
		return "a time (RFC 3339)"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Uint64, reflect.Uint, reflect.Int32, reflect.Uint32:
		return "a whole number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Struct:
		return "an object"
	case reflect.Slice:
		return "an array"
	case reflect.Pointer:
		return goKind(t.Elem())
	}
	return t.String()
}
