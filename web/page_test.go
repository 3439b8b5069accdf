package web_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// traffic records the page's requests and the status of their answers,
// as the browser's network events tell them.
type traffic struct {
	mu        sync.Mutex
	requests  []string // URLs, in the order sent
	responses []string // "404 URL", in the order answered
}

func listen(t *testing.T, ctx context.Context) *traffic {
	t.Helper()
	tr := &traffic{}
	err := chromedp.Listen(ctx, func(ev any) {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			tr.requests = append(tr.requests, e.Request.URL)
		case *network.EventResponseReceived:
			tr.responses = append(tr.responses, fmt.Sprintf("%d %s", e.Response.Status, e.Response.URL))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// failed is the answers that were errors: 4xx and 5xx.
func (tr *traffic) failed() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []string
	for _, r := range tr.responses {
		if r[0] == '4' || r[0] == '5' {
			out = append(out, r)
		}
	}
	return out
}

func (tr *traffic) sent(prefix string) []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []string
	for _, r := range tr.requests {
		if strings.HasPrefix(r, prefix) {
			out = append(out, r)
		}
	}
	return out
}

// clear empties an input, as selecting its text and deleting it does.
func clear(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	do(t, ctx, "clear "+sel, chromedp.Evaluate[chromedp.Void](`document.querySelector(`+js(sel)+`).value = ""`))
}

// The lobby and a lane load without a request answered 404 or any other
// error, the favicon included.
func TestNoNotFound(t *testing.T) {
	s := serve(t, lobby.Config{})
	id := createLane(t, s, "Favicon")
	p := browser(t)()
	tr := listen(t, p)
	do(t, p, "the lobby", chromedp.Navigate(s.url+"/"))
	until(t, p, "the lane listed", `document.querySelectorAll("#lanes tbody a").length === 1`)
	do(t, p, "the lane", chromedp.Navigate(s.url+"/lanes/"+id))
	until(t, p, "the lane, its invitation shown", `document.querySelector("#conn").textContent === "connected" && !document.querySelector("#qr").hidden`)
	if failed := tr.failed(); len(failed) > 0 {
		t.Errorf("answered with errors: %s", strings.Join(failed, ", "))
	}
	got := eval[string](t, p, `fetch(document.querySelector('link[rel=icon]').href).then(r => r.status + " " + r.headers.get("Content-Type"))`, chromedp.EvalAwaitPromise)
	if got != "200 image/svg+xml" {
		t.Errorf("the favicon: %s, want 200 image/svg+xml", got)
	}
}

// The page says what is wrong with a name, in words, before sending it:
// nothing is cut short or sent; the server's refusals show in the page's
// own words for their codes, never the server's messages.
func TestInputErrors(t *testing.T) {
	s := serve(t, lobby.Config{MaxLanes: 1})
	p := browser(t)()
	show(t, p, phone)
	do(t, p, "the lobby", chromedp.Navigate(s.url+"/"))
	until(t, p, "the lobby", `!document.querySelector("#lobby").hidden`)
	createError := func(want string) string {
		return `document.querySelector("#create-error").textContent === ` + js(want) + ` && document.querySelector("#create-name").getAttribute("aria-invalid") === "true"`
	}
	long := strings.Repeat("Friday night ", 6)[:75]
	do(t, p, "type a 75-character lane name", chromedp.SendKeys(chromedp.CSS("#create-name"), long))
	until(t, p, "the name said too long as it is typed", createError("That name is 75 characters long: a lane name has at most 40. Shorten it and try again."))
	do(t, p, "create it", chromedp.Click(chromedp.CSS(`#create-form button[type=submit]`)))
	if got := eval[string](t, p, `document.querySelector("#create-name").value`); got != long {
		t.Errorf("the name field holds %q, want the 75 characters typed", got)
	}
	clear(t, p, "#create-name")
	do(t, p, "a name of spaces", chromedp.SendKeys(chromedp.CSS("#create-name"), "   "), chromedp.Click(chromedp.CSS(`#create-form button[type=submit]`)))
	until(t, p, "the name asked for", createError("Give the lane a name, like Friday night."))
	if n := len(s.posts); n != 0 {
		t.Errorf("the page sent %d lanes the server would refuse", n)
	}

	// The server refuses (it holds all the lanes it may): the page's words
	// for too_many_lanes.
	first := createLane(t, s, "First")
	<-s.posts
	clear(t, p, "#create-name")
	do(t, p, "create one too many", chromedp.SendKeys(chromedp.CSS("#create-name"), "Second"), chromedp.Click(chromedp.CSS(`#create-form button[type=submit]`)))
	until(t, p, "the server's refusal", `document.querySelector("#create-error").textContent === "Could not create the lane: The server holds all the lanes it may: try again later."`)

	// A player's name: 1 to 12 letters of any script. What the page can
	// tell is said before sending; the rest the server refuses.
	until(t, p, "the lane listed", `document.querySelectorAll("#lanes tbody a").length === 1`)
	if got := eval[string](t, p, `document.querySelector("#lanes tbody a").href`); got != s.url+"/lanes/"+first {
		t.Fatalf("the lobby links %s, want the lane %s", got, first)
	}
	do(t, p, "open the lane, invited", chromedp.Navigate(invited(t, s.url, first)))
	until(t, p, "the join form", `document.querySelector("#conn").textContent === "connected" && document.querySelector("#join-form").offsetParent !== null`)
	recordSends(t, p)
	const rule = ": a name is letters, with spaces, hyphens or apostrophes between words."
	for _, tt := range []struct{ typed, want string }{
		{"", "Type your name: 1 to 12 letters, like Jo or 홍길동."},
		{"A1B", "“\u2068A1B\u2069” has “1”" + rule}, // the name set apart: see TestRefusedNamesSayWhy
		{"Bob!", "“\u2068Bob!\u2069” has “!”" + rule},
		{"B_B 7", "“\u2068B_B 7\u2069” has “_” and “7”" + rule},
		{"Bartholomewxy", "“\u2068Bartholomewxy\u2069” is 13 letters: a name has at most 12."},
	} {
		clear(t, p, "#join-name")
		if tt.typed != "" {
			do(t, p, "type "+tt.typed, chromedp.SendKeys(chromedp.CSS("#join-name"), tt.typed))
		}
		do(t, p, "join as "+tt.typed, chromedp.Click(chromedp.CSS("#join")))
		until(t, p, "the refusal of "+tt.typed, `document.querySelector("#join-error").textContent === `+js(tt.want)+` && document.querySelector("#join-name").getAttribute("aria-invalid") === "true"`)
		if got := eval[string](t, p, `document.querySelector("#join-name").value`); got != tt.typed {
			t.Errorf("the name field holds %q, want %q as typed", got, tt.typed)
		}
	}
	if sent := eval[int](t, p, `window.sent.length`); sent != 0 {
		t.Errorf("the page sent %d joins it had refused", sent)
	}
	// What only the server can tell (a doubled space): its invalid_name,
	// in the page's words.
	clear(t, p, "#join-name")
	do(t, p, "join as Jo  Ann", chromedp.SendKeys(chromedp.CSS("#join-name"), "Jo  Ann"), chromedp.Click(chromedp.CSS("#join")))
	until(t, p, "the server's refusal", `document.querySelector("#join-error").textContent === "“\u2068Jo  Ann\u2069” cannot be a name: a name is 1 to 12 letters, with single spaces, hyphens or apostrophes between words, and no digits or emoji."`)
	if sent := eval[int](t, p, `window.sent.length`); sent != 1 {
		t.Errorf("the page sent %d joins, want the one the server refused", sent)
	}
	clear(t, p, "#join-name")
	join(t, p, "bob", "bob")
	if got := eval[string](t, p, `document.querySelector("#join-error").textContent`); got != "" {
		t.Errorf("after joining the page says %q", got)
	}

	// The server refuses a name taken: the reason beside the name, in words.
	q := browser(t)()
	do(t, q, "open the lane", chromedp.Navigate(invited(t, s.url, first)))
	do(t, q, "join as BOB too", chromedp.WaitVisible(chromedp.CSS("#join-name")), chromedp.SendKeys(chromedp.CSS("#join-name"), "BOB"), chromedp.Click(chromedp.CSS("#join")))
	until(t, q, "the refusal", `document.querySelector("#join-error").textContent === "\u2068BOB\u2069 is already on this lane."`)
	if t.Failed() {
		return
	}
	screenshot(t, q, "name-taken.png")
}

// A lane created private is sent as such; the lobby never lists it, and
// its link leads to it.
func TestPrivateLane(t *testing.T) {
	s := serve(t, lobby.Config{})
	p := browser(t)()
	create := func(name string, private bool, want string) {
		t.Helper()
		do(t, p, "the lobby", chromedp.Navigate(s.url+"/"))
		do(t, p, "create "+name,
			chromedp.WaitVisible(chromedp.CSS("#create-name")),
			chromedp.SendKeys(chromedp.CSS("#create-name"), name))
		if private {
			do(t, p, "make it private", chromedp.Click(chromedp.CSS("#create-private")))
		}
		do(t, p, "create it", chromedp.Click(chromedp.CSS(`#create-form button[type=submit]`)))
		select {
		case got := <-s.posts:
			if got != want {
				t.Errorf("the lane %s was asked for with %s, want %s", name, got, want)
			}
		case <-time.After(step):
			t.Fatalf("the page did not ask for the lane %s", name)
		}
		until(t, p, "the lane page, or a refusal", `location.pathname.startsWith("/lanes/") ? document.querySelector("#lane-name").textContent === `+js(name)+` : document.querySelector("#create-error").textContent !== ""`)
		if refused := eval[string](t, p, `location.pathname === "/" ? document.querySelector("#create-error").textContent : ""`); refused != "" {
			t.Fatalf("creating %s (private: %v) the page says: %s", name, private, refused)
		}
	}
	create("Open", false, `{"name":"Open"}`)
	create("Secret", true, `{"name":"Secret","private":true}`)
	secret := sharedLink(t, p)
	do(t, p, "the lobby", chromedp.Navigate(s.url+"/"))
	until(t, p, "the open lane listed", `[...document.querySelectorAll("#lanes tbody a")].map(a => a.textContent).join() === "Open"`)

	// A friend with the link watches and joins.
	q := browser(t)()
	do(t, q, "open the private lane's link", chromedp.Navigate(secret))
	join(t, q, "PAL", "PAL")
}

// The lane shows the invitation the server gives (an address a phone can
// open, its QR code, and the server's other addresses); without one (a
// server from before invitations) it shows its own address and no QR
// code.
func TestInvite(t *testing.T) {
	const friends, other = "http://192.0.2.7:8080", "http://[2001:db8::7]:8080"
	s := serve(t, lobby.Config{URLs: []string{friends, other}})
	open := browser(t)
	id := createLane(t, s, "Invite")

	s.noInvite.Store(true)
	p := open()
	do(t, p, "open the lane, no invitation from the server", chromedp.Navigate(s.url+"/lanes/"+id))
	for asked := false; !asked; {
		select {
		case path := <-s.requests:
			asked = path == "/api/lanes/"+id+"/invite"
		case <-time.After(step):
			t.Fatal("the page did not ask for the invitation")
		}
	}
	until(t, p, "the page's own address, no QR code", `document.querySelector("#conn").textContent === "connected" && document.querySelector("#share-url").value === location.href && document.querySelector("#qr").hidden && document.querySelector("#other-urls").hidden`)

	s.noInvite.Store(false)
	q := open()
	show(t, q, phone)
	do(t, q, "open the lane", chromedp.Navigate(s.url+"/lanes/"+id))
	// Opened without the invitation, the page shares a link to watch.
	until(t, q, "the server's address, to watch", `document.querySelector("#share-url").value === `+js(friends+"/lanes/"+id)+` && !document.querySelector("#qr").hidden && document.querySelector("#qr").naturalWidth > 0 && document.querySelector("#qr").dataset.invite === "false"`)
	if got, want := eval[string](t, q, `[...document.querySelectorAll("#other-urls a")].map(a => a.href).join(" ")`), other+"/lanes/"+id; got != want {
		t.Errorf("the other addresses are %q, want %q", got, want)
	}
	if got, want := eval[string](t, q, `document.querySelector("#qr").getAttribute("src")`), qrData(t, s, id, ""); got != want {
		t.Errorf("the QR code to watch is %.80s…, want the server's %.80s…", got, want)
	}
	if got := eval[string](t, q, `document.querySelector("#invite-note").textContent`); !strings.HasPrefix(got, "This link lets others watch this lane.") {
		t.Errorf("a page without the invitation says %q of its link", got)
	}

	// Opened with it, the page shares the link with it, at every address,
	// and the QR code of that link; the address bar no longer shows it.
	r := open()
	code := inviteOf(t, id)
	do(t, r, "open the invitation", chromedp.Navigate(invited(t, s.url, id)))
	until(t, r, "the invitation shared", `document.querySelector("#share-url").value === `+js(friends+"/lanes/"+id+"#invite="+code)+` && document.querySelector("#qr").dataset.invite === "true" && !document.querySelector("#qr").hidden`)
	if got, want := eval[string](t, r, `location.href`), s.url+"/lanes/"+id; got != want {
		t.Errorf("the address bar shows %s, want %s: the invitation taken out", got, want)
	}
	if got, want := eval[string](t, r, `[...document.querySelectorAll("#other-urls a")].map(a => a.href).join(" ")`), other+"/lanes/"+id+"#invite="+code; got != want {
		t.Errorf("the other addresses are %q, want %q", got, want)
	}
	if got, want := eval[string](t, r, `document.querySelector("#qr").getAttribute("src")`), qrData(t, s, id, code); got != want {
		t.Errorf("the invitation's QR code is %.80s…, want the server's %.80s…", got, want)
	}
	if got, want := eval[string](t, r, `document.querySelector("#tv-link").getAttribute("href")`), "/lanes/"+id+"/tv#invite="+code; got != want {
		t.Errorf("the TV link is %s, want %s", got, want)
	}
	do(t, q, "scroll to the QR code", chromedp.ScrollIntoView(chromedp.CSS("#qr")))
	if why := eval[string](t, q, unseen("#qr", `"the QR code"`)); why != "" {
		t.Error(why)
	}
	if !eval[bool](t, q, notWider) {
		t.Error("the page scrolls sideways")
	}

	// Copied: said beside the button, not among the rolls.
	do(t, q, "copy the link", chromedp.Click(chromedp.CSS("#copy")))
	until(t, q, "the copy said", `/^(Link copied|Select the link and copy it)$/.test(document.querySelector("#copied").textContent)`)
	if got := eval[int](t, q, `document.querySelectorAll("#log li, #notices li").length`); got != 0 {
		t.Errorf("the logs hold %d entries after a copy, want none", got)
	}
}

// The roll log names each ball's frame and ball, is rebuilt from the board
// after a reload, and keeps the lane's news apart.
func TestRollLog(t *testing.T) {
	s := serve(t, lobby.Config{})
	id := createLane(t, s, "Log")
	p := browser(t)()
	do(t, p, "open the lane", chromedp.Navigate(invited(t, s.url, id)))
	join(t, p, "AAA", "AAA")
	do(t, p, "start", chromedp.Click(chromedp.CSS("#start")))
	bowl(t, p, "AAA", 3, 10, false)
	bowl(t, p, "AAA", 4, 7, true)
	bowl(t, p, "AAA", 10, 10, true)
	bowl(t, p, "AAA", 0, 10, true)
	bowl(t, p, "AAA", 10, 10, false)
	const want = "AAA — frame 3, ball 2: spare | AAA — frame 3, ball 1: gutter | AAA — frame 2, ball 1: strike | AAA — frame 1, ball 2: 4 pins | AAA — frame 1, ball 1: 3 pins"
	log := `[...document.querySelectorAll("#log li")].map(li => li.textContent).join(" | ")`
	until(t, p, "the rolls logged", log+` === `+js(want))
	news := `[...document.querySelectorAll("#notices li")].map(li => li.textContent).join(" | ")`
	if got := eval[string](t, p, news); got != "You are AAA, seat 1" {
		t.Errorf("the lane's news reads %q", got)
	}
	do(t, p, "copy the link", chromedp.Click(chromedp.CSS("#copy")))
	until(t, p, "the copy said", `document.querySelector("#copied").textContent !== ""`)

	do(t, p, "reload", chromedp.Reload())
	until(t, p, "the rolls logged again", `document.querySelector("#me").textContent === "You are AAA." && `+log+` === `+js(want))
	// The board the phone kept shows at once, before the server welcomes
	// the seat back: the news comes with the welcome.
	until(t, p, "the lane's news again", news+` === "You are AAA, seat 1"`)
}

// The lobby asks for the lanes it shows, not all of them, and says how
// many there are; on a phone, lanes with names as long as names go (40
// characters) never widen the page, and each name's whole is in its
// title.
func TestLobbyShowsAPage(t *testing.T) {
	s := serve(t, lobby.Config{CreateRate: 1000, CreateBurst: 100, LanesPerAddr: -1})
	const lanes = 55
	for i := range lanes {
		name := fmt.Sprintf("Lane %02d %s", i, strings.Repeat("W", 32))
		if i == 0 {
			name = strings.Repeat("W", 40)
		}
		createLane(t, s, name)
	}
	p := browser(t)()
	tr := listen(t, p)
	show(t, p, phone)
	do(t, p, "the lobby", chromedp.Navigate(s.url+"/"))
	until(t, p, "a page of lanes", `document.querySelectorAll("#lanes tbody tr").length === 50`)
	for _, u := range tr.sent(s.url + "/api/lanes") {
		q, err := url.Parse(u)
		if err != nil || q.Path != "/api/lanes" {
			continue
		}
		if got := q.Query().Get("limit"); got != "50" {
			t.Errorf("the lobby asked for %s, want ?limit=50", u)
		}
	}
	if got, want := eval[string](t, p, `document.querySelector("#more-lanes").textContent`), "Showing the first 50 of 55 lanes. To join another, open its link."; got != want {
		t.Errorf("the lobby says %q, want %q", got, want)
	}
	for _, sc := range []screen{phone, laptop} {
		show(t, p, sc)
		if !eval[bool](t, p, notWider) {
			t.Errorf("%s: the lobby is %d px wide in a %d px viewport", sc.name, eval[int](t, p, `document.documentElement.scrollWidth`), sc.width)
		}
		if bad := eval[string](t, p, `[...document.querySelectorAll("#lanes tbody a")].filter(a => a.title !== a.textContent || a.getBoundingClientRect().right > document.documentElement.clientWidth).map(a => a.textContent).join(", ")`); bad != "" {
			t.Errorf("%s: these lanes' names run off the screen or have no title: %s", sc.name, bad)
		}
	}
	show(t, p, phone)
	screenshot(t, p, "lobby-phone.png")
}

// qrData is the lane's QR code as the server draws it, with the
// invitation code ("": the link to watch), as a data: URL.
func qrData(t *testing.T, s *server, id, code string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.url+"/api/lanes/"+id+"/qr.png", nil)
	if err != nil {
		t.Fatal(err)
	}
	if code != "" {
		req.Header.Set(protocol.InviteHeader, code)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	png, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET the QR code: %s, %v", res.Status, err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
}
