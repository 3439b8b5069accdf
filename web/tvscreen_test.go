package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// These tests look at the TV views as a bowling center shows them: on
// screens of 1280×720 and 1920×1080, read from the approach and from
// across the house, measured in a real Chromium.

// tvLane creates a lane named laneName, seats the players through the
// protocol's client (the first as its creator, with its host key) and
// starts the game; no page takes part.
func tvLane(t *testing.T, s *server, laneName string, seats ...string) *table {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), step)
	defer cancel()
	res, err := http.Post(s.url+"/api/lanes", "application/json", strings.NewReader(`{"name":`+js(laneName)+`}`))
	if err != nil {
		t.Fatal(err)
	}
	var created protocol.CreatedLane
	err = json.NewDecoder(res.Body).Decode(&created)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/lanes: %s, %v", res.Status, err)
	}
	tb := &table{t: t, id: created.ID, players: map[string]*client.Conn{}, next: map[string]int{}}
	for i, name := range seats {
		c, err := client.Dial(ctx, s.url, tb.id)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.CloseNow() })
		if i == 0 {
			_, err = c.JoinHost(ctx, name, created.HostKey) // the creator: the lane's last seat is theirs
		} else {
			_, err = c.JoinInvited(ctx, name, created.Invite)
		}
		if err != nil {
			t.Fatalf("%s joins: %v", name, err)
		}
		tb.players[name] = c
	}
	watch, err := client.Dial(ctx, s.url, tb.id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watch.CloseNow() })
	tb.watch = watch
	if _, err := tb.players[seats[0]].Start(ctx); err != nil {
		t.Fatalf("%s starts: %v", seats[0], err)
	}
	tb.await(func(b *protocol.Board) bool { return b.Phase == protocol.PhasePlaying })
	return tb
}

// tvPlay bowls the players' scripts (a strike, then 8|1, for a bowler
// without one) until stop holds for the board or the game is over.
func tvPlay(tb *table, stop func(*protocol.Board) bool) {
	tb.t.Helper()
	for tb.board.Phase == protocol.PhasePlaying && !stop(tb.board) {
		up := tb.board.Up
		name := tb.board.Players[up.Seat].Name
		script, ok := scripts[name]
		if !ok {
			script = append(repeat([]int{10, 8, 1}, 6), 10, 10)
		}
		pins := script[tb.next[name]]
		tb.next[name]++
		ctx, cancel := context.WithTimeout(tb.t.Context(), step)
		_, err := tb.players[name].Roll(ctx, up.Frame, up.Ball, pins)
		cancel()
		if err != nil {
			tb.t.Fatalf("%s rolls %d: %v", name, pins, err)
		}
		bowled := balls(tb.board)
		tb.await(func(b *protocol.Board) bool { return balls(b) > bowled })
	}
}

// lessMotion makes the page's viewers ask for less motion.
func lessMotion(t *testing.T, page context.Context) {
	t.Helper()
	do(t, page, "less motion", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}},
		})
		return err
	}))
}

// tvPanel is what the TV shows of a lane, as measured on the screen.
type tvPanel struct {
	Lane   string  // the lane's id
	Name   float64 // the smallest font size of a bowler's name, px
	Marks  float64 // … of a frame's marks, px
	Total  float64 // … of a total, px
	Board  float64 // the share of the panel the board covers, 0 to 1
	Screen float64 // the share of the screen the board covers, 0 to 1
	Cut    string  // the names and marks whose text is cut, if any
}

// tvMeasure is the expression for every panel's measures, as JSON.
const tvMeasure = `JSON.stringify([...document.querySelectorAll(".tv-lane")].map((p) => {
	const px = (sel) => Math.min(...[...p.querySelectorAll(sel)].map((e) => parseFloat(getComputedStyle(e).fontSize)));
	const area = (r) => r.width * r.height;
	const board = p.querySelector(".tv-board").getBoundingClientRect();
	return {
		Lane: p.dataset.lane,
		Name: px(".tv-board th.name .who"),
		Marks: px(".tv-board td.marks"),
		Total: px(".tv-board td.total"),
		Board: area(board) / area(p.getBoundingClientRect()),
		Screen: area(board) / (innerWidth * innerHeight),
		Cut: [...p.querySelectorAll(".tv-board th.name, .tv-board td.marks")].filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent).join(", "),
	};
}))`

