package main

import (
	"expvar"
	"net/http"
	"runtime"
	"runtime/metrics"

	"github.com/tenpin/tenpin/lobby"
)

// metricsHandler serves /debug/vars (expvar's JSON) with the server's
// gauges and counters: what a load run reads to measure the server.
func metricsHandler(lb *lobby.Lobby) http.Handler {
	m := lb.Metrics()
	vars := map[string]func() any{
		"connections":    func() any { return m.Connections.Load() },
		"lanes":          func() any { return lb.Len() },
		"boards_sent":    func() any { return m.BoardsSent.Load() },
		"boards_skipped": func() any { return m.BoardsSkipped.Load() },
		"refused":        func() any { return m.Refused.Load() },
		"changes":        func() any { return m.Changes.Load() },
		"goroutines":     func() any { return runtime.NumGoroutine() },
		"heap_bytes":     func() any { return readMetric("/memory/classes/heap/objects:bytes") },
		"rss_bytes":      func() any { return rss() },
	}
	for name, f := range vars {
		if expvar.Get("tenpin_"+name) == nil { // expvar names are process-wide
			expvar.Publish("tenpin_"+name, expvar.Func(f))
		}
	}
	return expvar.Handler()
}

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
