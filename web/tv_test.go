package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

var (
	tv1080 = screen{"TV at 1080p", 1920, 1080, false}
	tv720  = screen{"TV at 720p", 1280, 720, false}
)

// tvCell is the expression for the marks a TV panel shows in a frame.
func tvCell(name string, frame int) string {
	return fmt.Sprintf(`document.querySelector('.tv-board tr[data-player=%s][data-row=marks] td.marks[data-frame="%d"]')?.textContent`, js(name), frame)
}

// tvStanding is the expression for the pins a TV panel draws standing,
// in numbering order, "" when it draws no deck.
const tvStanding = `(() => { const d = document.querySelector(".tv-deck"); return d.hidden ? "" : [...d.querySelectorAll("i:not(.down)")].map(i => Number(i.dataset.pin)).sort((a, b) => a - b).join(","); })()`

// tvFits is the expression for what of a TV screen is wrong: the page
// scrolls, it has something to press or type in, or a panel's board,
// its up line or its QR code is cut off by the panel's edge.
const tvFits = `(() => {
	const out = [];
	const de = document.documentElement;
	if (de.scrollHeight > innerHeight || de.scrollWidth > innerWidth) out.push("the page scrolls: " + de.scrollWidth + "×" + de.scrollHeight + " in " + innerWidth + "×" + innerHeight);
	const controls = document.querySelectorAll("button, input, select, textarea, a[href], [tabindex], [contenteditable]");
	if (controls.length) out.push(controls.length + " controls, the first " + controls[0].outerHTML.slice(0, 60));
	for (const panel of document.querySelectorAll(".tv-lane")) {
		const box = panel.getBoundingClientRect();
		for (const e of panel.querySelectorAll(".tv-board tr, .tv-name, .tv-up, .tv-qr:not([hidden])")) {
			const r = e.getBoundingClientRect();
			if (r.width === 0 && r.height === 0) continue; // not shown
			if (r.bottom > box.bottom + 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.left < box.left - 0.5) {
				out.push((e.dataset.player || e.className) + " cut off at " + Math.round(r.left) + "," + Math.round(r.top) + " " + Math.round(r.width) + "×" + Math.round(r.height));
			}
		}
	}
	return out.join("; ");
})()`

// smallest is the expression for the smallest font size, in px, of the
// players' names and totals on the screen.
const smallest = `Math.min(...[...document.querySelectorAll(".tv-board th.name .who, .tv-board td.total")].map(e => parseFloat(getComputedStyle(e).fontSize)))`

// The TV view above a lane: the board of eight bowlers fills a 1080p
// screen (and a 720p one) with nothing to scroll or press, names and
// totals large enough to read from the approach, the bowler and the ball
// up highlighted, the pins standing drawn as the server says (none made
// up after a ball entered as a count), a call-out for a strike and a
// split, and the lane's QR code in a corner. Balls bowled through the
// protocol's client move the board without a reload.
func TestTVView(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t)()
	show(t, page, tv1080)
	tb := tvLane(t, s, "Lane 7", names...)
	do(t, page, "open the TV view", chromedp.Navigate(s.url+"/lanes/"+tb.id+"/tv"))
	until(t, page, "the board on the TV", `document.querySelectorAll(".tv-board tr[data-row=marks]").length === 8 && document.querySelector(".tv-name").textContent === "Lane 7" && document.querySelector(".tv-up").textContent === "AAA is up" && document.querySelector(".tv-qr").complete && !document.querySelector(".tv-qr").hidden`)
	if got := eval[string](t, page, tvStanding); got != "1,2,3,4,5,6,7,8,9,10" {
		t.Errorf("a fresh rack is drawn with the pins %q standing, want all ten", got)
	}
	for _, sc := range []screen{tv1080, tv720} {
		show(t, page, sc)
		if why := eval[string](t, page, tvFits); why != "" {
			t.Errorf("%s: %s", sc.name, why)
		}
	}
	show(t, page, tv1080)
	if px := eval[float64](t, page, smallest); px < 40 {
		t.Errorf("at 1080p the names and totals are as small as %v px, want at least 40", px)
	}
	// The QR code of the lane, in the bottom right corner.
	qr := `(() => { const q = document.querySelector(".tv-qr"), r = q.getBoundingClientRect(); return new URL(q.src).pathname + " " + (r.left > innerWidth / 2 && r.top > innerHeight / 2 && r.right <= innerWidth && r.bottom <= innerHeight); })()`
	if got, want := eval[string](t, page, qr), "/api/lanes/"+tb.id+"/qr.png true"; got != want {
		t.Errorf("the QR code: %q, want %q", got, want)
	}

	// A strike: on the board with no reload, and called out.
	do(t, page, "mark the page", chromedp.Evaluate[chromedp.Void](`window.notReloaded = true`))
	tb.rollAs("AAA", 10)
	until(t, page, "AAA's strike, called out", tvCell("AAA", 1)+` === "X" && window.notReloaded && !document.querySelector(".tv-call").hidden && document.querySelector(".tv-call").textContent === "AAAStrike!"`)
	// BBB is up, and their first ball is the one highlighted.
	until(t, page, "BBB up", `document.querySelector(".tv-up").textContent === "BBB is up" && document.querySelector('.tv-board tr.up[data-row=marks]').dataset.player === "BBB" && document.querySelector(".tv-board td.ball-up").dataset.frame === "1" && document.querySelectorAll(".tv-board td.ball-up").length === 1`)

	// A split, named by the pins left standing: drawn as they stand.
	ctx, cancel := context.WithTimeout(t.Context(), step)
	defer cancel()
	frame, ball, deck := 1, 1, []int{7, 10}
	if _, err := tb.players["BBB"].Do(ctx, protocol.Request{Type: protocol.TypeRoll, Frame: &frame, Ball: &ball, Deck: &deck}); err != nil {
		t.Fatal(err)
	}
	until(t, page, "BBB's split, called out", tvCell("BBB", 1)+` === "(8)" && `+tvStanding+` === "7,10" && document.querySelector(".tv-call").textContent === "BBBSplit!" && document.querySelector(".tv-ball").textContent === "Frame 1 · Ball 2 · 2 pins standing"`)
	tb.await(func(b *protocol.Board) bool { return b.Up != nil && b.Up.Ball == 2 })
	tb.rollAs("BBB", 1)
	// A ball entered as a count: the server does not say which pins
	// stand, and the TV draws none.
	tb.rollAs("CCC", 4)
	until(t, page, "CCC's second ball up, no deck drawn", tvCell("CCC", 1)+` === "4" && document.querySelector(".tv-ball").textContent === "Frame 1 · Ball 2 · 6 pins standing" && `+tvStanding+` === ""`)
	if !eval[bool](t, page, `window.notReloaded`) {
		t.Error("the TV view reloaded")
	}
	screenshot(t, page, "tv.png")
}

