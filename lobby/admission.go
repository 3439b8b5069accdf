package lobby

import (
	"net/netip"
	"sync"
	"time"

	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/protocol"
)

// Admission decides what each client address may open and ask for: the
// WebSocket connections the server and each address hold, the lanes each
// address created and holds open, the rates at which an address may
// create lanes and leagues, guess keys and join lanes (the rates of QR
// codes and exports are lobby/api's), and which address a request
// counts against; it counts what it refused, for the metrics. It is the
// lobby's door, apart from its lanes (Lobby.Admission): its own mutex
// guards its counts, and it is never held while anything else is.
type Admission struct {
	maxConns     int // the server's WebSocket connections
	connsPerAddr int // Config.ConnsPerAddr; below 1, none
	perLaneAddr  int // Config.ConnsPerLaneAddr; below 1, none
	lanesPerAddr int // Config.LanesPerAddr; below 1, none

	trustProxy     []netip.Prefix // Config.TrustProxy
	socket         ws.Config      // Config.Socket, which Socket gives each connection its limits in
	bowlersPerAddr int            // Config.BowlersPerAddr, for its refusal's words
	counters       counters       // refusals, for the metrics

	// The rates per client address; each has its own mutex.
	creations       *AddrLimiter // lane creations
	keyGuesses      *AddrLimiter // unknown bowler keys, codes and shares tried
	leagueCreations *AddrLimiter // league creations
	keptNights      *AddrLimiter // closed lanes' nights kept, by the address that created the lane; nil: no limit
	joins           *AddrLimiter // joins on lanes' sockets; nil: no limit
	newBowlers      *AddrLimiter // joins asking to be remembered; nil: no limit

	served sync.WaitGroup // connections being served, refusals in flight included

	mu        sync.Mutex
	closing   bool      // no new connections once set
	conns     int       // connections being served, refusals in flight included
	byAddr    addrCount // connections served, by client address
	laneConns addrCount // connections served, by lane and client address
	refusing  addrCount // connections being refused, by client address
	lanes     addrCount // lanes open or being created, by the address that created them
}

// newAdmission returns the admission of a lobby whose Config has its
// defaults filled in.
func newAdmission(cfg Config) *Admission {
	return &Admission{
		maxConns:        cfg.MaxConnections,
		connsPerAddr:    cfg.ConnsPerAddr,
		perLaneAddr:     cfg.ConnsPerLaneAddr,
		lanesPerAddr:    cfg.LanesPerAddr,
		trustProxy:      cfg.TrustProxy,
		socket:          cfg.Socket,
		bowlersPerAddr:  cfg.BowlersPerAddr,
		creations:       NewAddrLimiter(cfg.CreateRate, cfg.CreateBurst),
		keyGuesses:      NewAddrLimiter(KeyGuessRate, KeyGuessBurst),
		leagueCreations: NewAddrLimiter(LeagueCreateRate, LeagueCreateBurst),
		keptNights:      dailyLimiter(cfg.KeptPerAddr),
		joins:           joinLimiter(cfg.JoinsPerAddr),
		newBowlers:      dailyLimiter(cfg.BowlersPerAddr),
		byAddr:          make(addrCount),
		laneConns:       make(addrCount),
		refusing:        make(addrCount),
		lanes:           make(addrCount),
	}
}

// AllowCreation spends one of the lane creations the client address addr
// may make (Config.CreateRate, Config.CreateBurst) if it has one left;
// otherwise it says how long until it will.
func (a *Admission) AllowCreation(addr string, now time.Time) (bool, time.Duration) {
	return a.creations.Allow(addr, now)
}

// LanesPerAddr is how many lanes a client address may hold open at once
// (Config.LanesPerAddr; below 1, no limit).
func (a *Admission) LanesPerAddr() int { return a.lanesPerAddr }

// CountRefusal counts a request the API refused, by its code, and by the
// limit per client address that refused it if one did (limit is not
// ""): see [Admission.Refused] and [Admission.RateLimited].
func (a *Admission) CountRefusal(code protocol.Code, limit string) {
	count(&a.counters.refused, string(code))
	if limit != "" {
		a.rateLimited(limit)
	}
}

// AllowLeagueCreation spends one of the league creations the client
// address addr may make (LeagueCreateRate, LeagueCreateBurst) if it has
// one left; otherwise it says how long until it will.
func (a *Admission) AllowLeagueCreation(addr string, now time.Time) (bool, time.Duration) {
	return a.leagueCreations.Allow(addr, now)
}