func measureTV(t *testing.T, page context.Context) []tvPanel {
	t.Helper()
	var out []tvPanel
	if err := json.Unmarshal([]byte(eval[string](t, page, tvMeasure)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// brokenWords is the expression for the words of Korean the page shows
// broken across two lines ("" for none): Korean breaks between words,
// never inside one.
const brokenWords = `(() => {
	const out = [];
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walk.nextNode(); n; n = walk.nextNode()) {
		if (!n.parentElement || !n.parentElement.checkVisibility()) continue;
		for (const m of n.textContent.matchAll(/\S*[\uac00-\ud7a3]\S*/g)) {
			const r = document.createRange();
			r.setStart(n, m.index);
			r.setEnd(n, m.index + m[0].length);
			const tops = new Set([...r.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top)));
			if (tops.size > 1) out.push(m[0]);
		}
	}
	return out.join(" ");
})()`

// The TV above a lane fills a 720p screen as it does a 1080p one: the
// board covers most of it, whether eight bowlers play or three, and
// the bowlers' names are at least 40 px tall, none cut.
func TestTVFillsTheScreen(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t)()
	for _, seats := range [][]string{{"Christopher", "Bea", "Max"}, names} {
		tb := tvLane(t, s, "Lane 7", seats...)
		// Three frames: marks on the board.
		tvPlay(tb, func(b *protocol.Board) bool { return b.Up.Frame > 3 })
		for _, sc := range []screen{tv720, tv1080} {
			show(t, page, sc)
			do(t, page, "open the TV view", chromedp.Navigate(s.url+"/lanes/"+tb.id+"/tv"))
			until(t, page, "the board on the TV", fmt.Sprintf(`document.querySelectorAll(".tv-board tr[data-row=marks]").length === %d && document.querySelector(".tv-up").textContent !== ""`, len(seats)))
			if why := eval[string](t, page, tvFits); why != "" {
				t.Errorf("%s, %d bowlers: %s", sc.name, len(seats), why)
			}
			m := measureTV(t, page)[0]
			t.Logf("%s, %d bowlers: names %.1f px, marks %.1f px, totals %.1f px, the board %.0f%% of the screen", sc.name, len(seats), m.Name, m.Marks, m.Total, 100*m.Screen)
			if m.Name < 40 {
				t.Errorf("%s, %d bowlers: names %.1f px, want at least 40", sc.name, len(seats), m.Name)
			}
			if m.Marks < 28 || m.Total < 40 {
				t.Errorf("%s, %d bowlers: marks %.1f px and totals %.1f px, want at least 28 and 40", sc.name, len(seats), m.Marks, m.Total)
			}
			if m.Screen < 0.6 {
				t.Errorf("%s, %d bowlers: the board covers %.0f%% of the screen, want at least 60%%", sc.name, len(seats), 100*m.Screen)
			}
			if m.Cut != "" {
				t.Errorf("%s, %d bowlers: names or marks cut: %s", sc.name, len(seats), m.Cut)
			}
		}
	}
	show(t, page, tv720)
	until(t, page, "laid out at 720p", `document.querySelector(".tv-board").getBoundingClientRect().width > 0`)
	keep(t, page, "tv.png")
}

// A house screen of four lanes fills its quarters at 1080p: each
// lane's board covers most of its quarter, with its bowlers' names at
// least 32 px tall and their marks at least 24 px, eight bowlers or two.
func TestHouseTVFillsQuarters(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t)()
	var ids []string
	var lanes []*table
	var seated []int
	for i, seats := range [][]string{names, names[:4], names[:2], {"Christopher", "Bea", "Max"}} {
		seated = append(seated, len(seats))
		tb := tvLane(t, s, fmt.Sprintf("Lane %d", i+1), seats...)
		tvPlay(tb, func(b *protocol.Board) bool { return balls(b) >= 3*len(seats)+i })
		ids = append(ids, tb.id)
		lanes = append(lanes, tb)
	}
	show(t, page, tv1080)
	do(t, page, "open the house screen", chromedp.Navigate(s.url+"/tv?lanes="+strings.Join(ids, ",")))
	until(t, page, "four boards", `[...document.querySelectorAll(".tv-lane")].map((p) => p.querySelectorAll(".tv-board tr[data-row=marks]").length).join() === "8,4,2,3"`)
	for _, sc := range []screen{tv720, tv1080} {
		show(t, page, sc)
		if why := eval[string](t, page, tvFits); why != "" {
			t.Errorf("%s: %s", sc.name, why)
		}
		if sc != tv720 {
			continue
		}
		// At 720p a quarter is 640×360: a lane of four bowlers or fewer
		// (a house's usual night) shows its totals, and its names where
		// they fit the name column, at 32 px at least, read from across
		// the center (28.6 px when names were capped at 8 units). A name
		// too long for the column shrinks to fit rather than be cut;
		// eight bowlers have no room for 32 px at all.
		for i, m := range measureTV(t, page) {
			shrunk := m.Name < m.Total
			if seats := seated[i]; seats <= 4 && (m.Total < 32 || !shrunk && m.Name < 32) {
				t.Errorf("720p, lane %d of %d bowlers: names %.1f px and totals %.1f px, want at least 32", i+1, seats, m.Name, m.Total)
			}
		}
	}
	for i, m := range measureTV(t, page) {
		t.Logf("1080p, lane %d: names %.1f px, marks %.1f px, totals %.1f px, the board %.0f%% of its quarter", i+1, m.Name, m.Marks, m.Total, 100*m.Board)
		if m.Name < 32 || m.Marks < 24 {
			t.Errorf("1080p, lane %d: names %.1f px and marks %.1f px, want at least 32 and 24", i+1, m.Name, m.Marks)
		}
		if m.Board < 0.6 {
			t.Errorf("1080p, lane %d: the board covers %.0f%% of its quarter, want at least 60%%", i+1, 100*m.Board)
		}
		if m.Cut != "" {
			t.Errorf("1080p, lane %d: names or marks cut: %s", i+1, m.Cut)
		}
	}
	// The third lane's game ends, in its quarter.
	tvPlay(lanes[2], func(*protocol.Board) bool { return false })
	until(t, page, "the third lane's end", `document.querySelectorAll(".tv-lane")[2].querySelector(".tv-end").dataset.numbers === "shown"`)
	do(t, page, "let it arrive", chromedp.Evaluate[chromedp.Void](`document.getAnimations().forEach((a) => a.finish())`))
	if why := eval[string](t, page, tvEndFits); why != "" {
		t.Errorf("1080p: %s", why)
	}
	keep(t, page, "house.png")
}

// longNames are names as long as a lane takes (twelve characters), of
// the widest letters, Latin and Korean, with and without spaces and
// hyphens between their words, and a short one.
var longNames = []string{"WWWWWWWWWWWW", "Maximilianus", "Wolfgang-Max", "Mwangi Wambu", "남궁 민수 황보 다은", "독고 영재 선우은비", "Élodie-Anaïs", "Bea"}

// tvNamesWhole is the expression for the names a TV does not show
// whole, and why, "" for none: a bowler's on the board and at a game's
// end, a team's in a league's standings, who is up, and in a screen's
// head the lane's or the league's and a league night's teams. Each reads as
// itself, letter for letter, on one line or two, inside its cell,
// nothing of it cut or ellipsized.
const tvNamesWhole = `(() => {
	const out = [];
	for (const e of document.querySelectorAll(".tv-board th.name .who, .tv-end-table tbody th.who, .tv-standings tbody th.who, .tv-up, .tv-name, .tv-phase")) {
		if (!e.checkVisibility()) continue;
		const cell = e.closest("th, p, h1, h2"), row = e.closest("tr");
		const name = row ? row.dataset.player ?? row.dataset.team : e.textContent;
		const range = document.createRange();
		range.selectNodeContents(e);
		const r = range.getBoundingClientRect(), c = cell.getBoundingClientRect();
		const lines = new Set([...range.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top))).size;
		if (e.textContent !== name) out.push(name + " reads " + e.textContent);
		if ([cell, e].some((x) => getComputedStyle(x).textOverflow === "ellipsis")) out.push(name + " is ellipsized");
		if (cell.scrollWidth > cell.clientWidth) out.push(name + " is cut: " + cell.scrollWidth + " px in " + cell.clientWidth);
		// (The up line's text may stand taller than its line, drawn whole.)
		if (r.left < c.left - .5 || r.right > c.right + .5 || cell.tagName === "TH" && (r.top < c.top - .5 || r.bottom > c.bottom + .5)) out.push(name + " overflows its cell");
		if (lines > 2) out.push(name + " takes " + lines + " lines");
	}
	return out.join("; ");
})()`

// A long name is never cut on a TV: shrunk to fit its column, and
// wrapped onto a second line when that is not enough (Korean between
// its words), at 720p and 1080p, the board still within its panel: on
// a lane's TV, the long name up, and at its game's end; on a house
// screen of three lanes beside a league's standings of long team names;
// in English and in Korean.
func TestTVLongNamesWrap(t *testing.T) {
	s := serve(t, lobby.Config{})
	long := tvLane(t, s, "Friday Night Strike Force at Sunset Bowl", longNames...)
	tvPlay(long, func(b *protocol.Board) bool { return b.Up.Frame == 2 && b.Up.Seat == 0 })
	few := tvLane(t, s, "Lane 2", longNames[0], longNames[4], "Christopher")
	tvPlay(few, func(*protocol.Board) bool { return false })
	four := tvLane(t, s, "금요일 밤 스트라이크 특공대 선셋 볼링장 7번과 8번 레인", longNames[1:5]...)
	l := thursday()
	l.Name = "Thursday Night Mixed Handicap Trios Club"
	l.Teams[0].Name, l.Teams[1].Name = "Wednesday Night Wonderful Wrecking Crew", "목요일 밤의 화려한 스트라이크 전문가 모임 친구들"
	league := newLeague(t, s, l)
	for _, lang := range []string{"en-US", "ko-KR"} {
		t.Run(lang, func(t *testing.T) {
			page := browser(t, inLanguage(lang)...)()
			check := func(view, ready string) {
				t.Helper()
				until(t, page, view, ready)
				do(t, page, "let it arrive", chromedp.Evaluate[chromedp.Void](`document.getAnimations().forEach((a) => a.finish())`))
				for _, sc := range []screen{tv720, tv1080} {
					show(t, page, sc)
					for what, expr := range map[string]string{"names not whole": tvNamesWhole, "the screen": tvFits, "the game's end": tvEndFits, "Korean words broken": wordSplits} {
						if why := eval[string](t, page, expr); why != "" {
							t.Errorf("%s, %s, %s: %s", view, sc.name, what, why)
						}
					}
					t.Logf("%s, %s: the smallest name %.1f px", view, sc.name, eval[float64](t, page, `Math.min(...[...document.querySelectorAll(".tv-board th.name .who, .tv-lane th.who, .tv-lane th.who .fit")].filter((e) => e.checkVisibility()).map((e) => parseFloat(getComputedStyle(e).fontSize)))`))
				}
			}
			up := map[string]string{"en-US": longNames[0] + " is up", "ko-KR": longNames[0] + " 차례"}[lang]
			do(t, page, "the lane's TV", chromedp.Navigate(s.url+"/lanes/"+long.id+"/tv"))
			check("the lane's TV", fmt.Sprintf(`document.querySelectorAll(".tv-board tr[data-row=marks]").length === %d && document.querySelector(".tv-up").textContent === %s`, len(longNames), js(up)))
			do(t, page, "the lane's TV at its game's end", chromedp.Navigate(s.url+"/lanes/"+few.id+"/tv"))
			check("the lane's TV at its game's end", `document.querySelectorAll(".tv-end tbody tr").length === 3`)
			do(t, page, "the house screen", chromedp.Navigate(s.url+"/tv?league="+league.ID+"&lanes="+strings.Join([]string{long.id, few.id, four.id}, ",")))
			check("the house screen", fmt.Sprintf(`document.querySelectorAll(".tv-board tr[data-row=marks]").length === %d && document.querySelectorAll(".tv-end tbody tr").length === 3 && document.querySelectorAll(".tv-standings tbody tr").length === 2`, len(longNames)+3+4))
		})
	}
}

// A TV for a lane that does not exist says so, in large type, in the
// screen's language, where the board would be: on its own, or in its
// quarter of a house screen whose other lanes play on.
func TestTVNoSuchLane(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t)()
	show(t, page, tv720)
	do(t, page, "open the TV of a lane that is not there", chromedp.Navigate(s.url+"/lanes/nosuch/tv"))
	until(t, page, "no such lane", `document.querySelector(".tv-lane").classList.contains("missing")`)
	got := eval[string](t, page, `[document.querySelector(".tv-name").textContent, document.querySelector(".tv-missing").textContent, document.title].join(" / ")`)
	if want := "No such lane / This server has no lane “nosuch”: check this screen's address. The lane may have closed. / No such lane — tenpin"; got != want {
		t.Errorf("the TV of a lane that is not there says %q, want %q", got, want)
	}
	if px := eval[float64](t, page, `parseFloat(getComputedStyle(document.querySelector(".tv-name")).fontSize)`); px < 40 {
		t.Errorf("no such lane in %v px, want at least 40", px)
	}
	if shown := eval[string](t, page, `[...document.querySelectorAll(".tv-board, .tv-qr, .tv-deck, .tv-end")].filter((e) => e.checkVisibility()).map((e) => e.className).join()`); shown != "" {
		t.Errorf("the TV of a lane that is not there shows %s", shown)
	}

	// A house screen in Korean: the second of its lanes is not there.
	tb := tvLane(t, s, "1번 레인", "AAA", "BBB")
	ko := browser(t, inLanguage("ko-KR")...)()
	show(t, ko, tv720)
	do(t, ko, "open the house screen", chromedp.Navigate(s.url+"/tv?lanes="+tb.id+",nosuch"))
	until(t, ko, "one lane, one not there", `[...document.querySelectorAll(".tv-lane")].map((p) => p.querySelector(".tv-name").textContent + ":" + p.querySelectorAll(".tv-board tr[data-row=marks]").length).join(" ") === "1번 레인:2 없는 레인입니다:0"`)
	if got, want := eval[string](t, ko, `document.querySelectorAll(".tv-lane")[1].querySelector(".tv-missing").textContent`), "이 서버에는 “nosuch” 레인이 없습니다. 이 화면의 주소를 확인하세요. 레인이 닫혔을 수도 있습니다."; got != want {
		t.Errorf("the missing lane's quarter says %q, want %q", got, want)
	}
	for _, sc := range []screen{tv720, tv1080} {
		show(t, ko, sc)
		if why := eval[string](t, ko, tvFits); why != "" {
			t.Errorf("%s: %s", sc.name, why)
		}
		if broken := eval[string](t, ko, brokenWords); broken != "" {
			t.Errorf("%s: words broken across lines: %s", sc.name, broken)
		}
	}
	if words := eval[string](t, ko, asciiWords("AAA", "BBB", "nosuch")); words != "" {
		t.Errorf("the house screen in Korean shows English: %s", words)
	}
	// The lane that is there plays on.
	tb.rollAs("AAA", 10)
	until(t, ko, "AAA's strike", `document.querySelector('.tv-lane tr[data-player="AAA"] td.marks[data-frame="1"]').textContent === "X"`)
}

