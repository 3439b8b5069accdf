package web_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/polltest"
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
	bowlers := memjournal.NewBowlers()
	s := serve(t, lobby.Config{Lane: lane.Config{Bowlers: bowlers}})
	id := createLane(t, s, "Friday night")
	warm := createLane(t, s, "Warm-up")
	open := browser(t)
	mina := open()
	show(t, mina, phone)
	do(t, mina, "open the warm-up lane", chromedp.Navigate(invited(t, s.url, warm)))
	until(t, mina, "the join form, remember me ticked", `document.querySelector("#join-remember").checked`)
	join(t, mina, "Mina", "Mina")
	// Her bowler is made at her first ball: until it shows, the key is
	// kept for this lane alone.
	if eval[bool](t, mina, `!!localStorage.getItem("tenpin-bowler-key")`) {
		t.Error("the bowler's key was kept as this phone's before her first ball")
	}
	// /me before her first ball knows no bowler yet, and forgets nothing.
	do(t, mina, "open My games before a ball", chromedp.Navigate(s.url+"/me"))
	until(t, mina, "not remembered yet", `document.querySelector("#me-status").textContent !== "" && document.querySelector("#me-body").hidden`)
	if !eval[bool](t, mina, `Object.keys(localStorage).some((k) => k.startsWith("tenpin-bowler-key-pending:"))`) {
		t.Fatal("the pending key was forgotten by a visit to /me before the first ball")
	}
	do(t, mina, "back to the warm-up lane", chromedp.Navigate(invited(t, s.url, warm)))
	until(t, mina, "her seat resumed", `!!document.querySelector('#board tr[data-player="Mina"]') && document.querySelector("#start")?.checkVisibility()`)
	do(t, mina, "start", chromedp.Click(chromedp.CSS("#start")))
	bowl(t, mina, "Mina", 7, 10, false)
	until(t, mina, "the key kept, once her first ball shows", `!!localStorage.getItem("tenpin-bowler-key")`)
	// Mina's season so far: 24 weeks of games, as lanes added them.
	key := eval[string](t, mina, `localStorage.getItem("tenpin-bowler-key")`)
	var rec *bowler.Record
	polltest.Until(t, 10*time.Second, "her bowler, made at her first ball", func() (any, bool) {
		var err error
		rec, err = bowlers.Find(t.Context(), bowler.HashKey(key))
		return err, err == nil
	})
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 24 {
		var g bowling.Game
		for !g.Over() {
			g.Roll(min(g.Standing(), r.IntN(14)))
		}
		at := time.Now().AddDate(0, 0, -7*(24-n))
		if _, _, err := bowlers.Add(t.Context(), rec.ID, bowler.FromGame(fmt.Sprintf("week%02d", n), "Thursday league", 1, at, "Mina", &g)); err != nil {
			t.Fatal(err)
		}
	}
	rec, _ = bowlers.Find(t.Context(), bowler.HashKey(key))
	before, _ := rec.Average()
	// On Friday night's lane with her key: the lane learns her numbers as she joins.
	do(t, mina, "open Friday night's lane", chromedp.Navigate(invited(t, s.url, id)))
	until(t, mina, "the join form", `document.querySelector("#join-form").checkVisibility()`)
	do(t, mina, "clear the name", chromedp.Evaluate[chromedp.Void](`document.querySelector("#join-name").value = ""`))
	join(t, mina, "Mina", "Mina")
	until(t, mina, "Mina's average as she joins", fmt.Sprintf(`document.querySelector('#board tr[data-player="Mina"] .avg')?.textContent === "avg %d"`, before))
	do(t, mina, "start", chromedp.Click(chromedp.CSS("#start")))
	for range 12 {
		bowl(t, mina, "Mina", 10, 10, false)
	}
	until(t, mina, "Mina's average on the board, and her high game called out as the game ends", fmt.Sprintf(
		`document.querySelector('#board tr[data-player="Mina"] .avg')?.textContent === "avg %d" && document.querySelector("#highs li")?.textContent === "New high game for Mina: 300"`, before))
	// The next game makes this one final: it goes into her history.
	do(t, mina, "rematch", chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.CSS("#rematch")))
	avg := (rec.Stats.Pins + 300) / 25
	until(t, mina, "her new average", fmt.Sprintf(`document.querySelector('#board tr[data-player="Mina"] .avg')?.textContent === "avg %d"`, avg))

	do(t, mina, "open My games", chromedp.Navigate(s.url+"/me"))
	until(t, mina, "the numbers", fmt.Sprintf(`document.querySelector('#numbers [data-stat="statAverage"] dd')?.textContent === "%d" && document.querySelector('#numbers [data-stat="statGames"] dd').textContent === "25" && document.querySelector('#numbers [data-stat="statHigh"] dd').textContent === "300"`, avg))
	until(t, mina, "a page of 20 games, the chart of every game", `document.querySelectorAll("#games li").length === 20 && !document.querySelector("#more").hidden && document.querySelector("#chart img")?.dataset.points === String(25 + 1) && document.querySelector("#chart img").naturalWidth > 0`)
	keep(t, mina, "me.png")
	do(t, mina, "more games", chromedp.Click(chromedp.CSS("#more")))
	until(t, mina, "every game", `document.querySelectorAll("#games li").length === 25 && document.querySelector("#more").hidden`)
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
	do(t, mina, "switch to Korean", chromedp.Click(chromedp.CSS(`.lang button[data-lang="ko"]`)))
	until(t, mina, "/me in Korean", `document.querySelector("#me-title").textContent === "Mina의 게임" && document.querySelector("#chart img")?.alt === "모든 게임과 에버리지"`)
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
	until(t, tablet, "the same games on the tablet", `document.querySelector('#numbers [data-stat="statGames"] dd')?.textContent === "25" && location.hash === ""`)
	if eval[string](t, tablet, `localStorage.getItem("tenpin-bowler-key")`) == eval[string](t, mina, `localStorage.getItem("tenpin-bowler-key")`) {
		t.Error("the tablet holds the phone's key, want one of its own")
	}
	// The code scanned again, by a laptop: used already, it says so.
	laptop := open()
	do(t, laptop, "scan the code again", chromedp.Navigate(link))
	until(t, laptop, "the code said used", `document.querySelector("#me-status").textContent === "That code was used already: a code links one phone, once. Ask the other phone for a new one." && !localStorage.getItem("tenpin-bowler-key")`)
	do(t, laptop, "in Korean", chromedp.Click(chromedp.CSS(`.lang button[data-lang="ko"]`)))
	until(t, laptop, "the code said used, in Korean", `document.querySelector("#me-status").textContent.startsWith("이미 쓰인 코드입니다")`)

	// A share, read-only.
	do(t, mina, "share", chromedp.Click(chromedp.CSS("#share")))
	until(t, mina, "the share link", `document.querySelector("#share-url").value.includes("/b/")`)
	shared := eval[string](t, mina, `document.querySelector("#share-url").value`)
	viewer := open()
	do(t, viewer, "open the share", chromedp.Navigate(shared))
	until(t, viewer, "the shared page", fmt.Sprintf(`document.querySelector('#numbers [data-stat="statAverage"] dd')?.textContent === "%d" && document.querySelector("#devices").hidden`, avg))
	if eval[string](t, viewer, `localStorage.getItem("tenpin-bowler-key") || ""`) != "" {
		t.Error("opening a share gave the viewer a key")
	}

	// Forget the tablet: the phone still has its games.
	do(t, tablet, "forget me", chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.CSS("#forget")))
	until(t, tablet, "forgotten", `!localStorage.getItem("tenpin-bowler-key") && document.querySelector("#me-body").hidden`)
	do(t, mina, "reload", chromedp.Navigate(s.url+"/me"))
	until(t, mina, "still remembered", `document.querySelector('#numbers [data-stat="statGames"] dd')?.textContent === "25"`)

	// Delete the history: the share goes with it.
	do(t, mina, "delete my history", chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.CSS("#delete")))
	until(t, mina, "deleted", `!localStorage.getItem("tenpin-bowler-key") && document.querySelector("#me-status").textContent === "Your history is deleted."`)
	do(t, viewer, "reload the share", chromedp.Navigate(shared))
	until(t, viewer, "the share gone", `document.querySelector("#me-status").textContent === "This link is no longer shared."`)
}

