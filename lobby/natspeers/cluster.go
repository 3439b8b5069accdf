package natspeers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/singleflight"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/relay"
	"github.com/tenpin/tenpin/lobby/peers"
	"github.com/tenpin/tenpin/protocol"
)

// Subjects. Lane ids and node names are single subject tokens.
const (
	subjOwn   = "tenpin.own."   // + lane.op.node.conn
	subjBoard = "tenpin.board." // + lane.seq
	subjTo    = "tenpin.to."    // + node.lane.conn
	subjNode  = "tenpin.node."  // + node
	subjLanes = "tenpin.lanes." // + the asking node
	subjSnap  = "tenpin.snap."  // + the asking node: snapshot your lanes (see SnapshotAll)
	subjPing  = "tenpin.ping."  // + node: are you there? (see sweep)
	// subjHeld: a node runs a lane it claimed (see owned.Bind), its name
	// the body; the relays of the lane on other nodes follow it there.
	subjHeld = "tenpin.held." // + lane
	// subjUnread: the reply subject of a relay's reads, which no node
	// answers: NATS alone does, when no node listens for the lane (no
	// responders; see Cluster.unread).
	subjUnread = "tenpin.unread." // + node.lane
)

// Messages to a lane's node (the op token of tenpin.own.<lane>.<op>…).
const (
	opPing   = "ping"   // does a node run the lane? It answers its name
	opAttach = "attach" // a connection comes
	opRead   = "read"   // the connection sent the body (published: the lane answers on the connection's subject)
	opDetach = "detach" // the connection went away (published: no answer)
	opLane   = "lane"   // the lane's HTTP views (peers.LaneView)
	opAlive  = "alive"  // the relay's newest seq and its connections (see owned.alive): answered with a newer board, or nothing
	// opSecretary: a league secretary's command (a lane's message), which
	// the asking node checked: answered with the lane's board once stored,
	// or the lane's refusal (hdrLaneRefusal).
	opSecretary = "secretary"
)

// hdrRefused is the header of an answer that refuses a request: the
// refusal's code in refusals, with no body.
const hdrRefused = "Tenpin-Refused"

// hdrLaneRefusal is the header of an answer to a secretary's command
// that the lane refused: its body is the refusal, a protocol.Error.
const hdrLaneRefusal = "Tenpin-Lane-Refusal"

// hdrNode is the header of a node's answer to a list of lanes: its name.
const hdrNode = "Tenpin-Node"

// hdrSeq is the header of an answer to alive that carries a board: its
// seq.
const hdrSeq = "Tenpin-Seq"

// refusals is the one table of the refusals a lane's node answers with,
// read both ways: the node that runs a lane answers an error with its
// code, and the node that asked returns that error again. It is the
// nodes' own wire, never a client's: the asking node turns the error
// into what its client is told, a code of protocol's table (protocol's
// errors.go, which holds everything the server says to clients), so
// these codes are not there.
var refusals = []struct {
	code string
	err  error
}{
	{"claiming", peers.ErrClaiming}, // the node is taking the lane over
	{"gone", peers.ErrNoOwner},      // it does not run the lane (any more)
	{"conn", relay.ErrConnGone},     // the lane does not know that connection
	{"busy", relay.ErrBusy},         // the lane did not take the message in time
	{"failed", errFailed},           // anything else: see refusalCode
}

// errFailed is the refusal of a lane's node for an error refusals does
// not name: the asking node is told the message was not taken, rather
// than the answering node failing.
var errFailed = errors.New("natspeers: the lane's node could not take the message")

// refusalCode returns the code of err in refusals; "failed" for an error
// the table does not name (a refusal added without its entry must not
// take the node down).
func refusalCode(err error) string {
	for _, r := range refusals {
		if errors.Is(err, r.err) {
			return r.code
		}
	}
	return "failed"
}

// refusalErr returns the error of the refusal code in refusals, or nil
// for an answer that is no refusal.
func refusalErr(m *nats.Msg) error {
	code := m.Header.Get(hdrRefused)
	if code == "" {
		return nil
	}
	for _, r := range refusals {
		if r.code == code {
			return r.err
		}
	}
	return fmt.Errorf("natspeers: unknown refusal %q", code)
}

// Defaults of [Config].
const (
	DefaultHeartbeat      = time.Second
	DefaultNodeTimeout    = 3 * time.Second
	DefaultRequestTimeout = 2 * time.Second
)

