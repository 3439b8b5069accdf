package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// banner is the expression for what the turn banner says: its big line,
// then its detail line.
const banner = `document.querySelector("#turn").textContent + " / " + document.querySelector("#turn-detail").textContent`

// deckUp is the expression for the pins the banner's deck draws standing
// (when the server says which).
const deckUp = `document.querySelectorAll("#deck i:not(.down)").length`

// rollAs makes the client's player roll the ball up and waits for the
// board that shows it.
func (tb *table) rollAs(name string, pins int) {
	tb.t.Helper()
	up := tb.board.Up
	ctx, cancel := context.WithTimeout(tb.t.Context(), step)
	defer cancel()
	if _, err := tb.players[name].Roll(ctx, up.Frame, up.Ball, pins); err != nil {
		tb.t.Fatalf("%s rolls %d: %v", name, pins, err)
	}
	bowled := balls(tb.board)
	tb.await(func(b *protocol.Board) bool { return balls(b) > bowled })
}

// The turn banner says who is up, the frame, the ball and the pins
// standing (and draws them when the server says which); when the turn
// comes to the page's player it says so in another colour, in the tab's
// title, and with a buzz of the phone. A key for a ball it cannot be says
// why, and sends nothing.
func TestTurnBanner(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t)()
	tb := newTable(t, s, page, "Turns", "BBB", "AAA", "BBB")
	show(t, page, phone)
	do(t, page, "count the buzzes", chromedp.Evaluate[chromedp.Void](`window.buzzes = []; navigator.vibrate = (p) => { window.buzzes.push(p); return true; }`))

	until(t, page, "AAA up, for BBB to see", banner+` === "AAA is up / Frame 1 · Ball 1 · 10 pins standing" && `+deckUp+` === 10`)
	if got := eval[string](t, page, `document.title`); got != "Turns — tenpin" {
		t.Errorf("while AAA is up BBB's title is %q, want %q", got, "Turns — tenpin")
	}
	if eval[bool](t, page, `document.querySelector("#pins").offsetParent !== null`) {
		t.Error("BBB is offered the pins while AAA, connected, is up")
	}
	// Large enough to read across a lane.
	if px := eval[float64](t, page, `parseFloat(getComputedStyle(document.querySelector("#turn")).fontSize)`); px < 24 {
		t.Errorf("the banner's text is %v px, want at least 24", px)
	}
	other := eval[string](t, page, `getComputedStyle(document.querySelector("#banner")).backgroundColor`)

	tb.rollAs("AAA", 3)
	// AAA's 3 was entered as a count: which 7 pins stand is not known, and
	// the banner draws none rather than make them up.
	until(t, page, "AAA's second ball", banner+` === "AAA is up / Frame 1 · Ball 2 · 7 pins standing" && document.querySelector("#deck").hidden`)
	tb.rollAs("AAA", 4)
	until(t, page, "BBB's turn", banner+` === "Your turn, BBB / Frame 1 · Ball 1 · 10 pins standing" && `+padReady("BBB", 10))
	if got := eval[string](t, page, `document.title`); got != "● Your turn — tenpin" {
		t.Errorf("on BBB's turn the title is %q, want %q", got, "● Your turn — tenpin")
	}
	if mine := eval[string](t, page, `getComputedStyle(document.querySelector("#banner")).backgroundColor`); mine == other {
		t.Errorf("the banner is %s on BBB's turn, as on AAA's: want a colour of its own", mine)
	}
	if got := eval[string](t, page, `JSON.stringify(window.buzzes)`); got != "[[200,100,200]]" {
		t.Errorf("the phone buzzed %s when BBB's turn came, want once", got)
	}
	until(t, page, "the turn said", `document.querySelector("#announce").textContent.endsWith("Your turn")`)

	// Keys that cannot be this ball: said, and nothing sent.
	recordSends(t, page)
	press := func(k string) {
		do(t, page, "press "+k,
			chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`),
			chromedp.KeyEvent(k))
	}
	refused := func(k, want string) {
		t.Helper()
		press(k)
		until(t, page, "the page says why "+k+" is refused", `document.querySelector("#lane-error").textContent === `+js(want))
	}
	refused("/", "/ is a spare, only on a second ball: press X for a strike, or the number of pins.")
	bowl(t, page, "BBB", 3, 10, false)
	until(t, page, "BBB's second ball", banner+` === "Your turn, BBB / Frame 1 · Ball 2 · 7 pins standing" && `+padReady("BBB", 7))
	refused("9", "Only 7 pins stand: 9 is too many.")
	refused("x", "X is a strike, all 10 pins, and only 7 pins stand: press / for a spare.")
	if got, want := sentRolls(t, page), `[{"type":"roll","pins":3,"frame":1,"ball":1}]`; got != want {
		t.Errorf("BBB's page sent %s, want only the 3 clicked", got)
	}
	press("/")
	until(t, page, "BBB's spare", marks("BBB", 1)+` === "3|/" && document.querySelector("#lane-error").textContent === ""`)
	until(t, page, "AAA up again", banner+` === "AAA is up / Frame 2 · Ball 1 · 10 pins standing" && document.title === "Turns — tenpin"`)
	if got := eval[int](t, page, `window.buzzes.length`); got != 1 {
		t.Errorf("the phone buzzed %d times, want once", got)
	}
}

// Once the game is over the banner says who won, ties in words, and
// ranks the players; the winners' rows stand out on the board.
func TestEndOfGame(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t)()
	tb := newTable(t, s, page, "Ties", "", "DOG", "EEL", "CAT", "BOB")
	tb.play(func(*protocol.Board) bool { return false })
	until(t, page, "the result", `document.querySelector("#turn").textContent === "CAT, DOG and EEL tie with 300"`)
	ranking := `[...document.querySelectorAll("#ranking li")].map(li => li.textContent).join(", ")`
	if got, want := eval[string](t, page, ranking), "1st CAT 300, 1st DOG 300, 1st EEL 300, 4th BOB 60"; got != want {
		t.Errorf("the ranking reads %q, want %q", got, want)
	}
	winners := `[...document.querySelectorAll("#board tr.winner[data-row=marks]")].map(tr => tr.dataset.player).join(" ")`
	if got, want := eval[string](t, page, winners), "DOG EEL CAT"; got != want {
		t.Errorf("the board marks %q as winners, want %q", got, want)
	}
	if got := eval[string](t, page, `document.querySelector("#phase").textContent`); got != "Game over. You and 1 other are watching." {
		t.Errorf("the phase reads %q", got)
	}
	if t.Failed() {
		return
	}
	screenshot(t, page, "ties.png")
}
