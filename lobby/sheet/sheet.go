// Package sheet writes a lane's series as the score sheets bowlers keep:
// a CSV file for a spreadsheet, one row per bowler per game, and a game's
// scorecard as an SVG image a phone can share or save; and a league's
// weekly recap ([Recap]) as its secretary prints it, a CSV file and an
// image of the standings.
//
// It reads the series as the HTTP API serves it ([protocol.Games]), so a
// node writes the sheets of a lane another node runs the same way as its
// own; a recap, from the league's own standings and sheet.
package sheet

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tenpin/tenpin/protocol"
)

// Header is the CSV's first row. The columns after the total are those of
// a game's [protocol.PlayerStats], named as the stats API names them.
var Header = []string{
	"game", "bowler", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "total", "finished", "left",
	"strikes", "strike_chances", "spares", "spare_chances", "opens", "first_ball_avg",
	"splits", "splits_made", "single_pins", "single_pins_made", "fouls", "clean_game",
}

// bom starts the file so that a spreadsheet reads it as UTF-8: names of
// any script come out as they were typed.
const bom = "\uFEFF"

// CSV writes the series as a CSV file: a byte order mark, [Header], and a
// row for each bowler of each game, oldest first, the game in play
// included (its "finished" is false). A frame's cell holds its marks as
// on the board ("X", "8|/", "(8)|1" for a split, "F|/" for a foul).
func CSV(w io.Writer, games protocol.Games) error {
	if _, err := io.WriteString(w, bom); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(Header); err != nil {
		return err
	}
	row := make([]string, 0, len(Header))
	for _, g := range games.Games {
		for _, p := range g.Players {
			if err := cw.Write(appendRow(row[:0], g, p)); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Rows returns game g's rows of [CSV], one a bowler, each as CSV writes
// it but for the game's number that starts it: what follows the number,
// from the comma after it to the end of the row. A lane's export keeps a
// finished game's rows, written once, though the game's number in the
// series changes once the series moves past its longest.
func Rows(g protocol.Game) ([][]byte, error) {
	var buf bytes.Buffer
	buf.Grow(128 * len(g.Players)) // a row is about 100 bytes: grown once, not from 64
	cw := csv.NewWriter(&buf)
	row := make([]string, 0, len(Header))
	ends := make([]int, len(g.Players))
	for i, p := range g.Players {
		buf.WriteByte(',')
		if err := cw.Write(appendRow(row[:0], g, p)[1:]); err != nil {
			return nil, err
		}
		cw.Flush()
		ends[i] = buf.Len()
	}
	if err := cw.Error(); err != nil {
		return nil, err
	}
	rows, start := make([][]byte, len(ends)), 0
	for i, end := range ends {
		rows[i], start = buf.Bytes()[start:end:end], end
	}
	return rows, nil
}

// appendRow appends p's row of game g, as [Header] names its columns.
func appendRow(row []string, g protocol.Game, p protocol.GamePlayer) []string {
	row = append(row, strconv.Itoa(g.Game), cell(p.Name))
	for i := range 10 {
		marks := ""
		if i < len(p.Frames) {
			marks = p.Frames[i].Marks
		}
		row = append(row, cell(marks))
	}
	s := p.Stats
	clean := s.CleanGames > 0
	return append(row, strconv.Itoa(p.Total), strconv.FormatBool(g.Finished), strconv.FormatBool(p.Left),
		strconv.Itoa(s.Strikes), strconv.Itoa(s.StrikeChances), strconv.Itoa(s.Spares), strconv.Itoa(s.SpareChances),
		strconv.Itoa(s.Opens), decimal(s.FirstBallAvg),
		strconv.Itoa(s.Splits), strconv.Itoa(s.SplitsMade), strconv.Itoa(s.SinglePins), strconv.Itoa(s.SinglePinsMade),
		strconv.Itoa(s.Fouls), strconv.FormatBool(clean))
}

// HistoryHeader is the first row of a bowler's history as a CSV: when
// each game ended and on which lane, then a lane's columns ([Header]).
var HistoryHeader = append([]string{"date", "lane", "lane_name"}, Header...)

// HistoryGame is a game of a bowler's history: when it ended, on which
// lane, and the bowler's line of it.
type HistoryGame struct {
	At       time.Time
	Lane     string
	LaneName string
	Game     protocol.Game // of one player, the bowler
}

// HistoryCSV writes a bowler's history as a CSV file: a byte order mark,
// [HistoryHeader], and a row a game, in the order next gives them; next
// returns false after the last.
func HistoryCSV(w io.Writer, next func() (HistoryGame, bool, error)) error {
	if _, err := io.WriteString(w, bom); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(HistoryHeader); err != nil {
		return err
	}
	row := make([]string, 0, len(HistoryHeader))
	for {
		h, ok, err := next()
		if err != nil || !ok {
			cw.Flush()
			return errors.Join(err, cw.Error())
		}
		for _, p := range h.Game.Players {
			row = append(row[:0], h.At.UTC().Format(time.RFC3339), h.Lane, cell(h.LaneName))
			if err := cw.Write(appendRow(row, h.Game, p)); err != nil {
				return err
			}
		}
	}
}

// cell guards a text cell against a spreadsheet taking it for a formula: a
// gutter's marks begin with "-" ("-|7"), which a spreadsheet would
// evaluate. A leading apostrophe makes it text, as OWASP advises for CSV
// files opened in spreadsheets.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// decimal writes an average to two decimals, or nothing when it is not
// known.
func decimal(x *float64) string {
	if x == nil {
		return ""
	}
	return strconv.FormatFloat(*x, 'f', 2, 64)
}
