package web_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	lobbyserver "github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/web"
)

// These tests drive Debian's Chromium against a real server, through the
// page, as people use it. Without a browser they skip, unless
// TENPIN_BROWSER=required (as in CI), when a missing browser fails them.

const step = 20 * time.Second // a deadline for anything one step waits for

func findBrowser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	msg := "no Chromium found: install it with 'apt-get install chromium' to run the browser tests"
	if os.Getenv("TENPIN_BROWSER") == "required" {
		t.Fatal(msg + " (TENPIN_BROWSER=required)")
	}
	t.Skip(msg)
	return ""
}

// app is the server as cmd/tenpin wires it, on a loopback port.
func app(t *testing.T) string {
	t.Helper()
	return serve(t, lobby.Config{}).url
}

// server is a running app with the levers a test pulls to play a network
// failure or a server that is down.
type server struct {
	url   string
	lobby *lobby.Lobby

	// requests gets the path of every request for a lane, by the API or
	// its socket, while it has room; the rest are not recorded.
	requests chan string
	// down, while set, makes the API and the sockets answer 503, as a
	// proxy in front of a server that is restarting does.
	down atomic.Bool
	// restarting, while set, answers every new socket as a server going
	// down to restart does: the server_restarting notice, then 1001.
	restarting atomic.Bool
	// noInvite, while set, answers a lane's invitation 404, as a server
	// from before invitations did.
	noInvite atomic.Bool
	// posts gets the body of every POST /api/lanes while it has room.
	posts chan string

	mu      sync.Mutex
	sockets []net.Conn // the connections the WebSockets took over

	// page serves the page: web.Handler(), or another version of it
	// (setPage), as a server that was updated does.
	page atomic.Pointer[http.Handler]
}

// setPage serves the page with h from now on.
func (s *server) setPage(h http.Handler) { s.page.Store(&h) }

// serve starts the app with the lobby's config.
func serve(t *testing.T, cfg lobby.Config) *server {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Lane.Journal == nil {
		cfg.Lane.Journal = memjournal.New()
	}
	s := &server{lobby: lobby.New(cfg), requests: make(chan string, 64), posts: make(chan string, 16)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.lobby.Run(ctx) }()
	api := lobbyserver.API(s.lobby, cfg.Logger)
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) { s.serveLobby(api, w, r) })
	mux.HandleFunc("/ws/", func(w http.ResponseWriter, r *http.Request) { s.serveLobby(api, w, r) })
	s.setPage(web.Handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { (*s.page.Load()).ServeHTTP(w, r) })
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ConnState = func(c net.Conn, state http.ConnState) {
		if state == http.StateHijacked {
			s.mu.Lock()
			s.sockets = append(s.sockets, c)
			s.mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(func() { cancel(); <-done; srv.Close() })
	s.url = srv.URL
	return s
}

func (s *server) serveLobby(api http.Handler, w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/lanes/") || strings.HasPrefix(r.URL.Path, "/ws/lanes/") {
		select {
		case s.requests <- r.URL.Path:
		default:
		}
	}
	if r.Method == http.MethodPost && r.URL.Path == "/api/lanes" {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<10))
		r.Body = io.NopCloser(bytes.NewReader(body))
		select {
		case s.posts <- string(body):
		default:
		}
	}
	if s.down.Load() {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"code":"unavailable","message":"the server is restarting"}`+"\n")
		return
	}
	if s.restarting.Load() && strings.HasPrefix(r.URL.Path, "/ws/") {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		c.Write(r.Context(), websocket.MessageText, []byte(`{"type":"error","code":"server_restarting","message":"the server is restarting"}`))
		c.Close(websocket.StatusGoingAway, "restarting")
		return
	}
	if s.noInvite.Load() && strings.HasSuffix(r.URL.Path, "/invite") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"code":"not_found","message":"no API at GET `+r.URL.Path+`"}`+"\n")
		return
	}
	api.ServeHTTP(w, r)
}

// cut shuts down the connections under every WebSocket, both ways, as a
// failing network ends them: neither end gets a close frame, both see the
// connection end. (Closing the server's descriptor instead, which no
// network does, would leave a connection at rest with nothing to tell the
// server until its next ping: the kernel drops a closed descriptor from
// the poller without a word.)
func (s *server) cut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.sockets {
		tc := c.(*net.TCPConn)
		tc.CloseRead()
		tc.CloseWrite()
	}
	s.sockets = nil
}

