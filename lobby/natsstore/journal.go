package natsstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby/natsconn"
)

// Names in the store. They are stored: never change them.
const (
	// StreamName is the stream of every lane, or of the lanes of the
	// first shard; shard k's is StreamName_k.
	StreamName = "TENPIN_LANES"
	// SubjectPrefix followed by a lane's id is the lane's subject in the
	// first shard; in shard k, tenpin.shard.k.lane. is.
	SubjectPrefix = "tenpin.lane."
)

// duplicateWindow is how long the stream remembers message ids. The
// server holds each id in memory that long, about 100 bytes and its map
// entry: at 2,500 appends a second (500 lanes at a ball per 200 ms) 30 s
// of them took 9–13 MB of the heap, 10 s take a third of that. The fence,
// not the window, keeps an event from being stored twice: a message that
// reaches the stream again after it landed finds the lane moved on, and
// Append, told "wrong last sequence" or "duplicate", reads the lane's last
// message to tell whether the append is in. Only a message that came again
// after all of its lane was compacted away would pass the fence, and the
// window refuses it only while it lasts (2 minutes did not cover a game
// either). The window need only be several times an append's Timeout (2 s
// by default), after which the caller gives up on the append and reads
// the lane's log: five times it, or of a longer Timeout configured.
const duplicateWindow = 10 * time.Second

// ErrLaneID: a lane id that is not a single NATS subject token.
var ErrLaneID = errors.New("natsstore: invalid lane id")

// Config configures [Open]: what the store adds to the connection's
// settings (natsconn.Config), whose Replicas, Timeout and Node it keeps
// to.
type Config struct {
	// LeaseTTL is how long the lease on a stream at a URL lasts unless
	// renewed (default [DefaultLeaseTTL]): the most another server waits
	// to start after this one died without letting go.
	LeaseTTL time.Duration

	// Shared says the stream at URL is shared by the nodes of a tenpin
	// cluster: no lease is taken on it, for every node writes to it, and
	// each lane's fence keeps them apart.
	Shared bool

	// Shards is how many streams the lanes' events are spread over (at
	// most [MaxShards]): the death of the NATS server that leads one of
	// them stalls its lanes alone while a new leader is elected. It is
	// fixed when the store is made: 0 takes the store's, or for a new
	// store [DefaultShards] of the connection's replicas; another count
	// than the store's fails with [ErrShards].
	Shards int

	// Budgets bound in bytes what the store keeps of each kind of data
	// (see [Budgets]; 0: no bound). They are set on the streams and
	// buckets each time the store opens: changing them applies to what
	// is stored already.
	Budgets Budgets
}

// Journal is a [game.Journal] in JetStream streams, one a shard. It is
// safe for concurrent use.
type Journal struct {
	conn *natsconn.Conn
	cfg  natsconn.Config // the connection's settings
	opts Config
	log  *slog.Logger
	// stopWatch ends the journal's own goroutines: the health watch of an
	// embedded server alone, the spreading of a cluster's leaders.
	stopWatch context.CancelFunc
	watchCtx  context.Context
	watched   sync.WaitGroup
	probed    atomic.Pointer[probeResult] // the last probe of the store: see lastProbe
	lease     *lease                      // the hold on a stream at a URL; nil for the embedded server
	nc        *nats.Conn
	js        jetstream.JetStream
	shards    []*shard         // the streams of lanes: see shardOf
	stream    jetstream.Stream // the first shard's, where the health probes are stored too
	marks     marks            // what Last handed out: see Compact
	consumers chan struct{}    // a slot for each consumer a read may hold: see consume

	// The budgets of the buckets beside the lanes' streams (each shard
	// has its share of the lanes' budget): see Full.
	kept, bowlers, leagues budget

	closeOnce sync.Once
}

var _ game.Journal = (*Journal)(nil)