// relayIdle is how long a relay with no connections is kept, for the next
// one to come.
const relayIdle = 5 * time.Second

// aliveEvery is how often a relay tells the lane's node which connections
// it has: a detach lost on its way would leave the lane counting a client
// that is gone (shown connected, never skippable) for good.
const aliveEvery = 5 * time.Second

// adoptAfter is how long a node waits after it starts before it adopts
// the lanes that no node runs: for the routes to tell it which lanes the
// others run (a lane taken from a running node would move for nothing:
// the fence lets the later claim in).
func (c *Cluster) adoptAfter() time.Duration { return 2 * c.cfg.NodeTimeout }

// Config configures [New].
type Config struct {
	Conn *nats.Conn // the node's connection to the NATS cluster
	Node string     // this node's name, unique in the cluster

	// URLs are the addresses at which clients open this node (see
	// lobby.Config.URLs): every node tells the others, for their pages to
	// try this one when their own node stops answering.
	URLs []string

	// Lane gives the settings of the relays' connections (rate limits,
	// timeouts): those of the node's lanes.
	Lane lane.Config

	Heartbeat      time.Duration // how often the node says it is alive; default DefaultHeartbeat
	NodeTimeout    time.Duration // silent that long, a node is dead; default DefaultNodeTimeout
	RequestTimeout time.Duration // a request to another node; default DefaultRequestTimeout

	Logger *slog.Logger
}

// Cluster is this node's part of a cluster; see the package documentation.
// Run it with [Cluster.Run].
type Cluster struct {
	cfg Config
	nc  *nats.Conn
	log *slog.Logger

	// adopting: a goroutine adopts the lanes no node runs; adoptAgain:
	// another round was asked for (see adopt).
	adopting, adoptAgain atomic.Bool

	mu      sync.Mutex
	owned   map[string]*owned      // lanes this node runs, or is taking over
	relays  map[string]*relayEntry // lanes of other nodes this node has clients of
	members members                // every node heard of, and where it stands
	subs    []*nats.Subscription   // the node's own subjects
	listed  map[string]listed      // each node's lanes, as it last answered a list
	relaid  singleflight.Group     // relays being made, by lane

	// relaying holds, by lane id, the relays whose boards the node
	// receives (see relayBoards): each from before it subscribes to
	// them until after it unsubscribes. boards is their subscriptions'
	// channel, and stop ends its goroutines.
	relaying sync.Map
	boards   chan *nats.Msg
	stop     chan struct{}

	// lastBeat is when the heartbeat loop last ran (UnixNano), or a
	// pause was found, and wakes counts the pauses found: see Wakes and
	// checkPaused, which alone moves both under pauseMu.
	lastBeat, wakes atomic.Int64
	pauseMu         sync.Mutex
	closed          bool

	running atomic.Pointer[running] // once Run runs
}

// running is what Run was given — the node's lanes, and the context of
// what it does for them — and the goroutines it owns: every goroutine
// the cluster starts is one of group's (see spawn), and Run returns only
// once they all have.
type running struct {
	ctx   context.Context // the group's: it ends with Run's
	lanes peers.Lanes

	mu      sync.Mutex
	group   *errgroup.Group
	stopped bool // no more goroutines: Run is waiting for its group
}

func newRunning(ctx context.Context, lanes peers.Lanes) *running {
	g, ctx := errgroup.WithContext(ctx)
	return &running{ctx: ctx, lanes: lanes, group: g}
}

// spawn runs f on a goroutine of the group, and reports whether it did:
// not once Run is waiting for the group to end.
func (r *running) spawn(f func(ctx context.Context)) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return false
	}
	r.group.Go(func() error {
		f(r.ctx)
		return nil
	})
	return true
}

// wait takes no more goroutines, and waits for those of the group.
func (r *running) wait() {
	r.mu.Lock()
	r.stopped = true // under mu: no spawn adds to the group once Wait may run
	r.mu.Unlock()
	r.group.Wait()
}

// spawn runs f on a goroutine that Run waits for, and reports whether it
// did: not before Run runs, nor once it is returning. Nothing is lost by
// that: before Run there are no lanes to adopt or wake, nor heartbeats
// to ask about; once Run returns the node has left the cluster.
func (c *Cluster) spawn(f func(ctx context.Context)) bool {
	r := c.running.Load()
	return r != nil && r.spawn(f)
}

var _ peers.Cluster = (*Cluster)(nil)