// browser starts a headless Chromium for the test and returns a function
// that opens a new, isolated browser context (its own storage, as another
// person's browser would have). extra adds to its command line (a
// language, say).
func browser(t *testing.T, extra ...chromedp.ExecAllocatorOption) func() context.Context {
	t.Helper()
	path := findBrowser(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1100, 800),
	)
	opts = append(opts, extra...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	root, cancelRoot := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancelRoot(); cancelAlloc() })
	if err := chromedp.Do(root, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return func() context.Context {
		ctx, cancel := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
		t.Cleanup(cancel)
		if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
			t.Fatal(err)
		}
		return ctx
	}
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression on the page.
func eval[T any](t *testing.T, ctx context.Context, expr string, opts ...chromedp.EvaluateOption) T {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	v, err := chromedp.Run(sctx, chromedp.Evaluate[T](expr, opts...))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// until waits for a JavaScript predicate to hold on the page.
// A poll that a navigation interrupts is started again on the new page.
func until(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	for {
		_, err := chromedp.Run(sctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(step)))
		if err == nil {
			return
		}
		if sctx.Err() == nil && (strings.Contains(err.Error(), "navigated or closed") || strings.Contains(err.Error(), "Cannot find context")) {
			// Poll again once the new page has a document to run in.
			if _, err := chromedp.Run(sctx, chromedp.WaitReady(chromedp.CSS("body"))); err == nil {
				continue
			}
		}
		state := eval[string](t, ctx, `document.body ? document.body.innerText : document.title`)
		t.Fatalf("waiting for %s (%s): %v\npage:\n%s", what, expr, err, state)
	}
}

func screenshot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	png, err := chromedp.Run(sctx, chromedp.FullScreenshot(100)) // quality 100 makes a PNG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	if dst := os.Getenv("TENPIN_SCREENSHOT_DIR"); dst != "" {
		os.WriteFile(filepath.Join(dst, name), png, 0o644)
	}
	return path
}

// keep saves what the page's viewport shows as name in the directory
// TENPIN_SCREENSHOTS names (relative to the repository's root, as in
// TENPIN_SCREENSHOTS=web/screenshots go test ./web): the screenshots the
// README shows. Without it, it does nothing.
func keep(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("TENPIN_SCREENSHOTS")
	if dir == "" {
		return
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join("..", dir) // the test runs in web/
	}
	sctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	png, err := chromedp.Run(sctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("kept %s", path)
}

func js(s string) string { return fmt.Sprintf("%q", s) }

// sharedLink is the link a lane's page shares to invite friends, once it
// has it: the lane's address with its invitation (#invite=…), which is
// what seats a friend who opens it.
func sharedLink(t *testing.T, ctx context.Context) string {
	t.Helper()
	until(t, ctx, "the invitation link", `document.querySelector("#share-url").value.includes("#invite=")`)
	return eval[string](t, ctx, `document.querySelector("#share-url").value`)
}

// join types a name into the join form and submits it.
func join(t *testing.T, ctx context.Context, name, want string) {
	t.Helper()
	do(t, ctx, "join as "+name,
		chromedp.WaitVisible(chromedp.CSS("#join-name")),
		chromedp.SendKeys(chromedp.CSS("#join-name"), name),
		chromedp.Click(chromedp.CSS("#join")),
	)
	until(t, ctx, "welcome as "+want, `document.querySelector("#me").textContent === `+js("You are "+want+"."))
}

// checkTable compares the page's scoreboard with the model, cell by cell.
func checkTable(t *testing.T, ctx context.Context, who string, model *bowling.Match) {
	t.Helper()
	for _, p := range model.Players() {
		for _, f := range p.Game.Frames() {
			row := fmt.Sprintf(`#board tr[data-player=%s]`, js(string(p.Name)))
			marks := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s[data-row=marks] td.marks[data-frame="%d"]').textContent`, row, f.Number))
			score := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('%s[data-row=scores] td.score[data-frame="%d"]').textContent`, row, f.Number))
			want := ""
			if s, ok := f.Score(); ok {
				want = fmt.Sprint(s)
			}
			if marks != f.Marks() || score != want {
				t.Errorf("%s: %s frame %d shows %q %q, want %q %q", who, p.Name, f.Number, marks, score, f.Marks(), want)
			}
		}
		total := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('#board tr[data-player=%s] td.total').textContent`, js(string(p.Name))))
		if total != fmt.Sprint(p.Game.Total()) {
			t.Errorf("%s: %s total shows %q, want %d", who, p.Name, total, p.Game.Total())
		}
	}
}

