package lobby_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
)

// askAPI sends method url with the bowler's key (if any) and a JSON body
// (if any), and returns the status and the body.
func askAPI(t *testing.T, method, url, key string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bowler "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, data
}

// apiJSON is api for a JSON answer of want status, decoded into v.
func apiJSON(t *testing.T, method, url, key string, body any, want int, v any) {
	t.Helper()
	status, data := askAPI(t, method, url, key, body)
	if status != want {
		t.Fatalf("%s %s: %d %s, want %d", method, url, status, data, want)
	}
	if v != nil {
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, data)
		}
	}
}

// playGameOf has c, alone on a started lane, bowl frames of balls (the
// tenth's bonus balls included), from frame 1; refs are prefixed with
// tag.
func playGameOf(t *testing.T, c *client, tag string, frames [][]int) {
	t.Helper()
	for f, balls := range frames {
		for b, pins := range balls {
			roll(t, c, f+1, b+1, pins, fmt.Sprintf("%s-%d-%d", tag, f+1, b+1))
		}
	}
}

// strikes is a perfect game; nines a game of 9s and misses (90).
var (
	strikes = [][]int{{10}, {10}, {10}, {10}, {10}, {10}, {10}, {10}, {10}, {10, 10, 10}}
	nines   = [][]int{{9, 0}, {9, 0}, {9, 0}, {9, 0}, {9, 0}, {9, 0}, {9, 0}, {9, 0}, {9, 0}, {9, 0}}
)

