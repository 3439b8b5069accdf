package sheet

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/tenpin/tenpin/lane/league"
)

// Recap is a league's weekly recap, as its secretary prints it: the
// standings as far as bowled, and the matches of the night they come to.
type Recap struct {
	League    string // the league's name
	Standings league.Standings
	// Night is the night in play, or else the last one closed; its Week
	// is 0 before the first night opens.
	Night league.Sheet
	Date  time.Time // as of: the league's latest change
	// Lang is the language of the image's words: "en" or "ko" (English
	// for any other). The CSV's columns are named as the API names them,
	// in every language, as a lane's games.csv.
	Lang string
}

// NewRecap returns the recap of l as it stands, dated date.
func NewRecap(l *league.League, date time.Time, lang string) Recap {
	r := Recap{League: l.Settings().Name, Standings: l.Standings(), Date: date, Lang: lang}
	week := r.Standings.Open
	if week == 0 {
		week = r.Standings.Closed
	}
	r.Night, _ = l.Sheet(week) // none before the first night
	return r
}

// week is the night the recap comes to, and what it is: "open" (in
// play), "closed", or "" before the first night.
func (r Recap) week() (int, string) {
	switch {
	case r.Night.Week == 0:
		return 0, ""
	case r.Night.Closed:
		return r.Night.Week, "closed"
	default:
		return r.Night.Week, "open"
	}
}

// The recap's CSV: its sections, each a header row and its rows, a blank
// row between them. Every row has as many fields as the widest section's,
// the others' padded with empty ones, as RFC 4180 would have it.
var (
	// RecapHeader heads the first section: the league and the night
	// the standings come to ("open" for a night in play, "closed"; the
	// night is empty and the week 0 before the first), as of the
	// league's latest change.
	RecapHeader = []string{"league", "week", "night", "as_of"}
	// RecapTeamsHeader heads the teams, in their rank's order: the
	// columns of the standings API's teams.
	RecapTeamsHeader = []string{"rank", "team", "points_won", "points_lost", "pins_scratch", "pins_handicap", "high_game", "high_series"}
	// RecapBowlersHeader heads the bowlers, team by team: the columns of
	// the standings API's bowlers, handicap being next night's. A bowler
	// with no average yet has an empty average and handicap.
	RecapBowlersHeader = []string{"bowler", "team", "games", "pins", "average", "handicap", "high_game", "high_series"}
)

// RecapMatchesHeader heads the matches of the recap's night, games a
// night: each team's games with handicap (home_1, …, empty for a game
// that does not count yet), their sum (empty until every game counts),
// and the points each has won.
func RecapMatchesHeader(games int) []string {
	h := []string{"week", "home", "away"}
	for _, side := range []string{"home", "away"} {
		for g := range games {
			h = append(h, side+"_"+strconv.Itoa(g+1))
		}
		h = append(h, side+"_series")
	}
	return append(h, "home_points", "away_points")
}

// RecapCSV writes the recap as a CSV file: a byte order mark, then
// sections headed by [RecapHeader], [RecapTeamsHeader],
// [RecapBowlersHeader] and [RecapMatchesHeader]. Names are written as
// they are, of any script; one that starts as a formula would is made
// text.
func RecapCSV(w io.Writer, r Recap) error {
	if _, err := io.WriteString(w, bom); err != nil {
		return err
	}
	games := 0
	for _, m := range r.Night.Matches {
		games = len(m.Home.Totals)
		break
	}
	matches := RecapMatchesHeader(games)
	width := max(len(RecapTeamsHeader), len(RecapBowlersHeader), len(matches))
	cw := csv.NewWriter(w)
	row := make([]string, 0, width)
	write := func(fields ...string) {
		row = append(row[:0], fields...)
		for len(row) < width {
			row = append(row, "")
		}
		cw.Write(row) // its error stays the writer's: cw.Error
	}

	write(RecapHeader...)
	week, night := r.week()
	write(cell(r.League), strconv.Itoa(week), night, r.Date.UTC().Format(time.RFC3339))
	write()
	write(RecapTeamsHeader...)
	for _, t := range r.Standings.Teams {
		write(strconv.Itoa(t.Rank), cell(t.Name), points(t.PointsWon), points(t.PointsLost),
			strconv.Itoa(t.PinsScratch), strconv.Itoa(t.PinsHandicap), strconv.Itoa(t.HighGame), strconv.Itoa(t.HighSeries))
	}
	write()
	write(RecapBowlersHeader...)
	for _, b := range r.Standings.Bowlers {
		avg, hcp := "", ""
		if b.Average > 0 {
			avg, hcp = strconv.Itoa(b.Average), strconv.Itoa(b.Handicap)
		}
		write(cell(b.Name), cell(b.Team), strconv.Itoa(b.Games), strconv.Itoa(b.Pins), avg, hcp,
			strconv.Itoa(b.HighGame), strconv.Itoa(b.HighSeries))
	}
	write()
	write(matches...)
	for _, m := range r.Night.Matches {
		fields := []string{strconv.Itoa(r.Night.Week), cell(m.Home.Team), cell(m.Away.Team)}
		for _, side := range []league.TeamSheet{m.Home, m.Away} {
			fields = append(fields, totals(side)...)
		}
		write(append(fields, points(m.Home.PointsWon), points(m.Away.PointsWon))...)
	}
	cw.Flush()
	return cw.Error()
}

