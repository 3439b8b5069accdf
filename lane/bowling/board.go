package bowling

import (
	"strconv"
)

// The text scoreboard, exactly as the seeds print it: every cell is six
// characters between bars.
const (
	boardHeader = "| NAME |  01  |  02  |  03  |  04  |  05  |  06  |  07  |  08  |  09  |  10  |\n"
	cellWidth   = 6
)

// Board renders the text scoreboard of the given players: the header row,
// then a row of marks and a row of cumulative scores for each player, in
// order. Scores that can still change are left blank.
func Board(players ...Player) string {
	return string(AppendBoard(nil, players...))
}

// AppendBoard appends the text scoreboard of [Board] to dst.
func AppendBoard(dst []byte, players ...Player) []byte {
	dst = append(dst, boardHeader...)
	for i := range players {
		p := &players[i]
		frames := p.Game.Frames()
		dst = append(dst, '|')
		dst = appendCell(dst, []byte(p.Name))
		var text [8]byte
		for _, f := range frames {
			dst = appendCell(dst, f.AppendMarks(text[:0]))
		}
		dst = append(dst, "\n|"...)
		dst = appendCell(dst, nil)
		for _, f := range frames {
			score, ok := f.Score()
			if !ok {
				dst = appendCell(dst, nil)
				continue
			}
			dst = appendCell(dst, strconv.AppendInt(text[:0], int64(score), 10))
		}
		dst = append(dst, '\n')
	}
	return dst
}

// appendCell appends one six-character cell and its closing bar: the text
// after two spaces (one for five-character text such as "X|X|X"), padded
// with spaces on the right.
func appendCell(dst, text []byte) []byte {
	lead := 2
	if len(text) > cellWidth-lead-1 {
		lead = max(cellWidth-len(text), 0)
	}
	start := len(dst)
	for range lead {
		dst = append(dst, ' ')
	}
	dst = append(dst, text...)
	for len(dst)-start < cellWidth {
		dst = append(dst, ' ')
	}
	return append(dst, '|')
}

// Board renders the match's text scoreboard, every seat in order.
func (m *Match) Board() string { return Board(m.players...) }