// syncBuffer is a log's output that tests read while the server writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestABowlerComesBack: a join asking to be remembered makes a bowler and
// its welcome carries the key; the games the seat finishes go into the
// bowler's history and numbers, its average shows on the board; a join
// with the key on another lane links the seat to the same bowler, whose
// average the board shows at once; a new high game is called out on the
// board; the API answers the numbers, the history a page at a time, the
// CSV; and the key is in no log line, even at debug.
func TestABowlerComesBack(t *testing.T) {
	var logs syncBuffer
	s := newServer(t, lobby.Config{
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Lane:   lane.Config{Bowlers: memjournal.NewBowlers()},
	})
	id := s.createLane(t, "Friday night")
	c := s.dial(t, id)
	c.send(t, map[string]any{"type": "join", "name": "Mina", "remember": true, "id": "j"})
	w := c.waitFor(t, "the welcome", func(m msg) bool { return m.Ref == "j" })
	key := w.BowlerKey
	if w.Type != protocol.TypeWelcome || len(key) < 26 {
		t.Fatalf("the join's answer = %s, want a welcome with a bowler key of 128 bits or more", w.raw)
	}
	c.send(t, map[string]any{"type": "start", "id": "s"})
	c.expectAck(t, "s")
	playGameOf(t, c, "g1", nines)
	b := c.boardWith(t, "the first game over", func(m msg) bool { return m.Phase == protocol.PhaseFinished })
	if len(b.Highs) != 0 {
		t.Errorf("a first game's board calls out %+v, want nothing: there was no best to beat", b.Highs)
	}
	// The game went into the history as it ended; the next game set up
	// counts it no second time.
	c.send(t, map[string]any{"type": "rematch", "id": "m"})
	c.expectAck(t, "m")
	c.boardWith(t, "Mina's average of 90", func(m msg) bool {
		return len(m.Players) == 1 && m.Players[0].Average != nil && *m.Players[0].Average == 90
	})
	c.send(t, map[string]any{"type": "start", "id": "s2"})
	c.expectAck(t, "s2")
	playGameOf(t, c, "g2", strikes)
	b = c.boardWith(t, "the high game called out as the game ends", func(m msg) bool { return m.Phase == protocol.PhaseFinished })
	if len(b.Highs) != 1 || b.Highs[0].Name != "Mina" || b.Highs[0].Game != 300 || b.Highs[0].Series != 0 {
		t.Errorf("highs = %+v, want Mina's new high game 300", b.Highs)
	}
	c.send(t, map[string]any{"type": "rematch", "id": "m2"})
	c.expectAck(t, "m2")
	c.boardWith(t, "Mina's average of 195, the news gone with the next game", func(m msg) bool {
		return len(m.Players) == 1 && m.Players[0].Average != nil && *m.Players[0].Average == 195 && len(m.Highs) == 0
	})

	// Another night, another lane, the same phone.
	other := s.createLane(t, "Next week")
	d := s.dial(t, other)
	d.send(t, map[string]any{"type": "join", "name": "Mina K", "bowler_key": key, "id": "j"})
	if w := d.waitFor(t, "the welcome", func(m msg) bool { return m.Ref == "j" }); w.Type != protocol.TypeWelcome || w.BowlerKey != "" {
		t.Fatalf("a join with the key = %s, want a welcome without a new key", w.raw)
	}
	d.boardWith(t, "Mina K's average of 195 at once", func(m msg) bool {
		return len(m.Players) == 1 && m.Players[0].Average != nil && *m.Players[0].Average == 195
	})

	var me protocol.Bowler
	apiJSON(t, "GET", s.srv.URL+"/api/bowlers/me", key, nil, http.StatusOK, &me)
	if me.Name != "Mina" || me.Games != 2 || me.Pins != 390 || me.Average == nil || *me.Average != 195 || me.HighGame != 300 || me.HighSeries != 0 ||
		me.StrikePct == nil || *me.StrikePct != 54.5 || me.CleanGames != 1 || me.FirstBallAverage == nil {
		t.Errorf("GET /api/bowlers/me = %+v; want Kim, 2 games, 390 pins, average 195, high 300, strikes 12 of 22 (54.5%%), 1 clean game", me)
	}
	var page protocol.BowlerGames
	apiJSON(t, "GET", s.srv.URL+"/api/bowlers/me/games?limit=1", key, nil, http.StatusOK, &page)
	if len(page.Games) != 1 || page.Games[0].Score != 300 || page.Games[0].Game != 2 || page.Games[0].Lane != id ||
		page.Games[0].LaneName != "Friday night" || page.Games[0].Frames[0] != "X" || page.Games[0].Sheet != "/lanes/"+id || page.Next == "" {
		t.Fatalf("the first page of one = %+v; want the 300, game 2 of lane %s, and a next page", page, id)
	}
	next := page.Next
	page = protocol.BowlerGames{}
	apiJSON(t, "GET", s.srv.URL+"/api/bowlers/me/games?limit=1&before="+next, key, nil, http.StatusOK, &page)
	if len(page.Games) != 1 || page.Games[0].Score != 90 || page.Next != "" {
		t.Errorf("the second page = %+v; want the 90, and no next page", page)
	}
	for _, bad := range []string{"?limit=0", "?limit=101", "?before=x", "?before=0"} {
		if status, _ := askAPI(t, "GET", s.srv.URL+"/api/bowlers/me/games"+bad, key, nil); status != http.StatusBadRequest {
			t.Errorf("GET games%s: %d, want 400", bad, status)
		}
	}
	status, data := askAPI(t, "GET", s.srv.URL+"/api/bowlers/me/games.csv", key, nil)
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(data), "\uFEFF"))).ReadAll()
	if status != http.StatusOK || err != nil || len(rows) != 3 || rows[0][0] != "date" || rows[1][2] != "Friday night" || rows[1][15] != "300" {
		t.Errorf("games.csv: %d, %v, %q; want a header and the two games, newest first", status, err, rows)
	}
	status, data = askAPI(t, "GET", s.srv.URL+"/api/bowlers/me/chart.svg", key, nil)
	if status != http.StatusOK || !bytes.Contains(data, []byte("<polyline")) || bytes.Count(data, []byte("<circle")) != 2+1 {
		t.Errorf("chart.svg: %d, %.200s; want two games' dots, the legend's, and the average's line", status, data)
	}
	if strings.Contains(logs.String(), key) {
		t.Error("the bowler's key is in the server's log")
	}
}

