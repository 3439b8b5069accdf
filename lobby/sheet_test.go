package lobby_test

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// get fetches url and returns its status, content type and body.
func get(t *testing.T, url string) (int, string, []byte) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), body
}

// TestExports plays a game of two bowlers, one of them with a Hangul
// name, and fetches the night as a spreadsheet's CSV and the game as an
// SVG scorecard: both parse, and say what the board says.
func TestExports(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "Friday & <friends>")
	players := map[string]*client{"Jo": s.dial(t, id), "홍길동": s.dial(t, id)}
	players["Jo"].join(t, "Jo")
	players["홍길동"].join(t, "홍길동")
	players["Jo"].send(t, map[string]any{"type": "start"})
	model := playGame(t, rand.New(rand.NewPCG(7, 25)), []string{"Jo", "홍길동"}, players)

	status, ctype, body := get(t, s.srv.URL+"/api/lanes/"+id+"/games.csv")
	if status != http.StatusOK || ctype != "text/csv; charset=utf-8" {
		t.Fatalf("games.csv: %d %s", status, ctype)
	}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(body, []byte("\uFEFF")))).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("games.csv = %v rows, %v:\n%s", len(rows), err, body)
	}
	for i, p := range model.Players() {
		row := rows[i+1]
		if row[0] != "1" || row[1] != string(p.Name) || row[12] != strconv.Itoa(p.Game.Total()) || row[13] != "true" {
			t.Errorf("row %d = %q, want game 1, %s, total %d, finished", i+1, row, p.Name, p.Game.Total())
		}
		for f, frame := range p.Game.Frames() {
			if got := strings.TrimPrefix(row[2+f], "'"); got != frame.Marks() {
				t.Errorf("%s's frame %d = %q, want %q", p.Name, f+1, got, frame.Marks())
			}
		}
	}

	status, ctype, body = get(t, s.srv.URL+"/api/lanes/"+id+"/games/1.svg?lang=ko")
	if status != http.StatusOK || ctype != "image/svg+xml; charset=utf-8" {
		t.Fatalf("games/1.svg: %d %s", status, ctype)
	}
	var svg struct {
		XMLName xml.Name
		Texts   []string `xml:"text"`
		Groups  []struct {
			Texts []string `xml:"text"`
		} `xml:"g"`
	}
	if err := xml.Unmarshal(body, &svg); err != nil || svg.XMLName.Local != "svg" {
		t.Fatalf("games/1.svg is not an SVG image: %v\n%s", err, body)
	}
	if len(svg.Texts) == 0 || svg.Texts[0] != "Friday & <friends>" || len(svg.Groups) != 2 {
		t.Fatalf("games/1.svg: title %q, %d bowlers; want the lane's name and 2", svg.Texts, len(svg.Groups))
	}
	for i, p := range model.Players() {
		texts := svg.Groups[i].Texts
		if texts[0] != string(p.Name) || texts[len(texts)-1] != strconv.Itoa(p.Game.Total()) {
			t.Errorf("scorecard line %d = %q, want %s ... %d", i, texts, p.Name, p.Game.Total())
		}
	}

	for _, path := range []string{"games/2.svg", "games/0.svg", "games/01.svg", "games/x.svg", "games/1.png"} {
		if status, _, body := get(t, s.srv.URL+"/api/lanes/"+id+"/"+path); status != http.StatusNotFound || !bytes.Contains(body, []byte(protocol.CodeNotFound)) {
			t.Errorf("GET %s = %d %s, want 404 not_found", path, status, body)
		}
	}
	if status, _, _ := get(t, s.srv.URL+"/api/lanes/nosuchlane/games.csv"); status != http.StatusNotFound {
		t.Errorf("games.csv of no lane = %d, want 404", status)
	}
}
