package web_test

import (
	"context"
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

// inOrder is the expression for whether the text of the element sel
// reads left to right from after the quoted name on: the first letter of
// phrase is drawn left of its last, as it would not be in a sentence a
// right-to-left override turned around.
func inOrder(sel, phrase string) string {
	return `(() => {
	const e = document.querySelector(` + js(sel) + `);
	const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
	for (let n = walk.nextNode(); n; n = walk.nextNode()) {
		const at = n.data.indexOf(` + js(phrase) + `);
		if (at < 0) continue;
		const x = (i) => { const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1); return r.getBoundingClientRect().left; };
		return x(at) < x(at + ` + js(phrase) + `.length - 1);
	}
	return false;
})()`
}

// A refusal that quotes a name reads in order, whatever the name holds:
// a right-to-left override in it, named again as the character refused,
// turns nothing around.
func TestQuotedNamesReadInOrder(t *testing.T) {
	page := joinForm(t)
	do(t, page, "a name with an override", chromedp.Evaluate[chromedp.Void](`document.querySelector("#join-name").value = "Jo\u202Eol"`), chromedp.Click(chromedp.CSS("#join")))
	until(t, page, "the override refused", `document.querySelector("#join-error").textContent.includes("a name is letters")`)
	if !eval[bool](t, page, inOrder("#join-error", "a name is letters")) {
		t.Errorf("the refusal reads backwards: %q", eval[string](t, page, `document.querySelector("#join-error").textContent`))
	}
	if got, want := eval[string](t, page, `document.querySelector("#join-error").textContent`), "“\u2068Jo\u202Eol\u2069” has U+202E: a name is letters"; !strings.HasPrefix(got, want) {
		t.Errorf("the refusal reads %q, want it to start %q", got, want)
	}
}

// A refusal that quotes a name of 200 letters without a space wraps on
// a phone instead of widening the page.
func TestLongNameWraps(t *testing.T) {
	page := joinForm(t)
	long := strings.Repeat("w", 200)
	do(t, page, "a name of 200 letters", chromedp.Evaluate[chromedp.Void](`document.querySelector("#join-name").value = `+js(long)), chromedp.Click(chromedp.CSS("#join")))
	until(t, page, "the long name refused", `document.querySelector("#join-error").textContent.includes("is 200 letters")`)
	if !eval[bool](t, page, notWider) {
		t.Errorf("a refusal quoting a name of 200 letters widens the page to %d px in %d", eval[int](t, page, `document.documentElement.scrollWidth`), eval[int](t, page, `document.documentElement.clientWidth`))
	}
	if !eval[bool](t, page, inOrder("#join-error", "is 200 letters")) {
		t.Errorf("the refusal reads backwards: %q", eval[string](t, page, `document.querySelector("#join-error").textContent`))
	}
}

// joinForm opens a lane's join form on a phone.
func joinForm(t *testing.T) context.Context {
	t.Helper()
	s := serve(t, lobby.Config{})
	id := createLane(t, s, "Names")
	page := browser(t)()
	show(t, page, phone)
	do(t, page, "open the lane", chromedp.Navigate(invited(t, s.url, id)))
	until(t, page, "the join form", `document.querySelector("#conn").classList.contains("ok") && document.querySelector("#join-form").checkVisibility()`)
	return page
}