// TestUnknownBowlerKeys: a join or a request with a key nobody holds is
// refused unknown_bowler (401 on the API) and changes nothing; an address
// that tries too many is answered 429 before the store is asked.
func TestUnknownBowlerKeys(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{Bowlers: memjournal.NewBowlers()}})
	id := s.createLane(t, "Friday night")
	c := s.dial(t, id)
	c.send(t, map[string]any{"type": "join", "name": "Mina", "bowler_key": "forged", "id": "j"})
	c.expectError(t, "j", string(protocol.CodeUnknownBowler))
	if b := getBoard(t, s, id); len(b.Players) != 0 {
		t.Errorf("a join refused seated %+v", b.Players)
	}
	var e protocol.Error
	apiJSON(t, "GET", s.srv.URL+"/api/bowlers/me", "", nil, http.StatusUnauthorized, &e)
	apiJSON(t, "GET", s.srv.URL+"/api/bowlers/me", "forged", nil, http.StatusUnauthorized, &e)
	if e.Code != protocol.CodeUnknownBowler {
		t.Errorf("an unknown key: %+v, want unknown_bowler", e)
	}
	limited := false
	for range lobby.KeyGuessBurst + 2 {
		status, _ := askAPI(t, "GET", s.srv.URL+"/api/bowlers/me", "guess", nil)
		if status == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Errorf("%d unknown keys from one address were all answered: no 429", lobby.KeyGuessBurst+2)
	}
}

// TestKeyGuessesOnASocket: a lane's socket holds the bowler keys an
// address tries on joins to the API's rate: past the burst of unknown
// keys, a join with a key is refused rate_limited before the store is
// asked, however many connections the address opens; a known key costs
// nothing, however often it joins.
func TestKeyGuessesOnASocket(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{Bowlers: memjournal.NewBowlers()}})
	id := s.createLane(t, "Friday night")

	// A bowler whose phone comes back, lane after lane, with its key,
	// made by their first ball on another lane.
	first := s.dial(t, s.createLane(t, "Thursday night"))
	first.send(t, map[string]any{"type": "join", "name": "Mina", "remember": true, "id": "j"})
	key := first.expectAck(t, "j").BowlerKey
	if key == "" {
		t.Fatal("the welcome of a join to be remembered carries no key")
	}
	firstBall(t, s, first, key)
	first.send(t, map[string]any{"type": "leave", "id": "l"})
	first.expectAck(t, "l")
	for i := range lobby.KeyGuessBurst + 5 {
		other := s.dial(t, id)
		other.send(t, map[string]any{"type": "join", "name": "Mina", "bowler_key": key, "id": "k"})
		other.expectAck(t, "k")
		other.send(t, map[string]any{"type": "leave", "id": fmt.Sprint("l", i)})
		other.expectAck(t, fmt.Sprint("l", i))
		other.ws.CloseNow()
	}

	// A guesser, on one connection and then on another.
	guesser := s.dial(t, id)
	var codes []protocol.Code
	for i := range lobby.KeyGuessBurst + 2 {
		ref := fmt.Sprint("g", i)
		guesser.send(t, map[string]any{"type": "join", "name": "Guess", "bowler_key": fmt.Sprint("guess ", i), "id": ref})
		codes = append(codes, guesser.waitFor(t, "the answer to "+ref, func(m msg) bool { return m.Ref == ref }).Code)
	}
	for i, c := range codes {
		want := protocol.CodeUnknownBowler
		if i >= lobby.KeyGuessBurst {
			want = protocol.CodeRateLimited
		}
		if c != want {
			t.Fatalf("guess %d was answered %s, want %s: answers %v", i, c, want, codes)
		}
	}
	again := s.dial(t, id)
	again.send(t, map[string]any{"type": "join", "name": "Guess", "bowler_key": "another", "id": "a"})
	again.expectError(t, "a", string(protocol.CodeRateLimited))
	status, _ := askAPI(t, "GET", s.srv.URL+"/api/bowlers/me", "guess", nil)
	if status != http.StatusTooManyRequests {
		t.Errorf("the API, once the socket spent the address's guesses: %d, want 429", status)
	}
}

