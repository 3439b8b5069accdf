package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/web"
)

// workerVersion holds when the page is served by the service worker of
// version v, whose cache is the only one of tenpin's.
func workerVersion(v string) string {
	return `(async () => !!navigator.serviceWorker.controller && JSON.stringify((await caches.keys()).filter(k => k.startsWith("tenpin-"))) === ` + js(`["tenpin-`+v+`"]`) + `)()`
}

// A new version of the page is offered, not mixed in: a lane's page
// served by the service worker of one version, reloaded once the server
// is a new release, still comes from the version it had, and offers a
// reload (in English and in Korean); the reload hands the page to the
// new version, whose cache is then the only one.
func TestNewVersionOffersAReload(t *testing.T) {
	s := serve(t, lobby.Config{})
	id := createLane(t, s, "New version")
	p := browser(t)()
	do(t, p, "open the lane", chromedp.Navigate(s.url+"/lanes/"+id))
	until(t, p, "the page served by its worker", workerVersion(web.Version()))
	const offered = `document.querySelector("#update").checkVisibility()`
	if eval[bool](t, p, offered) {
		t.Fatal("a page of the only version offers a new one")
	}

	s.setPage(web.HandlerVersion("next"))
	do(t, p, "reload the lane", chromedp.Reload())
	until(t, p, "the new version offered", offered+` && document.querySelector("#update").textContent.startsWith("A new version of tenpin is ready.")`)
	if !eval[bool](t, p, `(async () => (await caches.keys()).includes("tenpin-"+`+js(web.Version())+`))()`, chromedp.EvalAwaitPromise) {
		t.Error("the old version's cache is gone while its page is open")
	}
	do(t, p, "switch to Korean", chromedp.Click(chromedp.CSS(`[data-lang="ko"]`)))
	until(t, p, "the offer in Korean", `document.querySelector("#update").textContent === "tenpin의 새 버전이 준비되었습니다. 새로 고침"`)

	do(t, p, "take the new version",
		chromedp.Evaluate[chromedp.Void](`window.before = true`),
		chromedp.Click(chromedp.CSS("#update-reload")))
	until(t, p, "the page reloaded from the new version", `window.before === undefined && !(`+offered+`) && `+workerVersion("next"))
}

// setOffline cuts the page's network, or gives it back, through the
// DevTools protocol: every request of the page and of its service worker
// fails while it is cut, and the page is told (navigator.onLine and its
// offline and online events).
func setOffline(t *testing.T, ctx context.Context, off bool) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	if _, err := chromedp.Call(sctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(sctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		EmulateOfflineServiceWorker: &off,
		MatchedNetworkConditions:    []*network.Conditions{{Offline: off, DownloadThroughput: -1, UploadThroughput: -1}},
	}); err != nil {
		t.Fatalf("cutting the network: %v", err)
	}
	if _, err := chromedp.Call(sctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: off, DownloadThroughput: -1, UploadThroughput: -1}); err != nil {
		t.Fatalf("telling the page: %v", err)
	}
}

// threePhones seats AAA (the host), BBB and CCC on a new lane, each on
// their own phone, and starts the game.
func threePhones(t *testing.T, s *server, lane string) (id string, pages map[string]context.Context) {
	t.Helper()
	id = createLane(t, s, lane)
	open := browser(t)
	pages = map[string]context.Context{}
	for _, n := range []string{"AAA", "BBB", "CCC"} {
		p := open()
		do(t, p, "open the lane", chromedp.Navigate(s.url+"/lanes/"+id+"#invite="+inviteOf(t, id)))
		join(t, p, n, n)
		pages[n] = p
	}
	until(t, pages["AAA"], "the game ready", `document.querySelectorAll("#board tr[data-row=marks]").length === 3 && document.querySelector("#start").offsetParent !== null`)
	until(t, pages["AAA"], "the worker serving the page", `!!navigator.serviceWorker.controller`)
	do(t, pages["AAA"], "start", chromedp.Click(chromedp.CSS("#start")))
	return id, pages
}