// unmade is a bowlers' store that makes no bowler: its budget filled
// between a join and the player's first ball.
type unmade struct{ *memjournal.Bowlers }

func (unmade) Create(context.Context, bowler.ID, bowler.KeyHash, string, time.Time) (*bowler.Record, error) {
	return nil, game.ErrStorageFull
}

// TestAKeyIsKeptOnceItsBowlerIsMade: a remembered player's key becomes
// the phone's only once the server knows it. Here the bowler is never
// made (the store refuses it at the first ball): the page asks, is told
// the key is nobody's, and keeps it pending, for its lane alone, rather
// than as the phone's — whose next /me would forget it. Before, the page
// took the key as the phone's the moment the board showed the ball.
func TestAKeyIsKeptOnceItsBowlerIsMade(t *testing.T) {
	s := serve(t, lobby.Config{Lane: lane.Config{Bowlers: unmade{memjournal.NewBowlers()}}})
	id := createLane(t, s, "Friday night")
	mina := browser(t)()
	show(t, mina, phone)
	tr := listen(t, mina)
	do(t, mina, "open the lane", chromedp.Navigate(invited(t, s.url, id)))
	until(t, mina, "the join form, remember me ticked", `document.querySelector("#join-remember").checked`)
	join(t, mina, "Mina", "Mina")
	do(t, mina, "start", chromedp.Click(chromedp.CSS("#start")))
	bowl(t, mina, "Mina", 7, 10, false)
	polltest.Until(t, 20*time.Second, "the page asking about its key a few times, or keeping it", func() (any, bool) {
		asked := tr.sent(s.url + "/api/bowlers/me")
		return len(asked), len(asked) >= 3 || eval[bool](t, mina, `!!localStorage.getItem("tenpin-bowler-key")`)
	})
	if eval[bool](t, mina, `!!localStorage.getItem("tenpin-bowler-key")`) {
		t.Error("a key the server knows as nobody's was kept as the phone's")
	}
	if !eval[bool](t, mina, `Object.keys(localStorage).some((k) => k.startsWith("tenpin-bowler-key-pending:"))`) {
		t.Error("the pending key was forgotten")
	}
}
