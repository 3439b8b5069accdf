package servertest

import (
	"context"
	"log/slog"
	"sync"
	"testing"
)

// LogCount is a slog handler that counts what a server's log says, by
// message and lane (its "lane" attribute), for a test to wait on (a lane
// that stayed open, a lane reopened), and writes what is at its level or
// above to t.Logf, as Logger does.
type LogCount struct {
	slog.Handler // Logger's
	lane         string
	c            *counts
}

type counts struct {
	mu sync.Mutex
	n  map[[2]string]int // by message and lane
}

// NewLogCount returns a LogCount that writes level and above to t.Logf.
func NewLogCount(t testing.TB, level slog.Level) *LogCount {
	return &LogCount{Handler: Logger(t, level).Handler(), c: &counts{n: make(map[[2]string]int)}}
}

// Count returns how many times the log said msg of lane ("" for none).
func (h *LogCount) Count(msg, lane string) int {
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	return h.c.n[[2]string{msg, lane}]
}

// Enabled reports true: every level is counted.
func (h *LogCount) Enabled(context.Context, slog.Level) bool { return true }

// Handle counts r, and writes it if it is at the handler's level.
func (h *LogCount) Handle(ctx context.Context, r slog.Record) error {
	lane := h.lane
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "lane" {
			lane = a.Value.String()
		}
		return true
	})
	h.c.mu.Lock()
	h.c.n[[2]string{r.Message, lane}]++
	h.c.mu.Unlock()
	if !h.Handler.Enabled(ctx, r.Level) {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs returns a LogCount that counts and writes with as.
func (h *LogCount) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.Handler = h.Handler.WithAttrs(as)
	for _, a := range as {
		if a.Key == "lane" {
			c.lane = a.Value.String()
		}
	}
	return &c
}

// WithGroup returns a LogCount that writes in group name.
func (h *LogCount) WithGroup(name string) slog.Handler {
	c := *h
	c.Handler = h.Handler.WithGroup(name)
	return &c
}