// play bowls the model's next ball on page: the script's count for the
// player up (rollsFor), and records it in the model.
func play(t *testing.T, page context.Context, model *bowling.Match, next map[string]int, byKey bool) {
	t.Helper()
	seat, _, _ := model.Up()
	p := model.At(seat)
	name := string(p.Name)
	pins := rollsFor[name][next[name]]
	next[name]++
	bowl(t, page, name, pins, p.Game.Standing(), byKey)
	if err := model.Roll(pins); err != nil {
		t.Fatalf("script roll %d for %s: %v", pins, name, err)
	}
}

// playOnline has each bowler enter their own balls on their phone, by
// key and by tap in turn, until frame is up; it returns the balls each
// bowler entered, as play counts them.
func playOnline(t *testing.T, pages map[string]context.Context, model *bowling.Match, frame int) (next map[string]int) {
	t.Helper()
	next = map[string]int{}
	for n := 0; frameOf(model) < frame; n++ {
		seat, _, _ := model.Up()
		play(t, pages[string(model.At(seat).Name)], model, next, n%2 == 1)
	}
	return next
}

// frameOf is the frame the model's player up is on.
func frameOf(model *bowling.Match) int {
	_, f, ok := model.Up()
	if !ok {
		return 11
	}
	return f
}

// outboxShown holds when the page's banner says n balls wait, since the
// first of them was entered, and storage holds them.
func outboxShown(n int) string {
	if n == 0 {
		return `document.querySelector("#outbox").hidden && document.querySelector("#outbox").dataset.kept === "0"`
	}
	balls := fmt.Sprintf("%d balls", n)
	if n == 1 {
		balls = "1 ball"
	}
	return fmt.Sprintf(`document.querySelector("#outbox").checkVisibility() && document.querySelector("#outbox").dataset.kept === "%d" && document.querySelector("#outbox").textContent.startsWith("%s not sent yet, since " + new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(tenpin.state.outbox.balls[0].at))`, n, balls)
}

// totals is the model's totals, seat by seat, as the board shows them.
func totals(model *bowling.Match) string {
	var out []string
	for _, p := range model.Players() {
		out = append(out, fmt.Sprint(p.Game.Total()))
	}
	return strings.Join(out, " ")
}

// shownTotals is the board's totals, seat by seat.
const shownTotals = `[...document.querySelectorAll("#board td.total")].map(td => td.textContent).join(" ")`

// keptOutbox is how many balls the phone's storage holds for seat on
// lane id, read from IndexedDB.
func keptOutbox(t *testing.T, ctx context.Context, id, seat string) int {
	t.Helper()
	return eval[int](t, ctx, `import("/static/js/outbox.js").then((m) => m.loadOutbox(`+js(id)+`, `+js(seat)+`)).then((b) => b.length)`, chromedp.EvalAwaitPromise)
}