// TestKeyGuessesCannotBeSmuggled: a key tried in a join whose field
// name is written escaped costs a guess as any, and so does each of
// several joins sent at once: past the burst, the next is rate_limited.
func TestKeyGuessesCannotBeSmuggled(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{Bowlers: memjournal.NewBowlers()}})
	guesser := s.dial(t, s.createLane(t, "Friday night"))
	const atOnce = 4
	var codes []protocol.Code
	for round := range lobby.KeyGuessBurst / atOnce {
		for i := range atOnce { // sent at once, each answered after
			guesser.send(t, fmt.Sprintf(`{"type":"join","name":"Guess","bowler\u005fkey":"guess %d %d","id":"g%d-%d"}`, round, i, round, i))
		}
		for i := range atOnce {
			ref := fmt.Sprintf("g%d-%d", round, i)
			codes = append(codes, guesser.waitFor(t, "the answer to "+ref, func(m msg) bool { return m.Ref == ref }).Code)
		}
	}
	for i, c := range codes {
		if c != protocol.CodeUnknownBowler {
			t.Fatalf("guess %d was answered %s, want unknown_bowler: answers %v", i, c, codes)
		}
	}
	guesser.send(t, `{"type":"join","name":"Guess","bowler_key":"one more","id":"last"}`)
	guesser.expectError(t, "last", string(protocol.CodeRateLimited))
}

// TestABowlersDevices: another phone redeems a one-time code for a key of
// its own, once; "Forget me" revokes that phone's key alone; a share
// shows the page read-only until revoked; "Delete my history" erases the
// bowler, and the lane keeps its games under the name bowled.
func TestABowlersDevices(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{Bowlers: memjournal.NewBowlers()}})
	id := s.createLane(t, "Friday night")
	c := s.dial(t, id)
	key := bowlNines(t, c)
	makeFinal(t, c)
	base := s.srv.URL + "/api/bowlers"

	var code protocol.LinkCode
	apiJSON(t, "POST", base+"/me/codes", key, nil, http.StatusCreated, &code)
	if !strings.Contains(code.URL, "/me#link="+code.Code) || !strings.HasPrefix(code.QR, "data:image/png;base64,") || time.Until(code.Expires) > 10*time.Minute {
		t.Errorf("a link code = %+v; want its URL with the code in the fragment, a QR code, 10 minutes", code)
	}
	var tablet protocol.BowlerKey
	apiJSON(t, "POST", base+"/link", "", protocol.Link{Code: code.Code}, http.StatusOK, &tablet)
	if tablet.BowlerKey == "" || tablet.BowlerKey == key {
		t.Fatalf("the tablet's key = %q, want a key of its own", tablet.BowlerKey)
	}
	var e protocol.Error
	apiJSON(t, "POST", base+"/link", "", protocol.Link{Code: code.Code}, http.StatusGone, &e)
	if e.Code != protocol.CodeCodeUsed || !strings.Contains(e.Message, "used already") {
		t.Errorf("a code used twice: %+v, want code_used, saying it was used", e)
	}
	for _, tc := range []struct {
		name string
		body protocol.Link
		want protocol.Code
	}{
		{"no code", protocol.Link{}, protocol.CodeBadRequest},
		{"a body over 1 KiB", protocol.Link{Code: strings.Repeat("x", 1<<10)}, protocol.CodeTooLarge},
	} {
		var e protocol.Error
		apiJSON(t, "POST", base+"/link", "", tc.body, tc.want.Status(), &e)
		if e.Code != tc.want {
			t.Errorf("a link with %s: %+v, want %s", tc.name, e, tc.want)
		}
	}
	var me protocol.Bowler
	apiJSON(t, "GET", base+"/me", tablet.BowlerKey, nil, http.StatusOK, &me)
	if me.Games != 1 {
		t.Errorf("the tablet sees %d games, want the phone's 1", me.Games)
	}

	apiJSON(t, "DELETE", base+"/me/key", tablet.BowlerKey, nil, http.StatusNoContent, nil)
	apiJSON(t, "GET", base+"/me", tablet.BowlerKey, nil, http.StatusUnauthorized, nil)
	apiJSON(t, "GET", base+"/me", key, nil, http.StatusOK, nil)

	var share protocol.Share
	apiJSON(t, "POST", base+"/me/share", key, nil, http.StatusCreated, &share)
	if strings.Contains(share.URL, key) || !strings.HasSuffix(share.URL, "/b/"+share.Share) {
		t.Errorf("the share = %+v: want /b/{share}, and no key in it", share)
	}
	var shown protocol.Bowler
	apiJSON(t, "GET", base+"/shared/"+share.Share, "", nil, http.StatusOK, &shown)
	if shown.Name != "Mina" || shown.Games != 1 || shown.Shared {
		t.Errorf("the shared page = %+v, want Kim's numbers", shown)
	}
	apiJSON(t, "DELETE", base+"/me/share", key, nil, http.StatusNoContent, nil)
	apiJSON(t, "GET", base+"/shared/"+share.Share, "", nil, http.StatusUnauthorized, nil)

	apiJSON(t, "DELETE", base+"/me", key, nil, http.StatusNoContent, nil)
	apiJSON(t, "GET", base+"/me", key, nil, http.StatusUnauthorized, nil)
	var games protocol.Games
	getJSON(t, s.srv.URL+"/api/lanes/"+id+"/games", &games)
	if len(games.Games) != 2 || games.Games[0].Players[0].Name != "Mina" || games.Games[0].Players[0].Total != 90 {
		t.Errorf("the lane's games after the bowler deleted their history: %+v, want Mina's 90, and the next game", games)
	}
	// A join with the deleted key is refused, and may go on as a guest.
	d := s.dial(t, s.createLane(t, "Later"))
	d.send(t, map[string]any{"type": "join", "name": "Mina", "bowler_key": key, "id": "j"})
	d.expectError(t, "j", string(protocol.CodeUnknownBowler))
}