// A house screen of three lanes, in Korean, for viewers who asked for
// less motion: each lane's board in its quarter, nothing to scroll or
// press, no English, and a strike on one lane moves its board without a
// call-out.
func TestHouseTV(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t, inLanguage("ko-KR")...)()
	show(t, page, tv1080)
	do(t, page, "less motion", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}},
		})
		return err
	}))
	ctx, cancel := context.WithTimeout(t.Context(), step)
	defer cancel()
	var ids []string
	players := map[string]*client.Conn{}
	for i, name := range []string{"1번 레인", "2번 레인", "3번 레인"} {
		id := createLane(t, s, name)
		ids = append(ids, id)
		for _, p := range names[2*i : 2*i+2] {
			players[p] = seatPlayer(t, ctx, s, id, p)
		}
		if _, err := players[names[2*i]].Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	do(t, page, "open the house screen", chromedp.Navigate(s.url+"/tv?lanes="+strings.Join(ids, ",")))
	until(t, page, "three lanes, in Korean", `document.documentElement.lang === "ko" && [...document.querySelectorAll(".tv-lane")].map(p => p.querySelector(".tv-name").textContent + ":" + p.querySelectorAll(".tv-board tr[data-row=marks]").length + ":" + p.querySelector(".tv-up").textContent).join(" ") === "1번 레인:2:AAA 차례 2번 레인:2:CCC 차례 3번 레인:2:EEE 차례"`)
	if !eval[bool](t, page, `matchMedia("(prefers-reduced-motion: reduce)").matches`) {
		t.Fatal("the page does not see prefers-reduced-motion: reduce")
	}
	for _, sc := range []screen{tv1080, tv720} {
		show(t, page, sc)
		if why := eval[string](t, page, tvFits); why != "" {
			t.Errorf("%s: %s", sc.name, why)
		}
	}
	if words := eval[string](t, page, asciiWords(names[:6]...)); words != "" {
		t.Errorf("the house screen in Korean shows English: %s", words)
	}
	// A strike on the second lane: its board moves, and nothing flies.
	do(t, page, "mark the page", chromedp.Evaluate[chromedp.Void](`window.notReloaded = true`))
	if _, err := players["CCC"].Roll(ctx, 1, 1, 10); err != nil {
		t.Fatal(err)
	}
	second := `document.querySelectorAll(".tv-lane")[1]`
	until(t, page, "the strike on the second lane", second+`.querySelector('tr[data-player="CCC"] td.marks[data-frame="1"]').textContent === "X" && `+second+`.dataset.called === "strike" && `+second+`.querySelector(".tv-up").textContent === "DDD 차례" && window.notReloaded`)
	if eval[bool](t, page, `[...document.querySelectorAll(".tv-call")].some(c => !c.hidden)`) {
		t.Error("a call-out shown to viewers who asked for less motion")
	}
	screenshot(t, page, "house.png")
}
