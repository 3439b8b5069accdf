package main

import (
	"net"
	"slices"
	"testing"
)

func TestDescribeInvite(t *testing.T) {
	addr := func(s string) net.Addr {
		a, err := net.ResolveTCPAddr("tcp", s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, tc := range []struct {
		listen string
		urls   []string
		want   string
	}{
		{"[::]:8080", []string{"http://192.168.1.20:8080", "http://10.0.0.7:8080"}, "open http://192.168.1.20:8080 or http://10.0.0.7:8080"},
		{"127.0.0.1:8080", []string{"http://localhost:8080"}, "none: the server listens on this machine only (start it with -addr :8080 for phones on the same network)"},
		{"[::]:8080", []string{"http://localhost:8080"}, "none yet: this machine has no network address but loopback (connect it to the venue's Wi-Fi)"},
	} {
		if got := describeInvite(addr(tc.listen), tc.urls); got != tc.want {
			t.Errorf("describeInvite(%s, %q) = %q, want %q", tc.listen, tc.urls, got, tc.want)
		}
	}
}

func TestInviteURLs(t *testing.T) {
	iface := func(cidrs ...string) []net.Addr {
		var out []net.Addr
		for _, c := range cidrs {
			ip, n, err := net.ParseCIDR(c)
			if err != nil {
				t.Fatal(err)
			}
			n.IP = ip
			out = append(out, n)
		}
		return out
	}
	machine := iface("127.0.0.1/8", "::1/128", "fe80::1/64", "2001:db8::5/64", "192.168.1.20/24", "10.0.0.7/8")
	for _, tc := range []struct {
		name   string
		listen string
		ifaces []net.Addr
		want   []string
	}{
		{"every interface", ":8080", machine, []string{"http://192.168.1.20:8080", "http://10.0.0.7:8080", "http://[2001:db8::5]:8080"}},
		{"every interface, IPv6 socket", "[::]:8080", machine, []string{"http://192.168.1.20:8080", "http://10.0.0.7:8080", "http://[2001:db8::5]:8080"}},
		{"every IPv4 interface", "0.0.0.0:8080", machine, []string{"http://192.168.1.20:8080", "http://10.0.0.7:8080"}},
		{"one address", "192.168.1.20:9000", machine, []string{"http://192.168.1.20:9000"}},
		{"loopback only", "127.0.0.1:8080", machine, []string{"http://localhost:8080"}},
		{"no network", "0.0.0.0:8080", iface("127.0.0.1/8", "::1/128"), []string{"http://localhost:8080"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, err := net.ResolveTCPAddr("tcp", tc.listen)
			if err != nil {
				t.Fatal(err)
			}
			if got := inviteURLs(addr, tc.ifaces); !slices.Equal(got, tc.want) {
				t.Errorf("inviteURLs(%s) = %q, want %q", tc.listen, got, tc.want)
			}
		})
	}
}
