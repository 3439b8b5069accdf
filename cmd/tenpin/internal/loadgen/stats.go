package loadgen

import (
	"slices"
	"sync"
	"time"
)

// latencies collects durations and reports their percentiles. It keeps
// every sample: a minute of load is a few million at most.
type latencies struct {
	mu      sync.Mutex
	samples []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.samples = append(l.samples, d)
	l.mu.Unlock()
}

func (l *latencies) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.samples)
}

// Summary is a distribution of latencies as a report shows it, in
// milliseconds.
type Summary struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

func (l *latencies) summary() Summary {
	l.mu.Lock()
	s := slices.Clone(l.samples)
	l.mu.Unlock()
	if len(s) == 0 {
		return Summary{}
	}
	slices.Sort(s)
	at := func(q float64) float64 {
		i := int(q * float64(len(s)-1))
		return Ms(s[i])
	}
	return Summary{Count: len(s), P50: at(0.50), P90: at(0.90), P99: at(0.99), Max: Ms(s[len(s)-1])}
}

// Ms is d in milliseconds, to the microsecond.
func Ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
