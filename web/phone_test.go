package web_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// screen is a size the page is tried at.
type screen struct {
	name          string
	width, height int64
	phone         bool
}

var (
	phone  = screen{"phone", 390, 844, true}
	laptop = screen{"laptop", 1366, 768, false}
)

// show makes the page's viewport the screen's: a phone is a mobile
// device, whose page lays out at its width (the viewport meta tag).
func show(t *testing.T, ctx context.Context, sc screen) {
	t.Helper()
	var opts []chromedp.EmulateViewportOption
	if sc.phone {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
	}
	do(t, ctx, "a "+sc.name+"'s screen", chromedp.EmulateViewport(sc.width, sc.height, opts...))
	until(t, ctx, "the page laid out at the screen's width", fmt.Sprintf(`location.protocol === "about:" || document.documentElement.clientWidth === %d`, sc.width))
}

// names is the players' names, in seat order.
var names = []string{"AAA", "BBB", "CCC", "DDD", "EEE", "FFF", "GGG", "HHH"}

// scripts is each player's balls: AAA and DDD bowl perfect games (X|X|X
// in the tenth), the others spares, open frames, gutters and mixes.
var scripts = map[string][]int{
	"AAA": repeat([]int{10}, 12),
	"BBB": append(repeat([]int{9, 1}, 9), 9, 1, 10),
	"CCC": repeat([]int{7, 2}, 10),
	"DDD": repeat([]int{10}, 12),
	"EEE": append(repeat([]int{0, 10}, 9), 0, 10, 0),
	"FFF": repeat([]int{8, 1}, 10),
	"GGG": append(repeat([]int{10, 5, 5}, 4), 10, 5, 5, 10),
	"HHH": repeat([]int{3, 3}, 10),
	"CAT": repeat([]int{10}, 12),
	"DOG": repeat([]int{10}, 12),
	"EEL": repeat([]int{10}, 12),
	"BOB": repeat([]int{3, 3}, 10),
}

func repeat(balls []int, n int) []int {
	var out []int
	for range n {
		out = append(out, balls...)
	}
	return out
}

// table is a lane whose players bowl through the protocol's client,
// each their own balls as the scripts say, but one, who may bowl on the
// page under test.
type table struct {
	t        *testing.T
	id       string
	page     context.Context
	pageName string                  // the player on the page; "" if the page watches
	watch    *client.Conn            // a watcher of the test's: every board
	players  map[string]*client.Conn // the players but the page's
	next     map[string]int          // each player's next ball in their script
	board    *protocol.Board         // the latest board the watcher got
}

// newTable creates a lane named laneName, opens it on the page, seats
// the players in the order given (the first is the host), pageName's on
// the page and the others through the client, and starts the game.
func newTable(t *testing.T, s *server, page context.Context, laneName, pageName string, seats ...string) *table {
	t.Helper()
	return seatTable(t, s, page, laneName, pageName, func(name string) { join(t, page, name, name) }, seats...)
}

// seatTable is newTable with the page's own join: joinPage seats
// pageName on the page, and says when it is seated.
func seatTable(t *testing.T, s *server, page context.Context, laneName, pageName string, joinPage func(name string), seats ...string) *table {
	t.Helper()
	tb := &table{t: t, id: createLane(t, s, laneName), page: page, pageName: pageName, players: map[string]*client.Conn{}, next: map[string]int{}}
	do(t, page, "open the lane", chromedp.Navigate(invited(t, s.url, tb.id)))
	until(t, page, "the lane, connected", `document.querySelector("#conn").classList.contains("ok")`)
	ctx, cancel := context.WithTimeout(t.Context(), step)
	defer cancel()
	dial := func() *client.Conn {
		c, err := client.Dial(ctx, s.url, tb.id)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.CloseNow() })
		return c
	}
	for _, name := range seats {
		if name == pageName {
			joinPage(name)
			continue
		}
		c := dial()
		if _, err := c.JoinInvited(ctx, name, inviteOf(t, tb.id)); err != nil {
			t.Fatalf("%s joins: %v", name, err)
		}
		tb.players[name] = c
	}
	tb.watch = dial()
	until(t, page, fmt.Sprintf("%d players seated", len(seats)), fmt.Sprintf(`document.querySelectorAll("#board tr[data-row=marks]").length === %d`, len(seats)))
	if seats[0] == pageName {
		do(t, page, "start", chromedp.Click(chromedp.CSS("#start")))
	} else if _, err := tb.players[seats[0]].Start(ctx); err != nil {
		t.Fatalf("%s starts: %v", seats[0], err)
	}
	tb.await(func(b *protocol.Board) bool { return b.Phase == protocol.PhasePlaying })
	return tb
}

