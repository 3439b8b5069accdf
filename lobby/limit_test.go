package lobby

import (
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/game"
)

func TestAddrLimiter(t *testing.T) {
	a := NewAddrLimiter(1, 3) // a lane a second, three at once
	now := time.Unix(1000, 0)
	steps := []struct {
		addr  string
		after time.Duration
		want  bool
	}{
		{"10.0.0.1", 0, true},
		{"10.0.0.1", 0, true},
		{"10.0.0.1", 0, true},
		{"10.0.0.1", 0, false}, // the burst is spent
		{"10.0.0.2", 0, true},  // another address has its own
		{"10.0.0.1", 500 * time.Millisecond, false},
		{"10.0.0.1", 600 * time.Millisecond, true}, // a token a second
		{"10.0.0.1", 0, false},
	}
	for i, st := range steps {
		now = now.Add(st.after)
		if got, _ := a.Allow(st.addr, now); got != st.want {
			t.Errorf("step %d: allow(%s) = %v, want %v", i, st.addr, got, st.want)
		}
	}
}

// TestClientAddr: the address a request's limits count against. Behind a
// proxy it is the last entry of X-Forwarded-For, which the proxy wrote;
// what the client wrote before it is never believed. IPv6 counts by /64.
func TestClientAddr(t *testing.T) {
	tests := []struct {
		name   string
		trust  string // the proxies trusted
		remote string
		xff    []string // X-Forwarded-For headers, in order
		want   string
	}{
		{"the peer", "", "192.0.2.1:5000", nil, "192.0.2.1"},
		{"the peer, whatever the header says", "", "192.0.2.1:5000", []string{"203.0.113.9"}, "192.0.2.1"},
		{"behind a proxy", "10.0.0.0/8", "10.0.0.1:443", []string{"203.0.113.9"}, "203.0.113.9"},
		{"a forged entry before the proxy's", "10.0.0.0/8", "10.0.0.1:443", []string{"198.51.100.1, 203.0.113.9"}, "203.0.113.9"},
		{"forged entries, no spaces", "10.0.0.0/8", "10.0.0.1:443", []string{"1.1.1.1,2.2.2.2,203.0.113.9"}, "203.0.113.9"},
		{"two headers: the last one's last entry", "10.0.0.0/8", "10.0.0.1:443", []string{"198.51.100.1", "203.0.113.9"}, "203.0.113.9"},
		{"an entry with a port", "10.0.0.0/8", "10.0.0.1:443", []string{"203.0.113.9:61000"}, "203.0.113.9"},
		{"no header: the peer", "10.0.0.0/8", "10.0.0.1:443", nil, "10.0.0.1"},
		{"a last entry that is no address: the peer", "10.0.0.0/8", "10.0.0.1:443", []string{"203.0.113.9, unknown"}, "10.0.0.1"},
		{"IPv6 by its /64", "", "[2001:db8:1:2:aaaa::1]:5000", nil, "2001:db8:1:2::/64"},
		{"another address of the same /64", "", "[2001:db8:1:2:bbbb::7]:5000", nil, "2001:db8:1:2::/64"},
		{"IPv6 behind a proxy", "10.0.0.0/8", "10.0.0.1:443", []string{"2001:db8:1:3::5"}, "2001:db8:1:3::/64"},
		{"IPv4-mapped IPv6", "", "[::ffff:192.0.2.1]:5000", nil, "192.0.2.1"},
		{"a forged header from outside the proxies: the peer", "10.0.0.0/8", "192.0.2.1:5000", []string{"203.0.113.9"}, "192.0.2.1"},
		{"a proxy named by its address", "127.0.0.1, 10.9.9.9", "10.9.9.9:443", []string{"203.0.113.9"}, "203.0.113.9"},
		{"another address than the proxy's", "127.0.0.1, 10.9.9.9", "10.9.9.8:443", []string{"203.0.113.9"}, "10.9.9.8"},
		{"an IPv6 proxy", "2001:db8::/32", "[2001:db8::1]:443", []string{"203.0.113.9"}, "203.0.113.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proxies, err := ParseProxies(tt.trust)
			if err != nil {
				t.Fatal(err)
			}
			lb := newInMemory(Config{TrustProxy: proxies})
			r := httptest.NewRequest("GET", "/api/lanes", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := lb.Admission().ClientAddr(r); got != tt.want {
				t.Errorf("ClientAddr(%s, X-Forwarded-For %q) = %q, want %q", tt.remote, tt.xff, got, tt.want)
			}
		})
	}
}

// TestLanesPerAddress: an address holds LanesPerAddr lanes open at once,
// however slowly it creates them; closing one makes room for another.
// Other addresses, and lanes created without an address (the API's
// callers in Go), are not counted against it.
func TestLanesPerAddress(t *testing.T) {
	lb := newInMemory(Config{LanesPerAddr: 2})
	go lb.Run(t.Context())
	var ids []string
	for range 2 {
		l, err := lb.create(t.Context(), "mine", "192.0.2.1", false, game.TokenHash{}, game.TokenHash{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID())
	}
	if _, err := lb.create(t.Context(), "one more", "192.0.2.1", false, game.TokenHash{}, game.TokenHash{}, nil); !errors.Is(err, ErrAddrLimit) {
		t.Fatalf("a third lane from one address: %v, want %v", err, ErrAddrLimit)
	}
	if _, err := lb.create(t.Context(), "theirs", "198.51.100.7", false, game.TokenHash{}, game.TokenHash{}, nil); err != nil {
		t.Errorf("another address: %v", err)
	}
	if _, err := lb.Create(t.Context(), "no address"); err != nil {
		t.Errorf("a lane without an address: %v", err)
	}
	lb.remove(ids[0]) // as when the lane closes
	if _, err := lb.create(t.Context(), "again", "192.0.2.1", false, game.TokenHash{}, game.TokenHash{}, nil); err != nil {
		t.Errorf("once one of its lanes closed: %v", err)
	}
	if _, err := lb.create(t.Context(), "and again", "192.0.2.1", false, game.TokenHash{}, game.TokenHash{}, nil); !errors.Is(err, ErrAddrLimit) {
		t.Errorf("a third lane again: %v, want %v", err, ErrAddrLimit)
	}

	// No limit: a load run from one address.
	lb = newInMemory(Config{LanesPerAddr: -1})
	go lb.Run(t.Context())
	for i := range 5 {
		if _, err := lb.create(t.Context(), "load", "127.0.0.1", false, game.TokenHash{}, game.TokenHash{}, nil); err != nil {
			t.Fatalf("lane %d without a limit: %v", i, err)
		}
	}
}
