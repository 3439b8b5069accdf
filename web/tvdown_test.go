package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// tvBadgesWhole is the expression for the TV's badges (reconnecting)
// not seen whole, and why, "" for none: each inside its panel, clear of
// the lane's name, who is up, the ball and the connection's state, its
// text not cut.
const tvBadgesWhole = `(() => {
	const out = [];
	for (const b of document.querySelectorAll(".tv-badge")) {
		if (!b.checkVisibility()) continue;
		const panel = b.closest(".tv-lane").getBoundingClientRect(), r = b.getBoundingClientRect();
		if (r.left < panel.left - .5 || r.right > panel.right + .5 || r.top < panel.top - .5 || r.bottom > panel.bottom + .5) out.push(b.textContent + " outside its panel");
		for (const n of b.closest(".tv-head").querySelectorAll(".tv-name, .tv-up, .tv-ball, .tv-conn")) {
			const q = n.getBoundingClientRect();
			if (n.checkVisibility() && r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom) out.push(b.textContent + " over " + n.className + " " + JSON.stringify(n.textContent));
		}
		if (b.scrollWidth > b.clientWidth) out.push(b.textContent + " cut: " + b.scrollWidth + " px in " + b.clientWidth);
	}
	return out.join("; ");
})()`

// A TV never goes blank: while its server is away, the lane's TV and a
// house screen keep the last board they had, every name and total on it,
// with a badge that says they are reconnecting (in English and in
// Korean), whole and clear of the rest, the boards' greyed text still
// read at 4.5:1; and they take the lanes up again when the server is back.
func TestTVKeepsItsBoardWhileTheServerIsAway(t *testing.T) {
	d := deploy(t, lobby.Config{})
	s := &server{url: d.url}
	a := tvLane(t, s, "Lane 1", "CCC", "HHH")
	b := tvLane(t, s, "Lane 2", "FFF")
	tvPlay(a, func(bd *protocol.Board) bool { return balls(bd) >= 4 })
	tvPlay(b, func(bd *protocol.Board) bool { return balls(bd) >= 2 })

	open := browser(t)
	single, house, korean := open(), open(), open()
	show(t, single, tv1080)
	show(t, house, tv1080)
	show(t, korean, tv1080)
	do(t, single, "speed up the TV's timers", fastTimers(20))
	do(t, house, "speed up the house screen's timers", fastTimers(20))
	do(t, single, "open the lane's TV", chromedp.Navigate(d.url+"/lanes/"+a.id+"/tv"))
	do(t, house, "open the house screen", chromedp.Navigate(d.url+"/tv?lanes="+a.id+","+b.id))
	do(t, korean, "open the lane's TV in Korean", chromedp.Navigate(d.url+"/lanes/"+a.id+"/tv?lang=ko"))

	// shown is the board each screen must keep: its names and totals.
	const shown = `[...document.querySelectorAll(".tv-lane")].map(p => p.querySelector(".tv-name").textContent + ": " + [...p.querySelectorAll(".tv-board tr[data-row=marks]")].filter(tr => tr.offsetParent !== null).map(tr => tr.dataset.player + " " + tr.querySelector("td.total").textContent).join(", ")).join("; ")`
	const visible = ` && [...document.querySelectorAll(".tv-board")].every(t => t.offsetParent !== null)`
	badges := `[...document.querySelectorAll(".tv-badge")].filter(e => !e.hidden && e.offsetParent !== null).map(e => e.textContent).join("|")`
	const one, both = "Lane 1: CCC 9, HHH 6", "Lane 1: CCC 9, HHH 6; Lane 2: FFF 9"
	until(t, single, "the board on the TV", shown+` === `+js(one)+visible)
	until(t, house, "the boards on the house screen", shown+` === `+js(both)+visible)
	until(t, korean, "the board on the Korean TV", shown+` === `+js(one)+visible)
	if got := eval[string](t, single, badges); got != "" {
		t.Errorf("a TV with its server shows the badge %q", got)
	}

	d.stop()
	until(t, single, "the TV reconnecting, its board kept", badges+` === "reconnecting" && `+shown+` === `+js(one)+visible)
	until(t, house, "the house screen reconnecting, its boards kept", badges+` === "reconnecting|reconnecting" && `+shown+` === `+js(both)+visible)
	until(t, korean, "the Korean TV reconnecting, its board kept", badges+` === "다시 연결 중" && `+shown+` === `+js(one)+visible)
	// Dimmed while away, the boards still read at 4.5:1; the badge is
	// whole, clear of the rest of the head, at 1080p and 720p.
	checkContrast(t, house, "the house screen reconnecting", tv1080)
	for _, sc := range []screen{tv1080, tv720} {
		for name, page := range map[string]context.Context{"the lane's TV": single, "the house screen": house, "the Korean TV": korean} {
			show(t, page, sc)
			if why := eval[string](t, page, tvBadgesWhole); why != "" {
				t.Errorf("%s, %s: %s", name, sc.name, why)
			}
		}
	}
	screenshot(t, house, "tv-away.png")

	d.start()
	until(t, single, "the TV back", badges+` === "" && `+shown+` === `+js(one)+visible)
	until(t, house, "the house screen back", badges+` === "" && `+shown+` === `+js(both)+visible)
	until(t, korean, "the Korean TV back", badges+` === "" && `+shown+` === `+js(one)+visible)
}