// await takes the watcher's boards until one satisfies ok.
func (tb *table) await(ok func(*protocol.Board) bool) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.t.Context(), step)
	defer cancel()
	for {
		m, err := tb.watch.Next(ctx)
		if err != nil {
			tb.t.Fatalf("waiting for a board: %v", err)
		}
		if b, isBoard := m.(*protocol.Board); isBoard {
			tb.board = b
			if ok(b) {
				return
			}
		}
	}
}

// balls is how many balls a board shows bowled.
func balls(b *protocol.Board) int {
	n := 0
	for _, p := range b.Players {
		for _, f := range p.Frames {
			n += len(f.Rolls)
		}
	}
	return n
}

// play bowls the scripts until stop holds for the board or the game is over.
func (tb *table) play(stop func(*protocol.Board) bool) {
	tb.t.Helper()
	for tb.board.Phase == protocol.PhasePlaying && !stop(tb.board) {
		up := tb.board.Up
		name := tb.board.Players[up.Seat].Name
		pins := scripts[name][tb.next[name]]
		tb.next[name]++
		if name == tb.pageName {
			bowl(tb.t, tb.page, name, pins, up.Standing, false)
		} else {
			ctx, cancel := context.WithTimeout(tb.t.Context(), step)
			_, err := tb.players[name].Roll(ctx, up.Frame, up.Ball, pins)
			cancel()
			if err != nil {
				tb.t.Fatalf("%s rolls %d: %v", name, pins, err)
			}
		}
		bowled := balls(tb.board)
		tb.await(func(b *protocol.Board) bool { return balls(b) > bowled })
	}
}

// seatLate seats name through the client in the table's lane, its
// game started: a friend who joins late.
func (tb *table) seatLate(s *server, name string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.t.Context(), step)
	defer cancel()
	c, err := client.Dial(ctx, s.url, tb.id)
	if err != nil {
		tb.t.Fatal(err)
	}
	tb.t.Cleanup(func() { c.CloseNow() })
	if _, err := c.JoinInvited(ctx, name, inviteOf(tb.t, tb.id)); err != nil {
		tb.t.Fatalf("%s joins late: %v", name, err)
	}
	tb.players[name] = c
}

// notWider is the expression for a page as wide as the viewport, no
// wider: nothing scrolls it sideways.
const notWider = `document.documentElement.scrollWidth <= document.documentElement.clientWidth && document.body.scrollWidth <= document.documentElement.clientWidth`

// seenJS defines seen(e), which says why the element e is not seen
// whole on the screen, or "" if it is: its rectangle inside the
// viewport and inside the board's scrolling box, and its middle not
// covered by anything else (a sticky column, a dialog).
const seenJS = `const seen = (e) => {
	const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
	const box = e.closest(".board-wrap") ? e.closest(".board-wrap").getBoundingClientRect() : { left: 0, right: vw };
	const r = e.getBoundingClientRect();
	const at = Math.round(r.left) + "," + Math.round(r.top) + " " + Math.round(r.width) + "×" + Math.round(r.height);
	if (r.width === 0 || r.height === 0) return "not shown";
	if (r.left < Math.max(0, box.left) - 0.5 || r.right > Math.min(vw, box.right) + 0.5 || r.top < -0.5 || r.bottom > vh + 0.5) {
		return "at " + at + ", outside the " + vw + "×" + vh + " viewport";
	}
	const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
	if (!hit || !(e === hit || e.contains(hit))) return "at " + at + ", covered by " + (hit ? hit.outerHTML.slice(0, 80) : "nothing");
	if (e.scrollWidth > e.clientWidth + 1) return "at " + at + ", its text cut (" + e.scrollWidth + " wide in " + e.clientWidth + ")";
	return "";
};`

