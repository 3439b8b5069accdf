package lobby

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/lobby/peers"
	"github.com/tenpin/tenpin/protocol"
)

// Limits.
const (
	// MaxLanes is the lanes one server keeps open by default. Each lane is a
	// goroutine and a few kilobytes; the limit keeps a flood of creations
	// from exhausting memory.
	MaxLanes = 10_000

	// MaxLaneName is the longest lane name, in characters: enough for
	// "Friday night league, lane 12", short enough for a phone's lobby list.
	MaxLaneName = 40

	// MaxConnections is the WebSocket connections one server holds by
	// default: each costs a few kilobytes of memory (about 24 KiB) and a
	// file descriptor. tenpin serve holds fewer when its open-file limit
	// allows fewer (see cmd/tenpin's connLimit).
	MaxConnections = 100_000

	// CompactInterval is how often, by default, the journal is compacted:
	// every open lane stores a snapshot and everything before them is
	// dropped. It bounds what a restart replays (a minute of events) at the
	// cost of one append a lane a minute.
	CompactInterval = time.Minute

	// healthTimeout bounds /healthz's question to the store: a store that
	// takes longer is as good as down for a lane waiting on an append.
	healthTimeout = 2 * time.Second
)

// Config holds the lobby's settings. The zero value gives the defaults.
type Config struct {
	MaxLanes       int      // default MaxLanes
	MaxConnections int      // WebSocket connections at once; default MaxConnections
	OriginPatterns []string // other origins allowed to open WebSockets; same-origin is always allowed
	CreateRate     float64  // lanes an address may create a second, on average; default CreateRate
	CreateBurst    int      // and at once; default CreateBurst
	// ConnsPerAddr and LanesPerAddr bound the WebSocket connections and
	// the lanes one client address holds open at once; 0 gives the
	// defaults (ConnsPerAddr, LanesPerAddr), a negative value lifts the
	// limit. Lanes restored after a restart count for nobody.
	ConnsPerAddr int
	// ConnsPerLaneAddr bounds the WebSocket connections one address
	// holds on one lane (0: ConnsPerLaneAddr; negative: no limit).
	ConnsPerLaneAddr int
	LanesPerAddr     int
	// KeptPerAddr bounds the nights of lanes created from one client
	// address that the archive keeps a day (0: KeptPerAddr; negative: no
	// limit). Lanes restored after a restart count for nobody.
	KeptPerAddr int
	// JoinsPerAddr bounds the joins one client address makes on lanes'
	// sockets at once, then JoinRate (0: JoinBurst; negative: no
	// limit); BowlersPerAddr its joins asking to be remembered a day (0:
	// NewBowlersPerAddr; negative: no limit).
	JoinsPerAddr   int
	BowlersPerAddr int
	// TrustProxy are the addresses of the reverse proxies in front of
	// the server: a request that comes from one of them is counted by the
	// last entry of its X-Forwarded-For (see ClientAddr), whose address
	// every client would otherwise share; a request from anywhere else by
	// its peer, whatever its header says (anyone who reaches the server
	// directly could write one). None: every request by its peer.
	TrustProxy []netip.Prefix
	// Lane is every lane's settings. Its Journal, which keeps the lanes,
	// is required.
	Lane lane.Config
	// Socket is every WebSocket connection's settings: timeouts, pings,
	// rate limit.
	Socket ws.Config
	Logger *slog.Logger
	// Health, if set, reports whether the store takes writes: /healthz
	// fails while it returns an error.
	Health func(ctx context.Context) error
	// Full, if set, names the kinds of data whose budget in bytes is full
	// (natsstore.Journal.Full): /healthz names them, and stays ok while
	// Health does.
	Full func() []string
	// CompactEvery is how often the journal is compacted; default
	// CompactInterval.
	CompactEvery time.Duration
	// Cluster, if set, joins the lobby to the other nodes of a cluster
	// sharing its journal: it lists their lanes, serves them through
	// relays and takes over those no node runs. Restore is not called
	// then, but Adopt.
	Cluster peers.Cluster
	// Archive, if set, keeps the nights of lanes that close (see
	// [Archive]): their sheets answer the API read-only after them.
	// Without it a closed lane is gone.
	Archive Archive
	// Leagues keeps the leagues (see the leagues' API); default: in
	// memory (memjournal), forgotten when the process ends.
	Leagues league.Store
	// URLs are the addresses at which friends can open the server
	// (http://192.168.1.20:8080), best first: a lane's invitation links
	// there. Without them, the address a request came to is used.
	URLs []string
}