// TestRecordingABowlersGameSurvivesAFlakyStore: a store that fails the
// first tries of a game's end still gets it, once.
func TestRecordingABowlersGameSurvivesAFlakyStore(t *testing.T) {
	f := &flakyBowlers{Service: memjournal.NewBowlers()}
	f.fails.Store(2)
	s := newServer(t, lobby.Config{Lane: lane.Config{Bowlers: f}})
	c := s.dial(t, s.createLane(t, "Friday night"))
	key := bowlNines(t, c)
	makeFinal(t, c)
	r, err := f.Find(context.Background(), bowler.HashKey(key))
	if err != nil || r.Stats.Games != 1 {
		t.Errorf("after two failed tries: %+v, %v; want the game recorded once", r, err)
	}
}

// TestMyExportsAreExports: a bowler's games.csv and chart are built once
// a change of the bowler, however often they are asked for, answer 304
// to a page that has them, and are under the export rate, as a lane's
// exports are; so are one-time codes.
func TestMyExportsAreExports(t *testing.T) {
	counted := &countedBowlers{Service: memjournal.NewBowlers()}
	s := newServer(t, lobby.Config{Lane: lane.Config{Bowlers: counted}})
	c := s.dial(t, s.createLane(t, "Friday night"))
	key := bowlNines(t, c)
	makeFinal(t, c)

	ask := func(path, etag string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.srv.URL+path, nil)
		req.Header.Set("Authorization", "Bowler "+key)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if cc := res.Header.Get("Cache-Control"); res.StatusCode == http.StatusOK && cc != "private, no-cache" {
			t.Errorf("GET %s: Cache-Control %q, want private, no-cache: a bowler's own", path, cc)
		}
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("ETag"), string(body)
	}
	for _, path := range []string{"/api/bowlers/me/games.csv", "/api/bowlers/me/chart.svg"} {
		before := counted.games.Load()
		status, etag, body := ask(path, "")
		for range 3 {
			if again, tag, b := ask(path, ""); again != status || tag != etag || b != body {
				t.Fatalf("GET %s again: %d %s, want %d %s and the same body", path, again, tag, status, etag)
			}
		}
		if status != http.StatusOK || etag == "" || !strings.Contains(body, "90") {
			t.Fatalf("GET %s: %d, ETag %q, %q", path, status, etag, body)
		}
		if n := counted.games.Load() - before; n != 1 {
			t.Errorf("GET %s four times read the history %d times, want once", path, n)
		}
		if status, _, _ := ask(path, etag); status != http.StatusNotModified {
			t.Errorf("GET %s with its ETag: %d, want 304", path, status)
		}
	}
	// The rate, asked of the handler itself, far faster than the bucket
	// fills up again (lobby.ExportRate a second): past its burst, and a
	// hundred more for what it gains meanwhile, an ask is refused.
	serve := func(method, path string) int {
		req := httptest.NewRequest(method, path, strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bowler "+key)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.api.ServeHTTP(w, req)
		return w.Code
	}
	limited := false
	for range lobby.ExportBurst + 100 {
		if serve(http.MethodGet, "/api/bowlers/me/games.csv") == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Errorf("%d asks for games.csv from one address were all answered: no 429", lobby.ExportBurst+100)
	}
	if status := serve(http.MethodPost, "/api/bowlers/me/codes"); status != http.StatusTooManyRequests {
		t.Errorf("a one-time code past the export rate: %d, want 429", status)
	}
}