// unseen is the expression for what of sel is not seen whole on the
// screen (see seenJS), "" when all of it is; label names each element.
func unseen(sel, label string) string {
	return `(() => { ` + seenJS + `
		return [...document.querySelectorAll(` + js(sel) + `)].map((e) => { const why = seen(e); return why && (` + label + `) + " " + why; }).filter(Boolean).join("; ");
	})()`
}

// namesAndTotals is the expression for the players' names and totals
// not seen whole on the screen, once the board is scrolled into view.
const namesAndTotals = `(() => {
	document.querySelector("#board").scrollIntoView({ block: "nearest" });
	` + seenJS + `
	const out = [];
	for (const tr of document.querySelectorAll("#board tr[data-row=marks]")) {
		for (const [what, cell] of [["name", tr.querySelector("th.name")], ["total", tr.querySelector("td.total")]]) {
			const why = seen(cell);
			if (why) out.push(tr.dataset.player + "'s " + what + " " + why);
		}
	}
	return out.join("; ");
})()`

// checkFits checks, on the screen the page shows, that the page is no
// wider than the viewport, that every player's name and total are seen
// together, and, when the page shows its pin pad, that every pin button
// is on the screen as the page is opened, unscrolled.
func checkFits(t *testing.T, ctx context.Context, sc screen, pad bool) {
	t.Helper()
	if !eval[bool](t, ctx, notWider) {
		t.Errorf("%s: the page is %d px wide in a %d px viewport", sc.name,
			eval[int](t, ctx, `document.documentElement.scrollWidth`), sc.width)
	}
	if pad {
		do(t, ctx, "scroll to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		if why := eval[string](t, ctx, unseen("#pins button", `"pin button " + e.textContent`)); why != "" {
			t.Errorf("%s: %s", sc.name, why)
		}
	}
	if why := eval[string](t, ctx, namesAndTotals); why != "" {
		t.Errorf("%s: %s", sc.name, why)
	}
}

