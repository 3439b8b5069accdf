package lobby

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/protocol"
)

// Limits per client address. A whole bowling alley reaches the server
// through one public address on its Wi-Fi, so each leaves room for
// hundreds of people there while refusing the floods of thousands one
// client can send; a load run from one loopback address raises or lifts
// them with tenpin serve's flags.
const (
	// CreateRate and CreateBurst bound the lanes one address creates: a
	// burst of 20 for a bowling alley whose groups share one public
	// address at opening time, then one every 6 seconds. One client must
	// not take every lane of the server (10,000 were created in 0.64 s).
	CreateRate  = 10.0 / 60 // a second
	CreateBurst = 20

	// ConnsPerAddr is the WebSocket connections one address holds at
	// once: an alley of 40 lanes, each with a few players' phones and a
	// few watching, and pages reloading (which hold two for a moment), is
	// a few hundred; a flood that would take the server's every
	// connection is refused long before.
	ConnsPerAddr = 1000

	// ConnsPerLaneAddr is the WebSocket connections one address holds on
	// one lane: its eight players and a crowd of friends watching behind
	// one alley's address, not the lane's every place to watch (a crawler
	// with idle sockets would otherwise fill a new lane before its friends
	// come).
	ConnsPerLaneAddr = 64

	// LanesPerAddr is the lanes created from one address open at once: a
	// league organizer setting up a night on every lane of a large alley
	// (60 lanes at the biggest), with room for the groups that open their
	// own; not the server's 10,000.
	LanesPerAddr = 100

	// maxTrackedAddrs bounds the addresses whose creations are counted.
	// Past it, everyone's count starts again: under a spray of addresses a
	// bounded memory matters more than perfect fairness, and the lane limit
	// still holds.
	maxTrackedAddrs = 10_000
)

// The limits per client address, for the counts of their refusals (see
// [Admission.RateLimited]).
const (
	LimitCreations    = "lane_creations"               // CreateRate and CreateBurst
	LimitConnsPerAddr = "connections_per_address"      // ConnsPerAddr
	LimitLaneConns    = "lane_connections_per_address" // ConnsPerLaneAddr
	LimitLanesPerAddr = "lanes_per_address"            // LanesPerAddr
	LimitQRCodes      = "qr_codes"                     // QRRate and QRBurst
	LimitExports      = "exports"                      // ExportRate and ExportBurst
)

// Exports asked for per client address: a lane's games, numbers, CSV
// and scorecards. A closed lane's page asks for one scorecard a game, up
// to a hundred; a crowd behind one address asks for what is kept.
const (
	ExportRate  = 20
	ExportBurst = 150
)

// KeptPerAddr is how many closed lanes' nights, of lanes created from one
// client address, the server keeps a day (the archive keeps each for
// days): a center whose phones share one address plays far fewer lanes
// a day, while an address creating a lane every few seconds cannot fill
// the archive. A night past it closes unkept, and its lane's log says so.
const KeptPerAddr = 100

// QR codes drawn per client address: a code costs a few milliseconds of
// CPU to draw (it is kept afterwards), so one address may ask for new
// ones only so fast. A phone asks for one a lane; a room of people
// opening the same lane are served the kept one.
const (
	QRRate  = 5
	QRBurst = 20
)

// Keys tried per client address: a bowler's (their key, a code, a
// share) and a league secretary's.
const (
	// KeyGuessRate and KeyGuessBurst bound the unknown keys, codes and
	// shares one address may try: a key has 130 random bits and cannot
	// be guessed, but each try costs the store a read.
	KeyGuessRate  = 1.0 // a second
	KeyGuessBurst = 20

	// LimitKeyGuesses counts the requests KeyGuessRate refused.
	LimitKeyGuesses = "bowler_key_guesses"
)

// The joins on lanes' sockets per client address: each stores a seat in
// its lane's log, and one asking to be remembered may make a bowler, kept
// for good. A center's phones behind one address join a few hundred
// times at opening and a few a minute after; an address joining and
// leaving as fast as its sockets may (a thousand times a second) would
// fill the store.
const (
	// JoinBurst and JoinRate bound the joins of one address: 300 at once,
	// then one a second. A join the lane refuses costs nothing.
	JoinBurst = 300
	JoinRate  = 1.0 // a second

	// NewBowlersPerAddr bounds the joins asking to be remembered of one
	// address a day: a large center's new bowlers on a busy day. A join
	// seated as a guest, or refused, costs nothing.
	NewBowlersPerAddr = 500

	// LimitJoins and LimitNewBowlers count the joins JoinRate and
	// NewBowlersPerAddr refused.
	LimitJoins      = "joins"
	LimitNewBowlers = "new_bowlers"
)

