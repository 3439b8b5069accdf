package sheet

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"
)

// ChartPoint is a game on a bowler's chart: when it ended, its score,
// and the bowler's average once it was in.
type ChartPoint struct {
	At      time.Time
	Score   int
	Average int
}

// chartWords are the chart's words in each language.
var chartWords = map[string]struct{ title, score, average, none string }{
	"en": {"Every game and the average", "Score", "Average", "No game yet"},
	"ko": {"모든 게임과 에버리지", "점수", "에버리지", "아직 게임이 없습니다"},
}

// The chart's geometry, in SVG user units.
const (
	chartWidth  = 720
	chartHeight = 320
	plotLeft    = 48
	plotRight   = chartWidth - 16
	plotTop     = 44
	plotBottom  = chartHeight - 40
)

// Chart writes a bowler's games, oldest first, as a chart: each game's
// score a dot, the running average a line, on a scale of 0 to 300, with
// the first and last days below, in the language lang ("en" or "ko";
// English for any other). Its title and a legend are text, for a screen
// reader too.
func Chart(w io.Writer, points []ChartPoint, lang string) error {
	wd, ok := chartWords[lang]
	if !ok {
		wd, lang = chartWords["en"], "en"
	}
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-labelledby="chart-title" xml:lang="%s">`+"\n",
		chartWidth, chartHeight, chartWidth, chartHeight, lang)
	p(`<title id="chart-title">%s</title>`+"\n", esc(wd.title))
	p(`<style>text{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans KR","Apple SD Gothic Neo",sans-serif;fill:#333;font-size:13px}.h{font-size:16px;font-weight:700;fill:#111}</style>` + "\n")
	p(`<rect width="100%%" height="100%%" fill="#fff"/>` + "\n")
	p(`<text class="h" x="%d" y="24">%s</text>`+"\n", plotLeft, esc(wd.title))
	y := func(score int) float64 {
		return plotBottom - float64(min(max(score, 0), 300))*(plotBottom-plotTop)/300
	}
	for s := 0; s <= 300; s += 50 {
		p(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e3e3e3"/><text x="%d" y="%.1f" text-anchor="end">%d</text>`+"\n",
			plotLeft, y(s), plotRight, y(s), plotLeft-6, y(s)+4, s)
	}
	if len(points) == 0 {
		p(`<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", (plotLeft+plotRight)/2, (plotTop+plotBottom)/2, esc(wd.none))
		p("</svg>\n")
		return bw.Flush()
	}
	x := func(i int) float64 {
		if len(points) == 1 {
			return (plotLeft + plotRight) / 2
		}
		return plotLeft + 8 + float64(i)*float64(plotRight-plotLeft-16)/float64(len(points)-1)
	}
	for i, pt := range points {
		p(`<circle cx="%.1f" cy="%.1f" r="3" fill="#2b6cb0"/>`, x(i), y(pt.Score))
	}
	p("\n" + `<polyline fill="none" stroke="#c05621" stroke-width="2.5" points="`)
	for i, pt := range points {
		if i > 0 {
			p(" ")
		}
		p("%.1f,%.1f", x(i), y(pt.Average))
	}
	p(`"/>` + "\n")
	first, last := points[0], points[len(points)-1]
	p(`<text x="%d" y="%d">%s</text>`+"\n", plotLeft, chartHeight-18, first.At.Format("2006-01-02"))
	p(`<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", plotRight, chartHeight-18, last.At.Format("2006-01-02"))
	// The legend, with the latest figures.
	lx := plotRight - 250
	p(`<circle cx="%d" cy="20" r="4" fill="#2b6cb0"/><text x="%d" y="24">%s %s</text>`+"\n", lx, lx+8, esc(wd.score), strconv.Itoa(last.Score))
	p(`<line x1="%d" y1="20" x2="%d" y2="20" stroke="#c05621" stroke-width="2.5"/><text x="%d" y="24">%s %s</text>`+"\n", lx+110, lx+128, lx+134, esc(wd.average), strconv.Itoa(last.Average))
	p("</svg>\n")
	return bw.Flush()
}
