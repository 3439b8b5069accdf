package lobby_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tenpin/tenpin/lobby"
)

// TestAPIHeaders: every answer of the API — JSON, text, errors, refused
// upgrades — says nosniff (no browser takes JSON for a page or a script)
// and no-referrer (no lane's URL, its invitation, leaks to another site).
func TestAPIHeaders(t *testing.T) {
	s := newServer(t, lobby.Config{CreateBurst: 1})
	id := s.createLane(t, "headers") // spends the address's one creation
	tests := []struct {
		method, path, contentType string
		status                    int
	}{
		{"GET", "/api/lanes", "", 200},
		{"GET", "/api/lanes?limit=0", "", 400},
		{"GET", "/api/lanes/" + id, "", 200},
		{"GET", "/api/lanes/" + id + "/board.txt", "", 200},
		{"GET", "/api/lanes/" + id + "/games", "", 200},
		{"GET", "/api/lanes/" + id + "/stats", "", 200},
		{"GET", "/api/lanes/" + id + "/games.csv", "", 200},
		{"GET", "/api/lanes/nosuchlane", "", 404},
		{"GET", "/api/nothing", "", 404},
		{"POST", "/api/lanes", "text/plain", 415},
		{"POST", "/api/lanes", "application/json", 429},
		{"GET", "/ws/lanes/nosuchlane", "", 404},
		{"GET", "/ws/lanes/" + id, "", 426}, // not an upgrade
		{"GET", "/healthz", "", 200},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, s.srv.URL+tt.path, strings.NewReader(`{"name":"x"}`))
		if tt.contentType != "" {
			req.Header.Set("Content-Type", tt.contentType)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tt.status {
			t.Errorf("%s %s: %s, want %d", tt.method, tt.path, res.Status, tt.status)
		}
		for name, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"} {
			if got := res.Header.Get(name); got != want {
				t.Errorf("%s %s: %s %q, want %q", tt.method, tt.path, name, got, want)
			}
		}
	}
}

// TestOnlyHealthzAnswersOtherOrigins: a page served by another node of
// the cluster may read /healthz (it probes a node before moving to it),
// and nothing else of the API.
func TestOnlyHealthzAnswersOtherOrigins(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "cors")
	for _, tt := range []struct {
		path string
		want string
	}{
		{"/healthz", "*"},
		{"/api/lanes", ""},
		{"/api/lanes/" + id, ""},
		{"/api/nodes", ""},
	} {
		req, _ := http.NewRequest("GET", s.srv.URL+tt.path, nil)
		req.Header.Set("Origin", "http://192.168.1.21:8080")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if got := res.Header.Get("Access-Control-Allow-Origin"); got != tt.want {
			t.Errorf("GET %s from another origin: Access-Control-Allow-Origin %q, want %q", tt.path, got, tt.want)
		}
	}
}
