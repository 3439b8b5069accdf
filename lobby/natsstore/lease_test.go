package natsstore

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/lobby/natsconn/natstest"
)

// TestLease: one tenpin server at a time uses a stream at a URL. A second
// is refused, saying who holds it, until the first lets go — at once when
// it closes, or once its lease expires when it died without closing.
func TestLease(t *testing.T) {
	url := natstest.StartServer(t)
	cfg := natsconn.Config{URL: url, Replicas: 1, Node: "first", Logger: testLogger(t)}
	lease := Config{LeaseTTL: 600 * time.Millisecond}
	first, err := openOn(t.Context(), cfg, lease)
	if err != nil {
		t.Fatal(err)
	}
	// Real time passes, not a wait for a message: two TTLs of the lease
	// in a real NATS server, which the holder must renew meanwhile to
	// still hold it. (No bubble: the server's clock is its own.)
	time.Sleep(lease.LeaseTTL * 2)
	second := cfg
	second.Node = "second"
	if j, err := openOn(t.Context(), second, lease); !errors.Is(err, natsconn.ErrLocked) || !strings.Contains(err.Error(), "first (pid") {
		if j != nil {
			j.Close()
		}
		t.Fatalf("a second server on the stream: %v; want natsconn.ErrLocked naming the first", err)
	}

	first.Close() // lets go at once
	j, err := openOn(t.Context(), second, lease)
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
	deadline := time.Now().Add(10 * lease.LeaseTTL)
	for {
		k, err := openOn(t.Context(), third, lease)
		if err == nil {
			k.Close()
			break
		}
		if !errors.Is(err, natsconn.ErrLocked) || time.Now().After(deadline) {
			t.Fatalf("after the holder died, within %v: %v", 10*lease.LeaseTTL, err)
		}
		time.Sleep(lease.LeaseTTL / 4) // between tries of Open, until the dead holder's lease expires in the server; bounded by deadline
	}
	j.Close()
}
