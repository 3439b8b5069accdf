package protocol

import (
	"bytes"
	"fmt"

	"github.com/go-json-experiment/json"
)

// Message is a decoded server message: a *[Welcome], *[Board], *[Ack] or
// *[Error]. [DecodeMessage] returns one; a type switch tells which.
type Message interface {
	message() // only this package's four
}

func (*Welcome) message() {}
func (*Board) message()   {}
func (*Ack) message()     {}
func (*Error) message()   {}

var typePrefix = []byte(`{"type":"`)

// DecodeMessage decodes one server message, as strictly as [Decode]
// reads a client's: one JSON object whose "type" is welcome, board, ack or
// error, with the fields of that type and no others, each once and named
// exactly, no number written -0, valid UTF-8, nothing after it. Its errors
// wrap [ErrUndecodable] and say why. (A client that follows a game without
// drawing it can read less of a board: see [DecodeBoardHead].)
func DecodeMessage(data []byte) (Message, error) {
	t, ok := sniffType(data)
	if !ok {
		// Not as tenpin writes it (the type first, unescaped): find it the
		// long way. A message with two types is refused below.
		var typed struct {
			Type Type `json:"type"`
		}
		if err := json.Unmarshal(data, &typed, json.RejectUnknownMembers(false)); err != nil {
			return nil, fmt.Errorf("%w: %s", ErrUndecodable, describe(data, err))
		}
		t = typed.Type
	}
	var m Message
	switch t {
	case TypeWelcome:
		m = new(Welcome)
	case TypeBoard:
		m = new(Board)
	case TypeAck:
		m = new(Ack)
	case TypeError:
		m = new(Error)
	case "":
		return nil, fmt.Errorf(`%w: no "type"`, ErrUndecodable)
	default:
		return nil, fmt.Errorf("%w: unknown type %q", ErrUndecodable, t)
	}
	if err := Unmarshal(data, m); err != nil {
		return nil, err
	}
	return m, nil
}

// sniffType reads the type of a message that starts as tenpin writes
// them, {"type":"…", and reports whether it could.
func sniffType(data []byte) (Type, bool) {
	if !bytes.HasPrefix(data, typePrefix) {
		return "", false
	}
	rest := data[len(typePrefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return "", false
	}
	return Type(rest[:end]), true
}