// keyFor is the key a player presses for a roll: a digit, X for a strike,
// / for a spare, - for a gutter.
func keyFor(pins, standing int) string {
	switch {
	case pins == 10 && standing == 10:
		return "x"
	case pins == standing:
		return "/"
	case pins == 0:
		return "-"
	}
	return fmt.Sprint(pins)
}

// padReady holds when the page shows name up, highlighted, and its pin
// pad takes a roll with exactly the impossible counts disabled (so no
// roll of the page's is still unanswered).
func padReady(name string, standing int) string {
	return fmt.Sprintf(
		`!!document.querySelector('#board tr.up[data-player=%s]') && document.querySelector("#pins").offsetParent !== null && [...document.querySelectorAll("#pins button")].every(b => b.disabled === (Number(b.dataset.pins) > %d))`,
		js(name), standing)
}

// bowl makes the player up roll pins on their page, by clicking a pin
// button or by pressing a key, after checking that the page shows them up
// and offers only the possible pin counts.
func bowl(t *testing.T, ctx context.Context, name string, pins, standing int, byKey bool) {
	t.Helper()
	until(t, ctx, fmt.Sprintf("%s's turn with %d standing", name, standing), padReady(name, standing))
	if byKey {
		do(t, ctx, "press a key",
			chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`),
			chromedp.KeyEvent(keyFor(pins, standing)))
		return
	}
	do(t, ctx, "click a pin button", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#pins button[data-pins="%d"]`, pins))))
}

// rollsFor scripts a game with every kind of frame: AAA strikes, spares,
// gutters and bowls X|7|/ in the tenth; BBB bowls open frames and 5|/|5;
// CCC bowls a perfect game.
var rollsFor = map[string][]int{
	"AAA": {10, 7, 3, 0, 0, 9, 0, 10, 10, 3, 4, 5, 5, 0, 10, 10, 7, 3},
	"BBB": {3, 4, 3, 4, 3, 4, 3, 4, 3, 4, 3, 4, 3, 4, 3, 4, 3, 4, 5, 5, 5},
	"CCC": {10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10},
}

