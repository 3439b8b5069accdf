package sheet

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rivo/uniseg"

	"github.com/tenpin/tenpin/protocol"
)

// Card says what a scorecard shows besides the game: the lane's name, the
// day it was bowled, and the language of its few words ("en" or "ko";
// English for any other).
type Card struct {
	Lane string
	Date time.Time
	Lang string
}

// words are the scorecard's words in each language.
var words = map[string]struct{ game, total, left, inPlay string }{
	"en": {"Game", "Total", "left", "in play"},
	"ko": {"게임", "합계", "나감", "진행 중"},
}

// The scorecard's geometry, in SVG user units (pixels at 1:1).
const (
	margin     = 20
	nameWidth  = 170
	frameWidth = 64
	tenthWidth = 96
	totalWidth = 84
	headHeight = 84 // the title and the subtitle
	numHeight  = 26 // the row of frame numbers
	rowHeight  = 64 // a bowler: marks above, running score below
	cardWidth  = 2*margin + nameWidth + 9*frameWidth + tenthWidth + totalWidth
)

// SVG writes one game of a lane's series as a scorecard: the lane's name
// and the date, and for each bowler their name, each frame's marks (splits
// and fouls marked as on the board) and running score, and the total. Its
// text is text, so a reader can copy a name or a screen reader read it.
// It needs that game alone, not the series: a lane of a hundred games
// builds one.
func SVG(w io.Writer, g protocol.Game, card Card) error {
	wd, ok := words[card.Lang]
	if !ok {
		wd, card.Lang = words["en"], "en"
	}
	height := 2*margin + headHeight + numHeight + rowHeight*max(len(g.Players), 1)
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }

	title := card.Lane + " — " + wd.game + " " + strconv.Itoa(g.Game)
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-labelledby="title" xml:lang="%s">`+"\n",
		cardWidth, height, cardWidth, height, card.Lang)
	p(`<title id="title">%s</title>`+"\n", esc(title))
	p(`<style>text{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans KR","Apple SD Gothic Neo",sans-serif;fill:#111}.h{font-size:28px;font-weight:700}.s{font-size:16px;fill:#444}.n{font-size:13px;fill:#555}.m{font-size:18px}.c{font-size:20px;font-weight:600}.p{font-size:20px;font-weight:600}.t{font-size:24px;font-weight:700}.l{font-size:12px;fill:#777}</style>` + "\n")
	p(`<rect width="100%%" height="100%%" fill="#fff"/>` + "\n")
	p(`<text class="h" x="%d" y="%d">%s</text>`+"\n", margin, margin+30, esc(card.Lane))
	sub := wd.game + " " + strconv.Itoa(g.Game) + " · " + card.Date.Format("2006-01-02")
	if !g.Finished {
		sub += " · " + wd.inPlay
	}
	p(`<text class="s" x="%d" y="%d">%s</text>`+"\n", margin, margin+60, esc(sub))

	top := margin + headHeight
	x := margin + nameWidth
	for f := 1; f <= 10; f++ {
		w := frameWidth
		if f == 10 {
			w = tenthWidth
		}
		p(`<text class="n" x="%d" y="%d" text-anchor="middle">%d</text>`+"\n", x+w/2, top+18, f)
		x += w
	}
	p(`<text class="n" x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", x+totalWidth/2, top+18, esc(wd.total))

	y := top + numHeight
	for _, pl := range g.Players {
		p(`<g>`)
		p(`<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>`, margin, y, cardWidth-2*margin, rowHeight)
		p(`<text class="p" x="%d" y="%d"%s>%s</text>`, margin+10, y+rowHeight/2+7, fit(pl.Name), esc(pl.Name))
		if pl.Left {
			p(`<text class="l" x="%d" y="%d">%s</text>`, margin+10, y+rowHeight-8, esc(wd.left))
		}
		x := margin + nameWidth
		for i := range 10 {
			w := frameWidth
			if i == 9 {
				w = tenthWidth
			}
			p(`<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>`, x, y, w, rowHeight)
			p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#ccc"/>`, x, y+rowHeight/2, x+w, y+rowHeight/2)
			if i < len(pl.Frames) {
				f := pl.Frames[i]
				p(`<text class="m" x="%d" y="%d" text-anchor="middle">%s</text>`, x+w/2, y+23, esc(spaced(f.Marks)))
				if f.Score != nil {
					p(`<text class="c" x="%d" y="%d" text-anchor="middle">%d</text>`, x+w/2, y+rowHeight-9, *f.Score)
				}
			}
			x += w
		}
		p(`<text class="t" x="%d" y="%d" text-anchor="middle">%d</text>`, x+totalWidth/2, y+rowHeight/2+9, pl.Total)
		p("</g>\n")
		y += rowHeight
	}
	p("</svg>\n")
	return bw.Flush()
}

// nameColumns is how many columns of a monospace screen a name may take
// at the name's usual size; a wider one (twelve Hangul syllables are 24)
// is written smaller so that it stays in its box.
const nameColumns = 14

// fit returns the attribute that shrinks a wide name's type, or "".
func fit(name string) string {
	w := uniseg.StringWidth(name)
	if w <= nameColumns {
		return ""
	}
	return fmt.Sprintf(` style="font-size:%.1fpx"`, 20*float64(nameColumns)/float64(w))
}

// fitTo returns the attribute that shrinks the type of text of size px
// that would be wider than width, or "": as fit does, a column of a
// monospace screen taken as 0.6 of the type's size.
func fitTo(text string, width int, size float64) string {
	columns := float64(width) / (0.6 * size)
	w := float64(uniseg.StringWidth(text))
	if w <= columns {
		return ""
	}
	return fmt.Sprintf(` style="font-size:%.1fpx"`, size*columns/w)
}

// spaced writes a frame's marks with room between its balls, as a
// scorecard's boxes keep them apart: "8|/" is "8 /".
func spaced(marks string) string { return strings.ReplaceAll(marks, "|", " ") }

// esc escapes text for XML.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) // writing to a strings.Builder does not fail
	return b.String()
}