// A lane with a name as long as names go (40 characters): on a phone and
// on a laptop, every player's name and total are seen together, for 1,
// 4 and 8 players, mid-game and at the end, when the tenth frames read
// X|X|X; the pin buttons are on the screen without scrolling for up to 4
// players; the page never scrolls sideways; on a phone all ten frames fit
// and on a laptop the board is the full table.
func TestBoardFits(t *testing.T) {
	// Friends' address for the invitation, as on an alley's Wi-Fi (and in
	// the screenshots kept).
	s := serve(t, lobby.Config{URLs: []string{"http://192.168.1.20:8080"}})
	open := browser(t)
	const laneName = "Friday night league — Starlight Lanes 12" // 40 characters
	for _, n := range []int{1, 4, 8} {
		t.Run(fmt.Sprintf("%d players", n), func(t *testing.T) {
			page := open()
			tb := newTable(t, s, page, laneName, "AAA", names[:n]...)

			// Mid-game: AAA up for frame 6, the others' frames on the board.
			tb.play(func(b *protocol.Board) bool { return b.Up.Seat == 0 && b.Up.Frame == 6 })
			for _, sc := range []screen{phone, laptop} {
				show(t, page, sc)
				until(t, page, "AAA's pad", padReady("AAA", 10))
				checkFits(t, page, sc, n <= 4)
				if got := eval[string](t, page, `document.querySelector("#lane-name").title`); got != laneName {
					t.Errorf("%s: the lane's name has the title %q, want %q", sc.name, got, laneName)
				}
				// A name too long for the screen is cut short, with the whole
				// of it in its title: it never widens the page.
				if !eval[bool](t, page, `document.querySelector("#lane-name").getBoundingClientRect().right <= document.documentElement.clientWidth`) {
					t.Errorf("%s: the lane's name runs past the viewport", sc.name)
				}
				if n == 4 {
					do(t, page, "scroll to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
					keep(t, page, sc.name+".png")
				}
			}

			// The end: every tenth frame bowled, AAA's and DDD's X|X|X.
			tb.play(func(*protocol.Board) bool { return false })
			until(t, page, "the game over", `document.querySelector("#banner").classList.contains("finished")`)
			for _, sc := range []screen{phone, laptop} {
				show(t, page, sc)
				checkFits(t, page, sc, false)
				tenth := `"the tenth frame of " + e.closest("tr").dataset.player`
				if why := eval[string](t, page, unseen(`#board td.marks[data-frame="10"]`, tenth)); why != "" {
					t.Errorf("%s: %s", sc.name, why)
				}
				if got := eval[string](t, page, marks("AAA", 10)); got != "X|X|X" {
					t.Errorf("%s: AAA's tenth frame shows %q, want X|X|X", sc.name, got)
				}
				// Every frame on the screen at once: nothing to scroll.
				if !eval[bool](t, page, `document.querySelector(".board-wrap").scrollWidth <= document.querySelector(".board-wrap").clientWidth`) {
					t.Errorf("%s: the board's frames scroll: %d px in %d", sc.name,
						eval[int](t, page, `document.querySelector(".board-wrap").scrollWidth`), eval[int](t, page, `document.querySelector(".board-wrap").clientWidth`))
				}
			}
		})
	}
}

// The fair-play controls work on a phone: the frames to correct and the
// host's menu on a name are buttons a finger can hit (24 px at least),
// the correction dialog and the menu fit the screen, and the skip of an
// offline player is on the screen with the pins to enter their ball.
func TestFairPlayOnAPhone(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t)()
	tb := newTable(t, s, page, "Fair play on a phone", "AAA", "AAA", "BBB", "CCC", "DDD")
	show(t, page, phone)
	tb.play(func(b *protocol.Board) bool { return b.Up.Seat == 2 && b.Up.Frame == 2 })
	until(t, page, "the host offered CCC's ball", `document.querySelector("#entering").textContent === "Entering for CCC — frame 2, ball 1"`)

	small := `[...document.querySelectorAll("#board button")].filter(b => { const r = b.getBoundingClientRect(); return r.width < 24 || r.height < 24; }).map(b => b.textContent + " " + Math.round(b.getBoundingClientRect().width) + "×" + Math.round(b.getBoundingClientRect().height)).join(", ")`
	if got := eval[string](t, page, small); got != "" {
		t.Errorf("buttons on the board too small for a finger: %s", got)
	}

	// The host corrects BBB's frame 1 in a dialog that fits the screen.
	do(t, page, "tap BBB's frame 1", chromedp.Click(chromedp.CSS(frameButton("BBB", 1))))
	until(t, page, "the correction dialog", dialogOpen("correct-dialog"))
	dialogButtons := unseen("#correct-dialog button:not(#correct-deck-wrap[hidden] button)", `"the dialog's " + e.textContent`)
	if why := eval[string](t, page, dialogButtons); why != "" {
		t.Error(why)
	}
	// Ball 1 stood before a fresh rack: its deck shows, and fits too.
	do(t, page, "ball 1", chromedp.Click(chromedp.CSS(`#correct-balls button[data-ball="1"]`)))
	until(t, page, "the dialog's deck", `!document.querySelector("#correct-deck-wrap").hidden`)
	if why := eval[string](t, page, dialogButtons); why != "" {
		t.Error(why)
	}
	do(t, page, "cancel", chromedp.Click(chromedp.CSS("#correct-cancel")))
	until(t, page, "the dialog closed", `!`+dialogOpen("correct-dialog"))

	// The host's menu on a name.
	do(t, page, "tap BBB's name", chromedp.Click(chromedp.CSS(`#board tr[data-player="BBB"] button.name`)))
	until(t, page, "the player's menu", dialogOpen("player-dialog"))
	if why := eval[string](t, page, unseen("#player-dialog button:not([hidden])", `"the menu's " + e.textContent`)); why != "" {
		t.Error(why)
	}
	do(t, page, "close", chromedp.Click(chromedp.CSS("#player-close")))
	until(t, page, "the menu closed", `!`+dialogOpen("player-dialog"))

	// CCC's phone goes: the skip, and the pins for CCC's ball, on the screen.
	tb.players["CCC"].CloseNow()
	until(t, page, "the skip offered", `document.querySelector("#skip").textContent.startsWith("Skip CCC (offline)") && `+padReady("CCC", 10))
	do(t, page, "scroll to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	if why := eval[string](t, page, unseen("#skip, #pins button", `e.textContent`)); why != "" {
		t.Error(why)
	}
	if !eval[bool](t, page, notWider) {
		t.Error("the page scrolls sideways")
	}
	if t.Failed() {
		return
	}
	screenshot(t, page, "fair-play-phone.png")
}