// Socket returns the settings of a WebSocket connection from client
// address addr: the lobby's (Config.Socket), with the limits its joins
// spend of addr's (see ws.AddrLimit).
func (a *Admission) Socket(addr string) ws.Config {
	cfg := a.socket
	cfg.Addr = addr
	cfg.KeyGuesses = addrLimit{a, a.keyGuesses, LimitKeyGuesses, func(wait int) *protocol.Error {
		return protocol.RefuseKeyGuesses.Error(wait)
	}}
	if l := a.joins; l != nil {
		cfg.Joins = addrLimit{a, l, LimitJoins, func(wait int) *protocol.Error { return protocol.RefuseJoins.Error(wait) }}
	}
	if l := a.newBowlers; l != nil {
		cfg.NewBowlers = addrLimit{a, l, LimitNewBowlers, func(wait int) *protocol.Error {
			return protocol.RefuseNewBowlers.Error(a.bowlersPerAddr, wait)
		}}
	}
	return cfg
}

// addrLimit is an AddrLimiter as a lane's socket spends it
// (ws.AddrLimit): its refusals counted by limit, and told by refuse.
type addrLimit struct {
	admit  *Admission
	l      *AddrLimiter
	limit  string
	refuse func(wait int) *protocol.Error
}

func (a addrLimit) Spend(addr string, now time.Time) error {
	ok, wait := a.l.Allow(addr, now)
	if ok {
		return nil
	}
	e := a.refuse(RetrySecs(wait))
	a.admit.CountRefusal(e.Code, a.limit)
	return e
}

func (a addrLimit) Refund(addr string) { a.l.Refund(addr) }

// AllowGuess spends one of the keys the client address addr may try
// (KeyGuessRate, KeyGuessBurst) if it has one left; otherwise it says
// how long until it will.
func (a *Admission) AllowGuess(addr string, now time.Time) (bool, time.Duration) {
	return a.keyGuesses.Allow(addr, now)
}

// RefundGuess gives back the token AllowGuess spent, for a key that
// turned out to be known.
func (a *Admission) RefundGuess(addr string) { a.keyGuesses.Refund(addr) }

// ClientAddr returns the client address a request's limits count against.
// It is the peer of the connection, or, for a request from one of the
// reverse proxies in front of the server (Config.TrustProxy), the last
// address of its X-Forwarded-For (see lastForwarded). IPv6 addresses count
// by their /64 prefix: one home or phone is given a whole /64, so a client
// could otherwise take a new address for every request.
func (a *Admission) ClientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host // not an IP (a test's made-up address): counted as it is
	}
	if a.trusted(ip) {
		if fwd, ok := lastForwarded(r.Header.Values("X-Forwarded-For")); ok {
			return addrKey(fwd)
		}
	}
	return addrKey(ip)
}

