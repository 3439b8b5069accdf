package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/protocol/client"
)

// The keyboard's focus follows the game: to the board after the join and
// after the host starts the game (not back to the top of the page, nor
// left on the Start button, gone), and to the pins as the turn comes.
func TestFocusFollowsTheGame(t *testing.T) {
	url := app(t)
	p := browser(t)()
	do(t, p, "create a lane",
		chromedp.Navigate(url+"/"),
		chromedp.WaitVisible(chromedp.CSS("#create-name")),
		chromedp.SendKeys(chromedp.CSS("#create-name"), "Focus"),
		chromedp.Click(chromedp.CSS(`#create-form button[type=submit]`)),
	)
	until(t, p, "the lane page", `location.pathname.startsWith("/lanes/") && document.querySelector("#conn").classList.contains("ok")`)
	id := strings.TrimPrefix(eval[string](t, p, `location.pathname`), "/lanes/")

	// Jo takes the first seat; the page's player, the lane's creator, is
	// the host.
	ctx, cancel := context.WithTimeout(t.Context(), step)
	defer cancel()
	jo, err := client.Dial(ctx, url, id)
	if err != nil {
		t.Fatal(err)
	}
	defer jo.CloseNow()
	// Jo has the invitation the creator's page shares.
	invite := eval[string](t, p, `localStorage.getItem("tenpin-invite-" + window.tenpin.state.id) || ""`)
	if _, err := jo.JoinInvited(ctx, "Jo", invite); err != nil {
		t.Fatal(err)
	}
	until(t, p, "Jo seated", `window.tenpin.state.board && window.tenpin.state.board.players.length === 1`)
	join(t, p, "Ann", "Ann")
	until(t, p, "the focus on the board after the join", `document.activeElement === document.querySelector(".board-wrap")`)

	do(t, p, "start", chromedp.Click(chromedp.CSS("#start")))
	until(t, p, "the focus on the board after the start, Jo up", `document.querySelector("#play").dataset.phase === "playing" && document.activeElement === document.querySelector(".board-wrap")`)

	for ball, pins := range []int{3, 4} {
		if _, err := jo.Roll(ctx, 1, ball+1, pins); err != nil {
			t.Fatal(err)
		}
	}
	until(t, p, "the focus on the pins as Ann's turn comes", padReady("Ann", 10)+` && document.activeElement === document.querySelector("#pin-deck")`)
	// From there the keys bowl, as ever.
	do(t, p, "press 9", chromedp.KeyEvent("9"))
	until(t, p, "Ann's 9", marks("Ann", 1)+` === "9"`)
}
