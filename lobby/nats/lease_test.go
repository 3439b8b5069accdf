package nats

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lobby/nats/natstest"
)

// TestLease: one tenpin server at a time uses a stream at a URL. A second
// is refused, saying who holds it, until the first lets go — at once when
// it closes, or once its lease expires when it died without closing.
func TestLease(t *testing.T) {
	url := natstest.StartServer(t)
	cfg := StoreConfig{URL: url, Replicas: 1, Node: "first", LeaseTTL: 600 * time.Millisecond, Logger: testLogger(t)}
	first, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Real time passes, not a wait for a message: two TTLs of the lease
	// in a real NATS server, which the holder must renew meanwhile to
	// still hold it. (No bubble: the server's clock is its own.)
	time.Sleep(cfg.LeaseTTL * 2)
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
		time.Sleep(cfg.LeaseTTL / 4) // between tries of Open, until the dead holder's lease expires in the server; bounded by deadline
	}
	j.Close()
}
