package protocol

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"
)

// BoardHead is what a board says before its players: enough for a client
// that follows the game without drawing it (a load generator, a bot).
type BoardHead struct {
	Seq   uint64 `json:"seq"`
	Phase Phase  `json:"phase"`
	Up    *Up    `json:"up"`
	Host  string `json:"host"`
}

var (
	boardPrefix = []byte(`{"type":"board",`)
	seqKey      = []byte(`,"seq":`)
	playersKey  = []byte(`,"players":`)
)

// IsBoard reports whether data starts as the server writes a board,
// {"type":"board",…, without decoding it.
func IsBoard(data []byte) bool {
	return bytes.HasPrefix(data, boardPrefix)
}

// DecodeBoardHead decodes a board's head into h, without decoding its
// players, using *buf as scratch space, and reports whether data was a
// board. It relies on the order in which [Board] encodes its fields —
// type first, players after seq, phase, up and host — which
// TestBoardFieldOrder pins. JSON escapes the quotes inside strings, so a
// lane's name cannot fake the keys it looks for.
func DecodeBoardHead(data []byte, buf *[]byte, h *BoardHead) bool {
	if !bytes.HasPrefix(data, boardPrefix) {
		return false
	}
	i := bytes.Index(data, playersKey)
	if i < 0 {
		return false
	}
	*buf = append(append((*buf)[:0], data[:i]...), '}')
	*h = BoardHead{}
	return json.Unmarshal(*buf, h) == nil // names exactly, each once; the head's other members ignored
}

// BoardSeq reads a board's seq and nothing else: all a spectator that
// checks it missed nothing needs.
func BoardSeq(data []byte) (uint64, bool) {
	if !bytes.HasPrefix(data, boardPrefix) {
		return 0, false
	}
	i := bytes.Index(data, seqKey)
	if i < 0 {
		return 0, false
	}
	var seq uint64
	n := 0
	for _, ch := range data[i+len(seqKey):] {
		if ch < '0' || ch > '9' {
			break
		}
		seq = seq*10 + uint64(ch-'0')
		n++
	}
	return seq, n > 0
}

// DecodeBoardPlayer decodes the player in seat (an index in the board's
// players) of a board into p, skipping the other players without decoding
// them: what a player following the game needs of a board when it is up,
// or when the game is over. Like [DecodeBoardHead] it relies on the order
// in which [Board] encodes its fields, which TestBoardFieldOrder pins; the
// player is decoded as strictly as [Unmarshal] decodes (but -0 is not
// looked for). It reports an error if data is not a board or has no such
// seat.
func DecodeBoardPlayer(data []byte, seat int, p *Player) error {
	if !bytes.HasPrefix(data, boardPrefix) {
		return fmt.Errorf("%w: not a board", ErrUndecodable)
	}
	i := bytes.Index(data, playersKey)
	if i < 0 {
		return fmt.Errorf("%w: a board without players", ErrUndecodable)
	}
	dec := newDecoder(data[i+len(playersKey):], strict)
	defer dec.free()
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return fmt.Errorf("%w: the board's players are not an array", ErrUndecodable)
	}
	for range seat {
		if dec.PeekKind() == ']' {
			break
		}
		if err := dec.SkipValue(); err != nil {
			return fmt.Errorf("%w: %s", ErrUndecodable, describe(data, err))
		}
	}
	if seat < 0 || dec.PeekKind() != '{' {
		return fmt.Errorf("%w: the board has no seat %d", ErrUndecodable, seat)
	}
	*p = Player{}
	if err := json.UnmarshalDecode(&dec.Decoder, p); err != nil {
		var se *json.SemanticError
		if errors.As(err, &se) {
			return fmt.Errorf("%w: player %d: %s", ErrUndecodable, seat, describe(nil, err))
		}
		return fmt.Errorf("%w: player %d: %v", ErrUndecodable, seat, err)
	}
	return nil
}