// tvEnd is the expression for what the end of a game shows on the
// first panel: its title, then a line a bowler.
const tvEnd = `(() => { const e = document.querySelector(".tv-end"); return [e.querySelector(".tv-end-title").textContent, ...[...e.querySelectorAll("tbody tr")].map((tr) => [...tr.cells].map((c) => c.textContent).join(" "))].join(" / "); })()`

// tvEndFits is the expression for what of the end of a game is cut off
// by its panel's edge or its own, "" for nothing.
const tvEndFits = `(() => {
	const out = [];
	for (const end of document.querySelectorAll(".tv-end")) {
		if (!end.checkVisibility()) continue;
		const panel = end.closest(".tv-lane").getBoundingClientRect(), box = end.getBoundingClientRect();
		if (box.bottom > panel.bottom + .5 || box.right > panel.right + .5) out.push("the end overflows its panel");
		for (const e of end.querySelectorAll(".tv-end-title, tr, th, td")) {
			const r = e.getBoundingClientRect();
			if (r.bottom > box.bottom + .5 || r.right > box.right + .5) out.push(e.textContent + " cut off");
			if (e.scrollWidth > e.clientWidth + 1) out.push(e.textContent + " cut");
		}
	}
	return out.join("; ");
})()`

// The end of a game is an event on the TV: the winner, every bowler's
// score and the night's numbers take the board's place, arriving with
// motion for viewers who did not ask for less; they fill a 720p screen
// as a 1080p one, in type read from the approach, until the next game,
// when the board is back.
func TestTVGameEnd(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t)()
	show(t, page, tv720)
	tb := tvLane(t, s, "Lane 7", "AAA", "BBB", "CCC")
	do(t, page, "open the TV view", chromedp.Navigate(s.url+"/lanes/"+tb.id+"/tv"))
	until(t, page, "the board on the TV", `document.querySelectorAll(".tv-board tr[data-row=marks]").length === 3`)
	tvPlay(tb, func(*protocol.Board) bool { return false })
	until(t, page, "the game's end, arriving", `document.querySelector(".tv-end")?.checkVisibility() && document.querySelector(".tv-end").getAnimations({ subtree: true }).length > 0`)
	if called := eval[bool](t, page, `document.querySelector(".tv-call").checkVisibility()`); called {
		t.Error("the game's last ball called out over its end")
	}
	until(t, page, "the night's numbers", `document.querySelector(".tv-end").dataset.numbers === "shown"`)
	// Arrived: where it all stands.
	do(t, page, "let it arrive", chromedp.Evaluate[chromedp.Void](`document.getAnimations().forEach((a) => a.finish())`))
	want := "AAA wins with 300 / 1st AAA 300 1 300.0 300 100% — / 2nd BBB 191 1 191.0 191 9% 100% / 3rd CCC 90 1 90.0 90 0% 0%"
	if got := eval[string](t, page, tvEnd); got != want {
		t.Errorf("the game's end shows %q, want %q", got, want)
	}
	if eval[bool](t, page, `document.querySelector(".tv-board").checkVisibility()`) {
		t.Error("the board shown under the game's end")
	}
	for _, sc := range []screen{tv720, tv1080} {
		show(t, page, sc)
		if why := eval[string](t, page, tvEndFits); why != "" {
			t.Errorf("%s: %s", sc.name, why)
		}
		px := eval[[]float64](t, page, `[".tv-end-title", ".tv-end-table tbody .who", ".tv-end-table tbody .game"].map((s) => parseFloat(getComputedStyle(document.querySelector(s)).fontSize))`)
		t.Logf("%s: the winner %.1f px, names %.1f px, scores %.1f px", sc.name, px[0], px[1], px[2])
		if px[0] < 56 || px[1] < 32 || px[2] < 32 {
			t.Errorf("%s: the winner in %.1f px, names and scores in %.1f and %.1f px, want at least 56 and 32", sc.name, px[0], px[1], px[2])
		}
	}
	show(t, page, tv720)
	// The next game: the board is back.
	ctx, cancel := context.WithTimeout(t.Context(), step)
	defer cancel()
	if _, err := tb.players["AAA"].Rematch(ctx); err != nil {
		t.Fatal(err)
	}
	until(t, page, "the board back", `!document.querySelector(".tv-end").checkVisibility() && document.querySelector(".tv-board").checkVisibility() && [...document.querySelectorAll(".tv-board td.total")].map((td) => td.textContent).join() === "0,0,0"`)
}

