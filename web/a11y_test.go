package web_test

import (
	"context"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// axePath is axe-core's script, as npm installs it in web/ (npm install
// --no-save axe-core@4; .ci/run does).
const axePath = "node_modules/axe-core/axe.min.js"

// axeSource reads axe-core's script; without it the accessibility tests
// skip, unless TENPIN_BROWSER=required, when they fail.
func axeSource(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(axePath)
	if err != nil {
		msg := "axe-core not found (" + err.Error() + "): run 'npm install --no-save axe-core@4' in web/ to run the accessibility tests"
		if os.Getenv("TENPIN_BROWSER") == "required" {
			t.Fatal(msg + " (TENPIN_BROWSER=required)")
		}
		t.Skip(msg)
	}
	return string(src)
}

// axeViolations runs axe-core on the page as it is and returns what it
// finds, serious or not, one rule a line, "" for none.
func axeViolations(t *testing.T, ctx context.Context, src string) string {
	t.Helper()
	if !eval[bool](t, ctx, `typeof window.axe === "object"`) {
		do(t, ctx, "load axe-core", chromedp.Evaluate[chromedp.Void](src))
	}
	return eval[string](t, ctx, `axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.map((v) =>
		v.id + " (" + v.impact + "): " + v.help + " — " + v.nodes.slice(0, 4).map((n) => n.target.join(" ") + (n.failureSummary ? " [" + n.failureSummary.replace(/\s+/g, " ") + "]" : "")).join(", ")).join("\n"))`,
		chromedp.EvalAwaitPromise)
}

// checkAxe checks the page with axe-core as each of the screens shows
// it (axeViolations: any violation fails), then shows it on a phone
// again, as the tests that call it go on.
func checkAxe(t *testing.T, ctx context.Context, src, view string, screens ...screen) {
	t.Helper()
	for _, sc := range screens {
		show(t, ctx, sc)
		if v := axeViolations(t, ctx, src); v != "" {
			t.Errorf("%s, %s:\n%s", view, sc.name, v)
		}
	}
	show(t, ctx, phone)
}

// Every view of the page has no accessibility violation axe-core finds,
// in English and in Korean: the lobby, a lane waiting for its host, a
// game in play (the pad up, the night's numbers shown), the correction
// dialog open, the TV view, and the game over with its ranking.
func TestAccessibility(t *testing.T) {
	src := axeSource(t)
	for _, lang := range []string{"en-US", "ko-KR"} {
		t.Run(lang, func(t *testing.T) {
			s := serve(t, lobby.Config{})
			p := browser(t, inLanguage(lang)...)()
			check := func(view string) {
				t.Helper()
				if v := axeViolations(t, p, src); v != "" {
					t.Errorf("%s, %s:\n%s", lang, view, v)
				}
			}
			id := createLane(t, s, "Axe")
			do(t, p, "the lobby", chromedp.Navigate(s.url+"/"))
			until(t, p, "the lane listed", `document.querySelectorAll("#lanes tbody a").length === 1 && document.querySelector("#conn").classList.contains("ok")`)
			check("the lobby")

			// Jo, the host, is seated through the protocol's client; the
			// page joins and waits for Jo to start.
			ctx, cancel := context.WithTimeout(t.Context(), step)
			defer cancel()
			jo := seatPlayer(t, ctx, s, id, "Jo")
			watch, err := client.Dial(ctx, s.url, id)
			if err != nil {
				t.Fatal(err)
			}
			defer watch.CloseNow()
			do(t, p, "open the lane", chromedp.Navigate(invited(t, s.url, id)))
			do(t, p, "join",
				chromedp.WaitVisible(chromedp.CSS("#join-name")),
				chromedp.SendKeys(chromedp.CSS("#join-name"), "AAA"),
				chromedp.Click(chromedp.CSS("#join")))
			until(t, p, "seated, waiting", `window.tenpin.state.seat === "AAA" && document.querySelectorAll("#board tr[data-row=marks]").length === 2`)
			if got := eval[string](t, p, `document.activeElement.className`); got != "board-wrap" {
				t.Errorf("after the join the focus is on %q, want the board", got)
			}
			check("a lane waiting for its host")

			tb := &table{t: t, id: id, page: p, pageName: "AAA", watch: watch, players: map[string]*client.Conn{"Jo": jo}, next: map[string]int{}}
			if _, err := jo.Start(ctx); err != nil {
				t.Fatal(err)
			}
			tb.await(func(b *protocol.Board) bool { return b.Phase == protocol.PhasePlaying })
			tb.rollAs("Jo", 10)
			until(t, p, "the pad up, with the focus", padReady("AAA", 10)+` && document.activeElement.id === "pin-deck"`)
			if got, want := eval[string](t, p, `document.querySelector('#pin-deck button[data-pin="7"]').getAttribute("aria-label")`), map[string]string{"en-US": "pin 7, standing", "ko-KR": "핀 7, 서 있음"}[lang]; got != want {
				t.Errorf("pin 7 is read as %q, want %q", got, want)
			}
			check("the game in play, the pad up")
			bowl(t, p, "AAA", 7, 10, false)
			until(t, p, "the night's numbers", `!document.querySelector("#stats").hidden && document.querySelectorAll("#stats-table td").length > 0 && `+marks("AAA", 1)+` === "7"`)
			check("the game in play, the night's numbers shown")
			tb.await(func(b *protocol.Board) bool { return balls(b) == 2 })

			do(t, p, "tap frame 1", chromedp.Click(chromedp.CSS(frameButton("AAA", 1))))
			until(t, p, "the correction dialog", dialogOpen("correct-dialog"))
			check("the correction dialog")
			do(t, p, "cancel", chromedp.Click(chromedp.CSS("#correct-cancel")))

			do(t, p, "the TV view", chromedp.Navigate(s.url+"/lanes/"+id+"/tv"))
			until(t, p, "the board on the TV", `document.querySelectorAll(".tv-board tr[data-row=marks]").length === 2 && document.querySelector(".tv-up").textContent !== ""`)
			check("the TV view")

			// Jo, the host, enters the rest of the game for both.
			do(t, p, "back to the lane", chromedp.Navigate(s.url+"/lanes/"+id))
			for tb.board.Phase == protocol.PhasePlaying {
				up := tb.board.Up
				name := tb.board.Players[up.Seat].Name
				if _, err := jo.RollFor(ctx, name, up.Frame, up.Ball, up.Standing); err != nil {
					t.Fatalf("Jo enters %s's ball: %v", name, err)
				}
				bowled := balls(tb.board)
				tb.await(func(b *protocol.Board) bool { return balls(b) > bowled })
			}
			until(t, p, "the game over", `document.querySelector("#play").dataset.phase === "finished" && !document.querySelector("#ranking").hidden`)
			check("the game over")
			want := map[string][2]string{
				"en-US": {"frame 1: strike, 30", "Correct your frame 1, 7|/: 7 then spare, 20"},
				"ko-KR": {"1프레임: 스트라이크, 30점", "내 1프레임 고치기, 7|/: 7 후 스페어, 20점"},
			}[lang]
			got := eval[[]string](t, p, `[document.querySelector('#board tr[data-player="Jo"] td.marks[data-frame="1"]').getAttribute("aria-label"), document.querySelector('#board tr[data-player="AAA"] td.marks[data-frame="1"] button').getAttribute("aria-label")]`)
			if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
				t.Errorf("frame 1 is read as %q, want %q", got, want)
			}
		})
	}
}

