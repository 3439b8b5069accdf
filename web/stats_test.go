package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// strikeShare is the expression for the strike figure the numbers show
// for a bowler.
func strikeShare(name string) string {
	return `document.querySelector('#stats-table tr[data-stat="statStrikes"] td[data-player=` + js(name) + `]')?.textContent`
}

// The night's numbers show while a game is played and once it is over,
// as percentages and averages (not the API's JSON); the finished game's
// score sheets are linked, the spreadsheet and the scorecard; printed,
// the lane is the board and the numbers, without buttons, pad, log or
// invitation.
func TestNightsNumbers(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t)()
	tb := newTable(t, s, page, "Numbers", "", "AAA", "BBB")
	show(t, page, phone)

	// Live: AAA's strikes after three frames.
	tb.play(func(b *protocol.Board) bool { return b.Up.Frame == 4 })
	until(t, page, "the numbers while the game is played", `!document.querySelector("#stats").hidden && `+strikeShare("AAA")+` === "100%" && document.querySelector("#exports").hidden`)

	tb.play(func(*protocol.Board) bool { return false })
	until(t, page, "the numbers at the end", `document.querySelector("#banner").classList.contains("finished") && `+strikeShare("AAA")+` === "100%" && /^\d+%$/.test(`+strikeShare("BBB")+`) && document.querySelector('#stats-table tr[data-stat="statAverage"] td[data-player="AAA"]').textContent === "300.0" && document.querySelector('#stats-table tr[data-stat="statGames"] td[data-player="AAA"]').textContent === "1"`)
	if got := eval[string](t, page, `document.querySelector("#stats").innerText`); strings.ContainsAny(got, "{}\"") || strings.Contains(got, "strike_chances") {
		t.Errorf("the numbers show the API's JSON: %s", got)
	}

	// The score sheets of the game: the spreadsheet and game 1's card.
	until(t, page, "the exports", `!document.querySelector("#exports").hidden && document.querySelectorAll("#export-links a").length === 2`)
	for _, tt := range []struct{ sel, path, ctype string }{
		{"#export-links a.csv", "/games.csv", "text/csv"},
		{`#export-links a.svg[data-game="1"]`, "/games/1.svg", "image/svg+xml"},
	} {
		href := eval[string](t, page, `document.querySelector(`+js(tt.sel)+`).href`)
		if want := s.url + "/api/lanes/" + tb.id + tt.path; href != want {
			t.Errorf("%s links to %s, want %s", tt.sel, href, want)
		}
		got := eval[string](t, page, `fetch(document.querySelector(`+js(tt.sel)+`).href).then(r => r.status + " " + r.headers.get("Content-Type"))`, chromedp.EvalAwaitPromise)
		if !strings.HasPrefix(got, "200 "+tt.ctype) {
			t.Errorf("%s answers %s, want 200 %s", tt.sel, got, tt.ctype)
		}
	}

	// In Korean, the scorecard's words too.
	do(t, page, "switch to Korean", chromedp.Click(chromedp.CSS(`.lang button[data-lang="ko"]`)))
	until(t, page, "the exports in Korean", `document.querySelector('#export-links a.svg[data-game="1"]').href.endsWith("/games/1.svg?lang=ko") && document.querySelector('#export-links a.svg').textContent === "1게임 점수표" && document.querySelector('#stats-table tr[data-stat="statSpares"] th').textContent === "스페어"`)

	// Printed: a score sheet.
	do(t, page, "print media", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
		return err
	}))
	until(t, page, "the page as printed", `matchMedia("print").matches`)
	shown := `[...document.querySelectorAll("#board, #stats-table, #banner, #invite, .logs, #pad, #exports, header .lang, button")].filter(e => e.checkVisibility()).map(e => e.id || e.className || e.tagName).join(" ")`
	if got, want := eval[string](t, page, shown), "banner board stats-table"; got != want {
		t.Errorf("printed, the page shows %q, want %q", got, want)
	}
	if t.Failed() {
		return
	}
	screenshot(t, page, "printed.png")
}

// TestNumbersComeWithTheBoard: the night's numbers a page shows come with
// each board; the page asks the API for none of them while a whole game
// is bowled (200 watchers would be 200 requests a ball).
func TestNumbersComeWithTheBoard(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t)()
	asked := make(chan int)
	stop := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case path := <-s.requests:
				if strings.HasSuffix(path, "/stats") {
					n++
				}
			case <-stop:
				asked <- n
				return
			}
		}
	}()
	tb := newTable(t, s, page, "Numbers", "", "AAA", "BBB")
	tb.play(func(*protocol.Board) bool { return false })
	until(t, page, "the numbers at the end", strikeShare("AAA")+` === "100%" && document.querySelector('#stats-table tr[data-stat="statAverage"] td[data-player="AAA"]').textContent === "300.0" && document.querySelector('#stats-table tr[data-stat="statGames"] td[data-player="BBB"]').textContent === "1"`)
	close(stop)
	if n := <-asked; n != 0 {
		t.Errorf("the page asked for /stats %d times during a game, want 0: the board carries the numbers", n)
	}
}
