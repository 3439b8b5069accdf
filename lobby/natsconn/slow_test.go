package natsconn

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tenpin/tenpin/lane/polltest"
)

// countHandler counts the records logged whose message holds a string.
type countHandler struct {
	mu    sync.Mutex
	holds string
	n     int
}

func (h *countHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *countHandler) WithGroup(string) slog.Handler            { return h }
func (h *countHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if strings.Contains(r.Message, h.holds) {
		h.n++
	}
	return nil
}

func (h *countHandler) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// TestSlowConsumersLogOnce: many subscriptions sharing one full backlog,
// as a node's relays do, each report dropped messages; the connection logs
// a line for them all, not one each.
func TestSlowConsumersLogOnce(t *testing.T) {
	h := &countHandler{holds: "slow consumer"}
	c, err := Open(t.Context(), Config{Dir: t.TempDir(), Logger: slog.New(h)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	nc := c.NATS()
	full := make(chan *nats.Msg, 1) // never read
	const subs = 20
	for i := range subs {
		if _, err := nc.ChanSubscribe("test.slow."+string(rune('a'+i)), full); err != nil {
			t.Fatal(err)
		}
	}
	for i := range subs {
		for range 3 {
			nc.Publish("test.slow."+string(rune('a'+i)), []byte("x"))
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	// Each subscription reports its drop once, on the client's goroutine
	// of callbacks: wait until the connection has handled every report,
	// each either logged or counted for the next line.
	polltest.Until(t, 5*time.Second, fmt.Sprint("the reports of all ", subs, " subscriptions"), func() (any, bool) {
		c.slow.mu.Lock()
		unlogged := c.slow.events
		c.slow.mu.Unlock()
		lines := h.count()
		return fmt.Sprintf("%d lines, %d reports not logged", lines, unlogged), lines+unlogged >= subs
	})
	if n := h.count(); n != 1 {
		t.Errorf("%d subscriptions dropping messages logged %d lines, want 1", subs, n)
	}
}
