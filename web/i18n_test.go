package web_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
)

// protocolCodes lists the error codes protocol/errors.go declares: every
// constant of type Code, read from the source so that a code added there
// is checked here without anyone copying it.
func protocolCodes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../protocol/errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Code" {
				continue
			}
			for _, val := range v.Values {
				lit, ok := val.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("a Code constant's value is not a string literal: %#v", val)
				}
				code, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				codes = append(codes, code)
			}
		}
	}
	if len(codes) < 20 {
		t.Fatalf("found %d codes in protocol/errors.go: the parse missed them", len(codes))
	}
	return codes
}

var (
	// tableKey is a key of a message table: "  name:" at the table's
	// level, "    code:" in its errors.
	tableKey  = regexp.MustCompile(`(?m)^  ([A-Za-z_]+):`)
	errorsKey = regexp.MustCompile(`(?m)^    ([a-z_]+):`)
)

// messageTable reads a language's table, static/js/i18n/{lang}.js: its
// keys, and those of its errors.
func messageTable(t *testing.T, lang string) (keys, errors []string) {
	t.Helper()
	src, err := os.ReadFile("static/js/i18n/" + lang + ".js")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	start := strings.Index(s, "\n  errors: {\n")
	if start < 0 {
		t.Fatalf("%s.js has no errors table", lang)
	}
	end := strings.Index(s[start:], "\n  },\n")
	if end < 0 {
		t.Fatalf("%s.js: the errors table does not end", lang)
	}
	for _, m := range errorsKey.FindAllStringSubmatch(s[start:start+end], -1) {
		errors = append(errors, m[1])
	}
	for _, m := range tableKey.FindAllStringSubmatch(s, -1) {
		keys = append(keys, m[1])
	}
	return keys, errors
}

// Every error code of the server's has the page's own words in every
// language, and both languages have the same messages: the page never
// shows the server's English, nor a key.
func TestEveryCodeTranslated(t *testing.T) {
	codes := protocolCodes(t)
	enKeys, _ := messageTable(t, "en")
	for _, lang := range []string{"en", "ko"} {
		t.Run(lang, func(t *testing.T) {
			keys, errors := messageTable(t, lang)
			for _, code := range codes {
				if !slices.Contains(errors, code) {
					t.Errorf("%s.js has no words for the code %q", lang, code)
				}
			}
			if !slices.Contains(errors, "unknown") {
				t.Errorf("%s.js has no words for a code it does not know (unknown)", lang)
			}
			for _, k := range enKeys {
				if !slices.Contains(keys, k) {
					t.Errorf("%s.js lacks the message %q", lang, k)
				}
			}
			for _, k := range keys {
				if !slices.Contains(enKeys, k) {
					t.Errorf("%s.js has the message %q, which en.js lacks", lang, k)
				}
			}
		})
	}
}

// inLanguage is the command line of a Chromium whose user speaks lang
// first (navigator.languages and Accept-Language).
func inLanguage(lang string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.Flag("lang", lang),
		chromedp.Flag("accept-lang", lang),
		chromedp.Env("LANGUAGE=" + strings.ReplaceAll(lang, "-", "_")),
	}
}

// A first visit shows the page in the browser's language: Korean for a
// Korean browser, English for an English one, and <html lang> says so.
func TestFirstVisitLanguage(t *testing.T) {
	s := serve(t, lobby.Config{})
	for _, tt := range []struct {
		browser, lang, heading, create string
		other, otherHeading            string // the other language, on the switch
	}{
		{"ko-KR", "ko", "레인", "레인 만들기", "en", "Lanes"},
		{"en-US", "en", "Lanes", "Create lane", "ko", "레인"},
	} {
		t.Run(tt.browser, func(t *testing.T) {
			p := browser(t, inLanguage(tt.browser)...)()
			do(t, p, "the lobby", chromedp.Navigate(s.url+"/"))
			until(t, p, "the lobby in "+tt.lang, `document.documentElement.lang === `+js(tt.lang)+
				` && document.querySelector("#lobby h2").textContent === `+js(tt.heading)+
				` && document.querySelector("#create-form button[type=submit]").textContent === `+js(tt.create))
			if got := eval[string](t, p, `navigator.languages[0]`); !strings.HasPrefix(got, tt.lang) {
				t.Errorf("the browser's first language is %q, want %s", got, tt.browser)
			}
			// The lobby's switch, remembered.
			do(t, p, "switch", chromedp.Click(chromedp.CSS(`.lang button[data-lang=`+js(tt.other)+`]`)))
			other := `document.documentElement.lang === ` + js(tt.other) + ` && document.querySelector("#lobby h2").textContent === ` + js(tt.otherHeading)
			until(t, p, "the lobby in "+tt.other, other)
			do(t, p, "reload", chromedp.Reload())
			until(t, p, "still in "+tt.other+" after a reload", other)
		})
	}
}

