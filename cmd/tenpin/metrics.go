package main

import (
	"expvar"
	"net/http"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"

	"github.com/tenpin/tenpin/lane"

	"github.com/tenpin/tenpin/lobby"
)

// metricsHandler serves /debug/vars (expvar's JSON) with the server's
// gauges and counters: what a load run reads to measure the server.
//
// expvar's names are process-wide, so the variables read whichever lobby
// was served last: one in a real process, one per test server in tests.
func metricsHandler(lb *lobby.Lobby) http.Handler {
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

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