// The pad keeps scoring offline: three friends bowl on their own phones,
// then the host's phone loses its network for three frames and keeps
// score for all on it — the board goes on on that phone, its balls
// marked not sent yet, the banner saying how many wait and since when,
// the other phones seeing none of them. Reloaded while offline, the page
// comes from its service worker with the last board, marked offline, and
// its outbox, and scores on. Back online, the balls go in order: every
// phone's board is the hand count, nothing doubled, the outbox empty.
func TestScoringOffline(t *testing.T) {
	s := serve(t, lobby.Config{})
	id, pages := threePhones(t, s, "Offline")
	a := pages["AAA"]
	model, err := bowling.NewMatch("AAA", "BBB", "CCC")
	if err != nil {
		t.Fatal(err)
	}
	next := playOnline(t, pages, model, 4)
	until(t, pages["BBB"], "three frames on the lane", `tenpin.state.board.up.seat === 0 && tenpin.state.board.up.frame === 4`)
	online := totals(model)

	setOffline(t, a, true)
	until(t, a, "the host's phone offline", `!tenpin.state.board || document.querySelector("#offline-board").checkVisibility()`)
	queued := 0
	for frameOf(model) < 6 {
		play(t, a, model, next, queued%2 == 1)
		queued++
		until(t, a, "the ball kept", outboxShown(queued))
	}
	checkTable(t, a, "AAA offline", model)
	if got := eval[string](t, a, `[...document.querySelectorAll("#board td.marks.unsent")].map(td => td.closest("tr").dataset.player + td.dataset.frame).join(" ")`); got != "AAA4 AAA5 BBB4 BBB5 CCC4 CCC5" {
		t.Errorf("the frames marked not sent yet: %q", got)
	}

	do(t, a, "reload while offline", chromedp.Reload())
	until(t, a, "the last board, offline, and the outbox", `document.querySelector("#offline-board").checkVisibility() && document.querySelector("#offline-board").textContent.startsWith("Offline: the board as this phone last had it, at ") && document.querySelector("#me").textContent === "You are AAA." && `+outboxShown(queued))
	checkTable(t, a, "AAA reloaded offline", model)
	if src := axeSourceIfAny(t); src != "" {
		if v := axeViolations(t, a, src); v != "" {
			t.Errorf("the page offline with its outbox: %s", v)
		}
	}
	for frameOf(model) < 7 {
		play(t, a, model, next, false)
		queued++
		until(t, a, "the ball kept", outboxShown(queued))
	}
	checkTable(t, a, "AAA offline after the reload", model)
	// The lane had none of them.
	until(t, pages["BBB"], "the lane without the host's phone", `document.querySelector('#board tr[data-player="AAA"] .offline') !== null`)
	if got := eval[string](t, pages["BBB"], shownTotals); got != online {
		t.Errorf("the lane's totals while the host is away: %q, want %q", got, online)
	}

	setOffline(t, a, false)
	until(t, a, "every ball sent", outboxShown(0)+` && document.querySelector("#conn").textContent === "connected" && !document.querySelector("#offline-board").checkVisibility() && !document.querySelector("#board td.marks.unsent")`)
	if n := keptOutbox(t, a, id, "AAA"); n != 0 {
		t.Errorf("storage holds %d balls once they are sent", n)
	}
	for n := 0; !model.Over(); n++ {
		seat, _, _ := model.Up()
		play(t, pages[string(model.At(seat).Name)], model, next, n%2 == 0)
	}
	for n, p := range pages {
		until(t, p, n+" sees the game over", `document.querySelector("#phase").textContent.startsWith("Game over.")`)
		checkTable(t, p, n, model)
		if got := eval[string](t, p, shownTotals); got != "136 78 300" {
			t.Errorf("%s: the totals %q, want the hand count 136 78 300", n, got)
		}
	}
}

