package web_test

import (
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tenpin/tenpin/web"
)

// Every response of the page — the page itself, its assets, and what is
// not found — carries the same security headers: none can be framed by
// another site (frame-ancestors), sniffed into another type, or leak its
// URL as a referrer.
func TestSecurityHeaders(t *testing.T) {
	srv := httptest.NewServer(web.Handler())
	defer srv.Close()
	tests := []struct {
		path   string
		status int
		ctype  string // the Content-Type's media type, if it matters
	}{
		{"/", 200, "text/html"},
		{"/lanes/k3x9mdq2vb", 200, "text/html"},
		// A module script is run only if served as JavaScript.
		{"/static/js/main.js", 200, "text/javascript"},
		{"/static/js/i18n/en.js", 200, "text/javascript"},
		{"/static/app.js", 200, "text/javascript"}, // the script's old name: it loads the modules
		{"/static/style.css", 200, "text/css"},
		{"/sw.js", 200, "text/javascript"}, // the service worker, whose scope is the root
		{"/static/index.html", 301, ""},    // FileServer redirects to the directory
		{"/static/", 200, ""},              // the directory: index.html
		{"/static/nothing.js", 404, ""},
		{"/nothing", 404, ""},
	}
	var csp string
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			res, err := client.Get(srv.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tt.status {
				t.Errorf("GET %s: %s, want %d", tt.path, res.Status, tt.status)
			}
			if ct, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); tt.ctype != "" && ct != tt.ctype {
				t.Errorf("GET %s: Content-Type %q, want %s", tt.path, res.Header.Get("Content-Type"), tt.ctype)
			}
			got := res.Header.Get("Content-Security-Policy")
			if csp == "" {
				csp = got
			}
			if !strings.Contains(got, "frame-ancestors 'none'") || !strings.Contains(got, "default-src 'self'") || got != csp {
				t.Errorf("GET %s: Content-Security-Policy %q, want %q (the page's, with frame-ancestors 'none')", tt.path, got, csp)
			}
			for name, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"} {
				if got := res.Header.Get(name); got != want {
					t.Errorf("GET %s: %s %q, want %q", tt.path, name, got, want)
				}
			}
		})
	}
}