// asciiWords is the expression for the words of two or more Latin letters
// in the text the page shows or reads out — its text, visually hidden
// text for screen readers included, and the accessible names and titles
// of what is shown — but for the names given and the language switch,
// where English names itself: what a page in Korean must not say.
func asciiWords(names ...string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = js(n)
	}
	return `(() => {
	const allowed = new Set([` + strings.Join(quoted, ",") + `]);
	const found = [];
	const check = (text, e, where) => {
		for (const w of text.match(/[A-Za-z]{2,}/g) || []) {
			if (!allowed.has(w)) found.push(w + " in <" + e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + where + ">");
		}
	};
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walk.nextNode(); n; n = walk.nextNode()) {
		const e = n.parentElement;
		if (!e || e.closest(".lang") || !e.checkVisibility({ visibilityProperty: true })) continue;
		check(n.textContent, e, "");
	}
	check(document.title, document.documentElement, " title");
	for (const e of document.querySelectorAll("[aria-label], [title], [alt], [placeholder]")) {
		if (e.closest(".lang") || !e.checkVisibility({ visibilityProperty: true })) continue;
		for (const a of ["aria-label", "title", "alt", "placeholder"]) {
			if (e.hasAttribute(a)) check(e.getAttribute(a), e, " " + a);
		}
	}
	return found.join(", ");
})()`
}

