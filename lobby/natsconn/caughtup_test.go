package natsconn

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/polltest"
)

// TestCaughtUp: a node of a cluster is not caught up until its copy of
// the store is current (here, before it has met the others at all), and
// once it was it stays so, whatever happens to the others after: a
// stream electing a leader then stalls its own lanes on every node alike,
// and must not take the node out of service. A lone server is caught up
// from the start. (With the others gone, NATS's own check still passed
// here without the latch too; the latch also spares /healthz a walk over
// every stream once the node caught up.)
func TestCaughtUp(t *testing.T) {
	lone, err := Open(t.Context(), Config{Dir: t.TempDir(), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer lone.Close()
	if err := lone.CaughtUp(); err != nil {
		t.Errorf("a lone server: %v, want caught up", err)
	}

	// A node whose routes lead nowhere yet: clustered, and current on
	// nothing.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nowhere := "nats://" + ln.Addr().String()
	ln.Close()
	alone, err := Open(t.Context(), Config{Dir: t.TempDir(), Node: "n1", Cluster: "127.0.0.1:0", Routes: []string{nowhere}, Replicas: 3, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer alone.Close()
	if err := alone.CaughtUp(); err == nil || !strings.Contains(err.Error(), "catching up") {
		t.Errorf("a node that never met its cluster: %v, want an error saying it is catching up", err)
	}

	conns := openCluster(t, 3)
	for i, c := range conns {
		polltest.Until(t, 30*time.Second, fmt.Sprintf("node %d caught up", i+1), func() (any, bool) {
			err := c.CaughtUp()
			return err, err == nil
		})
	}
	// The two others gone, the first has no quorum and nothing current;
	// it caught up once, and stays so.
	conns[1].Close()
	conns[2].Close()
	polltest.Until(t, 30*time.Second, "node 1 to find its routes gone", func() (any, bool) {
		n := conns[0].srv.NumRoutes()
		return fmt.Sprint(n, " routes"), n == 0
	})
	if err := conns[0].CaughtUp(); err != nil {
		t.Errorf("node 1, caught up once, with the others gone: %v, want still caught up", err)
	}
}

// TestCloseHandsLeadersOver: a node of a cluster closes in lame duck
// mode, which hands its raft leaders (streams' and the meta group's) to
// the others and waits for them: a plain Shutdown steps them down and
// closes the routes at once, the hand-overs were lost with them, and the
// groups it led waited 4–9 s for an election (tenpin failover -rolling:
// 6.1–6.2 s with lame duck but no wait to catch up, 0.60–0.65 s with
// both, 6.17 s with neither). How long the hand-over takes is for that
// run to measure; here, that Close takes that path.
func TestCloseHandsLeadersOver(t *testing.T) {
	var mu sync.Mutex
	var logs bytes.Buffer
	conns := openCluster(t, 3, func(i int, cfg *Config) {
		if i == 0 {
			cfg.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
		}
	})
	if err := conns[0].Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "lame duck") {
		t.Errorf("node 1 closed without lame duck mode; its server said:\n%s", tail(logs.String(), 20))
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