// New joins the node to the cluster: it subscribes to the node's
// subjects. Its heartbeats start with [Cluster.Run].
func New(cfg Config) (*Cluster, error) {
	if cfg.Conn == nil {
		return nil, errors.New("natspeers: no NATS connection")
	}
	if !token(cfg.Node) {
		return nil, fmt.Errorf("natspeers: node name %q: want letters, digits, - or _", cfg.Node)
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.NodeTimeout <= 0 {
		cfg.NodeTimeout = DefaultNodeTimeout
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Cluster{
		cfg:     cfg,
		nc:      cfg.Conn,
		log:     cfg.Logger.With("node", cfg.Node),
		owned:   make(map[string]*owned),
		relays:  make(map[string]*relayEntry),
		members: newMembers(cfg.Node, cfg.NodeTimeout),
		listed:  make(map[string]listed),
		boards:  make(chan *nats.Msg, relayBacklog),
		stop:    make(chan struct{}),
	}
	for subj, h := range map[string]nats.MsgHandler{
		subjTo + cfg.Node + ".>":     c.delivered,
		subjNode + "*":               c.heartbeat,
		subjLanes + "*":              c.listLanes,
		subjPing + cfg.Node:          func(m *nats.Msg) { m.Respond(nil) },
		subjHeld + "*":               c.held,
		subjUnread + cfg.Node + ".*": c.unread,
	} {
		sub, err := c.nc.Subscribe(subj, h)
		if err != nil {
			c.unsubscribe()
			return nil, fmt.Errorf("natspeers: subscribing to %s: %w", subj, err)
		}
		c.subs = append(c.subs, sub)
	}
	if err := c.nc.Flush(); err != nil {
		c.unsubscribe()
		return nil, fmt.Errorf("natspeers: %w", err)
	}
	return c, nil
}

func (c *Cluster) unsubscribe() {
	for _, sub := range c.subs {
		sub.Unsubscribe()
	}
}

// token reports whether s may be one token of a subject.
func token(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Run says the node is alive every heartbeat, and lets go of dead nodes:
// relays of their lanes close, their clients leave this node's lanes, and
// lanes adopts the lanes they ran. When ctx ends, every relay closes (its
// clients reconnect, to a node that runs), and the node leaves the
// cluster. Every goroutine the cluster starts is Run's: it returns once
// they all have (those in lanes' methods once these return, after ctx
// ends). Run it once.
func (c *Cluster) Run(ctx context.Context, lanes peers.Lanes) error {
	// Other nodes' compactions ask for this node's snapshots only once it
	// runs, and has its lanes.
	r := newRunning(ctx, lanes)
	c.running.Store(r)
	defer r.wait() // after close, below: the goroutines end with the relays and ctx
	sub, err := c.nc.Subscribe(subjSnap+"*", c.snapshot)
	if err != nil {
		return fmt.Errorf("natspeers: subscribing to %s: %w", subjSnap+"*", err)
	}
	c.mu.Lock()
	c.subs = append(c.subs, sub)
	c.mu.Unlock()
	r.spawn(func(ctx context.Context) {
		t := time.NewTimer(c.adoptAfter())
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
			c.adopt(ctx)
		}
	})
	for range runtime.GOMAXPROCS(0) {
		r.spawn(func(context.Context) { c.relayBoards() }) // until close
	}
	r.spawn(c.keepListed)
	tick := time.NewTicker(c.cfg.Heartbeat)
	defer tick.Stop()
	c.lastBeat.Store(time.Now().UnixNano())
	beat, _ := json.Marshal(protocol.Node{Name: c.cfg.Node, URLs: c.cfg.URLs}) // plain values: cannot fail
	for {
		c.nc.Publish(subjNode+c.cfg.Node, beat)
		select {
		case <-ctx.Done():
			c.close()
			return ctx.Err()
		case <-tick.C:
			// The tick's own time is when it was due: after a pause, the
			// one that waited. Now is when it ran.
			c.beat(time.Now())
		}
	}
}

// beat does a heartbeat's work at now.
func (c *Cluster) beat(now time.Time) {
	c.checkPaused(now)
	c.lastBeat.Store(now.UnixNano())
	c.sweep(now)
}

// checkPaused finds whether the node was paused (its process stopped, its
// machine frozen) before now: the heartbeat loop last ran longer ago than
// a heartbeat and the node timeout. The first to find a pause, the loop
// or a lane asking Wakes, counts it, once, and has the node's lanes
// wake (see Lanes.Wake) and the other nodes excused (see excuse).
func (c *Cluster) checkPaused(now time.Time) {
	last := c.lastBeat.Load()
	late := now.Sub(time.Unix(0, last)) - c.cfg.Heartbeat
	if last == 0 || late <= c.cfg.NodeTimeout {
		return
	}
	c.pauseMu.Lock()
	defer c.pauseMu.Unlock()
	if c.lastBeat.Load() != last {
		return // found and counted already
	}
	c.wakes.Add(1) // before lastBeat: see Wakes
	c.lastBeat.Store(now.UnixNano())
	c.log.Warn("this node was paused: the others may have taken its lanes", "late", late)
	c.excuse(now)
	c.spawn(c.wake)
}

// excuse gives the nodes alive before this one was paused a node timeout
// from now to be heard again: their silence was this node's, which heard
// nobody while paused, and may find its routes to them broken by the
// pause (a nemesis run saw a node wake, find its pings unanswered at once
// for want of routes, take the others for dead, and take over a lane
// that one of them ran, whose clients it sent away). One that died
// meanwhile is found out a node timeout later.
func (c *Cluster) excuse(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.members.excuse(now)
}

// nodeLanes returns the node's lanes, once Run runs; nil before, or if
// Run was given none.
func (c *Cluster) nodeLanes() peers.Lanes {
	if r := c.running.Load(); r != nil {
		return r.lanes
	}
	return nil
}

// adopt takes over the lanes no node runs, and logs how many it took.
// If the store cannot say which lanes those are, or cannot claim some of
// them (its stream electing a leader after a node died takes 4–9 s, and
// more on a loaded machine), it tries again, a node timeout later and
// then less often, until it can: an orphan that no client comes for
// would otherwise stay unrun and missing from every lobby's list.
//
// One adopts at a time: asked while another adopts (a second node died
// meanwhile), it has that one go round once more (adoptAgain) rather than
// start a loop of its own.
func (c *Cluster) adopt(ctx context.Context) {
	lanes := c.nodeLanes()
	if lanes == nil {
		return
	}
	c.adoptAgain.Store(true)
	// Checked again once the adopting ends: asked as it ended, with the
	// swap refused, the round must not be lost.
	for c.adoptAgain.Load() && c.adopting.CompareAndSwap(false, true) {
		c.adoptRounds(ctx, lanes)
		c.adopting.Store(false)
	}
}

// adoptRounds adopts until a round succeeds with no other asked for, or
// ctx ends.
func (c *Cluster) adoptRounds(ctx context.Context, lanes peers.Lanes) {
	wait := c.cfg.NodeTimeout
	for {
		c.adoptAgain.Store(false)
		n, err := lanes.Adopt(ctx)
		if n > 0 {
			c.log.Info("lanes adopted", "lanes", n)
		}
		switch {
		case ctx.Err() != nil:
			return
		case err == nil && !c.adoptAgain.Load():
			return
		case err == nil:
			continue
		}
		c.log.Warn("lanes not adopted: trying again", "err", err, "in", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, adoptRetryMax)
	}
}

// adoptRetryMax bounds the wait between two tries of adopt.
const adoptRetryMax = time.Minute

// wake has the node's lanes read their logs back (see Lanes.Wake).
func (c *Cluster) wake(ctx context.Context) {
	if lanes := c.nodeLanes(); lanes != nil {
		lanes.Wake(ctx)
	}
}

// close closes every relay and leaves the cluster's subjects.
func (c *Cluster) close() {
	c.mu.Lock()
	if !c.closed {
		// The boards' channel itself stays open: a subscription not yet
		// left may still deliver to it.
		close(c.stop)
	}
	c.closed = true
	relays := make([]*relayEntry, 0, len(c.relays))
	for _, rl := range c.relays {
		relays = append(relays, rl)
	}
	c.mu.Unlock()
	for _, rl := range relays {
		rl.r.Close(protocol.CodeServerRestarting, protocol.NoticeRestarting)
	}
	c.unsubscribe()
}

func (c *Cluster) heartbeat(m *nats.Msg) {
	node := strings.TrimPrefix(m.Subject, subjNode)
	var beat protocol.Node
	json.Unmarshal(m.Data, &beat) // a node that says nothing has no address
	c.mu.Lock()
	back := c.members.heard(node, beat.URLs, time.Now())
	c.mu.Unlock()
	if back && node != c.cfg.Node {
		// A node thought dead is heard again: the network between them
		// was cut, not the node. Each side may have taken lanes the other
		// still runs; the fence keeps either from writing after the
		// other's claim, and a lane that reads its log back now stops at
		// once if it lost: as after a pause.
		c.log.Warn("a node thought dead is back", "node", node)
		c.wakes.Add(1)
		c.spawn(c.wake)
	}
}

// ask pings a node whose heartbeats stopped, before it is taken for dead:
// on saturated cores heartbeats come late, and taking a node that is only
// slow for dead closes its relays and detaches its clients, which
// reconnect, and load the cores more. A node that answers within a
// request's time is alive; one killed has no responders at once (its
// routes closed with it); one paused does not answer.
func (c *Cluster) ask(ctx context.Context, node string) {
	wakes := c.wakes.Load()
	rctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	_, err := c.nc.RequestWithContext(rctx, subjPing+node, nil)
	cancel()
	if ctx.Err() != nil {
		return // Run is returning: the node leaves, and the answer no longer matters
	}
	// Asked before a pause of this node's, its silence is excused (see
	// excuse).
	excused := c.wakes.Load() != wakes
	c.mu.Lock()
	c.members.answered(node, err == nil, excused, time.Now())
	c.mu.Unlock()
	if err != nil && !excused {
		c.log.Info("a silent node does not answer", "silent", node, "err", err)
	}
}

// sweep closes the relays of lanes whose node is dead, and those idle,
// and detaches the clients of dead nodes from this node's lanes.
func (c *Cluster) sweep(now time.Time) {
	var dead, tell []*relayEntry
	var gone []lane.Session
	c.mu.Lock()
	for _, node := range c.members.toAsk(now) {
		if !c.spawn(func(ctx context.Context) { c.ask(ctx, node) }) {
			c.members.answered(node, false, true, now) // not asked: as if excused
		}
	}
	for id, rl := range c.relays {
		switch {
		case rl.orphaned:
			// Being taken over, or sent away (see takeOver).
		case !c.members.alive(rl.owner, now):
			rl.orphaned = true
			dead = append(dead, rl)
		case rl.r.Len() > 0:
			rl.idleSince = time.Time{}
			if now.Sub(rl.aliveAt) >= aliveEvery {
				rl.aliveAt = now
				tell = append(tell, rl)
			}
		case rl.idleSince.IsZero():
			rl.idleSince = now
		case now.Sub(rl.idleSince) > relayIdle:
			delete(c.relays, id)
			dead = append(dead, rl)
		}
	}
	owned := make([]*owned, 0, len(c.owned))
	for _, o := range c.owned {
		owned = append(owned, o)
	}
	died := c.members.sweep(now)
	alive := func(node string) bool { return c.members.alive(node, now) }
	for _, o := range owned {
		gone = append(gone, o.deadRemotes(alive)...)
	}
	c.mu.Unlock()
	for _, rl := range dead {
		if rl.r.Len() > 0 && c.spawn(func(ctx context.Context) { c.takeOver(ctx, rl) }) {
			continue
		}
		rl.r.Close(protocol.CodeServerRestarting, protocol.NoticeServerGone)
	}
	for _, rl := range tell {
		c.spawn(func(ctx context.Context) { c.tellAlive(ctx, rl) })
	}
	// A lane's inbox may be full: the heartbeats must not wait for it.
	for _, rm := range gone {
		c.spawn(func(context.Context) { rm.Detach() })
	}
	for _, node := range died {
		c.log.Warn("a node fell silent", "dead", node)
		c.spawn(c.adopt)
	}
}

// Leader reports whether this node is the one that compacts the shared
// journal: the first alive by name. Two nodes may both think so for a
// moment (they hear each other's heartbeats at different times); each
// compaction is safe on its own.
func (c *Cluster) Leader() bool {
	return c.Nodes()[0] == c.cfg.Node
}

// snapshotTimeout bounds a node's snapshot of its lanes, asked by the
// leader's compaction: a lane stalled on its store holds the round back.
const snapshotTimeout = 30 * time.Second

// snapshotAnswer is a node's answer to SnapshotAll.
type snapshotAnswer struct {
	Lanes []string `json:"lanes"`
	Keep  uint64   `json:"keep,omitempty"` // see peers.Cluster.SnapshotAll
	Err   string   `json:"err,omitempty"`
}

// SnapshotAll has every node alive snapshot the lanes it runs, and
// returns their ids: see peers.Cluster.
func (c *Cluster) SnapshotAll(ctx context.Context) (ids []string, keep uint64, err error) {
	lanes := c.nodeLanes()
	if lanes == nil {
		return nil, 0, errors.New("natspeers: no snapshot for this node's lanes: the cluster does not run")
	}
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	others := len(c.Nodes()) - 1
	inbox := c.nc.NewRespInbox()
	sub, err := c.nc.SubscribeSync(inbox)
	if err != nil {
		return nil, 0, fmt.Errorf("natspeers: snapshots: %w", err)
	}
	defer sub.Unsubscribe()
	if err := c.nc.PublishRequest(subjSnap+c.cfg.Node, inbox, nil); err != nil {
		return nil, 0, fmt.Errorf("natspeers: snapshots: %w", err)
	}
	ids, keep, err = lanes.SnapshotLanes(ctx)
	if err != nil {
		return nil, 0, err
	}
	for got := 0; got < others; got++ {
		m, err := sub.NextMsgWithContext(ctx)
		if err != nil {
			return nil, 0, fmt.Errorf("natspeers: snapshots: %d of %d nodes answered: %w", got, others, err)
		}
		var a snapshotAnswer
		if err := json.Unmarshal(m.Data, &a); err != nil {
			return nil, 0, fmt.Errorf("natspeers: snapshots: %w", err)
		}
		if a.Err != "" {
			return nil, 0, fmt.Errorf("natspeers: snapshots: %s", a.Err)
		}
		ids = append(ids, a.Lanes...)
		if a.Keep > 0 && (keep == 0 || a.Keep < keep) {
			keep = a.Keep
		}
	}
	return ids, keep, nil
}

// snapshot answers another node's SnapshotAll. It runs on a goroutine
// of its own: snapshots wait for every lane's store.
func (c *Cluster) snapshot(m *nats.Msg) {
	lanes := c.nodeLanes()
	if strings.TrimPrefix(m.Subject, subjSnap) == c.cfg.Node || lanes == nil {
		return
	}
	c.spawn(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
		defer cancel()
		var a snapshotAnswer
		ids, keep, err := lanes.SnapshotLanes(ctx)
		if err != nil {
			a.Err = fmt.Sprintf("node %s: %v", c.cfg.Node, err)
		}
		a.Lanes, a.Keep = ids, keep
		data, _ := json.Marshal(a) // plain values: cannot fail
		m.Respond(data)
	})
}

// Wakes counts the times this node was found paused: its heartbeats
// stopped for longer than the node timeout, long enough for the others to
// think it dead and take its lanes over. It is lane.Config.Wakes. A lane
// that asks while the heartbeat loop has not run for that long (the
// process has just woken, and the loop is yet to notice) finds the pause
// itself; either way each pause counts once (see checkPaused), so that a
// lane claims its lane again once for it, not once for every lane that
// asked.
func (c *Cluster) Wakes() uint64 {
	c.checkPaused(time.Now())
	return uint64(c.wakes.Load())
}

// Peers returns the nodes alive now, this one first, with the addresses
// at which clients open them: see peers.Cluster.
func (c *Cluster) Peers() []protocol.Node {
	out := []protocol.Node{{Name: c.cfg.Node, URLs: c.cfg.URLs}}
	for _, name := range c.Nodes() {
		if name == c.cfg.Node {
			continue
		}
		c.mu.Lock()
		urls := c.members.urls(name)
		c.mu.Unlock()
		out = append(out, protocol.Node{Name: name, URLs: urls})
	}
	return out
}

// Nodes returns the names of the nodes alive now, this one's among them,
// in order: those heard from within the node timeout. A node hears of the
// others within a heartbeat of joining.
func (c *Cluster) Nodes() []string {
	now := time.Now()
	c.mu.Lock()
	out := append([]string{c.cfg.Node}, c.members.others(now)...)
	c.mu.Unlock()
	slices.Sort(out)
	return out
}

// request sends a request about lane id to the node that runs it and
// returns its answer, or an error wrapping peers.ErrNoOwner (no node runs
// it) or peers.ErrClaiming (one is taking it).
func (c *Cluster) request(ctx context.Context, id, op string, conn uint64, data []byte) ([]byte, error) {
	m, err := c.requestMsg(ctx, id, op, conn, data)
	if err != nil {
		return nil, err
	}
	return m.Data, nil
}

// requestMsg is request, returning the whole answer.
func (c *Cluster) requestMsg(ctx context.Context, id, op string, conn uint64, data []byte) (*nats.Msg, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	subj := subjOwn + id + "." + op + "." + c.cfg.Node + "." + strconv.FormatUint(conn, 10)
	m, err := c.nc.RequestWithContext(ctx, subj, data)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return nil, fmt.Errorf("%w: lane %s", peers.ErrNoOwner, id)
	case err != nil:
		return nil, fmt.Errorf("natspeers: %s for lane %s: %w", op, id, err)
	}
	if err := refusalErr(m); err != nil {
		return nil, fmt.Errorf("%w: lane %s, %s of connection %d", err, id, op, conn)
	}
	return m, nil
}