func TestFriendsPlayAGame(t *testing.T) {
	url := app(t)
	open := browser(t)
	pages := map[string]context.Context{"AAA": open(), "BBB": open(), "CCC": open()}

	// AAA creates the lane from the lobby form.
	a := pages["AAA"]
	do(t, a, "create a lane",
		chromedp.Navigate(url+"/"),
		chromedp.WaitVisible(chromedp.CSS("#create-name")),
		chromedp.SendKeys(chromedp.CSS("#create-name"), "Friday night"),
		chromedp.Click(chromedp.CSS(`#create-form button[type=submit]`)),
	)
	until(t, a, "the lane page", `location.pathname.startsWith("/lanes/") && document.querySelector("#lane-name").textContent === "Friday night"`)
	address := eval[string](t, a, `location.href`)
	laneURL := sharedLink(t, a)
	if !strings.HasPrefix(address, url+"/lanes/") || !strings.HasPrefix(laneURL, address+"#invite=") {
		t.Fatalf("the lane at %s shares the link %q", address, laneURL)
	}
	// The others open the shared link.
	for _, n := range []string{"BBB", "CCC"} {
		do(t, pages[n], "open the shared link", chromedp.Navigate(laneURL))
	}
	join(t, a, "AAA", "AAA")
	join(t, pages["BBB"], "BBB", "BBB")
	join(t, pages["CCC"], "CCC", "CCC")
	for n, p := range pages {
		until(t, p, n+" sees three players", `document.querySelectorAll("#board tr[data-row=marks]").length === 3`)
	}
	// AAA, seated first, is the host: the one who starts.
	do(t, a, "start", chromedp.Click(chromedp.CSS("#start")))

	model, err := bowling.NewMatch("AAA", "BBB", "CCC")
	if err != nil {
		t.Fatal(err)
	}
	next := map[string]int{}
	for n := 0; !model.Over(); n++ {
		seat, _, _ := model.Up()
		p := model.Players()[seat]
		name := string(p.Name)
		pins := rollsFor[name][next[name]]
		next[name]++
		bowl(t, pages[name], name, pins, p.Game.Standing(), n%2 == 1)
		if err := model.Roll(pins); err != nil {
			t.Fatalf("script roll %d for %s: %v", pins, name, err)
		}
	}
	for n, p := range pages {
		until(t, p, n+" sees the game over", `document.querySelector("#phase").textContent.startsWith("Game over.")`)
		checkTable(t, p, n, model)
	}
	if t.Failed() {
		return
	}
	screenshot(t, a, "friends.png")
	totals := eval[string](t, pages["CCC"], `[...document.querySelectorAll("#board td.total")].map(td => td.textContent).join(" ")`)
	if totals != "136 78 300" {
		t.Errorf("final totals shown %q, want 136 78 300", totals)
	}
	// The winner, said and marked.
	if got := eval[string](t, pages["BBB"], `document.querySelector("#turn").textContent + " / " + [...document.querySelectorAll("#board tr.winner[data-row=marks]")].map(tr => tr.dataset.player).join(" ")`); got != "CCC wins with 300 / CCC" {
		t.Errorf("the result reads %q, want CCC wins with 300, CCC's row marked", got)
	}

	// Only the host is offered a rematch; the others are told who can.
	until(t, pages["CCC"], "CCC told who can rematch", `document.querySelector("#phase").textContent.includes("AAA can start a rematch.") && document.querySelector("#rematch").offsetParent === null`)
	// The rematch, confirmed, puts the game in the lane's series and sets
	// up the next game with the same players; it waits for the host, and
	// others may join first. The series table shows from then on.
	if eval[bool](t, a, `document.querySelector("#series").offsetParent !== null`) {
		t.Error("a series table shown before the first rematch")
	}
	do(t, a, "rematch, confirmed",
		chromedp.Evaluate[chromedp.Void](`window.asked = ""; window.confirm = (q) => { window.asked = q; return true; }`),
		chromedp.Click(chromedp.CSS("#rematch")))
	if asked := eval[string](t, a, `window.asked`); asked == "" {
		t.Error("rematch did not ask for confirmation")
	}
	emptyBoard := `document.querySelectorAll("#board tr[data-row=marks]").length === 3 && [...document.querySelectorAll("#board td.marks")].every(td => td.textContent === "")`
	startOffered := `document.querySelector("#start").offsetParent !== null`
	series := `[...document.querySelectorAll("#series-table tbody tr")].map(tr => [...tr.cells].map(c => c.textContent).join(" ")).join(", ")`
	const wantSeries = "AAA 1 136, BBB 1 78, CCC 1 300"
	until(t, a, "the host offered Start again", `document.querySelector("#phase").textContent.startsWith("Next game:") && `+startOffered+` && `+emptyBoard+` && `+series+` === `+js(wantSeries))
	if got, want := eval[string](t, a, `document.querySelector("#games-link").href`), url+"/api"+strings.TrimPrefix(address, url)+"/games"; got != want {
		t.Errorf("the games link is %s, want %s", got, want)
	}
	for _, n := range []string{"BBB", "CCC"} {
		until(t, pages[n], n+" waits for the host", `document.querySelector("#phase").textContent.startsWith("Waiting for AAA to start the next game.") && !(`+startOffered+`) && `+emptyBoard+` && `+series+` === `+js(wantSeries))
	}
	d := open()
	do(t, d, "open the shared link between games", chromedp.Navigate(laneURL))
	join(t, d, "DDD", "DDD")
	until(t, a, "AAA sees DDD seated", `document.querySelectorAll("#board tr[data-row=marks]").length === 4`)
	do(t, a, "start the next game", chromedp.Click(chromedp.CSS("#start")))
	pages["DDD"] = d
	for n, p := range pages {
		until(t, p, n+" sees the new game", `/^(Your turn, AAA|AAA is up)$/.test(document.querySelector("#turn").textContent) && document.querySelector("#turn-detail").textContent.startsWith("Frame 1 · Ball 1 · ") && document.querySelectorAll("#board tr[data-row=marks]").length === 4 && document.querySelector('#board td.marks[data-frame="1"]').textContent === ""`)
	}
}