// newTableIn is newTable for a page in any language: the page's player
// joins by the form, and is known seated by the page's state rather than
// by its words. Remember me is left as the form has it.
func newTableIn(t *testing.T, s *server, page context.Context, laneName, pageName string, seats ...string) *table {
	t.Helper()
	return seatTable(t, s, page, laneName, pageName, func(name string) {
		do(t, page, "join as "+name,
			chromedp.WaitVisible(chromedp.CSS("#join-name")),
			chromedp.SendKeys(chromedp.CSS("#join-name"), name),
			chromedp.Click(chromedp.CSS("#join")))
		until(t, page, name+" seated", `window.tenpin.state.seat === `+js(name))
	}, seats...)
}

// playSplits plays as play does, but splitter, a player of the client's,
// leaves the 7-10 split with every first ball and knocks one pin down
// with the next: a board of circled splits.
func (tb *table) playSplits(splitter string, stop func(*protocol.Board) bool) {
	tb.t.Helper()
	isSplitter := func(b *protocol.Board) bool { return b.Players[b.Up.Seat].Name == splitter }
	for tb.board.Phase == protocol.PhasePlaying && !stop(tb.board) {
		if !isSplitter(tb.board) {
			tb.play(func(b *protocol.Board) bool { return isSplitter(b) || stop(b) })
			continue
		}
		up := tb.board.Up
		r := protocol.Request{Type: protocol.TypeRoll, Frame: &up.Frame, Ball: &up.Ball}
		if up.Ball == 1 {
			r.Deck = &[]int{7, 10}
		} else {
			r.Pins = new(1)
		}
		ctx, cancel := context.WithTimeout(tb.t.Context(), step)
		_, err := tb.players[splitter].Do(ctx, r)
		cancel()
		if err != nil {
			tb.t.Fatalf("%s rolls frame %d ball %d: %v", splitter, up.Frame, up.Ball, err)
		}
		bowled := balls(tb.board)
		tb.await(func(b *protocol.Board) bool { return balls(b) > bowled })
	}
}