// Lobby keeps the lanes of one server. Create lanes with [Lobby.Create];
// [Lobby.Run] runs their goroutines. The services beside the lanes are
// its [Lobby.Admission], its [Lobby.Leagues] and its [Lobby.Bowlers].
type Lobby struct {
	cfg Config
	log *slog.Logger

	lanes   *registry       // the lanes kept, closed and unrestored
	starts  chan *lane.Lane // lanes for Run to start
	stopped chan struct{}   // closed when Run stops

	admit   *Admission  // what each client address may open and ask for
	nights  *keptNights // the nights of lanes that closed; nil without an Archive
	leagues *Leagues    // the leagues, run on the lobby's lanes

	listVersion atomic.Uint64 // lanes opened and closed (see ListVersion)

	compaction compaction // the journal's compactions, one at a time

	claims singleflight.Group // lanes being taken over, by id (see claim)

	reopened reopenings // league lanes reopened after they failed
}

// New returns a lobby; it needs [Lobby.Run] running to start lanes.
// cfg.Lane.Journal must be set: the lobby does not choose where lanes are
// kept (lobby/memjournal keeps them in memory, lobby/natsstore in JetStream).
func New(cfg Config) *Lobby {
	if cfg.Lane.Journal == nil {
		panic("lobby: New without a journal (Config.Lane.Journal)")
	}
	if cfg.MaxLanes <= 0 {
		cfg.MaxLanes = MaxLanes
	}
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = MaxConnections
	}
	if cfg.CreateRate <= 0 {
		cfg.CreateRate = CreateRate
	}
	if cfg.CreateBurst <= 0 {
		cfg.CreateBurst = CreateBurst
	}
	if cfg.ConnsPerAddr == 0 {
		cfg.ConnsPerAddr = ConnsPerAddr
	}
	if cfg.ConnsPerLaneAddr == 0 {
		cfg.ConnsPerLaneAddr = ConnsPerLaneAddr
	}
	if cfg.LanesPerAddr == 0 {
		cfg.LanesPerAddr = LanesPerAddr
	}
	if cfg.KeptPerAddr == 0 {
		cfg.KeptPerAddr = KeptPerAddr
	}
	if cfg.JoinsPerAddr == 0 {
		cfg.JoinsPerAddr = JoinBurst
	}
	if cfg.BowlersPerAddr == 0 {
		cfg.BowlersPerAddr = NewBowlersPerAddr
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Lane.Logger == nil {
		cfg.Lane.Logger = cfg.Logger
	}
	if cfg.Lane.Metrics == nil {
		cfg.Lane.Metrics = new(lane.Metrics)
	}
	if cfg.CompactEvery <= 0 {
		cfg.CompactEvery = CompactInterval
	}
	if cfg.Leagues == nil {
		cfg.Leagues = memjournal.NewLeagues()
	}
	lb := &Lobby{
		cfg:     cfg,
		log:     cfg.Logger,
		lanes:   newRegistry(cfg.MaxLanes),
		admit:   newAdmission(cfg),
		starts:  make(chan *lane.Lane),
		stopped: make(chan struct{}),
	}
	lb.leagues = &Leagues{lanes: lb, store: cfg.Leagues, log: cfg.Logger, cache: leagueCache{m: make(map[string]*leagueEntry)}}
	if cfg.Archive != nil {
		lb.nights = &keptNights{archive: cfg.Archive, admit: lb.admit, owner: lb.lanes.owner, perDay: cfg.KeptPerAddr, log: cfg.Logger}
		if cfg.Lane.Keep == nil {
			lb.cfg.Lane.Keep = lb.nights.keep
		}
	}
	if cfg.Lane.LeagueNight == nil {
		lb.cfg.Lane.LeagueNight = leagueNight{lb.leagues} // a league night's lanes, restored ones too, report to it
	}
	return lb
}

// Metrics returns the counters shared by the lobby's lanes.
func (lb *Lobby) Metrics() *lane.Metrics { return lb.cfg.Lane.Metrics }

