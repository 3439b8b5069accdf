package web_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// pdfPage is a page object of a PDF: "/Type /Page", not "/Type /Pages",
// the tree that holds them.
var pdfPage = regexp.MustCompile(`/Type\s*/Page[^s]`)

// papers are the sheets a phone prints on, in inches.
var papers = []struct {
	name          string
	width, height float64
}{
	{"A4", 8.27, 11.69},
	{"Letter", 8.5, 11},
}

// media makes the page laid out for the medium given ("print"; "" for
// the screen again).
func media(t *testing.T, ctx context.Context, m string) {
	t.Helper()
	do(t, ctx, "media "+m, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: m})
		return err
	}))
}

// frameOneSeen is the expression for the players whose frame 1 is not
// seen beside their name, "" when every one's is: the name's cell ends
// where frame 1 begins, and nothing covers frame 1's middle.
const frameOneSeen = `(() => {
	const out = [];
	for (const tr of document.querySelectorAll("#board tr[data-row=marks]")) {
		const name = tr.querySelector("th.name"), one = tr.querySelector('td.marks[data-frame="1"]');
		one.scrollIntoView({ block: "center", inline: "nearest" });
		const n = name.getBoundingClientRect(), r = one.getBoundingClientRect();
		const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
		if (n.right > r.left + 0.5) out.push(tr.dataset.player + "'s name, " + Math.round(n.left) + "–" + Math.round(n.right) + " px, over frame 1, " + Math.round(r.left) + "–" + Math.round(r.right) + " px");
		else if (!hit || !one.contains(hit)) out.push(tr.dataset.player + "'s frame 1 covered by " + (hit ? hit.outerHTML.slice(0, 60) : "nothing"));
	}
	return out.join("; ");
})()`

// Printed from a phone after a game of eight, the lane is one clean
// sheet, A4 or Letter: the result, the whole board and the night's
// numbers, and no second page, blank or not. Laid out for print at the
// phone's width, nothing sticks (the name and total columns stick on the
// screen only): every player's frame 1 is seen beside their name, and
// nothing is wider than the paper.
func TestPrintOnAPhone(t *testing.T) {
	s := serve(t, lobby.Config{})
	for _, lang := range []string{"en-US", "ko-KR"} {
		t.Run(lang, func(t *testing.T) {
			p := browser(t, inLanguage(lang)...)()
			show(t, p, phone)
			tb := newTableIn(t, s, p, "Friday night league — Starlight Lanes 12", "AAA", names...)
			tb.playSplits("BBB", func(*protocol.Board) bool { return false })
			until(t, p, "the game over, the night's numbers", `document.querySelector("#play").dataset.phase === "finished" && !document.querySelector("#ranking").hidden && document.querySelectorAll("#stats-table thead th[data-player]").length === 8`)

			for _, paper := range papers {
				pdf, err := chromedp.Call(p, page.PrintToPDF, page.PrintToPDFParams{PaperWidth: paper.width, PaperHeight: paper.height})
				if err != nil {
					t.Fatalf("printing on %s: %v", paper.name, err)
				}
				if dir := os.Getenv("TENPIN_SCREENSHOT_DIR"); dir != "" {
					os.WriteFile(filepath.Join(dir, "print-"+lang+"-"+paper.name+".pdf"), pdf.Data, 0o644)
				}
				if n := len(pdfPage.FindAll(pdf.Data, -1)); n != 1 {
					t.Errorf("printed on %s, the lane is %d pages, want 1", paper.name, n)
				}
			}

			media(t, p, "print")
			defer media(t, p, "")
			if got := eval[string](t, p, `[...document.querySelectorAll("#board th, #board td")].filter((c) => getComputedStyle(c).position === "sticky").map((c) => c.className).filter((c, i, all) => all.indexOf(c) === i).join(", ")`); got != "" {
				t.Errorf("printed, the board's %s cells stick", got)
			}
			if why := eval[string](t, p, frameOneSeen); why != "" {
				t.Errorf("printed: %s", why)
			}
			if !eval[bool](t, p, notWider) {
				t.Errorf("printed at a phone's width, the page is %d px wide in %d", eval[int](t, p, `document.documentElement.scrollWidth`), phone.width)
			}
			screenshot(t, p, "print-"+lang+".png")
		})
	}
}
