package lobby

import (
	"errors"
	"testing"
)

// TestAdmission: an admission's counts, step by step: the server's
// connections, an address's own, its refusals in flight past them, its
// connections on one lane and its lanes, each given back when done, and
// nothing once it closes.
func TestAdmission(t *testing.T) {
	a := newAdmission(Config{MaxConnections: 4, ConnsPerAddr: 2, ConnsPerLaneAddr: 1, LanesPerAddr: 1})
	var dones []func()
	open := func(addr string) error {
		done, err := a.connOpened(addr)
		if done != nil {
			dones = append(dones, done)
		}
		return err
	}
	for i, st := range []struct {
		what  string
		step  func() error
		want  error // nil: admitted
		conns int   // the server's connections after the step
	}{
		{"A's first", func() error { return open("A") }, nil, 1},
		{"A's second", func() error { return open("A") }, nil, 2},
		{"A's third, over its limit: a refusal, counted", func() error { return open("A") }, ErrAddrLimit, 3},
		{"B's first", func() error { return open("B") }, nil, 4},
		{"C's first, the server full", func() error { return open("C") }, ErrFull, 4},
		{"B's first gone", func() error { dones[3](); return nil }, nil, 3},
		{"A's refusal over", func() error { dones[2](); return nil }, nil, 2},
		{"C's first", func() error { return open("C") }, nil, 3},
		{"A on lane x", func() error { return ok(a.laneConnOpened("x", "A")) }, nil, 3},
		{"A again on lane x", func() error { return ok(a.laneConnOpened("x", "A")) }, ErrAddrLimit, 3},
		{"A on lane y", func() error { return ok(a.laneConnOpened("y", "A")) }, nil, 3},
		{"A's lane", func() error { return okBool(a.laneOpening("A")) }, nil, 3},
		{"A's second lane", func() error { return okBool(a.laneOpening("A")) }, ErrAddrLimit, 3},
		{"nobody's lane, never counted", func() error { return okBool(a.laneOpening("")) }, nil, 3},
		{"A's lane closed", func() error { a.laneClosed("A"); return nil }, nil, 3},
		{"A's lane again", func() error { return okBool(a.laneOpening("A")) }, nil, 3},
		{"closing", func() error { a.close(); return nil }, nil, 3},
		{"D's first, closing", func() error { return open("D") }, ErrClosed, 3},
	} {
		if err := st.step(); !errors.Is(err, st.want) || (st.want == nil && err != nil) {
			t.Fatalf("step %d, %s: %v, want %v", i, st.what, err, st.want)
		}
		if got := a.connections(); got != st.conns {
			t.Fatalf("step %d, %s: %d connections, want %d", i, st.what, got, st.conns)
		}
	}
}

// TestAdmissionRefusals: an address over its connection limit has
// maxRefusing refusals in flight, then plain refusals that hold nothing.
func TestAdmissionRefusals(t *testing.T) {
	a := newAdmission(Config{MaxConnections: 100, ConnsPerAddr: 1})
	if _, err := a.connOpened("A"); err != nil {
		t.Fatalf("A's first: %v", err)
	}
	for i := range maxRefusing {
		if done, err := a.connOpened("A"); !errors.Is(err, ErrAddrLimit) || done == nil {
			t.Fatalf("refusal %d: %v, want %v with a done", i+1, err, ErrAddrLimit)
		}
	}
	if done, err := a.connOpened("A"); !errors.Is(err, errRefusing) || done != nil {
		t.Fatalf("past %d refusals: %v (done %v), want %v and nothing held", maxRefusing, err, done != nil, errRefusing)
	}
	if got, want := a.connections(), 1+maxRefusing; got != want {
		t.Errorf("%d connections, want %d", got, want)
	}
}

func ok(_ func(), admitted bool) error { return okBool(admitted) }

func okBool(admitted bool) error {
	if !admitted {
		return ErrAddrLimit
	}
	return nil
}
