package sheet_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/golden"
	"github.com/tenpin/tenpin/lobby/sheet"
	"github.com/tenpin/tenpin/protocol"
)

// series reads testdata/games.json: a finished game of a split made, a
// gutter, a foul, a perfect game, a bowler who left, and a game in play.
// One "name" is no name a lane takes: the sheet must write any text
// safely all the same.
func series(t *testing.T) protocol.Games {
	t.Helper()
	data, err := os.ReadFile("testdata/games.json")
	if err != nil {
		t.Fatal(err)
	}
	var g protocol.Games
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := sheet.CSV(&buf, series(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "games.csv", buf.Bytes())

	data, ok := bytes.CutPrefix(buf.Bytes(), []byte("\uFEFF"))
	if !ok {
		t.Fatal("the CSV does not start with a byte order mark: a spreadsheet would not read its names as UTF-8")
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse back: %v", err)
	}
	if len(rows) != 5 || !slices.Equal(rows[0], sheet.Header) {
		t.Fatalf("rows = %q, want the header and four bowlers' games", rows)
	}
	col := func(name string) int { return slices.Index(sheet.Header, name) }
	hong, zoe, left, playing := rows[1], rows[2], rows[3], rows[4]
	for _, c := range []struct {
		row        []string
		name, want string
	}{
		{hong, "bowler", "홍길동"},
		{hong, "1", "(8)|/"},
		{hong, "2", "'-|7"}, // a gutter's "-" is not a formula
		{hong, "3", "F|/"},
		{hong, "total", "133"},
		{hong, "first_ball_avg", "6.45"},
		{hong, "splits_made", "1"},
		{zoe, "bowler", "Zoë O'Neil"},
		{zoe, "10", "X|X|X"},
		{zoe, "strikes", "12"},
		{zoe, "strike_chances", "12"},
		{zoe, "clean_game", "true"},
		{left, "bowler", "'=cmd<b>&"},
		{left, "left", "true"},
		{left, "first_ball_avg", ""},
		{playing, "game", "2"},
		{playing, "finished", "false"},
		{playing, "3", ""},
	} {
		if got := c.row[col(c.name)]; got != c.want {
			t.Errorf("%s's %s = %q, want %q", c.row[1], c.name, got, c.want)
		}
	}
}

func TestSVG(t *testing.T) {
	date := time.Date(2026, 11, 25, 21, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		n    int
		lang string
		file string
	}{
		{1, "en", "game1.svg"},
		{2, "ko", "game2.ko.svg"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			var buf bytes.Buffer
			if err := sheet.SVG(&buf, series(t).Games[tt.n-1], sheet.Card{Lane: "Friday <night> & co", Date: date, Lang: tt.lang}); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tt.file, buf.Bytes())
			texts := svgTexts(t, buf.Bytes())
			for _, want := range []string{"Friday <night> & co", "홍길동", "2026-11-25"} {
				if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, want) }) {
					t.Errorf("no text of the scorecard says %q: %q", want, texts)
				}
			}
		})
	}
	texts := svgTexts(t, render(t, 1))
	for _, want := range []string{"(8) /", "- 7", "F /", "X X X", "300", "133", "Zoë O'Neil", "=cmd<b>&", "left"} {
		if !slices.Contains(texts, want) {
			t.Errorf("game 1's scorecard has no text %q: %q", want, texts)
		}
	}
}

func render(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := sheet.SVG(&buf, series(t).Games[n-1], sheet.Card{Lane: "lane"}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// svgTexts parses an SVG as XML, checks its root, and returns the content
// of its text elements.
func svgTexts(t *testing.T, data []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var texts []string
	var in bool
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not XML: %v\n%s", err, data)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Space + " " + tok.Name.Local
			}
			in = tok.Name.Local == "text"
		case xml.CharData:
			if in {
				texts = append(texts, string(tok))
			}
		case xml.EndElement:
			in = false
		}
	}
	if root != "http://www.w3.org/2000/svg svg" {
		t.Fatalf("the SVG's root is %q, want an svg element", root)
	}
	return texts
}

func TestSVGShrinksAWideName(t *testing.T) {
	wide := "가나다라마바사아자차카타" // twelve syllables: 24 columns
	g := protocol.Game{Game: 1, Players: []protocol.GamePlayer{{Name: wide}, {Name: "Jo"}}}
	var buf bytes.Buffer
	if err := sheet.SVG(&buf, g, sheet.Card{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, `style="font-size:11.7px">`+wide+`<`) {
		t.Errorf("a name of 24 columns is not written smaller:\n%s", out)
	}
	if !strings.Contains(out, `<text class="p" x="30" y="233">Jo<`) {
		t.Errorf("a short name is not written at its usual size:\n%s", out)
	}
}
