package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// A TV never goes blank: while its server is away, the lane's TV and a
// house screen keep the last board they had, every name and total on it,
// with a badge that says they are reconnecting (in English and in
// Korean), and they take the lanes up again when the server is back.
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
	// Dimmed while away, the boards still read at 4.5:1.
	checkContrast(t, house, "the house screen reconnecting", tv1080)
	screenshot(t, house, "tv-away.png")

	d.start()
	until(t, single, "the TV back", badges+` === "" && `+shown+` === `+js(one)+visible)
	until(t, house, "the house screen back", badges+` === "" && `+shown+` === `+js(both)+visible)
	until(t, korean, "the Korean TV back", badges+` === "" && `+shown+` === `+js(one)+visible)
}