// points writes whole or half points: 6, 1.5.
func points(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// The recap's image: a table of the teams, as the standings rank them.
// Its geometry, in SVG user units.
const (
	recapTeamWidth  = 280
	recapRankWidth  = 44
	recapNumWidth   = 96
	recapHeadHeight = 84 // the title and the subtitle
	recapColsHeight = 34 // the columns' names
	recapRowHeight  = 40
	recapWidth      = 2*margin + recapRankWidth + recapTeamWidth + 6*recapNumWidth
)

// recapWords are the image's words in each language.
var recapWords = map[string]struct {
	standings, after, inPlay, none string
	cols                           [8]string
}{
	"en": {"Standings", "after week %d", "week %d in play", "no night bowled yet",
		[8]string{"#", "Team", "Won", "Lost", "Scratch", "Handicap", "High game", "High series"}},
	"ko": {"순위표", "%d주차 후", "%d주차 진행 중", "아직 경기가 없습니다",
		[8]string{"순위", "팀", "승점", "패점", "스크래치", "핸디 포함", "하이 게임", "하이 시리즈"}},
}

// RecapSVG writes the recap's standings as an image: the league's name,
// the night they come to and the date, and a row a team, ranked: points
// won and lost, pins scratch and with handicap, high game and high
// series. Its text is text, every name escaped, in the fonts of the
// lanes' scorecards (Korean's among them), black on white, for a screen
// and for paper.
func RecapSVG(w io.Writer, r Recap) error {
	wd, ok := recapWords[r.Lang]
	lang := r.Lang
	if !ok {
		wd, lang = recapWords["en"], "en"
	}
	rows := max(len(r.Standings.Teams), 1)
	height := 2*margin + recapHeadHeight + recapColsHeight + recapRowHeight*rows
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }

	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-labelledby="title" xml:lang="%s">`+"\n",
		recapWidth, height, recapWidth, height, lang)
	p(`<title id="title">%s</title>`+"\n", esc(r.League+" — "+wd.standings))
	p(`<style>text{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans KR","Apple SD Gothic Neo",sans-serif;fill:#111}.h{font-size:28px;font-weight:700}.s{font-size:16px;fill:#444}.n{font-size:14px;fill:#555}.r{font-size:18px}.t{font-size:18px;font-weight:600}.w{font-size:18px;font-weight:700}</style>` + "\n")
	p(`<rect width="100%%" height="100%%" fill="#fff"/>` + "\n")
	p(`<text class="h" x="%d" y="%d"%s>%s</text>`+"\n", margin, margin+30, fitTo(r.League, recapWidth-2*margin, 28), esc(r.League))
	sub := wd.standings
	switch week, night := r.week(); night {
	case "":
		sub += " · " + wd.none
	case "open":
		sub += " · " + fmt.Sprintf(wd.inPlay, week)
	default:
		sub += " · " + fmt.Sprintf(wd.after, week)
	}
	if !r.Date.IsZero() {
		sub += " · " + r.Date.Format("2006-01-02")
	}
	p(`<text class="s" x="%d" y="%d">%s</text>`+"\n", margin, margin+60, esc(sub))

	// The columns: rank and team at the left, the numbers at the right
	// of theirs, as a spreadsheet aligns them.
	top := margin + recapHeadHeight
	teamX := margin + recapRankWidth
	numX := func(c int) int { return teamX + recapTeamWidth + (c+1)*recapNumWidth - 10 } // c from 0: won
	p(`<text class="n" x="%d" y="%d" text-anchor="middle">%s</text>`, margin+recapRankWidth/2, top+22, esc(wd.cols[0]))
	p(`<text class="n" x="%d" y="%d">%s</text>`, teamX+10, top+22, esc(wd.cols[1]))
	for c, name := range wd.cols[2:] {
		p(`<text class="n" x="%d" y="%d" text-anchor="end">%s</text>`, numX(c), top+22, esc(name))
	}
	p("\n")
	p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#111" stroke-width="2"/>`+"\n", margin, top+recapColsHeight, recapWidth-margin, top+recapColsHeight)
	y := top + recapColsHeight
	for i, t := range r.Standings.Teams {
		p(`<g>`)
		if i%2 == 1 { // banded, so that a printed row is easy to follow across
			p(`<rect x="%d" y="%d" width="%d" height="%d" fill="#f1f1f1"/>`, margin, y, recapWidth-2*margin, recapRowHeight)
		}
		base := y + recapRowHeight/2 + 6
		p(`<text class="r" x="%d" y="%d" text-anchor="middle">%d</text>`, margin+recapRankWidth/2, base, t.Rank)
		p(`<text class="t" x="%d" y="%d"%s>%s</text>`, teamX+10, base, fitTo(t.Name, recapTeamWidth-20, 18), esc(t.Name))
		for c, v := range []string{points(t.PointsWon), points(t.PointsLost), strconv.Itoa(t.PinsScratch), strconv.Itoa(t.PinsHandicap), strconv.Itoa(t.HighGame), strconv.Itoa(t.HighSeries)} {
			class := "r"
			if c == 0 {
				class = "w" // the points won rank the teams
			}
			p(`<text class="%s" x="%d" y="%d" text-anchor="end">%s</text>`, class, numX(c), base, v)
		}
		p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#ccc"/>`, margin, y+recapRowHeight, recapWidth-margin, y+recapRowHeight)
		p("</g>\n")
		y += recapRowHeight
	}
	p("</svg>\n")
	return bw.Flush()
}

// totals are a team's games with handicap, empty for one that does not
// count yet, and their sum, empty until all do.
func totals(ts league.TeamSheet) []string {
	out := make([]string, 0, len(ts.Totals)+1)
	sum := 0
	for _, t := range ts.Totals {
		if t < 0 || sum < 0 {
			sum = -1
		} else {
			sum += t
		}
		if t < 0 {
			out = append(out, "")
		} else {
			out = append(out, strconv.Itoa(t))
		}
	}
	if sum < 0 {
		return append(out, "")
	}
	return append(out, strconv.Itoa(sum))
}