// Run runs the lobby's lanes until ctx ends, then waits for every lane to
// close its connections and stop.
func (lb *Lobby) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	defer func() {
		close(lb.stopped)
		wg.Wait()
		lb.admit.close()
		lb.admit.wait() // every socket has closed with its lane
	}()
	run := func(l *lane.Lane) {
		wg.Go(func() {
			err := l.Run(ctx)
			lb.remove(l.ID())
			lb.log.Info("lane closed", "lane", l.ID(), "reason", err)
			if l.League() && ctx.Err() == nil && !errors.Is(err, lane.ErrIdle) && !errors.Is(err, lane.ErrMoved) {
				lb.reopen(ctx, l.ID(), err)
			}
		})
	}
	for _, l := range lb.lanes.startAll() {
		run(l)
	}
	ticker := time.NewTicker(lb.cfg.CompactEvery)
	defer ticker.Stop()
	compacted := make(chan struct{}, 1) // a compaction may run: at most one at a time
	compacted <- struct{}{}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case l := <-lb.starts:
			run(l)
		case <-ticker.C:
			if lb.cfg.Cluster == nil && lb.compaction.idle(lb.cfg.Lane.Metrics.Appends.Load()) {
				continue // nothing stored since the last compaction's own snapshots (in a cluster, the others store too)
			}
			select {
			case <-compacted:
				wg.Go(func() {
					defer func() { compacted <- struct{}{} }()
					if err := lb.Compact(ctx); err != nil && ctx.Err() == nil {
						lb.log.Warn("journal not compacted", "err", err)
					}
				})
			default: // the last one is still running
			}
		}
	}
}

// Restore brings back every lane the journal holds open, as it was: call
// it before [Lobby.Run], which starts them. It returns how many lanes it
// restored. A lane that cannot be restored (its log is unreadable, or
// claiming it fails) is logged and left in the journal; the others come
// back all the same.
func (lb *Lobby) Restore(ctx context.Context) (int, error) {
	logs, err := lb.cfg.Lane.Journal.Lanes(ctx)
	if err != nil {
		return 0, fmt.Errorf("lobby: reading the lanes to restore: %w", err)
	}
	n := 0
	for _, log := range logs {
		switch err := lb.restore(ctx, log); {
		case errors.Is(err, lane.ErrNotRestorable): // closed: its log is its history, until a compaction
		case err != nil:
			lb.log.Error("lane not restored; compactions wait for it", "lane", log.Lane, "err", err)
		default:
			n++
		}
	}
	return n, nil
}

// restore restores one lane from its log for Run to start, or records
// that it could not be restored.
func (lb *Lobby) restore(ctx context.Context, log game.Log) error {
	l, err := (*lane.Lane)(nil), log.Err
	if err == nil {
		l, err = lane.Restore(ctx, log, lb.cfg.Lane)
	}
	lb.lanes.restored(log.Lane, l, err != nil && !errors.Is(err, lane.ErrNotRestorable))
	return err
}

// Create opens a new lane with the given name, stores its opening in the
// journal and starts it. The lane has neither host key nor invitation:
// anyone may join it, and its first player seated hosts it (a lane made
// through the API has both: see CreateFor).
func (lb *Lobby) Create(ctx context.Context, name string) (*lane.Lane, error) {
	return lb.create(ctx, name, "", false, game.TokenHash{}, game.TokenHash{}, nil)
}

// create is Create for a client address, owner, that may hold
// Config.LanesPerAddr lanes open at once ("": no limit), of a lane that
// may be private, with the hashes of a host key and of an invitation
// (zero: none, a lane anyone may join), and may be a league night's match
// (nil: none).
func (lb *Lobby) create(ctx context.Context, name, owner string, private bool, hostKey, invite game.TokenHash, match *game.LeagueLane) (*lane.Lane, error) {
	name, err := cleanName(name)
	if err != nil {
		return nil, err
	}
	if !lb.lanes.reserve() { // a place held while the opening is stored
		return nil, refused(protocol.RefuseLanesServer, lb.cfg.MaxLanes)
	}
	if !lb.admit.laneOpening(owner) {
		lb.lanes.unreserve()
		return nil, refused(protocol.RefuseLanesAddr, lb.cfg.LanesPerAddr)
	}
	defer lb.compaction.creation()()

	var l *lane.Lane
	var cl peers.Claim
	cfg := lb.cfg.Lane
	cfg.Private = cfg.Private || private
	cfg.HostKey, cfg.Invite = hostKey, invite
	cfg.League = match
	for range 3 { // an id a closed lane had is taken in the journal: draw again
		id := newID()
		if lb.cfg.Cluster != nil {
			if cl, err = lb.cfg.Cluster.Claim(id); err != nil {
				break
			}
		}
		l, err = lane.Open(ctx, id, name, cfg)
		if err != nil && cl != nil {
			cl.Release()
			cl = nil
		}
		if !errors.Is(err, game.ErrConflict) {
			break
		}
	}
	if err == nil {
		err = lb.lanes.open(l, owner, cl)
	} else {
		lb.lanes.unreserve()
	}
	if err != nil {
		lb.admit.laneClosed(owner)
		if cl != nil {
			cl.Release()
		}
		if errors.Is(err, game.ErrStorageFull) {
			// Not a store that failed a moment: storage_full, saying so.
			return nil, fmt.Errorf("lobby: a new lane: %w", err)
		}
		return nil, fmt.Errorf("%w: %w", refused(protocol.RefuseNotStored), err)
	}
	if err := lb.startLane(l, cl, "lane created"); err != nil {
		return nil, err
	}
	return l, nil
}