// Lane returns what the node that runs lane id shows of it.
func (c *Cluster) Lane(ctx context.Context, id string) (*peers.LaneView, error) {
	if !token(id) {
		return nil, fmt.Errorf("%w: %q is no lane id", peers.ErrNoOwner, id)
	}
	data, err := c.request(ctx, id, opLane, 0, nil)
	if err != nil {
		return nil, err
	}
	var rl peers.LaneView
	if err := json.Unmarshal(data, &rl); err != nil {
		return nil, fmt.Errorf("natspeers: lane %s: %w", id, err)
	}
	return &rl, nil
}

// Secretary hands lane id, which another node runs, a command of its
// league's secretary (see peers.Cluster).
func (c *Cluster) Secretary(ctx context.Context, id string, m protocol.Request) ([]byte, error) {
	if !token(id) {
		return nil, fmt.Errorf("%w: %q is no lane id", peers.ErrNoOwner, id)
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("natspeers: a secretary's command: %w", err)
	}
	msg, err := c.requestMsg(ctx, id, opSecretary, 0, data)
	if err != nil {
		return nil, err
	}
	if msg.Header.Get(hdrLaneRefusal) != "" {
		pe := new(protocol.Error)
		if err := protocol.Unmarshal(msg.Data, pe); err != nil {
			return nil, fmt.Errorf("natspeers: lane %s's refusal: %w", id, err)
		}
		return nil, pe
	}
	return msg.Data, nil
}

