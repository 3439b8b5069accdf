package web_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
)

// recordSends makes the page keep every message it sends on its socket in
// window.sent, so a test can tell what the page sent, not only what the
// server let count.
func recordSends(t *testing.T, ctx context.Context) {
	t.Helper()
	do(t, ctx, "record what the page sends", chromedp.Evaluate[chromedp.Void](`{
		window.sent = [];
		const send = WebSocket.prototype.send;
		WebSocket.prototype.send = function (data) { window.sent.push(JSON.parse(data)); return send.call(this, data); };
	}`))
}

// sentRolls is the rolls the page has sent since recordSends, as JSON.
func sentRolls(t *testing.T, ctx context.Context) string {
	t.Helper()
	return eval[string](t, ctx, `JSON.stringify(window.sent.filter(m => m.type === "roll").map(({ id, ...m }) => m))`)
}

// marks is the expression for the marks a page shows for a player's frame.
func marks(name string, frame int) string {
	return fmt.Sprintf(`document.querySelector('#board tr[data-player=%s][data-row=marks] td.marks[data-frame="%d"]').textContent`, js(name), frame)
}

// key dispatches a key event as the keyboard does: a keyDown with
// autoRepeat is a key held down, whose keydown has repeat set.
func key(t *testing.T, ctx context.Context, typ input.DispatchKeyEventType, k string, autoRepeat bool) {
	t.Helper()
	do(t, ctx, fmt.Sprintf("%s %s", typ, k), chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		params := input.DispatchKeyEventParams{Type: typ, Key: k, Code: "Digit" + k, WindowsVirtualKeyCode: int64(k[0]), AutoRepeat: &autoRepeat}
		if typ == input.DispatchKeyEventTypeKeyDown {
			params.Text = k
		}
		_, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, params)
		return err
	}))
}

// newLane creates a lane and seats each name on its own page, in order:
// the first is the host.
func newLane(t *testing.T, s *server, open func() context.Context, names ...string) (string, []context.Context) {
	t.Helper()
	id := createLane(t, s, "Lane")
	var pages []context.Context
	for _, n := range names {
		p := open()
		do(t, p, "open the lane", chromedp.Navigate(invited(t, s.url, id)))
		join(t, p, n, n)
		pages = append(pages, p)
	}
	for i, p := range pages {
		until(t, p, names[i]+" sees everyone seated", fmt.Sprintf(`document.querySelectorAll("#board tr[data-row=marks]").length === %d`, len(names)))
	}
	return id, pages
}

