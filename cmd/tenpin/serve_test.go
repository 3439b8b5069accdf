package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
)

// startServer runs "tenpin serve" on a free loopback port and returns its
// URL, and a stop function that ends it as SIGINT would and returns run's
// error. Unless args say -data or -memory, it stores lanes in a new
// temporary directory.
func startServer(t *testing.T, args ...string) (string, func() error) {
	t.Helper()
	s := serveForTest(t, args...)
	return s.url, s.stop
}

// testServe is "tenpin serve" run by a test.
type testServe struct {
	url     string
	debug   string // the -debug-addr listener's base URL, if any
	printed string // what it printed at startup
	stop    func() error
}

// serveForTest is startServer with what the server printed at startup.
func serveForTest(t *testing.T, args ...string) *testServe {
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
	s := new(testServe)
	r := bufio.NewReader(pr)
	lines := 6 // serving on, friends, lanes, connections, answers to, budgets
	if slices.Contains(args, "-debug-addr") {
		lines++
	}
	for range lines {
		line, err := r.ReadString('\n')
		if err != nil {
			cancel()
			t.Fatalf("the server stopped printing: %v (%v); printed %q", err, <-done, s.printed)
		}
		s.printed += line
		if u, ok := strings.CutPrefix(line, "tenpin serving on "); ok {
			s.url = strings.TrimSpace(u)
		}
		if u, ok := strings.CutPrefix(line, "tenpin debug on "); ok {
			s.debug = strings.TrimSuffix(strings.TrimSpace(u), "/metrics")
		}
	}
	go io.Copy(io.Discard, r)
	s.stop = func() error {
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
	return s
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

// createLaneAt creates a lane on the server at url, given away (whoever
// joins first hosts it) and open (with no invitation), and returns its id.
func createLaneAt(t *testing.T, url, name string) string {
	t.Helper()
	res, err := http.Post(url+"/api/lanes", "application/json", strings.NewReader(fmt.Sprintf(`{"name":%q,"give_away":true,"open":true}`, name)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var l struct{ ID string }
	if err := json.NewDecoder(res.Body).Decode(&l); err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("create lane: %s %v", res.Status, err)
	}
	return l.ID
}

// dialLane opens a WebSocket to a lane of the server at url, closed when
// the test ends.
func dialLane(t *testing.T, url, id string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ws/lanes/"+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

func TestServe(t *testing.T) {
	srv := serveForTest(t, "-debug-addr", "127.0.0.1:0")
	url, stop := srv.url, srv.stop
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
	res, err := http.Post(url+"/api/lanes", "application/json", strings.NewReader(`{"name":"shutdown","open":true}`))
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
	res, body := get(t, srv.debug+"/debug/vars")
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
	for _, args := range [][]string{
		{"-create-burst", "0"},
		{"-conns-per-addr", "-1"},
		{"-lanes-per-addr", "-1"},
		{"-conns-per-lane-addr", "-1"},
		{"-abandon", "0s"},
		{"-away-after", "0s"},
		{"-host", "example.com:8080"},
		{"-host", "https://example.com"},
		{"-host", "ex*ample.com"},
		{"-fsync", "soon"},
		{"-fsync", "0s"},
		{"-memory", "-nats", "nats://x"},
		{"-cluster", "127.0.0.1:6222"},
		{"-routes", "nats://127.0.0.1:6223"},
		{"-node", "n.1"},
		{"-node", "n1"}, // with -memory
		{"-routes", "nats://127.0.0.1:6223", "-node", "n1"},
		{"-replicas", "-1"},
		{"-replicas", "3"}, // without -node
		{"-shards", "-1"},
		{"-shards", "17"},
		{"-shards", "3"},                           // with -memory
		{"-cluster-secret-file", "cluster.secret"}, // without -cluster
		{"-cluster-tls-cert", "node.pem"},          // without -cluster
	} {
		// A server that takes the flags stops at once, rather than
		// serving until the test times out.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var errOut bytes.Buffer
		err := run(ctx, append([]string{"serve", "-addr", "127.0.0.1:0", "-memory"}, args...), strings.NewReader(""), io.Discard, &errOut)
		code := exitCode(err, &errOut)
		if stderr := errOut.String(); code != 1 || !strings.Contains(stderr, args[0]) {
			t.Errorf("serve %v: status %d, %q; want 1 and an error naming %s", args, code, stderr, args[0])
		}
	}

	// Flags that name files the server reads; a cluster open to the
	// network without a secret.
	dir := t.TempDir()
	short := filepath.Join(dir, "short.secret")
	if err := os.WriteFile(short, []byte("too short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "cluster.secret")
	if err := os.WriteFile(secret, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-cluster", "127.0.0.1:0", "-cluster-secret-file", filepath.Join(dir, "missing")}, "-cluster-secret-file"},
		{[]string{"-cluster", "127.0.0.1:0", "-cluster-secret-file", short}, "at least 16"},
		{[]string{"-cluster", "127.0.0.1:0", "-cluster-tls-cert", secret}, "need -cluster-secret-file"},
		{[]string{"-cluster", "127.0.0.1:0", "-cluster-secret-file", secret, "-cluster-tls-cert", secret}, "-cluster-tls-key"},
		{[]string{"-cluster", "0.0.0.0:0"}, "-cluster-secret-file"},
		{[]string{"-cluster", ":0"}, "-cluster-secret-file"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var errOut bytes.Buffer
		args := append([]string{"serve", "-addr", "127.0.0.1:0", "-data", t.TempDir(), "-node", "n1"}, tc.args...)
		code := exitCode(run(ctx, args, strings.NewReader(""), io.Discard, &errOut), &errOut)
		if stderr := errOut.String(); code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("serve %v: status %d, %q; want 1 and an error saying %s", tc.args, code, stderr, tc.want)
		}
	}

	_, stderr, code = runCmd(t, "", "-addr", "256.0.0.1:99999")
	if code != 1 || !strings.Contains(stderr, "serve:") {
		t.Errorf("a bare tenpin with a bad -addr: status %d, %q", code, stderr)
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
	srv := startChildEnv(t, []string{fmt.Sprintf("%s=%d", childFilesEnv, nofile)}, "-memory", "-max-conns", "100000", "-conns-per-lane-addr", "0")
	if line := fmt.Sprintf("tenpin connections: at most %d, not -max-conns 100000: the open-file limit is %d", want, nofile); !strings.Contains(srv.printed, line) {
		t.Errorf("the server printed\n%s\nwant a line with %q", srv.printed, line)
	}
	res, err := http.Post(srv.url+"/api/lanes", "application/json", strings.NewReader(`{"name":"crowded","open":true}`))
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

// TestServeConfig: the flags reach the lobby and its lanes: -abandon the
// lanes' AbandonTimeout, and a limit per address of 0 lifts it.
func TestServeConfig(t *testing.T) {
	tests := []struct {
		args  []string
		check func(c lobby.Config) bool
		want  string
	}{
		{nil, func(c lobby.Config) bool {
			return c.Lane.AbandonTimeout == lane.AbandonTimeout && c.Lane.IdleTimeout == lane.IdleTimeout && c.Lane.AwayAfter == lane.AwayAfter &&
				c.ConnsPerAddr == lobby.ConnsPerAddr && c.LanesPerAddr == lobby.LanesPerAddr && c.CreateBurst == lobby.CreateBurst && len(c.TrustProxy) == 0 &&
				c.JoinsPerAddr == lobby.JoinBurst && c.BowlersPerAddr == lobby.NewBowlersPerAddr
		}, "the defaults"},
		{[]string{"-abandon", "20m", "-idle", "2m", "-away-after", "45s"}, func(c lobby.Config) bool {
			return c.Lane.AbandonTimeout == 20*time.Minute && c.Lane.IdleTimeout == 2*time.Minute && c.Lane.AwayAfter == 45*time.Second
		}, "AbandonTimeout 20m, IdleTimeout 2m, AwayAfter 45s"},
		{[]string{"-conns-per-addr", "0", "-lanes-per-addr", "0", "-conns-per-lane-addr", "0", "-joins-per-addr", "0", "-bowlers-per-addr", "0"}, func(c lobby.Config) bool {
			return c.ConnsPerAddr < 0 && c.LanesPerAddr < 0 && c.ConnsPerLaneAddr < 0 && c.JoinsPerAddr < 0 && c.BowlersPerAddr < 0
		}, "no limits per address (negative)"},
		{[]string{"-joins-per-addr", "40", "-bowlers-per-addr", "3"}, func(c lobby.Config) bool {
			return c.JoinsPerAddr == 40 && c.BowlersPerAddr == 3
		}, "40 joins at once and 3 remembered a day per address"},
		{[]string{"-conns-per-addr", "5000", "-lanes-per-addr", "7", "-conns-per-lane-addr", "9", "-trust-proxy", "10.0.0.0/8, 127.0.0.1"}, func(c lobby.Config) bool {
			return c.ConnsPerAddr == 5000 && c.LanesPerAddr == 7 && c.ConnsPerLaneAddr == 9 &&
				slices.Equal(c.TrustProxy, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32")})
		}, "5000 connections, 7 lanes and 9 connections a lane per address, behind two proxies"},
		{[]string{"-origin", "a.example,b.example"}, func(c lobby.Config) bool {
			return slices.Equal(c.OriginPatterns, []string{"a.example", "b.example"})
		}, "two origins"},
	}
	for _, tt := range tests {
		f, err := parseServe(append([]string{"-memory"}, tt.args...), io.Discard)
		if err != nil {
			t.Fatalf("serve %v: %v", tt.args, err)
		}
		if c := f.lobbyConfig(100, nil); !tt.check(c) {
			t.Errorf("serve %v: lobby config %+v, want %s", tt.args, c, tt.want)
		}
	}
}

// Every response of the public address carries nosniff and no-referrer;
// those of the page (the lobby, a lane, the assets, what is not found)
// carry the page's Content-Security-Policy too, which no other site can
// frame.
func TestSecurityHeadersEverywhere(t *testing.T) {
	url, _ := startServer(t, "-memory")
	id := createLaneAt(t, url, "headers")
	tests := []struct {
		path   string
		status int
		page   bool
	}{
		{"/", 200, true},
		{"/lanes/" + id, 200, true},
		{"/static/app.js", 200, true},
		{"/static/style.css", 200, true},
		{"/static/nothing.js", 404, true},
		{"/nothing", 404, true},
		{"/api/lanes", 200, false},
		{"/api/lanes/" + id, 200, false},
		{"/api/lanes/nosuchlane", 404, false},
		{"/api/nothing", 404, false},
		{"/ws/lanes/nosuchlane", 404, false},
		{"/healthz", 200, false},
	}
	for _, tt := range tests {
		res, _ := get(t, url+tt.path)
		if res.StatusCode != tt.status {
			t.Errorf("GET %s: %s, want %d", tt.path, res.Status, tt.status)
		}
		for name, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"} {
			if got := res.Header.Get(name); got != want {
				t.Errorf("GET %s: %s %q, want %q", tt.path, name, got, want)
			}
		}
		if csp := res.Header.Get("Content-Security-Policy"); tt.page && !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: Content-Security-Policy %q, want the page's, with frame-ancestors 'none'", tt.path, csp)
		}
	}
}

// -conns-per-addr reaches the WebSocket endpoint: past it a connection is
// told rate_limited and closed with 1013. With -trust-proxy naming the
// proxy (here, this machine), clients behind it are counted each at its
// own address.
func TestConnsPerAddrFlag(t *testing.T) {
	url, _ := startServer(t, "-memory", "-conns-per-addr", "1", "-trust-proxy", "127.0.0.1,::1")
	id := createLaneAt(t, url, "crowded")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dial := func(from string) *websocket.Conn {
		t.Helper()
		ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ws/lanes/"+id, &websocket.DialOptions{HTTPHeader: http.Header{"X-Forwarded-For": {from}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.CloseNow() })
		return ws
	}
	for _, from := range []string{"203.0.113.1", "203.0.113.2"} {
		if _, data, err := dial(from).Read(ctx); err != nil || !strings.Contains(string(data), `"type":"board"`) {
			t.Fatalf("the first connection from %s: %s %v, want a board", from, data, err)
		}
	}
	ws := dial("203.0.113.1")
	_, data, err := ws.Read(ctx)
	if err != nil || !strings.Contains(string(data), `"code":"rate_limited"`) {
		t.Fatalf("a second connection from one address: %s %v, want the error rate_limited", data, err)
	}
	if _, _, err := ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusTryAgainLater {
		t.Errorf("then closed with %v, want 1013 (try again later)", err)
	}
}