// countedBowlers counts the reads of bowlers' histories.
type countedBowlers struct {
	bowler.Service
	games atomic.Int32
}

func (c *countedBowlers) Games(ctx context.Context, id bowler.ID, before, limit int) ([]bowler.Game, error) {
	c.games.Add(1)
	return c.Service.Games(ctx, id, before, limit)
}

// flakyBowlers is a bowler store whose Add fails while fails is above 0:
// a store that does not answer for a moment.
type flakyBowlers struct {
	bowler.Service
	fails atomic.Int32
}

func (f *flakyBowlers) Add(ctx context.Context, id bowler.ID, g bowler.Game) (*bowler.Record, bowler.News, error) {
	if f.fails.Add(-1) >= 0 {
		return nil, bowler.News{}, errors.New("the store does not answer")
	}
	return f.Service.Add(ctx, id, g)
}

// TestACorrectedGameGoesIntoTheHistoryCorrected: a ball corrected after
// the last one counts in the history too, once the next game is set up.
func TestACorrectedGameGoesIntoTheHistoryCorrected(t *testing.T) {
	bowlers := memjournal.NewBowlers()
	s := newServer(t, lobby.Config{Lane: lane.Config{Bowlers: bowlers}})
	c := s.dial(t, s.createLane(t, "Friday night"))
	key := bowlNines(t, c)
	c.send(t, map[string]any{"type": "correct", "pins": 8, "frame": 1, "ball": 1, "id": "fix"})
	c.expectAck(t, "fix")
	makeFinal(t, c)
	games, err := bowlers.Games(context.Background(), mustFind(t, bowlers, key), 0, 10)
	if err != nil || len(games) != 1 || games[0].Score != 89 || games[0].Marks[0] != "8|-" {
		t.Errorf("the history = %+v, %v; want the game as corrected: 89, 8|- in frame 1", games, err)
	}
}

