package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
)

// The lobby opened as localhost (or 127.0.0.1) warns that its links and
// QR codes open on this computer only, and shows the server's address
// that friends' phones can open, in English and in Korean; opened at a
// network address it warns of nothing. A server that knows no other
// address says so.
func TestLocalhostWarning(t *testing.T) {
	s := serve(t, lobby.Config{URLs: []string{"http://127.0.0.1:8080", "http://192.168.1.20:8080"}})
	shown := `!document.querySelector("#local-warning").hidden`
	address := `document.querySelector("#local-url").href + " " + document.querySelector("#local-url").textContent + " " + !document.querySelector("#local-use").hidden + " " + document.querySelector("#local-none").hidden`
	const want = "http://192.168.1.20:8080/ http://192.168.1.20:8080/ true true"
	port := s.url[strings.LastIndex(s.url, ":"):]
	for _, tt := range []struct{ browser, url, warning string }{
		{"en-US", s.url, "You opened this page as localhost: its links and QR codes open on this computer only, not on friends' phones."},
		{"ko-KR", "http://localhost" + port, "이 페이지를 로컬호스트 주소로 열었습니다: 링크와 큐알 코드가 이 컴퓨터에서만 열리고 친구의 휴대폰에서는 열리지 않습니다."},
	} {
		t.Run(tt.browser, func(t *testing.T) {
			p := browser(t, inLanguage(tt.browser)...)()
			do(t, p, "the lobby at "+tt.url, chromedp.Navigate(tt.url+"/"))
			until(t, p, "the warning and the address", shown+` && `+address+` === `+js(want))
			if got := eval[string](t, p, `document.querySelector("#local-warning p").textContent`); got != tt.warning {
				t.Errorf("the warning reads %q, want %q", got, tt.warning)
			}
			screenshot(t, p, "localhost-"+tt.browser+".png")
		})
	}

	// Opened at another name for this computer, as a phone opens the
	// network address: no warning.
	t.Run("network", func(t *testing.T) {
		p := browser(t, chromedp.Flag("host-resolver-rules", "MAP tenpin.test 127.0.0.1"))()
		do(t, p, "the lobby at tenpin.test", chromedp.Navigate("http://tenpin.test"+port+"/"))
		until(t, p, "the lobby", `location.hostname === "tenpin.test" && document.querySelector("#conn").classList.contains("ok")`)
		if eval[bool](t, p, shown) {
			t.Error("the lobby opened at a network address warns of localhost")
		}
	})

	// A server with no address of its own to give.
	t.Run("no other address", func(t *testing.T) {
		bare := serve(t, lobby.Config{})
		p := browser(t)()
		do(t, p, "the lobby", chromedp.Navigate(bare.url+"/"))
		until(t, p, "the warning, with no address", shown+` && document.querySelector("#local-warning").dataset.asked === "true" && document.querySelector("#local-none").checkVisibility() && document.querySelector("#local-use").hidden`)
	})
}
