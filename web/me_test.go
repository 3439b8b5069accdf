package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
)

// A bowler comes back: a phone joins with "Remember me" (on by default),
// bowls a game, and its board shows the bowler's average; /me shows the
// numbers, the game with a link to its lane, the chart, in English and
// Korean with no accessibility violation; another phone scans the
// one-time code and sees the same games; a share shows the page
// read-only; "Forget me" leaves the other phone remembered; "Delete my
// history" forgets the bowler everywhere.
func TestMyGames(t *testing.T) {
	s := serve(t, lobby.Config{Lane: lane.Config{Bowlers: memjournal.NewBowlers()}})
	id := createLane(t, s, "Friday night")
	open := browser(t)
	mina := open()
	show(t, mina, phone)
	do(t, mina, "open the lane", chromedp.Navigate(s.url+"/lanes/"+id))
	until(t, mina, "the join form, remember me ticked", `document.querySelector("#join-remember").checked`)
	join(t, mina, "Mina", "Mina")
	until(t, mina, "the key kept", `!!localStorage.getItem("tenpin-bowler-key")`)
	do(t, mina, "start", chromedp.Click(chromedp.CSS("#start")))
	for range 12 {
		bowl(t, mina, "Mina", 10, 10, false)
	}
	until(t, mina, "Mina's average on the board", `document.querySelector('#board tr[data-player="Mina"] .avg')?.textContent === "avg 300"`)

	do(t, mina, "open My games", chromedp.Navigate(s.url+"/me"))
	until(t, mina, "the numbers", `document.querySelector('#numbers [data-stat="statAverage"] dd')?.textContent === "300" && document.querySelector('#numbers [data-stat="statStrikes"] dd').textContent === "100.0%"`)
	until(t, mina, "the game and the chart", `document.querySelectorAll("#games li").length === 1 && !!document.querySelector("#chart svg polyline")`)
	if got := eval[string](t, mina, `document.querySelector("#games li a").getAttribute("href")`); got != "/lanes/"+id {
		t.Errorf("the game links to %q, want its lane /lanes/%s", got, id)
	}
	if got := eval[string](t, mina, `document.querySelector("#me-title").textContent`); got != "Mina's games" {
		t.Errorf("the page's title = %q, want Mina's games", got)
	}
	src := axeSourceIfAny(t)
	if src != "" {
		if v := axeViolations(t, mina, src); v != "" {
			t.Errorf("/me in English: %s", v)
		}
	}
	keep(t, mina, "me.png")
	do(t, mina, "switch to Korean", chromedp.Click(chromedp.CSS(`.lang button[data-lang="ko"]`)))
	until(t, mina, "/me in Korean", `document.querySelector("#me-title").textContent === "Mina의 게임" && document.querySelector("#chart svg").getAttribute("xml:lang") === "ko"`)
	if src != "" {
		if v := axeViolations(t, mina, src); v != "" {
			t.Errorf("/me in Korean: %s", v)
		}
	}
	do(t, mina, "back to English", chromedp.Click(chromedp.CSS(`.lang button[data-lang="en"]`)))

	// Another phone: the one-time code, as its QR code's address.
	do(t, mina, "add another phone", chromedp.Click(chromedp.CSS("#add-phone")))
	until(t, mina, "the code's QR", `!document.querySelector("#link-code").hidden && document.querySelector("#link-qr").naturalWidth > 0`)
	link := eval[string](t, mina, `window.tenpin.state.code.url`)
	if !strings.Contains(link, "/me#link=") {
		t.Fatalf("the code's address = %q, want /me#link=…", link)
	}
	tablet := open()
	do(t, tablet, "scan the code", chromedp.Navigate(link))
	until(t, tablet, "the same games on the tablet", `document.querySelector('#numbers [data-stat="statGames"] dd')?.textContent === "1" && location.hash === ""`)
	if eval[string](t, tablet, `localStorage.getItem("tenpin-bowler-key")`) == eval[string](t, mina, `localStorage.getItem("tenpin-bowler-key")`) {
		t.Error("the tablet holds the phone's key, want one of its own")
	}

	// A share, read-only.
	do(t, mina, "share", chromedp.Click(chromedp.CSS("#share")))
	until(t, mina, "the share link", `document.querySelector("#share-url").value.includes("/b/")`)
	shared := eval[string](t, mina, `document.querySelector("#share-url").value`)
	viewer := open()
	do(t, viewer, "open the share", chromedp.Navigate(shared))
	until(t, viewer, "the shared page", `document.querySelector('#numbers [data-stat="statAverage"] dd')?.textContent === "300" && document.querySelector("#devices").hidden`)
	if eval[string](t, viewer, `localStorage.getItem("tenpin-bowler-key") || ""`) != "" {
		t.Error("opening a share gave the viewer a key")
	}

	// Forget the tablet: the phone still has its games.
	do(t, tablet, "forget me", chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.CSS("#forget")))
	until(t, tablet, "forgotten", `!localStorage.getItem("tenpin-bowler-key") && document.querySelector("#me-body").hidden`)
	do(t, mina, "reload", chromedp.Navigate(s.url+"/me"))
	until(t, mina, "still remembered", `document.querySelector('#numbers [data-stat="statGames"] dd')?.textContent === "1"`)

	// Delete the history: the share goes with it.
	do(t, mina, "delete my history", chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.CSS("#delete")))
	until(t, mina, "deleted", `!localStorage.getItem("tenpin-bowler-key") && document.querySelector("#me-status").textContent === "Your history is deleted."`)
	do(t, viewer, "reload the share", chromedp.Navigate(shared))
	until(t, viewer, "the share gone", `document.querySelector("#me-status").textContent === "This link is no longer shared."`)
}