func TestSpectatorAndReload(t *testing.T) {
	url := app(t)
	open := browser(t)
	a, b, watcher := open(), open(), open()
	do(t, a, "create a lane",
		chromedp.Navigate(url+"/"),
		chromedp.SendKeys(chromedp.CSS("#create-name"), "Reload"),
		chromedp.Click(chromedp.CSS(`#create-form button[type=submit]`)),
	)
	until(t, a, "the lane page", `location.pathname.startsWith("/lanes/")`)
	laneURL := sharedLink(t, a)
	do(t, b, "open the lane", chromedp.Navigate(laneURL))
	do(t, watcher, "watch the lane", chromedp.Navigate(eval[string](t, a, `location.href`)))
	join(t, a, "AAA", "AAA")
	join(t, b, "BBB", "BBB")
	do(t, a, "start", chromedp.Click(chromedp.CSS("#start")))

	cell := func(name string, frame int) string {
		return fmt.Sprintf(`document.querySelector('#board tr[data-player=%s][data-row=marks] td.marks[data-frame="%d"]').textContent`, js(name), frame)
	}
	bowl(t, a, "AAA", 3, 10, false)
	until(t, watcher, "the spectator sees AAA's 3", cell("AAA", 1)+` === "3"`)
	bowl(t, a, "AAA", 4, 7, true)
	until(t, watcher, "the spectator sees AAA's 3|4", cell("AAA", 1)+` === "3|4"`)

	// BBB's page is reloaded while it is BBB's turn: it comes back to the
	// same seat, with the turn, and no second seat appears.
	do(t, b, "reload", chromedp.Reload())
	until(t, b, "BBB resumed", `document.querySelector("#me").textContent === "You are BBB."`)
	if n := eval[int](t, b, `document.querySelectorAll("#board tr[data-row=marks]").length`); n != 2 {
		t.Errorf("after the reload the board has %d players, want 2", n)
	}
	until(t, watcher, "BBB shown connected", `!document.querySelector('#board tr[data-player="BBB"] .offline')`)
	bowl(t, b, "BBB", 10, 10, false)
	until(t, watcher, "the spectator sees BBB's strike", cell("BBB", 1)+` === "X"`)
	if t.Failed() {
		return
	}
	if got := eval[string](t, watcher, `document.querySelector("#announce").textContent`); got != "BBB: strike" {
		t.Errorf("live region says %q, want %q", got, "BBB: strike")
	}
	screenshot(t, watcher, "spectator.png")
}

func TestHostileNamesStayText(t *testing.T) {
	url := app(t)
	open := browser(t)
	p := open()
	hostile := `<img src=x onerror="window.pwned=1">`
	do(t, p, "create a lane with a hostile name",
		chromedp.Navigate(url+"/"),
		chromedp.SendKeys(chromedp.CSS("#create-name"), hostile),
		chromedp.Click(chromedp.CSS(`#create-form button[type=submit]`)),
	)
	until(t, p, "the lane page", `location.pathname.startsWith("/lanes/") && document.querySelector("#lane-name").textContent !== ""`)
	if got := eval[string](t, p, `document.querySelector("#lane-name").textContent`); got != hostile {
		t.Errorf("lane name shown as %q, want the literal %q", got, hostile)
	}
	// A hostile player name is refused, and the reason shows it as text.
	do(t, p, "join with a hostile name",
		chromedp.SendKeys(chromedp.CSS("#join-name"), `<img src=y onerror="window.pwned=2">`),
		chromedp.Click(chromedp.CSS("#join")),
	)
	until(t, p, "the refusal", `document.querySelector("#join-error").textContent.includes("onerror")`)

	// In the lobby list too, the name is text.
	do(t, p, "the lobby", chromedp.Navigate(url+"/"))
	until(t, p, "the lane listed", `document.querySelectorAll("#lanes tbody a").length === 1`)
	if got := eval[string](t, p, `document.querySelector("#lanes tbody a").textContent`); got != hostile {
		t.Errorf("lobby shows %q, want the literal %q", got, hostile)
	}
	if n := eval[int](t, p, `document.querySelectorAll("img:not(#qr)").length`); n != 0 {
		t.Errorf("the page has %d img elements but the QR code, want none", n)
	}
	if pwned := eval[bool](t, p, `window.pwned !== undefined`); pwned {
		t.Error("a hostile name ran script")
	}
	screenshot(t, p, "hostile.png")
}
