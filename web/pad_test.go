package web_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// deckStanding is the expression for the pins the pad's deck offers, in
// its order (back row first).
const deckStanding = `[...document.querySelectorAll("#pin-deck button")].filter(b => !b.disabled).map(b => b.dataset.pin).join(" ")`

// tapPins taps pins on the pad's deck.
func tapPins(pins ...int) []chromedp.Action[chromedp.Void] {
	var taps []chromedp.Action[chromedp.Void]
	for _, n := range pins {
		taps = append(taps, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#pin-deck button[data-pin="%d"]`, n))))
	}
	return taps
}

// On a phone, the bowler taps the pins knocked down on a deck that shows
// the real pins standing: leaving 7 and 10, the board circles the split
// and the deck then offers exactly 7 and 10; a foul by F counts 0 and
// the next ball faces ten again, all ten of them a spare. Every button of the pad is 44 px at
// least, a finger's size. A ball bowled by its deck is corrected by its
// deck.
func TestPinDeck(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t)()
	tb := newTable(t, s, page, "Deck", "AAA", "AAA", "BBB")
	show(t, page, phone)
	recordSends(t, page)
	until(t, page, "AAA's deck, all ten standing", padReady("AAA", 10)+` && `+deckStanding+` === "7 8 9 10 4 5 6 2 3 1"`)
	small := `[...document.querySelectorAll("#pad button")].filter(b => b.offsetParent !== null).filter(b => { const r = b.getBoundingClientRect(); return r.width < 44 || r.height < 44; }).map(b => (b.dataset.pin || b.id || b.textContent) + " " + Math.round(b.getBoundingClientRect().width) + "×" + Math.round(b.getBoundingClientRect().height)).join(", ")`
	if got := eval[string](t, page, small); got != "" {
		t.Errorf("pad buttons smaller than 44 px: %s", got)
	}
	if !eval[bool](t, page, notWider) {
		t.Error("the pad widens the page")
	}
	if got := eval[string](t, page, `document.querySelector('#pin-deck button[data-pin="7"]').getAttribute("aria-label")`); got != "pin 7, standing" {
		t.Errorf("pin 7 is named %q, want %q", got, "pin 7, standing")
	}

	// 7 and 10 left: a split.
	do(t, page, "tap all but 7 and 10", tapPins(1, 2, 3, 4, 5, 6, 8, 9)...)
	until(t, page, "eight pins tapped down", `document.querySelector("#deck-roll").textContent === "Roll: 8 pins down" && document.querySelector('#pin-deck button[data-pin="5"]').getAttribute("aria-label") === "pin 5, knocked down"`)
	// A board that changes something else (a watcher comes) keeps the
	// pins tapped.
	ctx, cancel := context.WithTimeout(t.Context(), step)
	defer cancel()
	w, err := client.Dial(ctx, s.url, tb.id)
	if err != nil {
		t.Fatal(err)
	}
	defer w.CloseNow()
	until(t, page, "the watcher seen", `document.querySelector("#phase").textContent === "2 watching."`)
	if got := eval[string](t, page, `document.querySelector("#deck-roll").textContent`); got != "Roll: 8 pins down" {
		t.Errorf("after a watcher came the deck's roll reads %q, want the 8 pins tapped", got)
	}
	do(t, page, "roll", chromedp.Click(chromedp.CSS("#deck-roll")))
	split := `document.querySelector('#board tr[data-player="AAA"][data-row=marks] td.marks[data-frame="1"] .split')`
	until(t, page, "the split circled, the deck of 7 and 10", `!!`+split+` && `+split+`.textContent === "(8)" && getComputedStyle(`+split+`.querySelector(".paren")).display === "none" && getComputedStyle(`+split+`).borderTopStyle === "solid" && `+padReady("AAA", 2)+` && `+deckStanding+` === "7 10"`)
	if got := eval[string](t, page, `[...document.querySelectorAll("#deck i:not(.down)")].map(i => i.dataset.pin).join(" ")`); got != "7 10" {
		t.Errorf("the banner draws pins %q standing, want 7 10", got)
	}
	if got := eval[string](t, page, `document.querySelector('#pin-deck button[data-pin="1"]').getAttribute("aria-label")`); got != "pin 1, down before this ball" {
		t.Errorf("pin 1, down, is named %q", got)
	}
	if got := eval[string](t, page, `document.querySelector("#quick-all b").textContent`); got != "/" {
		t.Errorf("on a second ball the quick button reads %q, want /", got)
	}
	do(t, page, "make the 7", tapPins(7)...)
	do(t, page, "roll", chromedp.Click(chromedp.CSS("#deck-roll")))
	until(t, page, "AAA's frame, the split said", marks("AAA", 1)+` === "(8)|1" && [...document.querySelectorAll("#log li")].map(li => li.textContent).slice(0, 2).join(" | ") === "AAA — frame 1, ball 2: 1 pin | AAA — frame 1, ball 1: 8 pins, a split"`)
	if got, want := sentRolls(t, page), `[{"type":"roll","deck":[7,10],"frame":1,"ball":1},{"type":"roll","deck":[10],"frame":1,"ball":2}]`; got != want {
		t.Errorf("the page sent %s, want %s", got, want)
	}
	tb.await(func(b *protocol.Board) bool { return b.Up.Seat == 1 })
	tb.rollAs("BBB", 9)
	// BBB's 9 was entered as a count: the pin standing is not known, and
	// the host's pad for BBB's second ball is the count pad only, with
	// no deck of invented pins.
	until(t, page, "BBB's second ball, by count only", padReady("BBB", 1)+` && document.querySelector("#deck-pad").hidden && document.querySelector("#quick-all b").textContent === "/"`)
	tb.rollAs("BBB", 0)

	// A foul, by F: 0, marked F; the pins are set again for the next ball.
	until(t, page, "AAA up for frame 2", padReady("AAA", 10)+` && `+deckStanding+` === "7 8 9 10 4 5 6 2 3 1"`)
	do(t, page, "foul", chromedp.Click(chromedp.CSS("#quick-foul")))
	until(t, page, "the foul marked, ten standing again", marks("AAA", 2)+` === "F" && `+padReady("AAA", 10)+` && `+deckStanding+` === "7 8 9 10 4 5 6 2 3 1" && document.querySelector("#log li").textContent === "AAA — frame 2, ball 1: foul"`)
	// Ten standing on the frame's second ball: all ten are a spare, and
	// the quick button says so.
	if got := eval[string](t, page, `document.querySelector("#quick-all").textContent`); got != "/ spare" {
		t.Errorf("after a foul on the first ball the quick button reads %q, want %q", got, "/ spare")
	}
	do(t, page, "a spare of ten", chromedp.Click(chromedp.CSS("#quick-all")))
	until(t, page, "F then all ten: a spare", marks("AAA", 2)+` === "F|/"`)
	if got, want := sentRolls(t, page), `{"type":"roll","foul":true,"frame":2,"ball":1},{"type":"roll","deck":[],"frame":2,"ball":2}]`; len(got) < len(want) || got[len(got)-len(want):] != want {
		t.Errorf("the page sent %s, want it to end with %s", got, want)
	}

	// The 1 of frame 1 was a spare: corrected on the dialog's deck, which
	// shows the 7 and 10 that stood before that ball, the 7 down.
	do(t, page, "tap frame 1", chromedp.Click(chromedp.CSS(frameButton("AAA", 1))))
	until(t, page, "the correction dialog", dialogOpen("correct-dialog"))
	do(t, page, "ball 2", chromedp.Click(chromedp.CSS(`#correct-balls button[data-ball="2"]`)))
	deck := `[...document.querySelectorAll("#correct-deck button")].filter(b => !b.disabled).map(b => b.dataset.pin + (b.classList.contains("knocked") ? "↓" : "")).join(" ")`
	until(t, page, "the deck before ball 2", deck+` === "7↓ 10"`)
	do(t, page, "knock down the 10 too", chromedp.Click(chromedp.CSS(`#correct-deck button[data-pin="10"]`)))
	until(t, page, "offered to save", `!document.querySelector("#correct-save").disabled && document.querySelector("#correct-save").textContent === "Make ball 2 a 2"`)
	do(t, page, "save", chromedp.Click(chromedp.CSS("#correct-save")))
	until(t, page, "the spare", marks("AAA", 1)+` === "(8)|/" && !`+dialogOpen("correct-dialog"))
	if got, want := eval[string](t, page, `JSON.stringify(window.sent.filter(m => m.type === "correct").map(({ id, ...m }) => m))`), `[{"type":"correct","frame":1,"ball":2,"deck":[]}]`; got != want {
		t.Errorf("the correction sent %s, want %s", got, want)
	}
	if t.Failed() {
		return
	}
	screenshot(t, page, "deck.png")
}

// After a gutter or a foul on a frame's first ball, ten pins face the
// second, and / enters them as the spare they are; X is for a rack's
// first ball.
func TestSpareKeyOnTenStanding(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t)()
	newTable(t, s, page, "Keys", "AAA", "AAA")
	press := func(what, key string) {
		do(t, page, what,
			chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`),
			chromedp.KeyEvent(key))
	}
	until(t, page, "AAA's first ball", padReady("AAA", 10))
	press("a foul", "f")
	until(t, page, "the foul, ten standing again", marks("AAA", 1)+` === "F" && `+padReady("AAA", 10))
	press("a spare", "/")
	until(t, page, "F then / is a spare", marks("AAA", 1)+` === "F|/"`)
	until(t, page, "AAA's second frame", padReady("AAA", 10))
	press("a gutter", "-")
	until(t, page, "the gutter", marks("AAA", 2)+` === "-" && `+padReady("AAA", 10))
	press("a spare", "/")
	until(t, page, "- then / is a spare", marks("AAA", 2)+` === "-|/" && document.querySelector("#lane-error").textContent === ""`)
}
