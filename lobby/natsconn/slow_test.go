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
	polltest.Until(t, 5*time.Second, "a line about the slow consumers", func() (any, bool) {
		n := h.count()
		return fmt.Sprint(n, " lines"), n > 0
	})
	// The reports come one by one on the client's goroutine of callbacks,
	// and nothing says the last has come: a second line, were it logged,
	// would be within this real time. It is the absence tested.
	time.Sleep(200 * time.Millisecond)
	if n := h.count(); n != 1 {
		t.Errorf("%d subscriptions dropping messages logged %d lines, want 1", subs, n)
	}
}
