package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
)

// The page installs on a phone's home screen: Chrome finds no
// installability error on the lobby, a lane or a bowler's page (a web
// app manifest with a name, a short name, 192 and 512 px icons, a start
// URL and display standalone), and the icons it names load, the 180 px
// apple-touch-icon among them. The lobby and a lane are served by the
// service worker that keeps them offline.
func TestInstallable(t *testing.T) {
	s := serve(t, lobby.Config{})
	id := createLane(t, s, "Home screen")
	p := browser(t)()
	for _, path := range []string{"/", "/lanes/" + id, "/me"} {
		do(t, p, path, chromedp.Navigate(s.url+path))
		if path != "/me" {
			// The lobby and the lanes are served by the service
			// worker, which keeps them for a phone with no network.
			until(t, p, path+" served by the service worker", `!!navigator.serviceWorker.controller && navigator.serviceWorker.controller.scriptURL === location.origin + "/sw.js"`)
		}
		m, err := chromedp.Call(p, page.GetAppManifest, page.GetAppManifestParams{})
		if err != nil {
			t.Fatalf("%s: the manifest: %v", path, err)
		}
		if m.URL == "" || len(m.Errors) > 0 {
			var errs []string
			for _, e := range m.Errors {
				errs = append(errs, e.Message)
			}
			t.Errorf("%s: manifest %q, errors %q; want one without errors", path, m.URL, errs)
		}
		res, err := chromedp.Call(p, page.GetInstallabilityErrors, cdp.Empty{})
		if err != nil {
			t.Fatalf("%s: installability: %v", path, err)
		}
		var errs []string
		for _, e := range res.InstallabilityErrors {
			// Each test's browser context is an incognito one, where
			// Chrome installs nothing: every other criterion is checked.
			if e.ErrorID == "in-incognito" {
				continue
			}
			args := []string{}
			for _, a := range e.ErrorArguments {
				args = append(args, a.Name+"="+a.Value)
			}
			errs = append(errs, fmt.Sprintf("%s %v", e.ErrorID, args))
		}
		if len(errs) > 0 {
			t.Errorf("%s: not installable: %s", path, strings.Join(errs, "; "))
		}
	}
	for _, sel := range []string{`link[rel=manifest]`, `link[rel=apple-touch-icon]`} {
		got := eval[string](t, p, `fetch(document.querySelector('`+sel+`').href).then(r => r.status + " " + r.headers.get("Content-Type"))`, chromedp.EvalAwaitPromise)
		if !strings.HasPrefix(got, "200 ") {
			t.Errorf("%s: %s, want 200", sel, got)
		}
	}
}
