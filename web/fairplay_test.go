package web_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
)

// frameButton is the selector of the button a page shows on a frame it
// may correct.
func frameButton(name string, frame int) string {
	return fmt.Sprintf(`#board tr[data-player=%s] td.marks[data-frame="%d"] button.frame`, js(name), frame)
}

// correct enters a correction through the page's dialog: tap the frame,
// pick the ball and the pins, save.
func correct(t *testing.T, ctx context.Context, name string, frame, ball, pins int) {
	t.Helper()
	do(t, ctx, fmt.Sprintf("correct %s's frame %d ball %d to %d", name, frame, ball, pins),
		chromedp.Click(chromedp.CSS(frameButton(name, frame))),
		chromedp.WaitVisible(chromedp.CSS("#correct-dialog")),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#correct-balls button[data-ball="%d"]`, ball))),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#correct-pins button[data-pins="%d"]`, pins))),
		chromedp.Click(chromedp.CSS("#correct-save")),
	)
}

// dialogOpen is the expression for whether the page shows the dialog.
func dialogOpen(id string) string {
	return fmt.Sprintf(`document.querySelector("#%s").open`, id)
}

// A player corrects a ball of theirs and every page sees the frame change,
// marked corrected; the host's impossible correction of another's ball is
// refused with the reason shown, and nothing changes.
func TestCorrectABall(t *testing.T) {
	s := serve(t, lobby.Config{})
	open := browser(t)
	id, pages := newLane(t, s, open, "AAA", "BBB")
	a, b := pages[0], pages[1]
	watcher := open()
	do(t, watcher, "watch the lane", chromedp.Navigate(s.url+"/lanes/"+id))
	do(t, a, "start", chromedp.Click(chromedp.CSS("#start")))
	bowl(t, a, "AAA", 3, 10, false)
	bowl(t, a, "AAA", 4, 7, false)
	bowl(t, b, "BBB", 7, 10, false)
	bowl(t, b, "BBB", 2, 3, false)
	until(t, b, "BBB's frame 1 open, and theirs to correct", marks("BBB", 1)+` === "7|2" && !!document.querySelector(`+js(frameButton("BBB", 1))+`)`)
	if eval[bool](t, b, `!!document.querySelector("#board tr[data-player=\"AAA\"] button.frame")`) {
		t.Error("BBB, not the host, is offered AAA's frames to correct")
	}
	if eval[bool](t, watcher, `!!document.querySelector("#board button.frame")`) {
		t.Error("the watcher is offered frames to correct")
	}

	// BBB meant an 8: the spare shows on every page, marked corrected.
	correct(t, b, "BBB", 1, 1, 8)
	until(t, b, "the dialog closed", `!`+dialogOpen("correct-dialog"))
	corrected := `document.querySelector('#board tr[data-player="BBB"] td.marks[data-frame="1"]')`
	for n, p := range map[string]context.Context{"AAA": a, "BBB": b, "the watcher": watcher} {
		until(t, p, n+" sees BBB's corrected frame", marks("BBB", 1)+` === "8|/" && `+corrected+`.classList.contains("corrected") && `+corrected+`.title === "corrected"`)
	}
	until(t, watcher, "the correction said in the lane's news", `[...document.querySelectorAll("#notices li")].some(li => li.textContent === "BBB: frame 1 corrected to 8|/")`)
	if eval[bool](t, a, `document.querySelector('#board tr[data-player="AAA"] td.marks[data-frame="1"]').classList.contains("corrected")`) {
		t.Error("AAA's frame 1, not corrected, is marked corrected")
	}

	// The host may correct BBB's ball, but not to 9 with a 2 after it.
	recordSends(t, a)
	correct(t, a, "BBB", 1, 1, 9)
	until(t, a, "the refusal in the dialog", dialogOpen("correct-dialog")+` && document.querySelector("#correct-error").textContent === "No game could have that ball: the balls bowled after it would not fit. Nothing changed."`)
	if got, want := eval[string](t, a, `JSON.stringify(window.sent.filter(m => m.type === "correct").map(({ id, ...m }) => m))`),
		`[{"type":"correct","frame":1,"ball":1,"pins":9,"name":"BBB"}]`; got != want {
		t.Errorf("the host's correction sent %s, want %s", got, want)
	}
	do(t, a, "cancel", chromedp.Click(chromedp.CSS("#correct-cancel")))
	until(t, a, "the dialog closed", `!`+dialogOpen("correct-dialog"))
	for n, p := range map[string]context.Context{"AAA": a, "BBB": b, "the watcher": watcher} {
		if got := eval[string](t, p, marks("BBB", 1)); got != "8|/" {
			t.Errorf("%s shows BBB's frame 1 as %q after a refused correction, want 8|/", n, got)
		}
		if got := eval[string](t, p, `document.querySelector("#lane-error").textContent`); got != "" {
			t.Errorf("%s shows the error %q", n, got)
		}
	}
	if t.Failed() {
		return
	}
	screenshot(t, b, "corrected.png")
}

