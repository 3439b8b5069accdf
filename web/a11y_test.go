package web_test

import (
	"context"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
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
			do(t, p, "open the lane", chromedp.Navigate(s.url+"/lanes/"+id))
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