// For viewers who asked for less motion, the end of a game on a house
// screen in Korean arrives without any: it is simply there, in its
// quarter, in Korean, its words whole, while the other lane plays on.
func TestTVGameEndLessMotion(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t, inLanguage("ko-KR")...)()
	show(t, page, tv1080)
	lessMotion(t, page)
	over := tvLane(t, s, "1번 레인", "AAA", "BBB", "CCC")
	on := tvLane(t, s, "2번 레인", "DDD", "EEE")
	do(t, page, "open the house screen", chromedp.Navigate(s.url+"/tv?lanes="+over.id+","+on.id))
	until(t, page, "two boards", `[...document.querySelectorAll(".tv-board tbody")].map((b) => b.querySelectorAll("tr[data-row=marks]").length).join() === "3,2"`)
	do(t, page, "watch for motion", chromedp.Evaluate[chromedp.Void](`window.moved = []; document.addEventListener("animationstart", (e) => window.moved.push(e.animationName)); document.addEventListener("transitionstart", (e) => window.moved.push(e.propertyName))`))
	tvPlay(over, func(*protocol.Board) bool { return false })
	until(t, page, "the game's end, in Korean", `document.querySelector(".tv-end")?.checkVisibility() && document.querySelector(".tv-end").dataset.numbers === "shown"`)
	want := "AAA 300점으로 우승 / 1위 AAA 300 1 300.0 300 100% — / 2위 BBB 191 1 191.0 191 9% 100% / 3위 CCC 90 1 90.0 90 0% 0%"
	if got := eval[string](t, page, tvEnd); got != want {
		t.Errorf("the game's end shows %q, want %q", got, want)
	}
	if moved := eval[string](t, page, `window.moved.join() + (document.getAnimations().length ? " and " + document.getAnimations().length + " animations" : "")`); moved != "" {
		t.Errorf("motion for viewers who asked for less: %s", moved)
	}
	for _, sc := range []screen{tv720, tv1080} {
		show(t, page, sc)
		if why := eval[string](t, page, tvEndFits); why != "" {
			t.Errorf("%s: %s", sc.name, why)
		}
		if broken := eval[string](t, page, brokenWords); broken != "" {
			t.Errorf("%s: words broken across lines: %s", sc.name, broken)
		}
	}
	if words := eval[string](t, page, asciiWords(names[:5]...)); words != "" {
		t.Errorf("the house screen in Korean shows English: %s", words)
	}
	on.rollAs("DDD", 10)
	until(t, page, "the other lane plays on", `document.querySelectorAll(".tv-lane")[1].querySelector('tr[data-player="DDD"] td.marks[data-frame="1"]').textContent === "X" && `+`document.querySelectorAll(".tv-lane")[1].querySelector(".tv-board").checkVisibility()`)
}