// Lanes returns the listed lanes of the other nodes that answer before ctx
// ends (or all of them have), and, after them, those of the nodes that did
// not answer as they last did, for [listKeep]: a node that died takes its
// lanes out of the lobby only once another node runs them (they come
// back after a new stream leader is elected, seconds later), and a node
// too busy to answer in time leaves them where they were.
func (c *Cluster) Lanes(ctx context.Context) ([]protocol.LaneSummary, error) {
	now := time.Now()
	c.mu.Lock()
	want := len(c.members.others(now))
	c.mu.Unlock()
	var (
		out      []protocol.LaneSummary
		answered map[string][]protocol.LaneSummary
		err      error
	)
	if want > 0 {
		out, answered, err = c.askLanes(ctx, want)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for node, lanes := range answered {
		c.listed[node] = listed{lanes: lanes, at: now}
	}
	for node, l := range c.listed {
		switch _, ok := answered[node]; {
		case ok:
		case now.Sub(l.at) > listKeep:
			delete(c.listed, node)
		default:
			out = append(out, l.lanes...) // after the answers: the lobby keeps a lane's first listing
		}
	}
	return out, err
}

// listEvery is how often a node asks the others for their lanes when
// nobody asks it for a list: well within listKeep, so that it always has
// every node's lanes of a moment ago, and lists a dead node's lanes while
// another takes them over even if nobody had asked it for a list before
// the death. One small answer a node every few seconds.
const listEvery = 5 * time.Second

// keepListed asks the other nodes for their lanes every listEvery, until
// ctx ends: see Lanes.
func (c *Cluster) keepListed(ctx context.Context) {
	t := time.NewTicker(listEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
			c.Lanes(ctx) // a node that does not answer keeps its last answer
			cancel()
		}
	}
}