// RefundLeagueCreation gives back the creation AllowLeagueCreation spent,
// for a league that was not created.
func (a *Admission) RefundLeagueCreation(addr string) { a.leagueCreations.Refund(addr) }

// Connections returns the WebSocket connections the lobby serves now,
// those being refused included.
func (a *Admission) Connections() int { return a.connections() }

// joinLimiter returns the limiter of n joins at once per address, then
// JoinRate; nil for none.
func joinLimiter(n int) *AddrLimiter {
	if n < 1 {
		return nil
	}
	return NewAddrLimiter(JoinRate, n)
}

// dailyLimiter returns the limiter of n a day per address, nil for none.
func dailyLimiter(n int) *AddrLimiter {
	if n < 1 {
		return nil
	}
	return NewAddrLimiter(float64(n)/(24*60*60), n)
}

// mayKeep spends one of the nights owner, the address that created a
// lane, may have kept today, if it has one left; a lane of nobody's (a
// league's, one restored) is always kept.
func (a *Admission) mayKeep(owner string, now time.Time) bool {
	if a.keptNights == nil || owner == "" {
		return true
	}
	ok, _ := a.keptNights.Allow(owner, now)
	return ok
}

// unkept gives owner back the night mayKeep spent, for a night the
// archive did not take.
func (a *Admission) unkept(owner string) {
	if a.keptNights != nil && owner != "" {
		a.keptNights.Refund(owner)
	}
}

// connOpened counts a WebSocket connection from the client address addr
// in, unless the lobby is closing or holds its limit, and returns the
// function that counts it out.
//
// When addr holds its own limit, the error is errAddrLimit and the
// connection is counted in the server's connections all the same, and
// among addr's refusals in flight (not its connections), until done is
// called: the refusal is a WebSocket of its own for a moment (see
// ws.Refuse), a file the server's limit must count. With maxRefusing
// refusals in flight already, the error is errRefusing and nothing is
// counted: the request gets a plain 429.
func (a *Admission) connOpened(addr string) (done func(), err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.closing:
		return nil, errShuttingDown
	case a.conns >= a.maxConns:
		return nil, refused(protocol.RefuseConnsServer, a.maxConns)
	}
	if a.byAddr.take(addr, a.connsPerAddr) {
		a.conns++
		a.served.Add(1)
		return func() { a.connClosed(addr, a.byAddr) }, nil
	}
	// Over its limit: the socket is refused with a close frame, which
	// holds a connection for a moment (see ws.Refuse). An address may
	// have only a few refusals at a time; past them it gets a plain 429.
	if !a.refusing.take(addr, maxRefusing) {
		return nil, refused(protocol.RefuseConnsAddrRefusing, a.connsPerAddr)
	}
	a.conns++
	a.served.Add(1)
	return func() { a.connClosed(addr, a.refusing) }, refused(protocol.RefuseConnsAddr, a.connsPerAddr)
}

// maxRefusing is how many of its sockets an address may have refused at
// once, each held open for at most ws.RefuseTimeout.
const maxRefusing = 4

func (a *Admission) connClosed(addr string, counted addrCount) {
	a.mu.Lock()
	a.conns--
	counted.give(addr)
	a.mu.Unlock()
	a.served.Done()
}

// laneConnOpened counts a connection from addr to lane id in, unless addr
// holds Config.ConnsPerLaneAddr there already, and returns the function
// that counts it out.
func (a *Admission) laneConnOpened(id, addr string) (done func(), ok bool) {
	key := id + " " + addr
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.laneConns.take(key, a.perLaneAddr) {
		return nil, false
	}
	return func() {
		a.mu.Lock()
		a.laneConns.give(key)
		a.mu.Unlock()
	}, true
}

// laneOpening counts a lane created from owner in, unless owner holds
// Config.LanesPerAddr open already ("": nobody's, never refused).
func (a *Admission) laneOpening(owner string) bool {
	if owner == "" {
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lanes.take(owner, a.lanesPerAddr)
}

// laneClosed counts a lane created from owner out.
func (a *Admission) laneClosed(owner string) {
	if owner == "" {
		return
	}
	a.mu.Lock()
	a.lanes.give(owner)
	a.mu.Unlock()
}

// close refuses every connection from now on; wait waits for those being
// served to end.
func (a *Admission) close() {
	a.mu.Lock()
	a.closing = true
	a.mu.Unlock()
}

func (a *Admission) wait() { a.served.Wait() }

// connections returns the connections being served, refusals in flight
// included.
func (a *Admission) connections() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.conns
}