// Every page has no accessibility violation axe-core finds, of any
// impact, in English and in Korean, on a phone and on a laptop, a game
// on and after it: the lobby; the lane during a game with split frames
// (circled) among those the host may correct, the pad up, the
// correction dialog on a split and the host's menu open; the lane after
// the game, with its ranking, its frames to correct and the night's
// numbers; the TV after the game; the lane between games, with the
// series; and the bowler's page with the game in it.
func TestAccessibilityAfterAGame(t *testing.T) {
	src := axeSource(t)
	for _, lang := range []string{"en-US", "ko-KR"} {
		t.Run(lang, func(t *testing.T) {
			s := serve(t, lobby.Config{Lane: lane.Config{Bowlers: memjournal.NewBowlers()}})
			p := browser(t, inLanguage(lang)...)()
			check := func(view string, screens ...screen) {
				t.Helper()
				checkAxe(t, p, src, lang+", "+view, screens...)
			}
			show(t, p, phone)
			createLane(t, s, "Axe")
			do(t, p, "the lobby", chromedp.Navigate(s.url+"/"))
			until(t, p, "the lane listed", `document.querySelectorAll("#lanes tbody a").length === 1 && document.querySelector("#conn").classList.contains("ok")`)
			check("the lobby", phone, laptop)

			tb := newTableIn(t, s, p, "Splits", "AAA", "AAA", "BBB", "CCC")
			tb.playSplits("BBB", func(b *protocol.Board) bool { return b.Up.Seat == 0 && b.Up.Frame == 3 })
			until(t, p, "the pad up, BBB's splits circled", padReady("AAA", 10)+` && document.querySelectorAll('#board tr[data-player="BBB"] td.has-split button.frame .split').length === 2`)
			check("the game in play, split frames on the board", phone, laptop)

			do(t, p, "tap BBB's frame 1", chromedp.Click(chromedp.CSS(frameButton("BBB", 1))))
			until(t, p, "the correction dialog", dialogOpen("correct-dialog"))
			do(t, p, "ball 1", chromedp.Click(chromedp.CSS(`#correct-balls button[data-ball="1"]`)))
			until(t, p, "the dialog's deck", `!document.querySelector("#correct-deck-wrap").hidden`)
			check("the correction dialog on a split", phone)
			do(t, p, "cancel", chromedp.Click(chromedp.CSS("#correct-cancel")))
			do(t, p, "tap CCC's name", chromedp.Click(chromedp.CSS(`#board tr[data-player="CCC"] button.name`)))
			until(t, p, "the host's menu", dialogOpen("player-dialog"))
			check("the host's menu", phone)
			do(t, p, "close", chromedp.Click(chromedp.CSS("#player-close")))

			tb.playSplits("BBB", func(*protocol.Board) bool { return false })
			until(t, p, "the game over", `document.querySelector("#play").dataset.phase === "finished" && !document.querySelector("#ranking").hidden && !document.querySelector("#stats").hidden && document.querySelectorAll("#board td.has-split button.frame").length === 10`)
			check("the game over", phone, laptop)
			// A split frame's button is named with its marks as drawn: the
			// count circled, without the parentheses it is not drawn with.
			want := map[string]string{
				"en-US": "Correct BBB's frame 1, 8|1: 8, a split then 1, 9",
				"ko-KR": "BBB의 1프레임 고치기, 8|1: 8, 스플릿 후 1, 9점",
			}[lang]
			if got := eval[string](t, p, `document.querySelector(`+js(frameButton("BBB", 1))+`).getAttribute("aria-label")`); got != want {
				t.Errorf("BBB's split frame 1 is read as %q, want %q", got, want)
			}

			do(t, p, "the TV view", chromedp.Navigate(s.url+"/lanes/"+tb.id+"/tv"))
			until(t, p, "the board on the TV", `document.querySelectorAll(".tv-board tr[data-row=marks]").length === 3`)
			check("the TV after the game", laptop)

			do(t, p, "back to the lane", chromedp.Navigate(s.url+"/lanes/"+tb.id))
			until(t, p, "the game over again", `document.querySelector("#play").dataset.phase === "finished" && window.tenpin.state.seat === "AAA"`)
			do(t, p, "rematch", chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.CSS("#rematch")))
			until(t, p, "the next game, the series", `document.querySelector("#play").dataset.phase === "waiting" && !document.querySelector("#series").hidden`)
			check("the lane between games", phone, laptop)

			do(t, p, "my games", chromedp.Navigate(s.url+"/me"))
			until(t, p, "AAA's numbers and game", `document.querySelector('#numbers [data-stat="statGames"] dd')?.textContent === "1" && document.querySelectorAll("#games li").length === 1 && document.querySelector("#chart img")?.naturalWidth > 0`)
			check("the bowler's page after a game", phone, laptop)
		})
	}
}