// A ball the lane got otherwise is never applied from the outbox: while
// the host's phone keeps frame 4 offline (AAA 9 and 0, BBB 3 and 4, CCC
// a strike), BBB's phone enters AAA's first ball of it as a 7. Back
// online, the host's phone shows both counts, says that keeping the
// lane's drops the 0 entered after its 9, and waits for the bowler:
//
//   - keep: the lane's 7 stays, the 9 and the 0 go (the news says so);
//     the outbox waits for AAA's second ball, entered then on the
//     lane's rack (a spare), and goes on;
//   - correct: the 9 is sent as a correction of the lane's 7 (the host
//     may correct anyone's ball), and the outbox goes on with the 0.
//
// Every phone then shows the same board, the hand count, nothing
// doubled, the outbox empty.
func TestOfflineBallEnteredElsewhere(t *testing.T) {
	for _, choice := range []string{"keep", "correct"} {
		t.Run(choice, func(t *testing.T) {
			s := serve(t, lobby.Config{})
			id, pages := threePhones(t, s, "Conflict "+choice)
			a, b := pages["AAA"], pages["BBB"]
			model, err := bowling.NewMatch("AAA", "BBB", "CCC")
			if err != nil {
				t.Fatal(err)
			}
			next := playOnline(t, pages, model, 4)

			setOffline(t, a, true)
			until(t, a, "the host's phone offline", `document.querySelector("#offline-board").checkVisibility()`)
			// The host's phone keeps frame 4 for all (the script's);
			// the model is the lane's, which gets them later.
			script := []struct {
				name           string
				pins, standing int
			}{{"AAA", 9, 10}, {"AAA", 0, 1}, {"BBB", 3, 10}, {"BBB", 4, 7}, {"CCC", 10, 10}}
			for i, r := range script {
				bowl(t, a, r.name, r.pins, r.standing, false)
				until(t, a, "the ball kept", outboxShown(i+1))
			}
			// BBB's phone, online, enters AAA's first ball of frame 4:
			// AAA is offline, so any phone may.
			bowl(t, b, "AAA", 7, 10, false)
			until(t, b, "the lane's 7", `document.querySelector('#board tr[data-player="AAA"][data-row=marks] td.marks[data-frame="4"]').textContent === "7"`)

			setOffline(t, a, false)
			const conflict = `document.querySelector("#conflict").checkVisibility() && document.querySelector("#conflict-text").textContent === "AAA, frame 4, ball 1: this phone has 9 pins, the lane has 7 pins." && document.querySelector("#conflict-after").textContent === "Keeping the lane's also drops AAA's next ball in that frame: it was entered on a rack the lane did not have." && document.querySelector("#keep-lane").checkVisibility()`
			until(t, a, "both counts shown", conflict+` && document.querySelector("#correct-it").textContent === "Correct it to 9 pins" && document.querySelector("#conn").textContent === "connected"`)
			// Nothing of the outbox went past the refused ball.
			if got := eval[string](t, b, `document.querySelector('#board tr[data-player="AAA"][data-row=marks] td.marks[data-frame="4"]').textContent + " " + tenpin.state.board.up.seat + " " + tenpin.state.board.up.ball`); got != "7 0 2" {
				t.Errorf("the lane went on past the refused ball: AAA's frame 4 %q", got)
			}
			// The outbox keeps its balls until the bowler chooses.
			if n := keptOutbox(t, a, id, "AAA"); n != 5 {
				t.Errorf("storage holds %d balls while the choice waits, want 5", n)
			}

			if src := axeSourceIfAny(t); src != "" {
				if v := axeViolations(t, a, src); v != "" {
					t.Errorf("the page with both counts: %s", v)
				}
			}
			// Aside: in Korean.
			do(t, a, "in Korean", chromedp.Click(chromedp.CSS(`.lang button[data-lang="ko"]`)))
			until(t, a, "both counts in Korean", `document.querySelector("#conflict-text").textContent === "AAA, 4프레임 1구: 이 휴대폰은 9핀, 레인은 7핀." && document.querySelector("#keep-lane").textContent === "레인 것 유지"`)
			do(t, a, "in English", chromedp.Click(chromedp.CSS(`.lang button[data-lang="en"]`)))

			var lane []int // AAA's frame 4 as the lane ends up with it
			switch choice {
			case "keep":
				do(t, a, "keep the lane's", chromedp.Click(chromedp.CSS("#keep-lane")))
				until(t, a, "the choice said", `!document.querySelector("#conflict").checkVisibility() && document.querySelector("#notices li").textContent === "Kept the lane's count of AAA's frame 4, ball 1; dropped 1 more ball entered on another rack."`)
				until(t, a, "the outbox waiting for AAA's ball", outboxShown(3)+` && document.querySelector("#outbox").textContent.endsWith("— waiting for AAA's ball up on the lane first.")`)
				bowl(t, a, "AAA", 3, 3, false)
				lane = []int{7, 3}
			case "correct":
				do(t, a, "correct it", chromedp.Click(chromedp.CSS("#correct-it")))
				lane = []int{9, 0}
			}
			for _, pins := range append(lane, 3, 4, 10) {
				if err := model.Roll(pins); err != nil {
					t.Fatal(err)
				}
			}
			until(t, a, "every ball sent", outboxShown(0)+` && !document.querySelector("#conflict").checkVisibility() && !document.querySelector("#board td.marks.unsent")`)
			if n := keptOutbox(t, a, id, "AAA"); n != 0 {
				t.Errorf("storage holds %d balls once they are sent", n)
			}
			next["AAA"], next["BBB"], next["CCC"] = 7, 8, 4 // past the script's frame 4
			for n := 0; !model.Over(); n++ {
				seat, _, _ := model.Up()
				play(t, pages[string(model.At(seat).Name)], model, next, n%2 == 0)
			}
			want := totals(model)
			for n, p := range pages {
				until(t, p, n+" sees the game over", `document.querySelector("#phase").textContent.startsWith("Game over.")`)
				checkTable(t, p, n, model)
				if got := eval[string](t, p, shownTotals); got != want {
					t.Errorf("%s: the totals %q, want %q", n, got, want)
				}
			}
		})
	}
}

