package protocol

import (
	"bytes"
	"encoding/json"
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
	return json.Unmarshal(*buf, h) == nil
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