// The TV views have no accessibility violation axe-core finds, in
// English and in Korean: a game's end on a lane's TV, a TV for a lane
// that is not there, and a house screen with a game over, a game in play
// and a lane that is not there.
func TestTVAccessibility(t *testing.T) {
	src := axeSource(t)
	for _, lang := range []string{"en-US", "ko-KR"} {
		t.Run(lang, func(t *testing.T) {
			s := serve(t, lobby.Config{})
			p := browser(t, inLanguage(lang)...)()
			show(t, p, tv720)
			check := func(view string) {
				t.Helper()
				if v := axeViolations(t, p, src); v != "" {
					t.Errorf("%s, %s:\n%s", lang, view, v)
				}
			}
			over := tvLane(t, s, "Axe", "AAA", "BBB", "CCC")
			on := tvLane(t, s, "Axe 2", "DDD", "EEE")
			do(t, p, "the TV view", chromedp.Navigate(s.url+"/lanes/"+over.id+"/tv"))
			until(t, p, "the board on the TV", `document.querySelectorAll(".tv-board tr[data-row=marks]").length === 3`)
			tvPlay(over, func(*protocol.Board) bool { return false })
			until(t, p, "the game's end", `document.querySelector(".tv-end")?.checkVisibility() && document.querySelector(".tv-end").dataset.numbers === "shown"`)
			do(t, p, "let it arrive", chromedp.Evaluate[chromedp.Void](`document.getAnimations().forEach((a) => a.finish())`))
			check("a game's end on the TV")

			do(t, p, "a TV for no lane", chromedp.Navigate(s.url+"/lanes/nosuch/tv"))
			until(t, p, "no such lane", `document.querySelector(".tv-lane").classList.contains("missing")`)
			check("a TV for a lane that is not there")

			do(t, p, "the house screen", chromedp.Navigate(s.url+"/tv?lanes="+over.id+","+on.id+",nosuch"))
			until(t, p, "three quarters", `document.querySelector(".tv-end")?.dataset.numbers === "shown" && document.querySelectorAll(".tv-lane")[1].querySelector(".tv-up").textContent !== "" && document.querySelectorAll(".tv-lane")[2].classList.contains("missing")`)
			check("a house screen")
		})
	}
}