// listKeep is how long a node's lanes stay listed after it last answered
// a list: longer than another node takes to run them (a node declared
// dead, a new stream leader elected), so a lane does not leave the lobby
// on its way between nodes.
const listKeep = 30 * time.Second

// listed is a node's answer to a list of lanes, and when it came.
type listed struct {
	lanes []protocol.LaneSummary
	at    time.Time
}

// askLanes asks the other nodes for their listed lanes and returns them
// as they come, until want nodes have answered or ctx ends, and by node
// the lanes of each node that answered whole.
func (c *Cluster) askLanes(ctx context.Context, want int) (out []protocol.LaneSummary, answered map[string][]protocol.LaneSummary, err error) {
	inbox := c.nc.NewRespInbox()
	sub, err := c.nc.SubscribeSync(inbox)
	if err != nil {
		return nil, nil, fmt.Errorf("natspeers: listing lanes: %w", err)
	}
	defer sub.Unsubscribe()
	if err := c.nc.PublishRequest(subjLanes+c.cfg.Node, inbox, nil); err != nil {
		return nil, nil, fmt.Errorf("natspeers: listing lanes: %w", err)
	}
	answered = make(map[string][]protocol.LaneSummary)
	parts := make(map[string][]protocol.LaneSummary) // by node, as its parts come
	for done := 0; done < want; {
		m, err := sub.NextMsgWithContext(ctx)
		if err != nil {
			return out, answered, fmt.Errorf("natspeers: listing lanes: %d of %d nodes answered: %w", done, want, err)
		}
		if len(m.Data) == 0 {
			continue
		}
		var lanes []protocol.LaneSummary
		if err := json.Unmarshal(m.Data[1:], &lanes); err != nil {
			return out, answered, fmt.Errorf("natspeers: listing lanes: %w", err)
		}
		out = append(out, lanes...)
		node := m.Header.Get(hdrNode)
		parts[node] = append(parts[node], lanes...)
		if m.Data[0] == lastPart {
			done++
			if node != "" {
				answered[node] = parts[node]
			}
		}
	}
	return out, answered, nil
}

