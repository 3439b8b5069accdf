package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
)

// A name the page cannot send is refused on the page, saying why: one of
// 500 combining marks (past the bytes a name may take, which would not
// fit in a message the server reads) and one holding a right-to-left
// override, which the sentence quoting it sets apart so that it cannot
// turn the sentence around. The connection stays up.
func TestRefusedNamesSayWhy(t *testing.T) {
	s := serve(t, lobby.Config{})
	id := createLane(t, s, "Names")
	page := browser(t)()
	do(t, page, "open the lane", chromedp.Navigate(invited(t, s.url, id)))
	until(t, page, "the join form", `document.querySelector("#conn").classList.contains("ok") && document.querySelector("#join-form").checkVisibility()`)
	zalgo := "a" + strings.Repeat("\u0301", 500)
	do(t, page, "a name of 500 marks", chromedp.Evaluate[chromedp.Void](`document.querySelector("#join-name").value = `+js(zalgo)), chromedp.Click(chromedp.CSS("#join")))
	until(t, page, "the bytes refused", `document.querySelector("#join-error").textContent.startsWith("That name takes 1001 bytes, past the 240")`)
	do(t, page, "a name with an override", chromedp.Evaluate[chromedp.Void](`document.querySelector("#join-name").value = "Jo\u202Eol"`), chromedp.Click(chromedp.CSS("#join")))
	until(t, page, "the override refused, set apart", `document.querySelector("#join-error").textContent.startsWith("“\u2068Jo\u202Eol\u2069” has")`)
	if got := eval[string](t, page, `document.querySelector("#conn").className`); !strings.Contains(got, "ok") {
		t.Errorf("after the refusals the connection is %q, want it up", got)
	}
}
