package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// startServer runs "tenpin serve" on a free loopback port and returns its
// URL, and a stop function that ends it as SIGINT would and returns run's
// error. Unless args say -data or -memory, it stores lanes in a new
// temporary directory.
func startServer(t *testing.T, args ...string) (string, func() error) {
	t.Helper()
	if !slices.ContainsFunc(args, func(a string) bool { return a == "-data" || a == "-memory" }) {
		args = append(args, "-data", t.TempDir())
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, append([]string{"serve", "-addr", "127.0.0.1:0", "-log-level", "warn"}, args...), strings.NewReader(""), pw, io.Discard)
		pw.Close()
		done <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no URL printed: %v (%v)", err, <-done)
	}
	go io.Copy(io.Discard, pr)
	url := strings.TrimSpace(strings.TrimPrefix(line, "tenpin serving on "))
	stop := func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(shutdownGrace + 5*time.Second):
			t.Fatal("server did not stop")
			return nil
		}
	}
	t.Cleanup(func() { cancel() })
	return url, stop
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestServe(t *testing.T) {
	url, stop := startServer(t)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("printed URL %q", url)
	}
	for _, path := range []string{"/", "/lanes/abc"} {
		res, body := get(t, url+path)
		if res.StatusCode != 200 || !strings.Contains(body, "<title>tenpin</title>") {
			t.Errorf("GET %s: %s", path, res.Status)
		}
	}
	if res, body := get(t, url+"/healthz"); res.StatusCode != 200 || body != "ok\n" {
		t.Errorf("GET /healthz: %s %q", res.Status, body)
	}

	// A lane, a player, and shutdown in the middle of the game.
	res, err := http.Post(url+"/api/lanes", "application/json", strings.NewReader(`{"name":"shutdown"}`))
	if err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("create lane: %v %v", res, err)
	}
	var lane struct{ ID string }
	json.NewDecoder(res.Body).Decode(&lane)
	res.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ws/lanes/"+lane.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	for _, m := range []string{`{"type":"join","name":"PJS"}`, `{"type":"start"}`, `{"type":"roll","pins":7,"frame":1,"ball":1,"id":"r"}`} {
		ws.Write(ctx, websocket.MessageText, []byte(m))
	}
	for { // read until the roll is acknowledged
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), `"ref":"r"`) {
			break
		}
	}

	var vars map[string]any
	res, body := get(t, url+"/debug/vars")
	if err := json.Unmarshal([]byte(body), &vars); err != nil || res.StatusCode != 200 {
		t.Fatalf("GET /debug/vars: %s %v", res.Status, err)
	}
	for _, name := range []string{"tenpin_connections", "tenpin_lanes", "tenpin_boards_sent", "tenpin_boards_skipped", "tenpin_goroutines", "tenpin_heap_bytes", "tenpin_rss_bytes"} {
		if _, ok := vars[name]; !ok {
			t.Errorf("/debug/vars has no %s", name)
		}
	}
	if vars["tenpin_connections"] != 1.0 || vars["tenpin_lanes"] != 1.0 {
		t.Errorf("connections %v, lanes %v; want 1 and 1", vars["tenpin_connections"], vars["tenpin_lanes"])
	}

	errc := make(chan error, 1)
	go func() { errc <- stop() }()
	var closeErr error
	for closeErr == nil {
		_, _, closeErr = ws.Read(ctx)
	}
	if got := websocket.CloseStatus(closeErr); got != websocket.StatusGoingAway {
		t.Errorf("socket closed with %v (%v), want 1001 going away", got, closeErr)
	}
	if err := <-errc; err != nil {
		t.Errorf("serve returned %v after a signal, want nil", err)
	}
}

func TestServeFlags(t *testing.T) {
	_, stderr, code := runCmd(t, "", "serve", "-log-level", "loud")
	if code != 1 || !strings.Contains(stderr, `-log-level "loud"`) {
		t.Errorf("bad -log-level: status %d, %q", code, stderr)
	}
	_, stderr, code = runCmd(t, "", "-addr", "256.0.0.1:99999")
	if code != 1 || !strings.Contains(stderr, "serve:") {
		t.Errorf("a bare tenpin with a bad -addr: status %d, %q", code, stderr)
	}
}
