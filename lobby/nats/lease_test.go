package nats

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// natsServer starts a NATS server with JetStream reached over TCP, as an
// external one is, and returns its URL.
func natsServer(t *testing.T) string {
	t.Helper()
	s, err := server.NewServer(&server.Options{
		JetStream: true,
		StoreDir:  t.TempDir(),
		Host:      "127.0.0.1",
		Port:      server.RANDOM_PORT,
		NoSigs:    true,
		NoLog:     true,
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("the test's NATS server did not start")
	}
	return s.ClientURL()
}

// TestLease: one tenpin server at a time uses a stream at a URL. A second
// is refused, saying who holds it, until the first lets go — at once when
// it closes, or once its lease expires when it died without closing.
func TestLease(t *testing.T) {
	url := natsServer(t)
	cfg := StoreConfig{URL: url, Node: "first", LeaseTTL: 600 * time.Millisecond, Logger: testLogger(t)}
	first, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(cfg.LeaseTTL * 2) // renewed meanwhile: still held
	second := cfg
	second.Node = "second"
	if j, err := Open(t.Context(), second); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "first (pid") {
		if j != nil {
			j.Close()
		}
		t.Fatalf("a second server on the stream: %v; want ErrLocked naming the first", err)
	}

	first.Close() // lets go at once
	j, err := Open(t.Context(), second)
	if err != nil {
		t.Fatalf("once the first closed: %v", err)
	}
	if err := j.Check(t.Context()); err != nil {
		t.Errorf("Check: %v", err)
	}

	// The second dies without letting go: its renewals stop.
	j.lease.stop()
	<-j.lease.done
	third := cfg
	third.Node = "third"
	deadline := time.Now().Add(10 * cfg.LeaseTTL)
	for {
		k, err := Open(t.Context(), third)
		if err == nil {
			k.Close()
			break
		}
		if !errors.Is(err, ErrLocked) || time.Now().After(deadline) {
			t.Fatalf("after the holder died, within %v: %v", 10*cfg.LeaseTTL, err)
		}
		time.Sleep(cfg.LeaseTTL / 4)
	}
	j.Close()
}
