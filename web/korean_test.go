package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
)

// phones are the widths Korean is read at: a small phone, the other
// tests' phone and a large one.
var phones = []screen{
	{"phone 360 px wide", 360, 780, true},
	phone,
	{"phone 430 px wide", 430, 932, true},
}

// wordSplits is the expression for the Korean words the page shows
// broken across two lines, "" for none. A word is a run of characters
// with no space in it, across inline elements: it breaks inside where
// two characters of it, one of them Hangul, sit on different lines of
// the same box. Text not shown is not read. It finds the most with a
// Korean font installed (Debian's fonts-nanum): without one, Chromium
// draws each syllable as a box, and fewer lines fill up.
const wordSplits = `(() => {
	const hangul = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/;
	const boxOf = (e) => { while (e && getComputedStyle(e).display === "inline") e = e.parentElement; return e; };
	const found = [];
	const range = document.createRange();
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
	let prev = null; // the last character read: { ch, box, rect, node, at }
	for (let n = walk.currentNode; n; n = walk.nextNode()) {
		if (n.nodeType === Node.ELEMENT_NODE) {
			// A box of its own, a line break or a replaced element ends a word.
			if (n.tagName === "BR" || getComputedStyle(n).display !== "inline") prev = null;
			continue;
		}
		const e = n.parentElement;
		if (!e || !e.checkVisibility({ visibilityProperty: true })) { prev = null; continue; }
		const box = boxOf(e);
		const text = n.data;
		for (let i = 0; i < text.length; ) {
			const ch = String.fromCodePoint(text.codePointAt(i));
			const at = i;
			i += ch.length;
			if (/\s/.test(ch)) { prev = null; continue; }
			range.setStart(n, at);
			range.setEnd(n, i);
			const rect = [...range.getClientRects()].find((r) => r.width > 0);
			if (!rect) { prev = null; continue; }
			if (prev && prev.box === box && (hangul.test(prev.ch) || hangul.test(ch)) && rect.top >= prev.rect.top + prev.rect.height / 2) {
				// The word, from the start of its text node to its end.
				const word = (s, from, to) => { while (from > 0 && !/\s/.test(s[from - 1])) from--; while (to < s.length && !/\s/.test(s[to])) to++; return s.slice(from, to); };
				const where = box.tagName.toLowerCase() + (box.id ? "#" + box.id : box.className ? "." + String(box.className).split(" ")[0] : "");
				found.push(JSON.stringify(word(prev.node.data, prev.at, prev.at + 1) + (prev.node === n ? "" : word(text, at, i))) + " broken at " + JSON.stringify(prev.ch + "/" + ch) + " in " + where);
			}
			prev = { ch, box, rect, node: n, at };
		}
	}
	return [...new Set(found)].join("; ");
})()`

// checkWords checks, at each of the phones' widths, that the page
// breaks no Korean word across two lines, and that it is no wider than
// the screen: a word kept whole must not push the page sideways.
func checkWords(t *testing.T, ctx context.Context, view string) {
	t.Helper()
	for _, sc := range phones {
		show(t, ctx, sc)
		if got := eval[string](t, ctx, wordSplits); got != "" {
			t.Errorf("%s, %s: %s", view, sc.name, got)
		}
		if !eval[bool](t, ctx, notWider) {
			t.Errorf("%s, %s: the page is %d px wide", view, sc.name, eval[int](t, ctx, `document.documentElement.scrollWidth`))
		}
	}
	show(t, ctx, phone)
}

// On a phone 360, 390 or 430 px wide, Korean is never broken inside a
// word: not in the lobby, the lane during a game (the banner, the pad's
// buttons, the correction dialog, the host's menu), the lane after a
// game (the ranking, the night's numbers) or a bowler's page.
func TestKoreanKeepsWords(t *testing.T) {
	s := serve(t, lobby.Config{Lane: lane.Config{Bowlers: memjournal.NewBowlers()}})
	page := browser(t, inLanguage("ko-KR")...)()
	show(t, page, phone)

	createLane(t, s, "금요일 밤 리그")
	do(t, page, "the lobby", chromedp.Navigate(s.url+"/"))
	until(t, page, "the lobby in Korean, the lane listed", `document.documentElement.lang === "ko" && document.querySelectorAll("#lanes tbody a").length === 1`)
	checkWords(t, page, "the lobby")

	tb := newTableIn(t, s, page, "목요일 리그", "AAA", "AAA", "BBB", "CCC", "DDD")
	tb.playSplits("BBB", func(b *protocol.Board) bool { return b.Up.Seat == 0 && b.Up.Frame == 3 })
	until(t, page, "the pad up for AAA", padReady("AAA", 10))
	checkWords(t, page, "the lane during a game")

	do(t, page, "tap BBB's frame 1", chromedp.Click(chromedp.CSS(frameButton("BBB", 1))))
	until(t, page, "the correction dialog", dialogOpen("correct-dialog"))
	do(t, page, "ball 1", chromedp.Click(chromedp.CSS(`#correct-balls button[data-ball="1"]`)))
	until(t, page, "the dialog's deck", `!document.querySelector("#correct-deck-wrap").hidden`)
	checkWords(t, page, "the correction dialog")
	do(t, page, "cancel", chromedp.Click(chromedp.CSS("#correct-cancel")))
	do(t, page, "tap CCC's name", chromedp.Click(chromedp.CSS(`#board tr[data-player="CCC"] button.name`)))
	until(t, page, "the host's menu", dialogOpen("player-dialog"))
	checkWords(t, page, "the host's menu")
	do(t, page, "close", chromedp.Click(chromedp.CSS("#player-close")))

	tb.playSplits("BBB", func(*protocol.Board) bool { return false })
	until(t, page, "the game over, the night's numbers", `document.querySelector("#play").dataset.phase === "finished" && !document.querySelector("#ranking").hidden && !document.querySelector("#stats").hidden`)
	checkWords(t, page, "the lane after a game")

	// The next game puts this one in AAA's history: the bowler's page.
	do(t, page, "rematch", chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.CSS("#rematch")))
	until(t, page, "the next game", `document.querySelector("#play").dataset.phase === "waiting"`)
	checkWords(t, page, "the lane between games")
	do(t, page, "my games", chromedp.Navigate(s.url+"/me"))
	until(t, page, "AAA's numbers", `document.querySelector('#numbers [data-stat="statGames"] dd')?.textContent === "1" && document.querySelectorAll("#games li").length === 1`)
	checkWords(t, page, "a bowler's page")
}