// A node answers a list in parts of at most listPart lanes, each under
// NATS's largest message (1 MB by default) however many lanes it runs;
// each part starts with morePart, but its last with lastPart.
const (
	listPart = 500
	morePart = '+'
	lastPart = '.'
)

// listLanes answers another node's list with this node's listed lanes.
func (c *Cluster) listLanes(m *nats.Msg) {
	if strings.TrimPrefix(m.Subject, subjLanes) == c.cfg.Node {
		return
	}
	c.mu.Lock()
	out := make([]protocol.LaneSummary, 0, len(c.owned))
	for _, o := range c.owned {
		if l := o.lane(); l != nil && !l.Private() {
			out = append(out, l.Summary())
		}
	}
	c.mu.Unlock()
	for {
		part := out[:min(listPart, len(out))]
		out = out[len(part):]
		mark := byte(morePart)
		if len(out) == 0 {
			mark = lastPart
		}
		data, _ := json.Marshal(part) // plain values: cannot fail
		answer := &nats.Msg{Subject: m.Reply, Header: nats.Header{hdrNode: {c.cfg.Node}}, Data: append([]byte{mark}, data...)}
		if err := m.RespondMsg(answer); err != nil {
			c.log.Warn("a list of lanes not answered", "err", err)
			return
		}
		if len(out) == 0 {
			return
		}
	}
}

