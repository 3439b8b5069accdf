package web_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
)

// failing is a real in-memory journal that fails every append and read
// while down is set, as a store that stopped answering does.
type failing struct {
	*memjournal.Journal
	down atomic.Bool
}

var errDown = errors.New("store down")

func (f *failing) Append(ctx context.Context, id string, last uint64, e game.Event) (uint64, error) {
	if f.down.Load() {
		return 0, errDown
	}
	return f.Journal.Append(ctx, id, last, e)
}

func (f *failing) Read(ctx context.Context, id string, after uint64) (game.Log, error) {
	if f.down.Load() {
		return game.Log{}, errDown
	}
	return f.Journal.Read(ctx, id, after)
}

// TestResumeWhileTheStoreIsDown: a page that comes back while the lane
// cannot read its log is refused its seat for now (unavailable): it does
// not act as seated, and takes the seat back once the store answers.
func TestResumeWhileTheStoreIsDown(t *testing.T) {
	j := &failing{Journal: memjournal.New()}
	s := serve(t, lobby.Config{Lane: lane.Config{Journal: j}})
	open := browser(t)
	p := open()
	do(t, p, "create a lane",
		chromedp.Navigate(s.url+"/"),
		chromedp.SendKeys(chromedp.CSS("#create-name"), "Outage"),
		chromedp.Click(chromedp.CSS(`#create-form button[type=submit]`)),
	)
	until(t, p, "the lane page", `location.pathname.startsWith("/lanes/")`)
	join(t, p, "AAA", "AAA")
	do(t, p, "start", chromedp.Click(chromedp.CSS("#start")))
	until(t, p, "AAA up", `document.querySelector("#entering") && document.querySelector("#entering").textContent.startsWith("Your ball")`)

	// The store stops answering; a roll fails, so the lane must read its
	// log back before it decides anything, and cannot.
	j.down.Store(true)
	do(t, p, "a roll the store does not take", chromedp.Evaluate[chromedp.Void](`document.querySelector('#pins button[data-pins="3"]').click()`))
	until(t, p, "told to try again", `document.querySelector("#lane-error").textContent.includes("try again")`)
	do(t, p, "reload", chromedp.Reload())
	until(t, p, "the resume refused for now", `document.querySelector("#conn").textContent.startsWith("could not take the seat back") || document.querySelector("#conn").textContent.includes("reconnecting in")`)
	if eval[bool](t, p, `document.querySelector("#me").textContent === "You are AAA."`) {
		t.Error("the page acts as seated though its resume was refused")
	}

	j.down.Store(false)
	until(t, p, "the seat taken back", `document.querySelector("#me").textContent === "You are AAA." && document.querySelector("#conn").textContent === "connected"`)
}
