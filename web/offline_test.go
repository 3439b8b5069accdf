package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/web"
)

// workerVersion holds when the page is served by the service worker of
// version v, whose cache is the only one of tenpin's.
func workerVersion(v string) string {
	return `(async () => !!navigator.serviceWorker.controller && JSON.stringify((await caches.keys()).filter(k => k.startsWith("tenpin-"))) === ` + js(`["tenpin-`+v+`"]`) + `)()`
}

// A new version of the page is offered, not mixed in: a lane's page
// served by the service worker of one version, reloaded once the server
// is a new release, still comes from the version it had, and offers a
// reload (in English and in Korean); the reload hands the page to the
// new version, whose cache is then the only one.
func TestNewVersionOffersAReload(t *testing.T) {
	s := serve(t, lobby.Config{})
	id := createLane(t, s, "New version")
	p := browser(t)()
	do(t, p, "open the lane", chromedp.Navigate(s.url+"/lanes/"+id))
	until(t, p, "the page served by its worker", workerVersion(web.Version()))
	const offered = `document.querySelector("#update").checkVisibility()`
	if eval[bool](t, p, offered) {
		t.Fatal("a page of the only version offers a new one")
	}

	s.setPage(web.HandlerVersion("next"))
	do(t, p, "reload the lane", chromedp.Reload())
	until(t, p, "the new version offered", offered+` && document.querySelector("#update").textContent.startsWith("A new version of tenpin is ready.")`)
	if !eval[bool](t, p, `(async () => (await caches.keys()).includes("tenpin-"+`+js(web.Version())+`))()`, chromedp.EvalAwaitPromise) {
		t.Error("the old version's cache is gone while its page is open")
	}
	do(t, p, "switch to Korean", chromedp.Click(chromedp.CSS(`[data-lang="ko"]`)))
	until(t, p, "the offer in Korean", `document.querySelector("#update").textContent === "tenpin의 새 버전이 준비되었습니다. 새로 고침"`)

	do(t, p, "take the new version",
		chromedp.Evaluate[chromedp.Void](`window.before = true`),
		chromedp.Click(chromedp.CSS("#update-reload")))
	until(t, p, "the page reloaded from the new version", `window.before === undefined && !(`+offered+`) && `+workerVersion("next"))
}