// The pages the other tests do not reach have no accessibility
// violation axe-core finds either, of any impact, in English and in
// Korean, on a phone and on a laptop: a kept night (a lane that
// closed), the bowler's page of a phone not remembered, then with a
// phone's code and a share link shown, the page a share opens,
// read-only, and one no longer shared, and a league's page for a league
// that is not there.
func TestAccessibilityKeptAndShared(t *testing.T) {
	src := axeSource(t)
	kept, keptID := keptNight(t)
	for _, lang := range []string{"en-US", "ko-KR"} {
		t.Run(lang, func(t *testing.T) {
			p := browser(t, inLanguage(lang)...)()
			check := func(view string) {
				t.Helper()
				checkAxe(t, p, src, lang+", "+view, phone, laptop)
			}
			show(t, p, phone)
			do(t, p, "the kept night", chromedp.Navigate(kept.url+"/lanes/"+keptID))
			until(t, p, "the kept night, its sheet and numbers", `!document.querySelector("#kept").hidden && document.querySelectorAll("#sheet-games img").length === 2 && [...document.querySelectorAll("#sheet-games img")].every((i) => i.complete && i.naturalWidth > 0) && document.querySelectorAll("#export-links a").length === 2`)
			check("a kept night")
			do(t, p, "a league not there", chromedp.Navigate(kept.url+"/leagues/nosuch"))
			until(t, p, "no such league", `document.querySelector("#league-status").textContent !== ""`)
			check("a league not there")

			s := serve(t, lobby.Config{Lane: lane.Config{Bowlers: memjournal.NewBowlers()}})
			do(t, p, "my games, not remembered", chromedp.Navigate(s.url+"/me"))
			until(t, p, "not remembered", `document.querySelector("#me-status").textContent !== "" && document.querySelector("#me-body").hidden`)
			check("the bowler's page of a phone not remembered")

			// AAA bowls a game, remembered: the bowler's page has it.
			tb := newTableIn(t, s, p, "Shared", "AAA", "AAA", "BBB")
			tb.playSplits("BBB", func(*protocol.Board) bool { return false })
			do(t, p, "rematch", chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.CSS("#rematch")))
			until(t, p, "the next game", `document.querySelector("#play").dataset.phase === "waiting"`)
			do(t, p, "my games", chromedp.Navigate(s.url+"/me"))
			until(t, p, "AAA's game", `document.querySelectorAll("#games li").length === 1 && document.querySelector("#chart img")?.naturalWidth > 0`)
			do(t, p, "add a phone, share", chromedp.Click(chromedp.CSS("#add-phone")), chromedp.Click(chromedp.CSS("#share")))
			until(t, p, "the code and the share link", `document.querySelector("#link-qr").naturalWidth > 0 && document.querySelector("#share-url").value.includes("/b/")`)
			check("the bowler's page, a code and a share shown")

			shared := eval[string](t, p, `document.querySelector("#share-url").value`)
			do(t, p, "the shared page", chromedp.Navigate(shared))
			until(t, p, "the shared page", `document.querySelectorAll("#games li").length === 1 && document.querySelector("#devices").hidden && document.querySelector("#chart img")?.naturalWidth > 0`)
			check("a shared bowler's page")
			do(t, p, "stop sharing", chromedp.Navigate(s.url+"/me"), chromedp.WaitVisible(chromedp.CSS("#unshare")),
				chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.CSS("#unshare")))
			until(t, p, "no longer shared", `document.querySelector("#unshare").hidden`)
			do(t, p, "the link no longer shared", chromedp.Navigate(shared))
			until(t, p, "no longer shared", `document.querySelector("#me-status").textContent !== "" && document.querySelector("#me-body").hidden`)
			check("a link no longer shared")
		})
	}
}