// Open creates the stream of lanes on conn, or brings its settings up to
// date, and at a URL that the nodes do not share takes the lease on it
// ([natsconn.ErrLocked] if another server holds it). Close the journal
// before conn.
func Open(ctx context.Context, conn *natsconn.Conn, cfg Config) (*Journal, error) {
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.Shards < 0 || cfg.Shards > MaxShards {
		return nil, fmt.Errorf("natsstore: %d shards: want 1 to %d, or 0 for the store's", cfg.Shards, MaxShards)
	}
	if b := cfg.Budgets; b.Lanes < 0 || b.Kept < 0 || b.Bowlers < 0 || b.Leagues < 0 {
		return nil, fmt.Errorf("natsstore: a negative budget (%+v): want a count of bytes, or 0 for no bound", b)
	}
	cc := conn.Config()
	j := &Journal{
		conn: conn, cfg: cc, opts: cfg, log: cc.Logger,
		nc: conn.NATS(), js: conn.JetStream(),
		consumers: make(chan struct{}, maxConsumers),
		kept:      budget{kind: KindKept, bytes: cfg.Budgets.Kept},
		bowlers:   budget{kind: KindBowlers, bytes: cfg.Budgets.Bowlers},
		leagues:   budget{kind: KindLeagues, bytes: cfg.Budgets.Leagues},
	}
	if err := j.open(ctx); err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

func (j *Journal) open(ctx context.Context) error {
	if m := j.nc.MaxPayload(); m < game.MaxEventSize {
		// A lane at its limits would then fail to store its snapshot, and
		// the journal would not be compacted.
		j.log.Warn("the NATS server takes messages smaller than a lane's largest snapshot: set max_payload in its configuration", "max_payload", m, "want", game.MaxEventSize)
	}
	url := natsconn.RedactURLs(j.cfg.URL)
	if url == "" {
		url = "embedded server"
	}
	ctx, cancel := context.WithTimeout(ctx, j.conn.TakeWait())
	defer cancel()
	if err := j.createStreams(ctx, url); err != nil {
		return err
	}
	// A node restarted while the others wrote spreads the leaders only
	// once it has caught up (keepSpread): spread at once, it moved a
	// stream's leadership to itself while behind, and the stream had no
	// leader for 5 s (tenpin failover -rolling -relayed).
	caughtUp := j.conn.CaughtUp() == nil
	if caughtUp {
		if err := j.spreadLeaders(ctx); err != nil {
			// The streams serve all the same, with a server's death
			// stalling more of the lanes.
			j.log.Warn("natsstore: the streams' leaders not spread over the servers", "err", err)
		}
	}
	if j.spreads() {
		j.goWatch(func(ctx context.Context) { j.keepSpread(ctx, !caughtUp) })
	}
	if j.cfg.URL != "" && !j.opts.Shared {
		return j.takeLease(ctx) // the embedded server's directory has its file lock instead
	}
	if j.probes() {
		j.goWatch(j.watch)
	}
	return nil
}

// goWatch runs f on a goroutine of its own until Close.
func (j *Journal) goWatch(f func(ctx context.Context)) {
	if j.stopWatch == nil {
		j.watchCtx, j.stopWatch = context.WithCancel(context.Background())
	}
	ctx := j.watchCtx
	j.watched.Go(func() { f(ctx) })
}

// createStreams makes the streams of lanes, or brings their settings up
// to date, waiting as natsconn.Conn.Take does for the cluster to take
// them.
func (j *Journal) createStreams(ctx context.Context, url string) error {
	err := j.conn.Take(ctx, "stream "+StreamName, j.makeStreams)
	if err != nil {
		return fmt.Errorf("natsstore: create or update the streams of lanes on %s: %w", url, err)
	}
	j.stream = j.shards[0].stream
	return nil
}

// Close stops the health watch and the spreading of the leaders, and
// lets the lease go. The connection stays open: its opener closes it,
// after the journal. The journal's methods fail once the connection is
// closed, with an error that is not [game.ErrConflict].
func (j *Journal) Close() error {
	j.closeOnce.Do(func() {
		if j.stopWatch != nil {
			j.stopWatch()
			j.watched.Wait()
		}
		if j.lease != nil {
			j.lease.release(context.Background(), j.cfg.Timeout)
		}
	})
	return nil
}

// Check reports whether the store takes writes: nil while the connection
// is up, a stream of lanes answers a request (one at least: see below)
// and, on an embedded server alone,
// stores a probe (see [HealthPrefix]); an error that says what fails
// otherwise. A journal on an embedded server alone probes by itself every
// few seconds, and restarts the server's JetStream when probes fail, so
// that a store that failed (a full disk, no file descriptors left) serves
// again once the cause is gone.
func (j *Journal) Check(ctx context.Context) error {
	if s := j.conn.Explain(); s != "" {
		return errors.New("natsstore: " + strings.TrimSuffix(s, ": "))
	}
	if j.lease != nil {
		if err := j.lease.lostErr(); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	if err, ok := j.lastProbe(); ok {
		return err
	}
	// A shard whose stream elects a leader (its server died) stalls its
	// own lanes, on every node alike: the store still takes the others'
	// writes, and a node that reported itself down for it would keep
	// pages of every lane from moving to it. Only if no stream answers
	// does the store take no writes.
	var mu sync.Mutex
	var errs []error
	j.each(ctx, func(ctx context.Context, s *shard) error {
		if _, err := s.stream.Info(ctx); err != nil {
			mu.Lock()
			errs = append(errs, fmt.Errorf("natsstore: stream %s does not answer: %w", s.name, err))
			mu.Unlock()
		}
		return nil
	})
	if len(errs) == len(j.shards) {
		return errors.Join(errs...)
	}
	if !j.probes() {
		return nil
	}
	return j.probe(ctx)
}

// probes reports whether the journal probes its store with writes: on an
// embedded server alone. A probe rolls up the one before, a purge; with
// probes in a replicated stream, a node woken from a pause was seen never
// catching up ("expected first catchup entry to be a snapshot"), and
// TestClusterFencesAPausedNode failed 3 runs in 20, none in 10 without
// them. A cluster's health is NATS's to keep: Check asks the stream only.
func (j *Journal) probes() bool { return j.conn.Embedded() && !j.conn.Clustered() }

// Append stores e as the next event of the lane, as [game.Journal] says.
// It waits at most the configured Timeout for the store to answer.
func (j *Journal) Append(ctx context.Context, lane string, last uint64, e game.Event) (uint64, error) {
	pos, err := j.append(ctx, lane, last, e)
	if err != nil && !errors.Is(err, game.ErrConflict) && !errors.Is(err, game.ErrStorageFull) {
		j.probed.Store(nil) // the store may have failed: the next Check asks it
	}
	return pos, err
}

func (j *Journal) append(ctx context.Context, lane string, last uint64, e game.Event) (uint64, error) {
	s, subject, err := j.subjectOf(lane)
	if err != nil {
		return 0, err
	}
	data, err := game.Marshal(e)
	if err != nil {
		return 0, fmt.Errorf("natsstore: append to lane %q: %w", lane, err)
	}
	if last != 0 && j.position(s, j.seqAt(s, last)) != last {
		// A position of another shard's: the lane cannot end there.
		return 0, fmt.Errorf("natsstore: append to lane %q after %d: a position of another shard than the lane's: %w", lane, last, game.ErrConflict)
	}
	if d, ok := ctx.Deadline(); !ok || time.Until(d) > j.cfg.Timeout {
		// Only if the caller's deadline is later than Timeout, or it has
		// none: a context of our own costs a timer and allocations, for
		// nothing when the caller's deadline comes first (a lane gives
		// each append a deadline of the same 2 s).
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, j.cfg.Timeout)
		defer cancel()
	}
	id, lastText := msgID(lane, last, data), strconv.FormatUint(j.seqAt(s, last), 10)
	pause := time.Millisecond
	for again := false; ; again = true {
		seq, duplicate, err := j.publish(ctx, s, subject, data, id, lastText)
		switch {
		case err == nil && !duplicate:
			if s.lanes.full.Load() { // read first: a write of the flag on every append would be shared by every core
				s.lanes.full.Store(false)
			}
			return j.position(s, seq), nil
		case err != nil && !wrongLast(err):
			return 0, fmt.Errorf("natsstore: append to lane %q after %d: %s%w", lane, last, j.conn.Explain(), s.lanes.note(err))
		}
		// The lane did not end at last, or the stream already holds this
		// id: either another writer got there first, or this very append
		// landed before and its answer was lost. The lane's last message
		// tells.
		m, err := s.stream.GetLastMsgForSubject(ctx, subject)
		var at uint64 // the lane's last message; 0 if it has none
		switch {
		case errors.Is(err, jetstream.ErrMsgNotFound):
		case err != nil:
			return 0, fmt.Errorf("natsstore: append to lane %q after %d was refused, and reading its last event failed: %s%w", lane, last, j.conn.Explain(), err)
		case sameAppend(m.Header.Get(jetstream.MsgIDHeader), id):
			return j.position(s, m.Sequence), nil
		default:
			at = j.position(s, m.Sequence)
		}
		if !duplicate && at == last {
			// Refused for a wrong last sequence, yet the lane ends where
			// the caller says: a replicated stream's leader refuses a
			// fenced append while the subject's previous message is still
			// being applied (it was acknowledged once most servers had it).
			// Nothing was stored: try again in a moment.
			select {
			case <-ctx.Done():
				return 0, fmt.Errorf("natsstore: append to lane %q after %d: refused while its last event was being stored: %w", lane, last, ctx.Err())
			case <-time.After(pause):
			}
			pause = min(2*pause, 50*time.Millisecond)
			continue
		}
		if duplicate && at == last && !again {
			// A duplicate, yet the lane ends where the caller says: the
			// message the stream remembers by this id, an earlier append
			// of the same event after the same position, has been
			// compacted away with the rest of the lane (last is 0 then).
			// This append is a new one: store it under an id of its own,
			// which sameAppend takes for this one's when it is retried.
			id += "/" + rand.Text()
			continue
		}
		return 0, fmt.Errorf("natsstore: append to lane %q after %d: its last event is at %d: %w", lane, last, at, game.ErrConflict)
	}
}

// Last returns a mark of what the journal holds now, as [game.Journal]
// says: with one shard, the stream's last sequence, which a purge does not
// take back (JetStream keeps it, across restarts too, even with no
// message left); with more, a mark above every shard's last position that
// grows with every append to any of them (see markOf), and the journal
// remembers each shard's last sequence with it, for Compact.
func (j *Journal) Last(ctx context.Context) (uint64, error) {
	cut, err := j.cut(ctx)
	if err != nil {
		return 0, fmt.Errorf("natsstore: last position: %s%w", j.conn.Explain(), err)
	}
	if len(cut) == 1 {
		return cut[0], nil
	}
	m := markOf(cut)
	j.marks.add(m, cut)
	return m, nil
}

// cut returns each shard's last sequence.
func (j *Journal) cut(ctx context.Context) ([]uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	cut := make([]uint64, len(j.shards))
	err := j.each(ctx, func(ctx context.Context, s *shard) error {
		info, err := s.stream.Info(ctx)
		if err != nil {
			return fmt.Errorf("stream %s: %w", s.name, err)
		}
		cut[s.index] = info.State.LastSeq
		return nil
	})
	return cut, err
}

// Compact drops every event stored before before, of every lane, as
// [game.Journal] says, with one purge of each shard's stream up to a
// sequence: the message blocks below it are removed whole, at a cost in
// proportion to what is dropped rather than a scan of the stream for each
// lane. With one shard, before is a position like any other. With more,
// a mark plus one (before-1 a mark that Last returned) drops, in each
// shard, what it held when Last was called; any other before drops the
// events at positions below it that were stored before the oldest mark
// at or above before-1 this journal remembers (the lobby's compaction
// lowers its mark to the position a lane that failed to snapshot still
// needs), or, beyond every mark, that are stored now. A before that may
// need a mark the journal forgot (it remembers the last [maxMarks]) drops
// nothing, and says so. JetStream would otherwise move a stream's
// sequences on to a before beyond its last one: a before is never taken
// beyond the last.
func (j *Journal) Compact(ctx context.Context, before uint64) error {
	if before <= 1 {
		// Nothing is below 1; and a purge up to sequence 0 would be a
		// purge of everything.
		return ctx.Err()
	}
	ctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	var (
		cut   []uint64
		exact bool
	)
	if len(j.shards) > 1 {
		var ok bool
		if cut, exact, ok = j.marks.find(before); !ok {
			return fmt.Errorf("natsstore: compact before %d: older than every mark this journal remembers: nothing dropped", before)
		}
	}
	err := j.each(ctx, func(ctx context.Context, s *shard) error {
		info, err := s.stream.Info(ctx)
		if err != nil {
			return err
		}
		keep := info.State.LastSeq + 1 // the first sequence kept
		if cut != nil {
			keep = min(keep, cut[s.index]+1)
		}
		if !exact {
			keep = min(keep, j.seqAt(s, before-1)+1)
		}
		if keep <= info.State.FirstSeq {
			return nil // dropped already, or nothing stored
		}
		return s.stream.Purge(ctx, jetstream.WithPurgeSequence(keep))
	})
	if err != nil {
		return fmt.Errorf("natsstore: compact before %d: %s%w", before, j.conn.Explain(), err)
	}
	return nil
}

// wrongLast reports whether err is JetStream's refusal of an expected last
// sequence. A replicated stream answers with the second code.
func wrongLast(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) &&
		(api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
			api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// msgID names an append: the same event appended to the same lane after
// the same position, and nothing else, has the same id (but for one
// chance in 2⁹⁶). A hash of the three rather than the three themselves:
// the stream remembers every id of its duplicates window, stores each with
// its message, and the server looks its headers up by scanning them, so
// the id is short. The lane is in the subject, last in the header of the
// expected last sequence.
func msgID(lane string, last uint64, data []byte) string {
	var buf [256]byte // on the stack, unless the event is big (a snapshot)
	b := binary.BigEndian.AppendUint64(buf[:0], last)
	b = append(b, lane...)
	b = append(b, 0) // which no lane id has (checkSubjectToken)
	b = append(b, data...)
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// sameAppend reports whether a stored message's id, got, is that of the
// append whose id is id: the same, or the same followed by the suffix
// that Append adds when it stores an event again after a compaction.
func sameAppend(got, id string) bool {
	return got == id || strings.HasPrefix(got, id+"/")
}

// subjectOf returns a lane's shard and subject, or an error if its id
// cannot be one subject token.
func (j *Journal) subjectOf(lane string) (*shard, string, error) {
	if err := checkSubjectToken(lane); err != nil {
		return nil, "", err
	}
	s := j.shardOf(lane)
	return s, s.prefix + lane, nil
}

// checkSubjectToken reports an error if a lane's id cannot be one subject
// token.
func checkSubjectToken(lane string) error {
	if lane == "" {
		return fmt.Errorf("%w: empty", ErrLaneID)
	}
	if i := strings.IndexFunc(lane, func(r rune) bool {
		return r == '.' || r == '*' || r == '>' || unicode.IsSpace(r) || unicode.IsControl(r)
	}); i >= 0 {
		return fmt.Errorf("%w: %q has %q, and a lane id must be one NATS subject token", ErrLaneID, lane, []rune(lane[i:])[0])
	}
	return nil
}

// LaneIDs returns the ids of the lanes that have messages in the stream,
// open or closed, in no order.
func (j *Journal) LaneIDs(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	var mu sync.Mutex
	var ids []string
	err := j.each(ctx, func(ctx context.Context, s *shard) error {
		info, err := s.stream.Info(ctx, jetstream.WithSubjectFilter(s.prefix+"*"))
		if err != nil {
			return fmt.Errorf("stream %s: %w", s.name, err)
		}
		mu.Lock()
		defer mu.Unlock()
		for subject := range info.State.Subjects {
			ids = append(ids, strings.TrimPrefix(subject, s.prefix))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("natsstore: the lanes' subjects: %s%w", j.conn.Explain(), err)
	}
	return ids, nil
}

// LastEvent returns the last event stored for the lane.
func (j *Journal) LastEvent(ctx context.Context, lane string) (game.Event, error) {
	ctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	s := j.shardOf(lane)
	m, err := s.stream.GetLastMsgForSubject(ctx, s.prefix+lane)
	if err != nil {
		return game.Event{}, fmt.Errorf("natsstore: lane %s's last event: %s%w", lane, j.conn.Explain(), err)
	}
	e, err := game.Unmarshal(m.Data)
	if err != nil {
		return game.Event{}, fmt.Errorf("natsstore: lane %s's last event, at %d: %w", lane, m.Sequence, err)
	}
	return e, nil
}
