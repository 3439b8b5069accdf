package main

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The operators' endpoints tell whoever reaches them the command line,
// the memory and profiles: the public address serves none of them, with
// or without -debug-addr, and the -debug-addr listener serves them all.
func TestDebugListener(t *testing.T) {
	ops := []string{"/metrics", "/debug/vars", "/debug/pprof/", "/debug/pprof/cmdline"}
	plain := serveForTest(t, "-memory")
	for _, path := range ops {
		if res, _ := get(t, plain.url+path); res.StatusCode != http.StatusNotFound {
			t.Errorf("without -debug-addr, GET %s on the public address: %s, want 404", path, res.Status)
		}
	}
	if err := plain.stop(); err != nil {
		t.Errorf("server: %v", err)
	}

	srv := serveForTest(t, "-memory", "-debug-addr", "127.0.0.1:0")
	if srv.debug == "" || srv.debug == srv.url {
		t.Fatalf("the debug listener is at %q, the public address at %q; printed:\n%s", srv.debug, srv.url, srv.printed)
	}
	for _, path := range ops {
		if res, _ := get(t, srv.url+path); res.StatusCode != http.StatusNotFound {
			t.Errorf("with -debug-addr, GET %s on the public address: %s, want 404", path, res.Status)
		}
		if res, body := get(t, srv.debug+path); res.StatusCode != http.StatusOK {
			t.Errorf("GET %s on the debug listener: %s %.200s", path, res.Status, body)
		}
	}
	var vars map[string]any
	if _, body := get(t, srv.debug+"/debug/vars"); json.Unmarshal([]byte(body), &vars) != nil || vars["tenpin_lanes"] == nil {
		t.Errorf("/debug/vars has no tenpin_lanes: %.300s", body)
	}
	if err := srv.stop(); err != nil {
		t.Errorf("server: %v", err)
	}

	if _, stderr, code := runCmd(t, "", "serve", "-pprof"); code != 2 || !strings.Contains(stderr, "-pprof") || !strings.Contains(stderr, "-debug-addr") {
		t.Errorf("serve -pprof: status %d, %q; want 2 and the flags, -debug-addr among them", code, stderr)
	}
}

// promSample is a sample line of the Prometheus text format: a name, a
// label set, a value.
var promSample = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")*\})? (\S+)$`)

// parseProm checks text against the Prometheus text exposition format
// (0.0.4) — every sample's family has a # TYPE line before it, of a known
// type, once; every value is a number — and returns the samples, by name
// and labels, and the type of each family.
func parseProm(t *testing.T, text string) (samples map[string]float64, types map[string]string) {
	t.Helper()
	samples, types = map[string]float64{}, map[string]string{}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if f, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, typ, _ := strings.Cut(f, " ")
			if _, dup := types[name]; dup {
				t.Errorf("line %d: a second # TYPE for %s", i+1, name)
			}
			switch typ {
			case "counter", "gauge", "histogram", "summary", "untyped":
			default:
				t.Errorf("line %d: # TYPE %s %q, not a type", i+1, name, typ)
			}
			types[name] = typ
			continue
		}
		if strings.HasPrefix(line, "# HELP ") {
			continue
		}
		m := promSample.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("line %d is no sample: %q", i+1, line)
			continue
		}
		if _, ok := types[m[1]]; !ok {
			t.Errorf("line %d: %s has no # TYPE before it", i+1, m[1])
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Errorf("line %d: value %q: %v", i+1, m[3], err)
		}
		samples[m[1]+m[2]] = v
	}
	return samples, types
}

// /metrics is the Prometheus text format, with the server's counters:
// a lane, a connection, its board, its roll stored, and the refusals by
// code and by limit.
func TestMetrics(t *testing.T) {
	srv := serveForTest(t, "-memory", "-debug-addr", "127.0.0.1:0", "-create-burst", "1")
	id := createLaneAt(t, srv.url, "metrics")
	ws := dialLane(t, srv.url, id)
	for _, m := range []string{`{"type":"join","name":"PJS","id":"j"}`, `{"type":"start","id":"s"}`, `{"type":"roll","pins":7,"frame":1,"ball":1,"id":"r"}`} {
		write(t.Context(), t, ws, m)
	}
	readUntil(t.Context(), t, ws, "r")
	res, err := http.Post(srv.url+"/api/lanes", "application/json", strings.NewReader(`{"name":"too many"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a second lane with -create-burst 1: %s", res.Status)
	}

	res, body := get(t, srv.debug+"/metrics")
	ws.CloseNow()
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q, want the text format's, version 0.0.4", ct)
	}
	samples, types := parseProm(t, body)
	want := []struct {
		sample, typ string
		min         float64
	}{
		{"tenpin_connections", "gauge", 1},
		{"tenpin_websockets", "gauge", 1},
		{"tenpin_lanes", "gauge", 1},
		{"tenpin_boards_sent_total", "counter", 1},
		{"tenpin_boards_skipped_total", "counter", 0},
		{"tenpin_changes_total", "counter", 3},
		{"tenpin_messages_refused_total", "counter", 0},
		{`tenpin_http_refused_total{code="rate_limited"}`, "counter", 1},
		{`tenpin_rate_limited_total{limit="lane_creations"}`, "counter", 1},
		{`tenpin_rate_limited_total{limit="connections_per_address"}`, "counter", 0},
		{`tenpin_rate_limited_total{limit="lanes_per_address"}`, "counter", 0},
		{"tenpin_store_appends_total", "counter", 3},
		{"tenpin_store_append_errors_total", "counter", 0},
		{"tenpin_goroutines", "gauge", 1},
		{"tenpin_heap_bytes", "gauge", 1},
	}
	for _, w := range want {
		name, _, _ := strings.Cut(w.sample, "{")
		v, ok := samples[w.sample]
		switch {
		case !ok:
			t.Errorf("no sample %s in\n%s", w.sample, body)
		case v < w.min:
			t.Errorf("%s = %g, want at least %g", w.sample, v, w.min)
		}
		if types[name] != w.typ {
			t.Errorf("# TYPE %s %q, want %s", name, types[name], w.typ)
		}
	}
	if err := srv.stop(); err != nil {
		t.Errorf("server: %v", err)
	}
}

func TestWriteFamilies(t *testing.T) {
	var b strings.Builder
	writeFamilies(&b, []family{
		{"a_total", "counter", "A.", one(3)},
		{"b", "gauge", "B.", labelled("code", map[string]int64{`x"y\z`: 2, "w": 0})},
		{"c", "gauge", "None yet.", nil},
	})
	want := `# HELP a_total A.
# TYPE a_total counter
a_total 3
# HELP b B.
# TYPE b gauge
b{code="w"} 0
b{code="x\"y\\z"} 2
# HELP c None yet.
# TYPE c gauge
`
	if b.String() != want {
		t.Errorf("writeFamilies wrote\n%s\nwant\n%s", b.String(), want)
	}
	parseProm(t, b.String())
}