// lowContrast is the expression for the texts shown whose contrast
// with what is behind them is under WCAG's 4.5:1 (3:1 for large text:
// 24 px, or 18.66 px bold), and how low, "" for none. It sees what
// axe-core leaves undecided: text greyed by its color or by an opacity
// of its own or its row's (a player offline, left, a TV's board kept
// while its server is away), on whatever background its row has (the
// player up, the winner) — the background of its nearest ancestors,
// composited as drawn. Disabled controls are not held to it, as WCAG
// does not.
const lowContrast = `(() => {
	const rgba = (c) => { const m = c.match(/rgba?\(([^)]*)\)/); if (!m) return [0, 0, 0, 0]; const v = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
	const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
	const lum = (c) => { const f = (v) => { v /= 255; return v <= .03928 ? v / 12.92 : ((v + .055) / 1.055) ** 2.4; }; return .2126 * f(c[0]) + .7152 * f(c[1]) + .0722 * f(c[2]); };
	const seenAs = (e) => {
		const chain = [];
		for (let x = e; x; x = x.parentElement) chain.unshift(x);
		let bg = [255, 255, 255, 1];
		const groups = [];
		for (const x of chain) {
			const st = getComputedStyle(x);
			if (parseFloat(st.opacity) < 1) groups.push({ o: parseFloat(st.opacity), behind: bg });
			const c = rgba(st.backgroundColor);
			if (c[3] > 0) bg = over(c, bg);
		}
		let fg = over(rgba(getComputedStyle(e).color), bg), back = bg;
		for (const g of groups.reverse()) {
			fg = over([...fg.slice(0, 3), g.o], g.behind);
			back = over([...back.slice(0, 3), g.o], g.behind);
		}
		return [fg, back];
	};
	const out = new Set();
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walk.nextNode(); n; n = walk.nextNode()) {
		const e = n.parentElement;
		if (!n.data.trim() || !e || !e.checkVisibility({ opacityProperty: true, visibilityProperty: true }) || e.closest(":disabled, .visually-hidden")) continue;
		const st = getComputedStyle(e), px = parseFloat(st.fontSize);
		if (st.clipPath !== "none" || st.clip !== "auto") continue; // read, not shown
		const [fg, bg] = seenAs(e);
		const ratio = (Math.max(lum(fg), lum(bg)) + .05) / (Math.min(lum(fg), lum(bg)) + .05);
		const want = px >= 24 || px >= 18.66 && Number(st.fontWeight) >= 700 ? 3 : 4.5;
		if (ratio < want - .005) out.add(JSON.stringify(n.data.trim()) + " in " + e.tagName.toLowerCase() + "." + String(e.className).split(" ")[0] + " (" + ratio.toFixed(2) + ":1, want " + want + ")");
	}
	return [...out].join("; ");
})()`

// checkContrast checks that every text the page shows meets its
// contrast (lowContrast) on each of the screens.
func checkContrast(t *testing.T, ctx context.Context, view string, screens ...screen) {
	t.Helper()
	for _, sc := range screens {
		show(t, ctx, sc)
		if why := eval[string](t, ctx, lowContrast); why != "" {
			t.Errorf("%s, %s: %s", view, sc.name, why)
		}
	}
}

