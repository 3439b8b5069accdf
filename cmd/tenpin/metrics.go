package main

import (
	"bufio"
	"expvar"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/pprof"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/protocol"
)

// debugHandler serves the operators' endpoints, on the -debug-addr
// listener only: they tell whoever reaches them the command line, the
// memory and the code's profile, nothing for the public address.
//
//	GET /metrics        the counters, in Prometheus's text format
//	GET /debug/vars     the same and more, as expvar's JSON (for tenpin load)
//	GET /debug/pprof/   runtime profiles
//	GET /debug/streams  the store's streams and their leaders (not with -memory)
//
// store is the node's NATS, nil with -memory.
func debugHandler(lb *lobby.Lobby, hostRefused *atomic.Int64, store *natsconn.Conn) http.Handler {
	mux := http.NewServeMux()
	if store != nil {
		mux.Handle("GET /debug/streams", streamsHandler(store.JetStream()))
	}
	mux.Handle("GET /metrics", promHandler(lb, hostRefused))
	mux.Handle("GET /debug/vars", varsHandler(lb))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// varsHandler serves /debug/vars (expvar's JSON) with the server's
// gauges and counters: what a load run reads to measure the server.
//
// expvar's names are process-wide, so the variables read whichever lobby
// was served last: one in a real process, one per test server in tests.
func varsHandler(lb *lobby.Lobby) http.Handler {
	served.Store(lb)
	m := func() *lane.Metrics { return served.Load().Metrics() }
	vars := map[string]func() any{
		"connections":    func() any { return m().Connections.Load() },
		"lanes":          func() any { return served.Load().Len() },
		"boards_sent":    func() any { return m().BoardsSent.Load() },
		"boards_skipped": func() any { return m().BoardsSkipped.Load() },
		"refused":        func() any { return m().Refused.Load() },
		"changes":        func() any { return m().Changes.Load() },
		"goroutines":     func() any { return runtime.NumGoroutine() },
		"heap_bytes":     func() any { return readMetric("/memory/classes/heap/objects:bytes") },
		"rss_bytes":      func() any { return rss() },
	}
	publish.Do(func() {
		for name, f := range vars {
			expvar.Publish("tenpin_"+name, expvar.Func(f))
		}
	})
	return expvar.Handler()
}

var (
	served  atomic.Pointer[lobby.Lobby]
	publish sync.Once
)

// A family is one metric of the Prometheus text format: its # HELP and
// # TYPE lines, then its samples.
type family struct {
	name, typ, help string
	samples         []sample
}

type sample struct {
	label, value string // label: `code="x"`, or "" for none
	n            float64
}

func one(n float64) []sample { return []sample{{n: n}} }

// labelled returns a sample per key of counts, in order, labelled key=….
func labelled(key string, counts map[string]int64) []sample {
	var out []sample
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		out = append(out, sample{label: key, value: k, n: float64(counts[k])})
	}
	return out
}

// families returns the server's metrics now.
func families(lb *lobby.Lobby, hostRefused *atomic.Int64) []family {
	m := lb.Metrics()
	refused := lb.Admission().Refused()
	refused[string(protocol.CodeHostNotAllowed)] += hostRefused.Load()
	return []family{
		{"tenpin_connections", "gauge", "WebSocket connections this node serves, to its lanes or relays of others'.", one(float64(m.Connections.Load()))},
		{"tenpin_websockets", "gauge", "WebSocket connections the server holds, those waiting to resume a seat and those being turned away included.", one(float64(lb.Admission().Connections()))},
		{"tenpin_lanes", "gauge", "Lanes open.", one(float64(lb.Len()))},
		{"tenpin_boards_sent_total", "counter", "Boards given to the clients of the lanes this node runs, wherever they are connected.", one(float64(m.BoardsSent.Load()))},
		{"tenpin_boards_skipped_total", "counter", "Boards dropped for clients that fell behind (they get the newest).", one(float64(m.BoardsSkipped.Load()))},
		{"tenpin_changes_total", "counter", "Changes accepted, on every lane.", one(float64(m.Changes.Load()))},
		{"tenpin_messages_refused_total", "counter", "Client messages refused with an error, every code.", one(float64(m.Refused.Load()))},
		{"tenpin_http_refused_total", "counter", "HTTP requests and WebSocket upgrades refused, by error code.", labelled("code", refused)},
		{"tenpin_rate_limited_total", "counter", "Requests refused by a limit per client address, by limit.", labelled("limit", lb.Admission().RateLimited())},
		{"tenpin_store_appends_total", "counter", "Events stored in the journal.", one(float64(m.Appends.Load()))},
		{"tenpin_store_append_errors_total", "counter", "Appends to the journal that failed or timed out.", one(float64(m.AppendErrors.Load()))},
		{"tenpin_goroutines", "gauge", "Goroutines.", one(float64(runtime.NumGoroutine()))},
		{"tenpin_heap_bytes", "gauge", "Bytes of heap objects.", one(float64(readMetric("/memory/classes/heap/objects:bytes")))},
		{"tenpin_rss_bytes", "gauge", "Resident set size of the process (0 where unknown).", one(float64(rss()))},
	}
}

// promHandler serves the metrics in Prometheus's text exposition format
// (version 0.0.4), written by hand: a dozen lines do not need a client
// library.
func promHandler(lb *lobby.Lobby, hostRefused *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		bw := bufio.NewWriter(w)
		writeFamilies(bw, families(lb, hostRefused))
		bw.Flush()
	})
}

func writeFamilies(w io.Writer, fams []family) {
	for _, f := range fams {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", f.name, f.help, f.name, f.typ)
		for _, s := range f.samples {
			v := strconv.FormatFloat(s.n, 'g', -1, 64)
			if s.label == "" {
				fmt.Fprintf(w, "%s %s\n", f.name, v)
				continue
			}
			fmt.Fprintf(w, "%s{%s=\"%s\"} %s\n", f.name, s.label, escapeLabel(s.value), v)
		}
	}
}

// escapeLabel escapes a label value as the text format wants: backslash,
// double quote and newline.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
