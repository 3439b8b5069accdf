package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestHostPolicy(t *testing.T) {
	tests := []struct {
		flag, hostname string
		allowed        []string
		refused        []string
	}{
		{
			flag: "", hostname: "bowling",
			allowed: []string{"", "localhost", "localhost:8080", "LOCALHOST.", "app.localhost:8080", "127.0.0.1", "127.0.0.1:8080", "192.168.1.20:8080", "[::1]:8080", "[fe80::1]", "bowling", "bowling:8080", "Bowling.local:8080"},
			refused: []string{"evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.1.evil.example", "bowling.evil.example", "other.local", "xlocalhost"},
		},
		{
			flag: "tenpin.example, *.alley.example", hostname: "bowling.lan",
			allowed: []string{"tenpin.example", "TENPIN.example:443", "lane3.alley.example", "a.b.alley.example", "bowling.lan", "bowling.local", "localhost"},
			refused: []string{"alley.example", "tenpin.example.evil.example", "evil.example", "bowling"},
		},
		{
			flag: "*", hostname: "",
			allowed: []string{"evil.example", "anything.at.all:1234", "localhost"},
		},
		{
			flag: "", hostname: "", // hostname unknown
			allowed: []string{"localhost", "10.0.0.1"},
			refused: []string{".local", "local"},
		},
	}
	for _, tt := range tests {
		p, err := newHostPolicy(tt.flag, tt.hostname)
		if err != nil {
			t.Fatalf("newHostPolicy(%q, %q): %v", tt.flag, tt.hostname, err)
		}
		for _, h := range tt.allowed {
			if !p.allows(h) {
				t.Errorf("-host %q on %q: allows(%q) = false, want true", tt.flag, tt.hostname, h)
			}
		}
		for _, h := range tt.refused {
			if p.allows(h) {
				t.Errorf("-host %q on %q: allows(%q) = true, want false", tt.flag, tt.hostname, h)
			}
		}
	}
}

func TestListenName(t *testing.T) {
	for addr, want := range map[string]string{
		"localhost:8080":         "localhost",
		"tenpin.example:80":      "tenpin.example",
		":8080":                  "",
		"0.0.0.0:8080":           "",
		"[::1]:8080":             "",
		"192.168.1.20:8080":      "",
		"no port":                "",
		"a*b.example:80":         "",
		"a.example,b.example:80": "",
	} {
		if got := listenName(addr); got != want {
			t.Errorf("listenName(%q) = %q, want %q", addr, got, want)
		}
	}
}

// A request for a name the server was not told it has — what a DNS
// rebinding page sends — is refused 421, on every route, the WebSocket's
// upgrade and the debug listener included, with an error that names the
// flag that allows it. The names it has are served.
func TestHostCheck(t *testing.T) {
	srv := serveForTest(t, "-memory", "-host", "tenpin.example,*.alley.example", "-debug-addr", "127.0.0.1:0")
	if !strings.Contains(srv.printed, "tenpin answers to: IP addresses, ") || !strings.Contains(srv.printed, "tenpin.example") {
		t.Errorf("the startup lines do not say which names the server answers to:\n%s", srv.printed)
	}
	id := createLaneAt(t, srv.url, "rebinding")
	request := func(base, method, path, host string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(`{"name":"rebound"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	routes := []struct{ method, path string }{
		{"GET", "/"},
		{"GET", "/lanes/" + id},
		{"GET", "/static/app.js"},
		{"GET", "/api/lanes"},
		{"GET", "/api/lanes/" + id},
		{"POST", "/api/lanes"},
		{"GET", "/healthz"},
	}
	for _, host := range []string{"evil.example", "evil.example:8080", "alley.example"} {
		for _, r := range routes {
			res, body := request(srv.url, r.method, r.path, host)
			if res.StatusCode != http.StatusMisdirectedRequest || !strings.Contains(body, `"code":"host_not_allowed"`) || !strings.Contains(body, "-host "+canonicalHost(host)) {
				t.Errorf("%s %s for Host %s: %s %s; want 421 host_not_allowed naming -host", r.method, r.path, host, res.Status, body)
			}
			if res.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s %s for Host %s: no nosniff", r.method, r.path, host)
			}
		}
		if res, _ := request(srv.debug, "GET", "/metrics", host); res.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("GET /metrics on the debug listener for Host %s: %s, want 421", host, res.Status)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ws, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.url, "http")+"/ws/lanes/"+id, &websocket.DialOptions{Host: host})
		cancel()
		if err == nil {
			ws.CloseNow()
			t.Errorf("a WebSocket for Host %s was accepted", host)
		} else if res == nil || res.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("a WebSocket for Host %s: %v %v, want 421", host, res, err)
		}
	}
	if n := createdLanes(t, srv.url); n != 1 {
		t.Errorf("%d lanes after the refused POSTs, want 1", n)
	}

	// The names it has.
	port := srv.url[strings.LastIndex(srv.url, ":"):]
	for _, host := range []string{"tenpin.example", "lane3.alley.example", "localhost" + port, "127.0.0.1" + port} {
		for _, r := range routes[:4] {
			if res, body := request(srv.url, r.method, r.path, host); res.StatusCode != http.StatusOK {
				t.Errorf("%s %s for Host %s: %s %.200s", r.method, r.path, host, res.Status, body)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.url, "http")+"/ws/lanes/"+id, &websocket.DialOptions{Host: host})
		if err != nil {
			t.Errorf("a WebSocket for Host %s: %v", host, err)
		} else {
			if _, _, err := ws.Read(ctx); err != nil {
				t.Errorf("a WebSocket for Host %s: no board: %v", host, err)
			}
			ws.CloseNow()
		}
		cancel()
	}
	if err := srv.stop(); err != nil {
		t.Errorf("server: %v", err)
	}

	// -host '*': any name.
	srv = serveForTest(t, "-memory", "-host", "*")
	if res, body := request(srv.url, "GET", "/api/lanes", "evil.example"); res.StatusCode != http.StatusOK {
		t.Errorf("-host '*': GET /api/lanes for Host evil.example: %s %s", res.Status, body)
	}
}

// createdLanes returns how many lanes the server at url lists.
func createdLanes(t *testing.T, url string) int {
	t.Helper()
	_, body := get(t, url+"/api/lanes")
	return strings.Count(body, `"id"`)
}