// Every text meets its contrast, greyed or not, in English and in
// Korean: on the host's page during a game with the player up offline,
// a player who left and a late friend (on a phone and a laptop), on a
// watcher's page at a game's end with the winner offline and a player
// who left, on the lanes' TVs during the game and at its end, and on a
// house screen of both.
func TestTextContrast(t *testing.T) {
	for _, lang := range []string{"en-US", "ko-KR"} {
		t.Run(lang, func(t *testing.T) {
			s := serve(t, lobby.Config{})
			p := browser(t, inLanguage(lang)...)()
			show(t, p, phone)
			tb := newTableIn(t, s, p, "Contrast", "AAA", "AAA", "BBB", "CCC", "DDD")
			bowl(t, p, "AAA", 3, 10, false)
			bowl(t, p, "AAA", 4, 7, false)
			tb.await(func(b *protocol.Board) bool { return balls(b) == 2 })
			tb.rollAs("BBB", 10)
			tb.rollAs("CCC", 5)
			tb.rollAs("CCC", 4)
			ctx, cancel := context.WithTimeout(t.Context(), step)
			defer cancel()
			if _, err := tb.players["CCC"].Leave(ctx); err != nil {
				t.Fatal(err)
			}
			tb.seatLate(s, "EEE")
			tb.players["DDD"].CloseNow()
			until(t, p, "DDD up offline, CCC gone, EEE late", `!!document.querySelector('#board tr.up[data-player="DDD"] .offline') && !!document.querySelector('#board tr.left[data-player="CCC"]') && !!document.querySelector('#board tr[data-player="EEE"] .late')`)
			checkContrast(t, p, "the host's page during a game", phone, laptop)
			do(t, p, "the lane's TV", chromedp.Navigate(s.url+"/lanes/"+tb.id+"/tv"))
			until(t, p, "the board on the TV", `document.querySelectorAll(".tv-board tr[data-row=marks]").length === 5 && document.querySelector(".tv-up").textContent !== ""`)
			checkContrast(t, p, "the lane's TV during a game", tv720)

			// HHH leaves the second lane mid-game: greyed at its end too.
			over := newTableIn(t, s, p, "Contrast 2", "", "FFF", "GGG", "HHH")
			tvPlay(over, func(b *protocol.Board) bool { return b.Up.Frame == 5 })
			if _, err := over.players["HHH"].Leave(ctx); err != nil {
				t.Fatal(err)
			}
			tvPlay(over, func(*protocol.Board) bool { return false })
			over.players["GGG"].CloseNow()
			do(t, p, "the lane", chromedp.Navigate(s.url+"/lanes/"+over.id))
			until(t, p, "the winner, offline", `!!document.querySelector('#board tr.winner[data-player="GGG"] .offline')`)
			checkContrast(t, p, "a watcher's page at a game's end", phone, laptop)
			do(t, p, "the lane's TV", chromedp.Navigate(s.url+"/lanes/"+over.id+"/tv"))
			until(t, p, "the game's end on the TV, HHH gone", `document.querySelector(".tv-end")?.checkVisibility() && document.querySelector(".tv-end").dataset.numbers === "shown" && !!document.querySelector('.tv-end tr.left[data-player="HHH"]')`)
			do(t, p, "let it arrive", chromedp.Evaluate[chromedp.Void](`document.getAnimations().forEach((a) => a.finish())`))
			checkContrast(t, p, "the lane's TV at a game's end", tv720)
			// A house screen's quarters: the smaller type of its boards.
			do(t, p, "the house screen", chromedp.Navigate(s.url+"/tv?lanes="+tb.id+","+over.id+",nosuch"))
			until(t, p, "the house screen", `document.querySelectorAll(".tv-board tr[data-row=marks]").length === 8 && [...document.querySelectorAll(".tv-end")].some((e) => e.dataset.numbers === "shown")`)
			do(t, p, "let it arrive", chromedp.Evaluate[chromedp.Void](`document.getAnimations().forEach((a) => a.finish())`))
			checkContrast(t, p, "the house screen", tv720, tv1080)
		})
	}
}