// startLane starts a lane just put in lanes: other nodes reach it through
// its claim (in a cluster), the list shows it, and Run runs it. said is
// what the log says of it.
func (lb *Lobby) startLane(l *lane.Lane, cl peers.Claim, said string) error {
	if cl != nil {
		cl.Bind(l)
	}
	lb.listChanged()
	select {
	case lb.starts <- l:
	case <-lb.stopped:
		lb.remove(l.ID())
		return errShuttingDown
	}
	lb.log.Info(said, "lane", l.ID())
	return nil
}

// Get returns the lane with the given id.
func (lb *Lobby) Get(id string) (*lane.Lane, bool) { return lb.lanes.get(id) }

// Bowlers returns the bowlers' store (Config.Lane.Bowlers); nil if the
// server keeps no bowlers.
func (lb *Lobby) Bowlers() bowler.Service { return lb.cfg.Lane.Bowlers }

// Settings are the lobby's settings that whoever serves it reads
// (lobby/api, wired by lobby/server): they change nothing in the lobby.
type Settings struct {
	// URLs are the addresses at which friends can open the server, best
	// first (Config.URLs); none if it was not told them.
	URLs []string
	// OriginPatterns are the other origins whose pages may open
	// WebSockets (Config.OriginPatterns); same-origin is always allowed.
	OriginPatterns []string
	// IdleTimeout is how long a lane with nobody connected stays open
	// (Config.Lane.IdleTimeout, or lane.IdleTimeout).
	IdleTimeout time.Duration
}

// Settings returns the lobby's settings that whoever serves it reads.
func (lb *Lobby) Settings() Settings {
	return Settings{
		URLs:           lb.cfg.URLs,
		OriginPatterns: lb.cfg.OriginPatterns,
		IdleTimeout:    cmp.Or(lb.cfg.Lane.IdleTimeout, lane.IdleTimeout),
	}
}

// Len returns the number of open lanes.
func (lb *Lobby) Len() int { return lb.lanes.len() }

// Leagues returns the leagues the lobby runs on its lanes.
func (lb *Lobby) Leagues() *Leagues { return lb.leagues }

// Admission returns the lobby's door: what each client address may open
// and ask for.
func (lb *Lobby) Admission() *Admission { return lb.admit }

func (lb *Lobby) remove(id string) {
	if owner, ok := lb.lanes.remove(id); ok {
		lb.admit.laneClosed(owner)
	}
	lb.listChanged()
}

// cleanName trims a lane name and refuses one that is no title (see
// bowling.ParseTitle).
func cleanName(name string) (string, error) {
	name, err := bowling.ParseTitle(name, MaxLaneName)
	if err != nil {
		return "", refused(protocol.RefuseLaneName, err)
	}
	return name, nil
}

// newID returns a random lane id: ten characters, unguessable enough that
// a lane's link is its invitation.
func newID() string {
	var b [idLen]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = idAlphabet[b[i]%byte(len(idAlphabet))]
	}
	return string(b[:])
}

// Lane ids: idLen characters of idAlphabet, which has no look-alikes (l,
// o, 0, 1). Its 32 characters divide 256: each is drawn as often.
const (
	idAlphabet = "abcdefghijkmnpqrstuvwxyz23456789"
	idLen      = 10
)
