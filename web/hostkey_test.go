package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"
	"github.com/tenpin/tenpin/lobby"
)

// TestCreatorIsHost: the page that creates a lane keeps its host key and
// joins with it, so that its player is the host although a crawler took
// the first seat; the key leaves the device's storage once used.
func TestCreatorIsHost(t *testing.T) {
	url := app(t)
	p := browser(t)()
	do(t, p, "create a lane",
		chromedp.Navigate(url+"/"),
		chromedp.WaitVisible(chromedp.CSS("#create-name")),
		chromedp.SendKeys(chromedp.CSS("#create-name"), "Mine"),
		chromedp.Click(chromedp.CSS(`#create-form button[type=submit]`)),
	)
	until(t, p, "the lane page", `location.pathname.startsWith("/lanes/")`)
	id := strings.TrimPrefix(eval[string](t, p, `location.pathname`), "/lanes/")
	if key := eval[string](t, p, `localStorage.getItem("tenpin-host-" + `+js(id)+`) || ""`); len(key) < 20 {
		t.Fatalf("the page kept the host key %q", key)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bot, _, err := websocket.Dial(ctx, strings.Replace(url, "http", "ws", 1)+"/ws/lanes/"+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bot.CloseNow()
	// The crawler has the lane's link, invitation and all.
	invite := eval[string](t, p, `localStorage.getItem("tenpin-invite-" + `+js(id)+`) || ""`)
	if err := bot.Write(ctx, websocket.MessageText, []byte(`{"type":"join","name":"Bot","invite":"`+invite+`"}`)); err != nil {
		t.Fatal(err)
	}
	until(t, p, "the crawler seated first", `window.tenpin && window.tenpin.state.board && window.tenpin.state.board.players.length === 1`)
	// The lane waits for its creator: the crawler hosts nothing, and the
	// creator's page says the lane is theirs, and offers to give it away.
	until(t, p, "the creator is awaited", `window.tenpin.state.board.creator_away === true && !window.tenpin.state.board.host && !document.querySelector("#give").hidden`)

	join(t, p, "Ann", "Ann")
	until(t, p, "Ann is the host", `window.tenpin.state.board.host === "Ann" && !document.querySelector("#start").hidden`)
	if key := eval[string](t, p, `localStorage.getItem("tenpin-host-" + `+js(id)+`) || ""`); key != "" {
		t.Errorf("the host key stays stored after the join: %q", key)
	}
}

// TestCreatorGivesTheLaneAway: a friend on a lane whose creator has not
// come is told so and has no start; the creator's page, never joined,
// gives the lane away (confirmed), and the friend hosts and starts it.
func TestCreatorGivesTheLaneAway(t *testing.T) {
	url := app(t)
	open := browser(t)
	creator := open()
	do(t, creator, "create a lane",
		chromedp.Navigate(url+"/"),
		chromedp.WaitVisible(chromedp.CSS("#create-name")),
		chromedp.SendKeys(chromedp.CSS("#create-name"), "For the kids"),
		chromedp.Click(chromedp.CSS(`#create-form button[type=submit]`)),
	)
	until(t, creator, "the lane page", `location.pathname.startsWith("/lanes/")`)
	friend := open()
	do(t, friend, "open the lane", chromedp.Navigate(sharedLink(t, creator)))
	join(t, friend, "Kim", "Kim")
	until(t, friend, "Kim waits for the creator", `window.tenpin.state.board && window.tenpin.state.board.creator_away === true &&
		document.querySelector("#start").hidden && document.querySelector("#give").hidden &&
		document.querySelector("#phase").textContent.includes("creator")`)
	until(t, creator, "the give button", `!document.querySelector("#give").hidden`)
	do(t, creator, "give the lane away, confirmed",
		chromedp.Evaluate[chromedp.Void](`window.asked = ""; window.confirm = (q) => { window.asked = q; return true; }`),
		chromedp.Click(chromedp.CSS("#give")),
	)
	until(t, friend, "Kim hosts, and may start", `window.tenpin.state.board.host === "Kim" && !window.tenpin.state.board.creator_away && !document.querySelector("#start").hidden`)
	until(t, creator, "the key forgotten, the button gone", `document.querySelector("#give").hidden && !localStorage.getItem("tenpin-host-" + location.pathname.slice(7))`)
	do(t, friend, "start", chromedp.Click(chromedp.CSS("#start")))
	until(t, friend, "the game under way", `window.tenpin.state.board.phase === "playing"`)
}

// TestReadmitFromTheList: a player removed before the first ball leaves
// the board; the host finds them in the list of removed players and lets
// them back from there, and the list goes.
func TestReadmitFromTheList(t *testing.T) {
	s := serve(t, lobby.Config{})
	_, pages := newLane(t, s, browser(t), "AAA", "BBB")
	a, b := pages[0], pages[1]
	do(t, a, "remove BBB before the first ball",
		chromedp.Click(chromedp.CSS(`#board tr[data-player="BBB"] button.name`)),
		chromedp.WaitVisible(chromedp.CSS("#remove")),
		chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`),
		chromedp.Click(chromedp.CSS("#remove")))
	until(t, a, "BBB off the board, in the list with a button", `!document.querySelector('#board tr[data-player="BBB"]') && !document.querySelector("#removed-list").hidden && document.querySelector("#removed-names button")?.textContent === "Let BBB back"`)
	until(t, b, "BBB's own page lists BBB, with no button", `!document.querySelector("#removed-list").hidden && document.querySelector("#removed-names").textContent === "BBB" && !document.querySelector("#removed-names button")`)
	do(t, a, "let BBB back", chromedp.Click(chromedp.CSS("#removed-names button")))
	until(t, a, "the list gone", `document.querySelector("#removed-list").hidden && !(window.tenpin.state.board.removed || []).length`)
}
