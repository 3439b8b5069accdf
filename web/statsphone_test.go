package web_test

import (
	"testing"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// On a phone the night's numbers show every bowler of five side by side,
// with no column hidden past the screen's edge, and their region takes
// the keyboard's focus (axe-core: scrollable-region-focusable).
func TestStatsShowEveryBowlerOnAPhone(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t)()
	show(t, page, phone)
	tb := newTable(t, s, page, "Five", "", "AAA", "BBB", "CCC", "DDD", "EEE")
	tb.play(func(b *protocol.Board) bool { return b.Up.Frame == 2 })
	until(t, page, "the numbers of five", `document.querySelectorAll("#stats-table thead th[data-player]").length === 5 && !document.querySelector("#stats").hidden`)
	wrap := `document.querySelector(".stats-wrap")`
	if got := eval[bool](t, page, wrap+`.scrollWidth <= `+wrap+`.clientWidth`); !got {
		w := eval[int](t, page, wrap+`.scrollWidth`)
		c := eval[int](t, page, wrap+`.clientWidth`)
		t.Errorf("the numbers are %d px wide in %d: a bowler is hidden past the edge", w, c)
	}
	if got := eval[string](t, page, wrap+`.getAttribute("tabindex")`); got != "0" {
		t.Errorf("the numbers' region has tabindex %q, want 0", got)
	}
}
