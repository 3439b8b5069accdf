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
// With names of three letters and no split in the tenth frame, the board
// is the seeds' byte for byte. A wider name widens the NAME column for
// every row, so that the columns stay straight in a monospace font: its
// cells hold two spaces, the name, and at least one space, measured in
// columns (a Hangul syllable takes two). A tenth frame whose marks are
// longer than a cell, such as "X|(8)|/" with a split, widens the tenth
// column the same way. Marks are those of [Frame.Marks]: a split's count
// in parentheses, a foul F.
func Board(players ...Player) string {
	return string(AppendBoard(nil, players...))
}

// AppendBoard appends the text scoreboard of [Board] to dst.
func AppendBoard(dst []byte, players ...Player) []byte {
	var text [16]byte
	nameWidth, tenthWidth := cellWidth, cellWidth
	for i := range players {
		p := &players[i]
		nameWidth = max(nameWidth, p.Name.Width()+3)
		if p.Game.known != 0 { // only a split's parentheses make marks longer than a cell
			tenthWidth = max(tenthWidth, len(p.Game.Frame(NumFrames).AppendMarks(text[:0]))+2)
		}
	}
	if nameWidth == cellWidth && tenthWidth == cellWidth {
		dst = append(dst, boardHeader...)
	} else {
		dst = append(dst, '|')
		dst = appendCellIn(dst, []byte("NAME"), 4, nameWidth, 1)
		dst = append(dst, frameHeader[:len(frameHeader)-len("  10  |\n")]...)
		dst = appendCellIn(dst, []byte("10"), 2, tenthWidth, 2)
		dst = append(dst, '\n')
	}
	for i := range players {
		p := &players[i]
		frames := p.Game.Frames()
		dst = append(dst, '|')
		dst = appendCellIn(dst, []byte(p.Name), p.Name.Width(), nameWidth, 2)
		for _, f := range frames {
			m := f.AppendMarks(text[:0])
			if f.Number == NumFrames {
				dst = appendCellIn(dst, m, len(m), tenthWidth, 2)
				continue
			}
			dst = appendCell(dst, m)
		}
		dst = append(dst, "\n|"...)
		dst = appendSpaces(dst, nameWidth)
		dst = append(dst, '|')
		for _, f := range frames {
			score, ok := f.Score()
			var num []byte
			if ok {
				num = strconv.AppendInt(text[:0], int64(score), 10)
			}
			if f.Number == NumFrames {
				dst = appendCellIn(dst, num, len(num), tenthWidth, 2)
				continue
			}
			dst = appendCell(dst, num)
		}
		dst = append(dst, '\n')
	}
	return dst
}

// appendCellIn appends a cell of a column width columns wide, text taking
// textWidth columns: the seeds' cell ([appendCell]) in a column of six;
// in a wider column, lead spaces (one if the text would otherwise have no
// space after it), the text, and spaces to the width.
func appendCellIn(dst, text []byte, textWidth, width, lead int) []byte {
	if width == cellWidth && lead == 2 && textWidth == len(text) {
		return appendCell(dst, text)
	}
	if textWidth+lead >= width {
		lead = 1
	}
	dst = appendSpaces(dst, lead)
	dst = append(dst, text...)
	dst = appendSpaces(dst, width-lead-textWidth)
	return append(dst, '|')
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