// trusted reports whether a is the address of a proxy in front of the
// server (Config.TrustProxy).
func (a *Admission) trusted(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	for _, p := range a.trustProxy {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ParseProxies reads the addresses of reverse proxies: comma-separated
// addresses (127.0.0.1, ::1) or networks (10.0.0.0/8), as tenpin serve's
// -trust-proxy takes them.
func ParseProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("lobby: %q is neither an address nor a network (10.0.0.0/8)", f)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// lastForwarded returns the last entry of the X-Forwarded-For headers
// given, if it is an IP address (with or without a port).
//
// Every proxy appends the address it was connected from, so the last
// entry is the one the proxy in front of this server wrote: the address
// of whoever connected to that proxy. Every entry before it was sent by
// that client, or by proxies this server knows nothing about, and can be
// anything: a client that wrote "X-Forwarded-For: 10.1.2.3" itself would
// be counted as 10.1.2.3, a fresh address for every request, if the
// first entry were taken. So the last it is, and the proxy must append
// to the header (nginx's $proxy_add_x_forwarded_for, Caddy's and most
// load balancers' default) and be the only way to the server.
func lastForwarded(values []string) (netip.Addr, bool) {
	if len(values) == 0 {
		return netip.Addr{}, false
	}
	last := values[len(values)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	last = strings.TrimSpace(last)
	if a, err := netip.ParseAddr(last); err == nil {
		return a, true
	}
	if ap, err := netip.ParseAddrPort(last); err == nil { // some proxies add the port
		return ap.Addr(), true
	}
	return netip.Addr{}, false
}

// addrKey is the key an address's limits are counted under: an IPv4
// address (IPv4-mapped IPv6 included) as it is, an IPv6 address as its
// /64.
func addrKey(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64) // cannot fail: a is IPv6
	return p.String()
}

// AddrLimiter is a token bucket per client address, safe for concurrent
// use: what one address may ask for so often (see QRRate and the other
// rates), whoever serves it.
type AddrLimiter struct {
	rate, burst float64

	mu      sync.Mutex
	buckets map[string]*addrBucket
}

type addrBucket struct {
	tokens float64
	last   time.Time
}

// NewAddrLimiter returns a limiter that gives each address rate tokens a
// second, up to burst at once.
func NewAddrLimiter(rate float64, burst int) *AddrLimiter {
	return &AddrLimiter{rate: rate, burst: float64(burst), buckets: make(map[string]*addrBucket)}
}

// Allow spends one of addr's tokens if it has one; otherwise it says how
// long until it will.
func (a *AddrLimiter) Allow(addr string, now time.Time) (bool, time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.buckets[addr]
	if b == nil {
		if len(a.buckets) >= maxTrackedAddrs {
			clear(a.buckets)
		}
		b = &addrBucket{tokens: a.burst, last: now}
		a.buckets[addr] = b
	}
	b.tokens = min(a.burst, b.tokens+now.Sub(b.last).Seconds()*a.rate)
	b.last = now
	if b.tokens < 1 {
		return false, time.Duration((1 - b.tokens) / a.rate * float64(time.Second))
	}
	b.tokens--
	return true, 0
}

// Refund gives back the token Allow spent, for what turned out to cost
// nothing (a key that was known).
func (a *AddrLimiter) Refund(addr string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if b := a.buckets[addr]; b != nil {
		b.tokens = min(a.burst, b.tokens+1)
	}
}

// addrCount counts what each client address holds open now: connections,
// or lanes. Guarded by its owner's mutex (see admission). An address is
// forgotten when it holds nothing, so the map is bounded by what the
// server holds.
type addrCount map[string]int

// take counts one more for addr unless it holds limit already (a limit
// below 1 is none).
func (c addrCount) take(addr string, limit int) bool {
	if limit > 0 && c[addr] >= limit {
		return false
	}
	c[addr]++
	return true
}

// give counts one less for addr.
func (c addrCount) give(addr string) {
	if c[addr]--; c[addr] <= 0 {
		delete(c, addr)
	}
}

// counters counts the lobby's refusals, for the server's metrics: by
// error code, and the hits of each limit per client address.
type counters struct {
	refused sync.Map // code → *atomic.Int64
	limited sync.Map // limit → *atomic.Int64
}

func count(m *sync.Map, key string) {
	c, ok := m.Load(key)
	if !ok {
		c, _ = m.LoadOrStore(key, new(atomic.Int64))
	}
	c.(*atomic.Int64).Add(1)
}

func snapshot(m *sync.Map, keys ...string) map[string]int64 {
	out := make(map[string]int64, len(keys))
	for _, k := range keys {
		out[k] = 0
	}
	m.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

// Refused returns how many requests the lobby's HTTP API and WebSocket
// endpoint refused since it started, by error code ("rate_limited",
// "too_many_connections", "lane_not_found", …). Refused client messages
// are counted in [lane.Metrics].
func (a *Admission) Refused() map[string]int64 { return snapshot(&a.counters.refused) }

// RateLimited returns how many requests each limit per client address
// refused since the lobby started, by limit (LimitCreations,
// LimitConnsPerAddr, LimitLanesPerAddr; each present, if only as 0).
func (a *Admission) RateLimited() map[string]int64 {
	return snapshot(&a.counters.limited, LimitCreations, LimitConnsPerAddr, LimitLaneConns, LimitLanesPerAddr, LimitQRCodes, LimitKeyGuesses, LimitExports, LimitLeagueCreations, LimitJoins, LimitNewBowlers)
}

// rateLimited counts a refusal by the given limit per client address.
func (a *Admission) rateLimited(limit string) { count(&a.counters.limited, limit) }
