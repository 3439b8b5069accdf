package bowling

import (
	"strconv"
)

// The text scoreboard, exactly as the seeds print it: every cell is six
// characters between bars.
const (
	boardHeader = "| NAME |  01  |  02  |  03  |  04  |  05  |  06  |  07  |  08  |  09  |  10  |\n"
	frameHeader = "  01  |  02  |  03  |  04  |  05  |  06  |  07  |  08  |  09  |  10  |\n"
	cellWidth   = 6
)

// Board renders the text scoreboard of the given players: the header row,
// then a row of marks and a row of cumulative scores for each player, in
// order. Scores that can still change are left blank.
//
// With names of three letters the board is the seeds' byte for byte. A
// wider name widens the NAME column for every row, so that the columns
// stay straight in a monospace font: its cells hold two spaces, the name,
// and at least one space, measured in columns (a Hangul syllable takes
// two).
func Board(players ...Player) string {
	return string(AppendBoard(nil, players...))
}

// AppendBoard appends the text scoreboard of [Board] to dst.
func AppendBoard(dst []byte, players ...Player) []byte {
	nameWidth := cellWidth
	for i := range players {
		nameWidth = max(nameWidth, players[i].Name.Width()+3)
	}
	if nameWidth == cellWidth {
		dst = append(dst, boardHeader...)
	} else {
		dst = append(dst, "| NAME"...)
		dst = appendSpaces(dst, nameWidth-len(" NAME"))
		dst = append(dst, '|')
		dst = append(dst, frameHeader...)
	}
	for i := range players {
		p := &players[i]
		frames := p.Game.Frames()
		dst = append(dst, '|')
		if nameWidth == cellWidth {
			dst = appendCell(dst, []byte(p.Name))
		} else {
			dst = append(dst, "  "...)
			dst = append(dst, p.Name...)
			dst = appendSpaces(dst, nameWidth-2-p.Name.Width())
			dst = append(dst, '|')
		}
		var text [8]byte
		for _, f := range frames {
			dst = appendCell(dst, f.AppendMarks(text[:0]))
		}
		dst = append(dst, "\n|"...)
		dst = appendSpaces(dst, nameWidth)
		dst = append(dst, '|')
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

func appendSpaces(dst []byte, n int) []byte {
	for range n {
		dst = append(dst, ' ')
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