// A player up who goes offline is skipped once away long enough: the
// game goes on without them, and when they come back they bowl their
// missed frames, then the turns go on in seat order.
func TestSkipAndCatchUp(t *testing.T) {
	const awayAfter = 300 * time.Millisecond
	s := serve(t, lobby.Config{Lane: lane.Config{AwayAfter: awayAfter}})
	open := browser(t)
	id, pages := newLane(t, s, open, "AAA", "BBB")
	a, b := pages[0], pages[1]
	watcher := open()
	do(t, watcher, "watch the lane", chromedp.Navigate(s.url+"/lanes/"+id))
	do(t, a, "start", chromedp.Click(chromedp.CSS("#start")))
	bowl(t, a, "AAA", 3, 10, false)
	bowl(t, a, "AAA", 4, 7, false)
	until(t, b, "BBB up", padReady("BBB", 10))
	if eval[bool](t, a, `document.querySelector("#skip").offsetParent !== null`) {
		t.Error("AAA is offered to skip BBB, who is connected")
	}

	// BBB's phone leaves the page while BBB is up. (The page closes its
	// socket on the way out: Chromium keeps a page it may go back to,
	// socket and all, and BBB would look connected.)
	do(t, b, "leave the page", chromedp.Navigate("about:blank"))
	skipOffered := `document.querySelector("#skip").offsetParent !== null && document.querySelector("#skip").textContent === "Skip BBB (offline)"`
	until(t, a, "AAA offered to skip BBB", skipOffered)
	until(t, watcher, "the watcher sees BBB offline", `!!document.querySelector('#board tr[data-player="BBB"] .offline')`)
	if eval[bool](t, watcher, `document.querySelector("#skip").offsetParent !== null`) {
		t.Error("the watcher, not seated, is offered a skip")
	}
	// The board said BBB was offline once the server knew, with a second
	// (rounded up) before they may be skipped: after the away time more,
	// the server counts them away and sends a board saying so.
	until(t, a, "the board saying BBB may be skipped", `tenpin.state.board.up !== null && tenpin.state.board.up.skip_in === 0`)
	// A double tap skips one player: the second tap, while the first skip
	// is unanswered, sends nothing.
	recordSends(t, a)
	do(t, a, "skip BBB, twice", chromedp.Evaluate[chromedp.Void](`document.querySelector("#skip").click(); document.querySelector("#skip").click()`))
	if n := eval[int](t, a, `window.sent.filter(m => m.type === "skip").length`); n != 1 {
		t.Errorf("a double tap of skip sent %d skips, want 1", n)
	}
	for n, p := range map[string]context.Context{"AAA": a, "the watcher": watcher} {
		until(t, p, n+" sees BBB away", `document.querySelector('#board tr[data-player="BBB"]').classList.contains("away") && document.querySelector('#board tr[data-player="BBB"] .away').textContent === " (away)"`)
	}
	until(t, a, "AAA up for frame 2, their own ball", `document.querySelector("#entering").textContent === "Your ball — frame 2, ball 1" && `+padReady("AAA", 10))
	if got := eval[string](t, a, `document.querySelector("#lane-error").textContent`); got != "" {
		t.Errorf("after the skip AAA's page shows the error %q", got)
	}
	bowl(t, a, "AAA", 10, 10, false)
	until(t, a, "AAA up again, for frame 3", `document.querySelector("#entering").textContent === "Your ball — frame 3, ball 1" && `+padReady("AAA", 10))
	if eval[bool](t, a, `document.querySelector("#skip").offsetParent !== null`) {
		t.Error("a skip is offered while AAA, connected, is up")
	}

	// BBB comes back: marked back, up for the frame they missed, and the
	// next; then AAA's frame 3.
	do(t, b, "come back", chromedp.Navigate(s.url+"/lanes/"+id))
	until(t, b, "BBB resumed", `document.querySelector("#me").textContent === "You are BBB." && document.querySelector("#conn").textContent === "connected"`)
	until(t, watcher, "the watcher sees BBB back", `!document.querySelector('#board tr[data-player="BBB"]').classList.contains("away") && !document.querySelector('#board tr[data-player="BBB"] .away')`)
	until(t, b, "BBB up for frame 1", `document.querySelector("#entering").textContent === "Your ball — frame 1, ball 1"`)
	bowl(t, b, "BBB", 5, 10, false)
	bowl(t, b, "BBB", 5, 5, true)
	until(t, b, "BBB up for frame 2", `document.querySelector("#entering").textContent === "Your ball — frame 2, ball 1"`)
	bowl(t, b, "BBB", 10, 10, false)
	until(t, a, "AAA up for frame 3", `document.querySelector("#turn").textContent === "Your turn, AAA" && document.querySelector("#turn-detail").textContent.startsWith("Frame 3 · Ball 1 · ") && `+padReady("AAA", 10))
	for f, want := range map[int]string{1: "5|/", 2: "X"} {
		until(t, watcher, fmt.Sprintf("the watcher sees BBB's frame %d", f), marks("BBB", f)+` === `+js(want))
	}
	if t.Failed() {
		return
	}
	screenshot(t, watcher, "catch-up.png")
}