// TestAFinishedGameIsInMeWithThePageOpen: a game is in the bowler's
// numbers, average and history as soon as its last ball is bowled, with
// no next game set up and every page still open; a correction of it then
// takes its place there, counted once. Before, it went in only when the
// next game was set up or the lane closed: /me said "no game yet".
func TestAFinishedGameIsInMeWithThePageOpen(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{Bowlers: memjournal.NewBowlers()}})
	c := s.dial(t, s.createLane(t, "Friday night"))
	key := bowlNines(t, c)
	me := func(what string, pins, score int) {
		t.Helper()
		polltest.Until(t, 10*time.Second, what, func() (any, bool) {
			var b protocol.Bowler
			var page protocol.BowlerGames
			if status, data := askAPI(t, "GET", s.srv.URL+"/api/bowlers/me", key, nil); status != http.StatusOK || json.Unmarshal(data, &b) != nil {
				return status, false
			}
			if status, data := askAPI(t, "GET", s.srv.URL+"/api/bowlers/me/games", key, nil); status != http.StatusOK || json.Unmarshal(data, &page) != nil {
				return status, false
			}
			ok := b.Games == 1 && b.Pins == pins && b.Average != nil && *b.Average == pins && len(page.Games) == 1 && page.Games[0].Score == score
			return fmt.Sprintf("me %+v, games %+v", b, page.Games), ok
		})
	}
	me("the game in /me as it ends", 90, 90)
	c.send(t, map[string]any{"type": "correct", "pins": 8, "frame": 1, "ball": 1, "id": "fix"})
	c.expectAck(t, "fix")
	me("the corrected game in its place", 89, 89)
}

func mustFind(t *testing.T, s bowler.Service, key string) bowler.ID {
	t.Helper()
	r, err := s.Find(context.Background(), bowler.HashKey(key))
	if err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// bowlNines has c join as Mina, a bowler to remember, start and bowl a
// game of 9s and misses (90); it returns her key.
func bowlNines(t *testing.T, c *client) string {
	t.Helper()
	c.send(t, map[string]any{"type": "join", "name": "Mina", "remember": true, "id": "j"})
	key := c.waitFor(t, "the welcome", func(m msg) bool { return m.Ref == "j" }).BowlerKey
	c.send(t, map[string]any{"type": "start", "id": "s"})
	c.expectAck(t, "s")
	playGameOf(t, c, "g1", nines)
	return key
}

// firstBall has c, seated and remembered as the bowler of key, start the
// game and bowl a ball, which makes the bowler, and waits until the API
// knows the key.
func firstBall(t *testing.T, s *testServer, c *client, key string) {
	t.Helper()
	c.send(t, map[string]any{"type": "start", "id": "first-start"})
	c.expectAck(t, "first-start")
	c.send(t, map[string]any{"type": "roll", "pins": 9, "frame": 1, "ball": 1, "id": "first-ball"})
	c.expectAck(t, "first-ball")
	polltest.Until(t, 10*time.Second, "the bowler made at the first ball", func() (any, bool) {
		status, body := askAPI(t, "GET", s.srv.URL+"/api/bowlers/me", key, nil)
		return string(body), status == http.StatusOK
	})
}

// makeFinal has c, the host, set up the next game, which makes the last
// final, and waits for the board that shows it recorded (an average).
func makeFinal(t *testing.T, c *client) {
	t.Helper()
	c.send(t, map[string]any{"type": "rematch", "id": "m"})
	c.expectAck(t, "m")
	c.boardWith(t, "the game recorded", func(m msg) bool { return len(m.Players) == 1 && m.Players[0].Average != nil })
}

// TestCodesPerBowler: a bowler's device may have bowler.MaxCodes one-time
// codes live at once; the next is refused 429, saying why.
func TestCodesPerBowler(t *testing.T) {
	s := newServer(t, lobby.Config{Lane: lane.Config{Bowlers: memjournal.NewBowlers()}})
	c := s.dial(t, s.createLane(t, "Friday night"))
	c.send(t, map[string]any{"type": "join", "name": "Mina", "remember": true, "id": "j"})
	key := c.expectAck(t, "j").BowlerKey
	firstBall(t, s, c, key)
	for i := range bowler.MaxCodes {
		if status, body := askAPI(t, "POST", s.srv.URL+"/api/bowlers/me/codes", key, map[string]any{}); status != http.StatusCreated {
			t.Fatalf("code %d: %d %s", i+1, status, body)
		}
	}
	status, body := askAPI(t, "POST", s.srv.URL+"/api/bowlers/me/codes", key, map[string]any{})
	if status != http.StatusTooManyRequests || !strings.Contains(string(body), "not used yet") {
		t.Errorf("a code past %d live ones: %d %s, want 429 saying why", bowler.MaxCodes, status, body)
	}
}