// A double tap on a pin button, a held key and two quick presses each
// bowl one ball: the page sends one roll and waits for its answer.
func TestOneBallPerPress(t *testing.T) {
	s := serve(t, lobby.Config{})
	_, pages := newLane(t, s, browser(t), "AAA")
	p := pages[0]
	do(t, p, "start", chromedp.Click(chromedp.CSS("#start")))
	recordSends(t, p)
	do(t, p, "take the focus off the form", chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`))

	// A double click: two clicks in one task, so no answer can come
	// between them and only the page can stop the second.
	until(t, p, "AAA's first ball", padReady("AAA", 10))
	do(t, p, "double-click 3", chromedp.Evaluate[chromedp.Void](`{
		const b = document.querySelector('#pins button[data-pins="3"]');
		b.click(); b.click();
	}`))
	until(t, p, "the 3 counted, the second ball up", marks("AAA", 1)+` === "3" && `+padReady("AAA", 7))
	if got, want := sentRolls(t, p), `[{"type":"roll","pins":3,"frame":1,"ball":1}]`; got != want {
		t.Errorf("a double click sent %s, want %s", got, want)
	}

	// A held key: its first keydown bowls; the repeat, after the roll was
	// answered and the next ball is up, must not bowl that ball.
	key(t, p, input.DispatchKeyEventTypeKeyDown, "4", false)
	until(t, p, "the 4 counted, frame 2 up", marks("AAA", 1)+` === "3|4" && `+padReady("AAA", 10))
	key(t, p, input.DispatchKeyEventTypeKeyDown, "4", true)
	key(t, p, input.DispatchKeyEventTypeKeyUp, "4", false)
	if got, want := sentRolls(t, p), `[{"type":"roll","pins":3,"frame":1,"ball":1},{"type":"roll","pins":4,"frame":1,"ball":2}]`; got != want {
		t.Errorf("a held key sent %s, want %s", got, want)
	}

	// Two quick presses, not repeats, in one task: the second comes before
	// the first is answered.
	do(t, p, "press 5 twice", chromedp.Evaluate[chromedp.Void](`
		document.dispatchEvent(new KeyboardEvent("keydown", { key: "5", bubbles: true }));
		document.dispatchEvent(new KeyboardEvent("keydown", { key: "5", bubbles: true }));`))
	until(t, p, "the 5 counted", marks("AAA", 2)+` === "5" && `+padReady("AAA", 5))
	if got, want := sentRolls(t, p), `[{"type":"roll","pins":3,"frame":1,"ball":1},{"type":"roll","pins":4,"frame":1,"ball":2},{"type":"roll","pins":5,"frame":2,"ball":1}]`; got != want {
		t.Errorf("two quick presses sent %s, want %s", got, want)
	}
	if got := eval[string](t, p, `document.querySelector("#lane-error").textContent`); got != "" {
		t.Errorf("error shown: %q", got)
	}
}

// Only the host, the first seated, is offered Start; the others are told
// whom they wait for, and the game the host starts plays on.
func TestOnlyTheHostStarts(t *testing.T) {
	s := serve(t, lobby.Config{})
	_, pages := newLane(t, s, browser(t), "AAA", "BBB")
	a, b := pages[0], pages[1]
	badges := `[...document.querySelectorAll("#board .badge")].map(e => e.closest("tr").dataset.player + ":" + e.textContent).join(" ")`
	startOffered := `[...document.querySelectorAll("button")].some(e => /start/i.test(e.textContent) && e.offsetParent !== null && !e.disabled)`
	for i, p := range pages {
		until(t, p, fmt.Sprintf("page %d shows AAA as the host", i), badges+` === "AAA:host"`)
	}
	until(t, a, "the host offered Start", startOffered)
	until(t, b, "BBB told whom they wait for", `document.querySelector("#phase").textContent.startsWith("Waiting for AAA to start.")`)
	if eval[bool](t, b, startOffered) {
		t.Error("BBB, not the host, is offered an enabled Start")
	}

	do(t, a, "start", chromedp.Click(chromedp.CSS("#start")))
	until(t, b, "BBB sees the game start", `document.querySelector("#turn").textContent === "AAA is up" && document.querySelector("#turn-detail").textContent.startsWith("Frame 1 · Ball 1 · ")`)
	if eval[bool](t, b, `document.querySelector("#pins").offsetParent !== null`) {
		t.Error("BBB is offered the pins for AAA, who is connected")
	}
	bowl(t, a, "AAA", 3, 10, false)
	bowl(t, a, "AAA", 4, 7, true)
	bowl(t, b, "BBB", 10, 10, false)
	until(t, a, "AAA sees both frames", marks("AAA", 1)+` === "3|4" && `+marks("BBB", 1)+` === "X" && `+padReady("AAA", 10))

	// Leaving asks first; declined, nothing is sent.
	recordSends(t, b)
	do(t, b, "leave, declined",
		chromedp.Evaluate[chromedp.Void](`window.asked = ""; window.confirm = (q) => { window.asked = q; return false; }`),
		chromedp.Click(chromedp.CSS("#leave")))
	if asked := eval[string](t, b, `window.asked`); asked == "" {
		t.Error("leave did not ask for confirmation")
	}
	if sent := eval[int](t, b, `window.sent.length`); sent != 0 {
		t.Errorf("a declined leave sent %d messages", sent)
	}
	if me := eval[string](t, b, `document.querySelector("#me").textContent`); me != "You are BBB." {
		t.Errorf("after a declined leave the page says %q", me)
	}
}

// The host enters the ball of the player up, for them, with their name on
// screen; any seated player enters it while the player up is offline, and
// is offered to skip them, which the server refuses until they have been
// offline for the away time: the page says why. Every page sees the board
// change.
func TestHostEntersForThePlayerUp(t *testing.T) {
	s := serve(t, lobby.Config{Lane: lane.Config{AwayAfter: time.Hour}})
	open := browser(t)
	id, pages := newLane(t, s, open, "AAA", "BBB", "CCC")
	a, b, c := pages[0], pages[1], pages[2]
	watcher := open()
	do(t, watcher, "watch the lane", chromedp.Navigate(s.url+"/lanes/"+id))
	do(t, a, "start", chromedp.Click(chromedp.CSS("#start")))
	bowl(t, a, "AAA", 10, 10, false)

	// BBB is up and connected: the host may enter the ball, CCC may not.
	entering := func(want string) string {
		return `document.querySelector("#entering").offsetParent !== null && document.querySelector("#entering").textContent === ` + js(want)
	}
	until(t, a, "the host offered BBB's ball", entering("Entering for BBB — frame 1, ball 1")+" && "+padReady("BBB", 10))
	if eval[bool](t, c, `document.querySelector("#pins").offsetParent !== null`) {
		t.Error("CCC is offered the pins for BBB, who is connected")
	}
	do(t, a, "the host enters 7 for BBB", chromedp.Click(chromedp.CSS(`#pins button[data-pins="7"]`)))
	for n, p := range map[string]context.Context{"BBB": b, "CCC": c, "the watcher": watcher} {
		until(t, p, n+" sees BBB's 7", marks("BBB", 1)+` === "7"`)
	}
	until(t, a, "the host offered BBB's second ball", entering("Entering for BBB — frame 1, ball 2"))
	until(t, b, "BBB offered their own second ball", entering("Your ball — frame 1, ball 2"))
	bowl(t, b, "BBB", 3, 3, false)
	until(t, watcher, "the watcher sees BBB's spare", marks("BBB", 1)+` === "7|/"`)

	// CCC is up and closes the page: offline, BBB, not the host, may enter the ball.
	if err := chromedp.Cancel(c); err != nil {
		t.Fatalf("closing CCC's page: %v", err)
	}
	until(t, b, "BBB offered CCC's ball", entering("Entering for CCC — frame 1, ball 1")+" && "+padReady("CCC", 10))
	// An hour to wait: the button counts it down, and a skip now is refused.
	skip := `document.querySelector("#skip").offsetParent !== null && /^Skip CCC \(offline\) in (3600|3599) s$/.test(document.querySelector("#skip").textContent)`
	until(t, b, "BBB offered to skip CCC", skip)
	until(t, a, "the host offered to skip CCC", skip)
	if eval[bool](t, watcher, `document.querySelector("#skip").offsetParent !== null`) {
		t.Error("the watcher, not seated, is offered a skip")
	}
	do(t, b, "BBB skips CCC, too early", chromedp.Click(chromedp.CSS("#skip")))
	// In the page's own words for not_away, not the server's message.
	until(t, b, "the refusal shown", `document.querySelector("#lane-error").textContent === "CCC has not been offline long enough to be skipped."`)
	if eval[bool](t, watcher, `!!document.querySelector('#board tr[data-player="CCC"] .away')`) {
		t.Error("CCC shown away after a refused skip")
	}
	do(t, b, "BBB enters 5 for CCC", chromedp.Click(chromedp.CSS(`#pins button[data-pins="5"]`)))
	until(t, watcher, "the watcher sees CCC's 5", marks("CCC", 1)+` === "5"`)
	until(t, b, "the refusal gone once a roll counted", `document.querySelector("#lane-error").textContent === ""`)
	until(t, a, "the host sees CCC's 5", marks("CCC", 1)+` === "5"`)
	if t.Failed() {
		return
	}
	screenshot(t, b, "enter-for.png")
}