// The host removes a player from a small menu on their name, after a
// confirmation: the player's page is told, forgets its seat's token and
// watches; their frames stay, shown as removed, and the turn moves on.
// The host may let them back from the same menu. A friend who arrives
// mid-game is shown as joined late.
func TestHostRemovesAPlayer(t *testing.T) {
	s := serve(t, lobby.Config{})
	id, pages := newLane(t, s, browser(t), "AAA", "BBB", "CCC")
	a, b, c := pages[0], pages[1], pages[2]
	do(t, a, "start", chromedp.Click(chromedp.CSS("#start")))
	bowl(t, a, "AAA", 3, 10, false)
	bowl(t, a, "AAA", 4, 7, false)
	bowl(t, b, "BBB", 6, 10, false)
	until(t, c, "CCC sees BBB's 6", marks("BBB", 1)+` === "6"`)
	for n, p := range map[string]context.Context{"BBB": b, "CCC": c} {
		if eval[bool](t, p, `!!document.querySelector("#board button.name")`) {
			t.Errorf("%s, not the host, is offered a player's menu", n)
		}
	}
	if eval[bool](t, a, `!!document.querySelector('#board tr[data-player="AAA"] button.name')`) {
		t.Error("the host is offered a menu on their own name")
	}
	token := `localStorage.getItem("tenpin-token-" + ` + js(id) + `)`
	if eval[bool](t, b, token+` === null`) {
		t.Fatal("BBB's page keeps no token")
	}

	// Declined, nothing is sent.
	recordSends(t, a)
	do(t, a, "open BBB's menu, remove, declined",
		chromedp.Click(chromedp.CSS(`#board tr[data-player="BBB"] button.name`)),
		chromedp.WaitVisible(chromedp.CSS("#remove")),
		chromedp.Evaluate[chromedp.Void](`window.asked = ""; window.confirm = (q) => { window.asked = q; return false; }`),
		chromedp.Click(chromedp.CSS("#remove")))
	if asked := eval[string](t, a, `window.asked`); asked == "" {
		t.Error("remove did not ask for confirmation")
	}
	if sent := eval[int](t, a, `window.sent.length`); sent != 0 {
		t.Errorf("a declined remove sent %d messages", sent)
	}
	do(t, a, "remove, confirmed",
		chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`),
		chromedp.Click(chromedp.CSS("#remove")))
	until(t, a, "the menu closed", `!`+dialogOpen("player-dialog"))
	if got, want := eval[string](t, a, `JSON.stringify(window.sent.map(({ id, ...m }) => m))`), `[{"type":"remove","name":"BBB"}]`; got != want {
		t.Errorf("the host sent %s, want %s", got, want)
	}

	until(t, b, "BBB told", `document.querySelector("#lane-error").textContent.startsWith("You were removed by the host") && document.querySelector("#me").textContent === "You are watching." && document.querySelector("#pins").offsetParent === null && document.querySelector("#leave").offsetParent === null`)
	if !eval[bool](t, b, token+` === null`) {
		t.Error("BBB's page kept the token of a seat it was removed from")
	}
	for n, p := range map[string]context.Context{"AAA": a, "BBB": b, "CCC": c} {
		until(t, p, n+" sees BBB removed, frames kept", `document.querySelector('#board tr[data-player="BBB"]').classList.contains("left") && document.querySelector('#board tr[data-player="BBB"] .status').textContent === " (removed)" && `+marks("BBB", 1)+` === "6"`)
	}
	until(t, c, "the removal in CCC's lane news", `document.querySelector("#notices li")?.textContent === "BBB was removed by the host"`)
	bowl(t, c, "CCC", 10, 10, false)

	// A friend arrives after the first ball: seated last, joined late.
	ctx, cancel := context.WithTimeout(t.Context(), step)
	defer cancel()
	seatPlayer(t, ctx, s, id, "Dana")
	until(t, c, "Dana shown joined late", `document.querySelector('#board tr[data-player="Dana"] .late')?.textContent === "joined late" && document.querySelector("#notices li")?.textContent === "Dana joined late: bowls the frames missed first"`)

	// The host lets BBB back: the menu on a removed player offers only
	// that.
	do(t, a, "forget what was sent", chromedp.Evaluate[chromedp.Void](`window.sent = []`))
	do(t, a, "open BBB's menu", chromedp.Click(chromedp.CSS(`#board tr[data-player="BBB"] button.name`)))
	until(t, a, "the readmit offered", dialogOpen("player-dialog")+` && document.querySelector("#readmit").offsetParent !== null && document.querySelector("#readmit").textContent === "Let BBB back" && document.querySelector("#remove").offsetParent === null`)
	do(t, a, "let BBB back", chromedp.Click(chromedp.CSS("#readmit")))
	until(t, a, "BBB let back, still out of this game", `document.querySelector('#board tr[data-player="BBB"] .status').textContent === " (left)" && [...document.querySelectorAll("#notices li")].some(li => li.textContent === "BBB may join the lane again")`)
	if got, want := eval[string](t, a, `JSON.stringify(window.sent.map(({ id, ...m }) => m))`), `[{"type":"readmit","name":"BBB"}]`; got != want {
		t.Errorf("the host sent %s, want %s", got, want)
	}

	// A reload does not take the seat back: BBB watches.
	do(t, b, "reload", chromedp.Reload())
	until(t, b, "BBB watching after a reload", `document.querySelector("#conn").textContent === "connected" && document.querySelector("#me").textContent === "You are watching." && `+marks("CCC", 1)+` === "X"`)
	if t.Failed() {
		return
	}
	screenshot(t, a, "removed.png")
}