// A Korean page says everything in Korean: the lobby, the lane, the pad,
// the board, the news, the page's own words for the server's refusals.
// No word of English shows but the players' names. The switch turns it
// to English, and the choice is kept across a reload.
func TestKoreanPage(t *testing.T) {
	s := serve(t, lobby.Config{})
	p := browser(t, inLanguage("ko-KR")...)()
	show(t, p, phone)
	do(t, p, "the lobby", chromedp.Navigate(s.url+"/"))
	id := createLane(t, s, "금요일 밤")
	until(t, p, "the lane listed, in Korean", `document.documentElement.lang === "ko" && document.querySelectorAll("#lanes tbody a").length === 1 && document.querySelector("#conn").classList.contains("ok")`)
	if words := eval[string](t, p, asciiWords()); words != "" {
		t.Errorf("the lobby in Korean shows English: %s", words)
	}

	// Jo takes a seat first, through the protocol's client.
	ctx, cancel := context.WithTimeout(t.Context(), step)
	defer cancel()
	jo := seatPlayer(t, ctx, s, id, "Jo")
	do(t, p, "open the lane", chromedp.Navigate(invited(t, s.url, id)))
	until(t, p, "the lane", `document.querySelector("#conn").classList.contains("ok") && document.querySelectorAll("#board tr[data-row=marks]").length === 1`)
	// The server refuses a name taken: in the page's Korean words.
	do(t, p, "join as Jo too", chromedp.SendKeys(chromedp.CSS("#join-name"), "Jo"), chromedp.Click(chromedp.CSS("#join")))
	until(t, p, "the refusal, in Korean", `document.querySelector("#join-error").textContent === "\u2068Jo\u2069은(는) 이미 이 레인에 있습니다."`)
	if words := eval[string](t, p, asciiWords("Jo")); words != "" {
		t.Errorf("the lane in Korean shows English: %s", words)
	}
	clear(t, p, "#join-name")
	do(t, p, "join as 홍길동", chromedp.SendKeys(chromedp.CSS("#join-name"), "홍길동"), chromedp.Click(chromedp.CSS("#join")))
	until(t, p, "seated", `document.querySelector("#me").textContent === "나는 홍길동입니다."`)
	if _, err := jo.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := jo.Roll(ctx, 1, 1, 10); err != nil {
		t.Fatal(err)
	}
	// 홍길동's turn: a key that cannot be this ball is refused in Korean,
	// then a ball bowled on the pad.
	until(t, p, "홍길동 up", padReady("홍길동", 10))
	// The pad in Korean: the deck's pins and the whole-ball buttons.
	pad := `document.querySelector('#pin-deck button[data-pin="7"]').getAttribute("aria-label") + " / " + [...document.querySelectorAll("#quick button")].map(b => b.textContent).join(" / ")`
	if got, want := eval[string](t, p, pad), "핀 7, 서 있음 / X 스트라이크 / - 거터 / F 파울 / 쓰러진 핀을 누르세요"; got != want {
		t.Errorf("the pad in Korean reads %q, want %q", got, want)
	}
	do(t, p, "press /", chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`), chromedp.KeyEvent("/"))
	until(t, p, "the key refused, in Korean", `document.querySelector("#lane-error").textContent.startsWith("/는 스페어로")`)
	do(t, p, "bowl 7", chromedp.Click(chromedp.CSS(`#pins button[data-pins="7"]`)))
	until(t, p, "the 7 on the board, said in Korean", marks("홍길동", 1)+` === "7" && document.querySelector("#log li").textContent === "홍길동 — 1프레임, 1구: 7핀"`)
	// The night's numbers, in Korean.
	until(t, p, "the numbers in Korean", `!document.querySelector("#stats").hidden && document.querySelector("#stats-title").textContent === "오늘의 기록" && document.querySelector('#stats-table tr[data-stat="statStrikes"] th').textContent === "스트라이크" && document.querySelector('#stats-table tr[data-stat="statStrikes"] td[data-player="Jo"]')?.textContent === "100%"`)
	if words := eval[string](t, p, asciiWords("Jo")); words != "" {
		t.Errorf("the lane in Korean, in play, shows English: %s", words)
	}
	// The correction dialog, in Korean.
	do(t, p, "tap frame 1", chromedp.Click(chromedp.CSS(frameButton("홍길동", 1))))
	until(t, p, "the correction dialog", dialogOpen("correct-dialog")+` && document.querySelector("#correct-title").textContent === "내 1프레임 고치기"`)
	if words := eval[string](t, p, asciiWords("Jo")); words != "" {
		t.Errorf("the correction dialog in Korean shows English: %s", words)
	}
	do(t, p, "cancel", chromedp.Click(chromedp.CSS("#correct-cancel")))
	keep(t, p, "korean.png")

	// The switch: English at once, and after a reload.
	do(t, p, "switch to English", chromedp.Click(chromedp.CSS(`.lang button[data-lang="en"]`)))
	english := `document.documentElement.lang === "en" && document.querySelector("#me").textContent === "You are 홍길동." && document.querySelector("#log li").textContent === "홍길동 — frame 1, ball 1: 7 pins" && document.querySelector('.lang button[data-lang="en"]').getAttribute("aria-pressed") === "true"`
	until(t, p, "the page in English", english)
	// The same walk finds the English it looks for.
	if words := eval[string](t, p, asciiWords("Jo")); !strings.Contains(words, "You in <p#me>") {
		t.Errorf("in English the walk for English words finds %q, want You in <p#me> among them", words)
	}
	do(t, p, "reload", chromedp.Reload())
	until(t, p, "still in English after a reload", english)
	do(t, p, "switch back to Korean", chromedp.Click(chromedp.CSS(`.lang button[data-lang="ko"]`)))
	do(t, p, "reload", chromedp.Reload())
	until(t, p, "Korean after a reload", `document.documentElement.lang === "ko" && document.querySelector("#me").textContent === "나는 홍길동입니다."`)
}
