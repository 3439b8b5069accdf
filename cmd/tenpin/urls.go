package main

import (
	"cmp"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// inviteURLs returns the addresses at which friends on the same network
// can open the server, best first: for a listener on every interface,
// one per address of this machine that is neither loopback nor
// link-local (IPv4 first: a phone on a venue's Wi-Fi reaches those); for
// one on a single address, that address. A server that only listens on
// loopback has no address a phone can use: it gets its localhost URL.
func inviteURLs(listen net.Addr, ifaceAddrs []net.Addr) []string {
	tcp, ok := listen.(*net.TCPAddr)
	if !ok {
		return nil
	}
	port := strconv.Itoa(tcp.Port)
	ip, _ := netip.AddrFromSlice(tcp.IP)
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return []string{"http://localhost:" + port}
	case ip.IsValid() && !ip.IsUnspecified():
		return []string{"http://" + net.JoinHostPort(ip.String(), port)}
	}
	v4only := ip.Is4() // 0.0.0.0 listens on IPv4 alone; :port and [::] on both
	var ips []netip.Addr
	for _, ia := range ifaceAddrs {
		p, err := netip.ParsePrefix(ia.String())
		if err != nil {
			continue
		}
		a := p.Addr().Unmap()
		if a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsMulticast() || a.IsUnspecified() {
			continue
		}
		if a.Is6() && v4only {
			continue
		}
		ips = append(ips, a)
	}
	slices.SortStableFunc(ips, func(a, b netip.Addr) int { // IPv4 first, then in the system's order
		return cmp.Compare(boolInt(a.Is6()), boolInt(b.Is6()))
	})
	ips = slices.Compact(ips)
	if len(ips) == 0 {
		return []string{"http://localhost:" + port}
	}
	urls := make([]string, len(ips))
	for i, ip := range ips {
		urls[i] = "http://" + net.JoinHostPort(ip.String(), port)
	}
	return urls
}

// describeInvite says, at startup, where friends' phones can open the
// server, or why they cannot.
func describeInvite(listen net.Addr, urls []string) string {
	if tcp, ok := listen.(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		return "none: the server listens on this machine only (start it with -addr :8080 for phones on the same network)"
	}
	if len(urls) == 1 && strings.HasPrefix(urls[0], "http://localhost:") {
		return "none yet: this machine has no network address but loopback (connect it to the venue's Wi-Fi)"
	}
	return "open " + strings.Join(urls, " or ")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
