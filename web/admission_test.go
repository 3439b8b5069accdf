package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
)

// On a lane full of watchers a seated player's page gets the seat back
// when it reconnects, and a watcher's page that is turned away (1013,
// try again later) keeps trying, with backoff, until there is room.
func TestLaneFullOfWatchers(t *testing.T) {
	s := serve(t, lobby.Config{Lane: lane.Config{MaxSpectators: 1, ResumeGrace: 500 * time.Millisecond}})
	open := browser(t)
	player := open()
	id := createLane(t, s, "Full")
	do(t, player, "open the lane", chromedp.Navigate(invited(t, s.url, id)))
	join(t, player, "AAA", "AAA")

	// A socket of the test's own takes the lane's one place to watch.
	ctx, cancel := context.WithTimeout(context.Background(), step)
	defer cancel()
	squatter, _, err := websocket.Dial(ctx, strings.Replace(s.url, "http", "ws", 1)+"/ws/lanes/"+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer squatter.CloseNow()
	go func() { // reads (and so answers pings) until the socket closes
		for {
			if _, _, err := squatter.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	until(t, player, "one watcher", `document.querySelector("#phase").textContent.endsWith(" 1 watching.")`)

	// The player's page reloads: its new socket resumes the seat, though
	// every place to watch is taken.
	do(t, player, "reload", chromedp.Reload())
	until(t, player, "the seat resumed", `document.querySelector("#me").textContent === "You are AAA." && document.querySelector("#conn").textContent === "connected"`)
	until(t, player, "still one watcher", `document.querySelector("#phase").textContent.endsWith(" 1 watching.")`)

	// Another person's page has no seat: it is turned away, says so and
	// retries.
	watcher := open()
	do(t, watcher, "open the lane", chromedp.Navigate(s.url+"/lanes/"+id))
	until(t, watcher, "turned away, retrying", `document.querySelector("#conn").textContent.startsWith("the lane has all the watchers it takes — reconnecting in ")`)
	if got := eval[string](t, watcher, `document.querySelector("#lane-error").textContent`); got != "" {
		t.Errorf("a page turned away shows the error %q", got)
	}

	// Once there is room, the retry gets in.
	squatter.Close(websocket.StatusNormalClosure, "")
	until(t, watcher, "watching", `document.querySelector("#conn").textContent === "connected" && document.querySelector("#phase").textContent.endsWith(" Only you are watching.") && document.querySelector("#me").textContent === "You are watching."`)
}