// delivered hands a message of a lane to the relay of its client:
// tenpin.to.<node>.<lane>.<conn>, framed (see frame).
func (c *Cluster) delivered(m *nats.Msg) {
	rest := strings.TrimPrefix(m.Subject, subjTo+c.cfg.Node+".")
	id, num, _ := strings.Cut(rest, ".")
	conn, err := strconv.ParseUint(num, 10, 64)
	kind, n, seq, data, ok := unframe(m.Data)
	if err != nil || !ok {
		return
	}
	c.mu.Lock()
	rl := c.relays[id]
	c.mu.Unlock()
	if rl == nil {
		return
	}
	if kind == kindClose {
		code, reason := closed(data)
		rl.r.Drop(conn, code, reason)
		delete(rl.got, conn)
		return
	}
	// Messages to a connection come numbered from 1: one missing (core
	// NATS delivers at most once) could be the welcome with its seat's
	// token, an ack, or the board an ack follows. The connection closes,
	// to reconnect and resume. A message numbered 1 starts the count
	// again: the connection was attached on the lane's new node (see
	// relay.Relay.Follow). This subscription's goroutine alone reads and
	// writes got.
	if last := rl.got[conn]; n != last+1 && (n != 1 || last == math.MaxUint64) {
		rl.got[conn] = n
		if last != math.MaxUint64 {
			rl.r.Drop(conn, protocol.CodeServerRestarting, protocol.NoticeLostBetween)
			rl.got[conn] = math.MaxUint64 // dropped: once is enough
		}
		return
	}
	rl.got[conn] = n
	rl.r.Deliver(conn, data, seq, kind == kindBoard)
}
