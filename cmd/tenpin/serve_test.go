package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lobby"
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
	url, stop := startServer(t, "-pprof")
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
	for _, args := range [][]string{{"-create-burst", "0"}, {"-fsync", "soon"}, {"-fsync", "0s"}, {"-memory", "-nats", "nats://x"}} {
		_, stderr, code := runCmd(t, "", append([]string{"serve", "-addr", "127.0.0.1:0"}, args...)...)
		if code != 1 || !strings.Contains(stderr, args[0]) {
			t.Errorf("serve %v: status %d, %q; want 1 and an error naming %s", args, code, stderr, args[0])
		}
	}
	_, stderr, code = runCmd(t, "", "-addr", "256.0.0.1:99999")
	if code != 1 || !strings.Contains(stderr, "serve:") {
		t.Errorf("a bare tenpin with a bad -addr: status %d, %q", code, stderr)
	}
}

// The operators' endpoints tell anyone the command line and the memory:
// they are served only with -pprof.
func TestDebugEndpointsNeedPprof(t *testing.T) {
	for _, on := range []bool{false, true} {
		args := []string{"-memory"}
		want := http.StatusNotFound
		if on {
			args, want = append(args, "-pprof"), http.StatusOK
		}
		url, stop := startServer(t, args...)
		for _, path := range []string{"/debug/vars", "/debug/pprof/"} {
			if res, _ := get(t, url+path); res.StatusCode != want {
				t.Errorf("-pprof %v: GET %s: %s, want %d", on, path, res.Status, want)
			}
		}
		if err := stop(); err != nil {
			t.Errorf("server: %v", err)
		}
	}
}

func TestConnLimit(t *testing.T) {
	tests := []struct {
		nofile uint64
		want   int
	}{
		{0, 1},
		{128, 1},        // no more than the reserve: one connection, and the startup line says why
		{129, 1},        // 64 for the process, 64 for HTTP
		{256, 128},      // 64 for the process, 64 for HTTP
		{1024, 896},     // a common default
		{2048, 1920},    // 1/32 of the limit is the 64 for HTTP
		{4096, 3904},    // 64 + 128
		{20_000, 19311}, // this machine: 64 + 625
		{65_536, 63_424},
		{1 << 20, 1_015_744},
		{math.MaxUint64, math.MaxInt32}, // unlimited
	}
	for _, tt := range tests {
		if got := connLimit(tt.nofile); got != tt.want {
			t.Errorf("connLimit(%d) = %d, want %d", tt.nofile, got, tt.want)
		}
	}
}

func TestDecideMaxConns(t *testing.T) {
	tests := []struct {
		name        string
		asked       int
		nofile      uint64
		want        int
		wantLowered bool
	}{
		{"default", 0, 1024, 896, false},
		{"default on this machine", 0, 20_000, 19_311, false},
		{"default, many files: the memory ceiling", 0, 1 << 20, lobby.MaxConnections, false},
		{"default, unlimited files", 0, math.MaxUint64, lobby.MaxConnections, false},
		{"negative is the default", -5, 1024, 896, false},
		{"asked below the limit", 500, 1024, 500, false},
		{"asked at the limit", 896, 1024, 896, false},
		{"asked above the limit", 897, 1024, 896, true},
		{"the old default above a common limit", 100_000, 20_000, 19_311, true},
		{"asked above the memory ceiling, files allow it", 200_000, 1 << 20, 200_000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, lowered := decideMaxConns(tt.asked, tt.nofile)
			if got != tt.want || lowered != tt.wantLowered {
				t.Errorf("decideMaxConns(%d, %d) = %d, %v; want %d, %v", tt.asked, tt.nofile, got, lowered, tt.want, tt.wantLowered)
			}
		})
	}
}

// With a low open-file limit the server holds no more WebSockets than its
// descriptors allow: past that, upgrades are refused with 503 before
// accept would fail for want of a file, and the page, the API and
// /healthz go on answering. An explicit -max-conns above the limit is
// lowered, with a warning.
func TestLowFileLimit(t *testing.T) {
	const nofile = 256
	want := connLimit(nofile)
	srv := startChildEnv(t, []string{fmt.Sprintf("%s=%d", childFilesEnv, nofile)}, "-memory", "-max-conns", "100000")
	if line := fmt.Sprintf("tenpin connections: at most %d, not -max-conns 100000: the open-file limit is %d", want, nofile); !strings.Contains(srv.printed, line) {
		t.Errorf("the server printed\n%s\nwant a line with %q", srv.printed, line)
	}
	res, err := http.Post(srv.url+"/api/lanes", "application/json", strings.NewReader(`{"name":"crowded"}`))
	if err != nil {
		t.Fatal(err)
	}
	var lane struct{ ID string }
	json.NewDecoder(res.Body).Decode(&lane)
	res.Body.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range want {
		ws, _, err := websocket.Dial(ctx, srv.ws(lane.ID), nil)
		if err != nil {
			t.Fatalf("connection %d of %d: %v", i+1, want, err)
		}
		defer ws.CloseNow()
		go func() { // reads the boards, until the socket closes
			for {
				if _, _, err := ws.Read(context.Background()); err != nil {
					return
				}
			}
		}()
	}
	for range 3 {
		ws, res, err := websocket.Dial(ctx, srv.ws(lane.ID), nil)
		if err == nil {
			ws.CloseNow()
			t.Fatalf("a connection past %d was accepted", want)
		}
		if res == nil || res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
			t.Fatalf("a connection past %d: %v %v, want 503 with Retry-After", want, res, err)
		}
	}
	// Each request on a new connection: accept must still find a file.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for range 20 {
		for _, path := range []string{"/healthz", "/", "/api/lanes"} {
			res, err := client.Get(srv.url + path)
			if err != nil {
				t.Fatalf("GET %s with every connection taken: %v", path, err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("GET %s with every connection taken: %s", path, res.Status)
			}
		}
	}
	srv.kill(t)
	if !strings.Contains(srv.stderr.String(), "-max-conns lowered") {
		t.Errorf("no warning that -max-conns was lowered; stderr:\n%s", srv.stderr)
	}
}