// badgesWhole is the expression for the badges beside the players'
// names on the board (host, winner, joined late, the short offline,
// away and left) not seen whole, and why, "" for none: each inside its
// name's cell, clear of the name, its text not cut, and on the screen,
// not covered (seenJS).
const badgesWhole = `(() => {
	document.querySelector("#board").scrollIntoView({ block: "nearest" });
	` + seenJS + `
	const out = [];
	for (const b of document.querySelectorAll("#board th.name :is(.badge, .late, .short)")) {
		if (!b.checkVisibility()) continue;
		const cell = b.closest("th"), r = b.getBoundingClientRect(), c = cell.getBoundingClientRect();
		const n = cell.querySelector(".who, button.name").getBoundingClientRect();
		const what = cell.closest("tr").dataset.player + "'s " + JSON.stringify(b.textContent);
		if (r.left < c.left - .5 || r.right > c.right + .5 || r.top < c.top - .5 || r.bottom > c.bottom + .5) out.push(what + " outside its cell");
		if (r.left < n.right && n.left < r.right && r.top < n.bottom && n.top < r.bottom) out.push(what + " over the name");
		if (b.scrollWidth > b.clientWidth) out.push(what + " cut: " + b.scrollWidth + " px in " + b.clientWidth);
		const why = seen(b);
		if (why) out.push(what + " " + why);
	}
	return out.join("; ");
})()`

// On a phone, in English and in Korean, the badges beside long names
// are whole and clear of them, on the host's page (the others' names
// are buttons there) and on a watcher's: the host's, a late friend's,
// an offline player's during a game, and the winners' at its end.
func TestBadgesWhole(t *testing.T) {
	for _, lang := range []string{"en-US", "ko-KR"} {
		t.Run(lang, func(t *testing.T) {
			s := serve(t, lobby.Config{})
			p := browser(t, inLanguage(lang)...)()
			show(t, p, phone)
			check := func(view string) {
				t.Helper()
				for _, sc := range []screen{phone, laptop} {
					show(t, p, sc)
					if why := eval[string](t, p, badgesWhole); why != "" {
						t.Errorf("%s, %s: %s", view, sc.name, why)
					}
				}
				show(t, p, phone)
			}
			tb := newTableIn(t, s, p, "Badges", "AAA", "AAA", "Maximilianus", "남궁 민수 황보 다은", "BBB", "Élodie-Anaïs", "Wolfgang-Max", "CCC")
			bowl(t, p, "AAA", 3, 10, false)
			tb.await(func(b *protocol.Board) bool { return balls(b) == 1 })
			tb.seatLate(s, "독고 영재 선우은비")
			tb.players["BBB"].CloseNow()
			until(t, p, "the host, a late friend and BBB offline", `document.querySelectorAll("#board th.name .badge").length === 1 && !!document.querySelector('#board tr[data-player="독고 영재 선우은비"] .late') && !!document.querySelector('#board tr[data-player="BBB"] .offline')`)
			check("the host's page during a game")

			over := newTableIn(t, s, p, "Badges 2", "", "Maximilianus", "남궁 민수 황보 다은")
			tvPlay(over, func(*protocol.Board) bool { return false })
			until(t, p, "the winners", `document.querySelectorAll("#board th.name .badge.win").length === 2`)
			check("a watcher's page at a game's end")
		})
	}
}
