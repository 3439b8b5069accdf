package main

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/tenpin/tenpin/lobby/api"
	"github.com/tenpin/tenpin/protocol"
)

// hostPolicy is the names the server answers to, in the Host header of a
// request: a guard against DNS rebinding. A page of another site can make
// its own name resolve to this server's address (127.0.0.1, or one on the
// visitor's network) and then open WebSockets to it and read its API as
// "same origin": the only trace of the trick is the Host header, which
// holds that site's name. So a request for a name the server was not told
// it has is refused.
//
// Allowed by default: localhost and its subdomains (which resolve only
// to loopback), any IP address (a rebinding page always has a domain name,
// never an IP, as its Host), the machine's hostname and its .local form
// (mDNS), the name -addr listens on, if it is one, and an empty Host (no
// browser sends one). -host adds names, and
// "*.example.com" a domain's every subdomain; -host '*' allows any name.
type hostPolicy struct {
	any      bool
	names    map[string]bool
	suffixes []string // ".localhost", and ".example.com" for "*.example.com"
	given    []string // the names -host gave, for messages
}

// newHostPolicy returns the policy for a -host of flag (comma-separated
// names) on a machine called hostname ("" if unknown).
func newHostPolicy(flag, hostname string) (*hostPolicy, error) {
	p := &hostPolicy{names: map[string]bool{"localhost": true}, suffixes: []string{".localhost"}}
	if h := canonicalHost(hostname); h != "" {
		p.names[h] = true
		short, _, _ := strings.Cut(h, ".")
		p.names[short+".local"] = true
	}
	for name := range strings.SplitSeq(flag, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
			continue
		case name == "*":
			p.any = true
		case strings.ContainsAny(name, ":/ ") && !isIP(name):
			return nil, fmt.Errorf("serve: -host %q: want host names (example.com, *.example.com), without a scheme, port or path", name)
		case strings.HasPrefix(name, "*."):
			p.suffixes = append(p.suffixes, canonicalHost(name[1:]))
		case strings.Contains(name, "*"):
			return nil, fmt.Errorf("serve: -host %q: a wildcard is * alone or a leading *. (*.example.com)", name)
		default:
			p.names[canonicalHost(name)] = true
		}
		p.given = append(p.given, name)
	}
	return p, nil
}

// allows reports whether the server answers to host, a Host header (with
// or without a port).
func (p *hostPolicy) allows(host string) bool {
	if p.any || host == "" {
		return true
	}
	name := canonicalHost(host)
	if isIP(name) || p.names[name] {
		return true
	}
	return slices.ContainsFunc(p.suffixes, func(s string) bool { return strings.HasSuffix(name, s) })
}

// String says which names the policy allows, for the startup line.
func (p *hostPolicy) String() string {
	if p.any {
		return "any name (-host '*')"
	}
	names := make([]string, 0, len(p.names))
	for n := range p.names {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, s := range p.suffixes {
		names = append(names, "*"+s)
	}
	return "IP addresses, " + strings.Join(names, ", ")
}

// canonicalHost returns a Host header's name: without the port or an
// IPv6 address's brackets, in lower case, without a final dot.
func canonicalHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// listenName returns the host of a -addr if it is a name (not an IP
// address, not empty): a server told to listen on a name answers to it.
func listenName(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" || isIP(host) || strings.ContainsAny(host, "*,") {
		return ""
	}
	return host
}

func isIP(s string) bool {
	_, err := netip.ParseAddr(s)
	return err == nil
}

// checkHost serves h the requests for a name p allows, and answers the
// others 421 (Misdirected Request: this server does not answer to that
// name) with an error that names the flag allowing it. refused counts
// them.
func checkHost(p *hostPolicy, refused *atomic.Int64, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.allows(r.Host) {
			h.ServeHTTP(w, r)
			return
		}
		refused.Add(1)
		name := canonicalHost(r.Host)
		api.SetHeaders(w.Header())
		api.WriteError(w, protocol.RefuseHostName.Error(name, name))
	})
}