// A ball kept offline for a game that is over is never sent into the
// next: BBB's phone keeps its first strike offline while the host enters
// BBB's frame as 5 and 4, plays the game out for both and starts a
// rematch. Back online, BBB's phone shows its ball was not taken, that
// game being over, and keeps the lane's; BBB's first ball of the new
// game is still BBB's to bowl.
func TestOfflineBallOfAGameOver(t *testing.T) {
	s := serve(t, lobby.Config{})
	id := createLane(t, s, "Game over")
	open := browser(t)
	a, b := open(), open()
	// In this order: the first seated hosts the lane given away, and
	// seats follow the joins (a map's order, once, made BBB the host and
	// left AAA no start button).
	for _, j := range []struct {
		name string
		page context.Context
	}{{"AAA", a}, {"BBB", b}} {
		do(t, j.page, "open the lane", chromedp.Navigate(s.url+"/lanes/"+id+"#invite="+inviteOf(t, id)))
		join(t, j.page, j.name, j.name)
		until(t, j.page, "the worker serving the page", `!!navigator.serviceWorker.controller`)
	}
	until(t, a, "two players", `document.querySelectorAll("#board tr[data-row=marks]").length === 2`)
	do(t, a, "start", chromedp.Click(chromedp.CSS("#start")))
	model, err := bowling.NewMatch("AAA", "BBB")
	if err != nil {
		t.Fatal(err)
	}
	bowl(t, a, "AAA", 10, 10, false)
	model.Roll(10)

	setOffline(t, b, true)
	until(t, b, "BBB's phone offline", `document.querySelector("#offline-board").checkVisibility()`)
	bowl(t, b, "BBB", 10, 10, false)
	until(t, b, "the strike kept", outboxShown(1))

	// The host enters BBB's frame otherwise, and plays the game out.
	for n := 0; !model.Over(); n++ {
		seat, _, _ := model.Up()
		g := model.At(seat).Game
		pins := 10
		if seat == 1 && g.CurrentFrame() == 1 {
			pins = 5 - g.Ball() + 1 // 5, then 4
		}
		bowl(t, a, string(model.At(seat).Name), pins, g.Standing(), n%2 == 0)
		if err := model.Roll(pins); err != nil {
			t.Fatal(err)
		}
	}
	checkTable(t, a, "AAA, game 1", model)
	until(t, a, "the game over", `document.querySelector("#phase").textContent.startsWith("Game over.")`)
	do(t, a, "rematch",
		chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`),
		chromedp.Click(chromedp.CSS("#rematch")))
	until(t, a, "the next game set up", `document.querySelector("#start").offsetParent !== null`)
	do(t, a, "start the next game", chromedp.Click(chromedp.CSS("#start")))
	until(t, a, "game 2 under way", `tenpin.state.board.phase === "playing" && tenpin.state.board.players.every(p => p.frames.length === 0)`)

	setOffline(t, b, false)
	until(t, b, "the ball not taken, and why", `document.querySelector("#conflict").checkVisibility() && document.querySelector("#conflict-text").textContent === "BBB, frame 1, ball 1: this phone's ball (10 pins) was not taken. That game is over: the lane has gone on to the next." && !document.querySelector("#correct-it").checkVisibility() && document.querySelector("#conn").textContent === "connected"`)
	do(t, b, "keep the lane's", chromedp.Click(chromedp.CSS("#keep-lane")))
	until(t, b, "the outbox empty", outboxShown(0)+` && !document.querySelector("#conflict").checkVisibility()`)
	if n := keptOutbox(t, b, id, "BBB"); n != 0 {
		t.Errorf("storage holds %d balls once kept the lane's", n)
	}

	// Game 2: AAA bowls, and BBB's first ball is BBB's to bowl.
	bowl(t, a, "AAA", 3, 10, false)
	bowl(t, a, "AAA", 4, 7, false)
	until(t, b, "BBB's turn in game 2", padReady("BBB", 10))
	for n, p := range map[string]context.Context{"AAA": a, "BBB": b} {
		if got := eval[string](t, p, `[...document.querySelectorAll("#board td.marks")].map(td => td.textContent).join(",")`); got != "3|4,,,,,,,,,,,,,,,,,,," {
			t.Errorf("%s: game 2's board %q, want AAA's 3|4 alone", n, got)
		}
	}
}
