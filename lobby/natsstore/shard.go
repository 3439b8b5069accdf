package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sync/errgroup"
)

// Shards: the lanes' events are spread over several streams, so that the
// death of the NATS server that leads one stream's raft group stalls
// only the lanes of that stream while its followers elect (4–9 s), not
// every lane of the cluster. A lane's stream is fixed by its id.
const (
	// MaxShards bounds Config.Shards: each stream is a raft group of
	// its own, with its own goroutines, timers and memory on every server
	// that holds it, and a shard more than servers spreads nothing more.
	MaxShards = 16

	// shardsKey is the metadata of the first stream that holds the count
	// of shards the store was made with. It is stored: never change it. A
	// store without it (made before there were shards) has one.
	shardsKey = "tenpin_shards"
)

// ErrShards: a journal opened with a count of shards other than the one
// its store was made with, whose lanes it would look for in the wrong
// streams.
var ErrShards = errors.New("natsstore: the store keeps its lanes in another number of shards")

// DefaultShards returns the count of shards of a new store that keeps
// replicas copies of each event: one on a server alone, which leads every
// stream anyway, so that more would only cost; three in a cluster, one
// stream led by each server of the usual three, so that one server's
// death stalls a third of the lanes.
func DefaultShards(replicas int) int {
	if replicas > 1 {
		return 3
	}
	return 1
}

// shard is one stream of lanes.
type shard struct {
	index  int
	name   string // the stream's
	prefix string // a lane's subject is prefix followed by its id
	// ack is how the server begins its answer to a message it stored or
	// found a duplicate of, in this shard's stream, on a server without a
	// JetStream domain (nats-server builds it once a stream, as
	// mset.pubAck; TestAck checks that it still does): see fastAck.
	ack    string
	stream jetstream.Stream
	lanes  budget // this shard's share of the lanes' budget
}

// newShard returns shard k, its stream not yet made. The first keeps
// the names the store had before it had shards, so that a store made then
// is read as the first of one.
func newShard(k int) *shard {
	s := &shard{index: k, name: StreamName, prefix: SubjectPrefix}
	if k > 0 {
		s.name = fmt.Sprintf("%s_%d", StreamName, k)
		s.prefix = fmt.Sprintf("tenpin.shard.%d.lane.", k)
	}
	s.ack = `{"stream":"` + s.name + `","seq":`
	return s
}

// Shards returns how many streams the journal's lanes are spread over.
func (j *Journal) Shards() int { return len(j.shards) }

// shardOf returns the shard of a lane: FNV-1a of its id, modulo the
// count. It is stored, in effect: never change it.
func (j *Journal) shardOf(lane string) *shard {
	if len(j.shards) == 1 {
		return j.shards[0]
	}
	h := uint32(2166136261)
	for i := 0; i < len(lane); i++ {
		h ^= uint32(lane[i])
		h *= 16777619
	}
	return j.shards[h%uint32(len(j.shards))]
}

// Positions. A lane's position is its stream sequence seq, times the
// count of shards, plus its shard's index: it grows with the lane's
// appends, names a single event of the journal, and with one shard is
// the stream sequence itself, as before there were shards.

// position returns the position of sequence seq of shard s (0 for 0).
func (j *Journal) position(s *shard, seq uint64) uint64 {
	if seq == 0 {
		return 0
	}
	return seq*uint64(len(j.shards)) + uint64(s.index)
}

// seqAt returns the last sequence of shard s whose position is at or
// below p: the events of s above position p are those after it.
func (j *Journal) seqAt(s *shard, p uint64) uint64 {
	k := uint64(s.index)
	if p < k {
		return 0
	}
	return (p - k) / uint64(len(j.shards))
}

// makeStreams makes the streams of lanes, or brings their settings up to
// date, with the count of shards the store holds: the one it was made
// with, the one Config.Shards says for a new store (DefaultShards if
// 0), and ErrShards if Config.Shards says another than the store's.
func (j *Journal) makeStreams(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, max(j.cfg.Timeout, 5*time.Second))
	defer cancel()
	n, stored, err := j.storedShards(ctx)
	if err != nil {
		return err
	}
	want := j.opts.Shards
	switch {
	case stored && want != 0 && want != n:
		return fmt.Errorf("%w: it was made with %d and this server asks for %d; a lane would be looked for in the wrong stream: open it with %d (or 0, the store's)", ErrShards, n, want, n)
	case !stored && want == 0:
		n = DefaultShards(j.cfg.Replicas)
	case !stored:
		n = want
	}
	shards := make([]*shard, n)
	for k := range n {
		shards[k] = newShard(k)
		shards[k].lanes = budget{kind: KindLanes, bytes: j.opts.Budgets.Lanes}
	}
	if !stored {
		// The first stream holds the count: made with CreateStream, which
		// fails if another server made it meanwhile, maybe with another
		// count, rather than change it.
		if shards[0].stream, err = j.js.CreateStream(ctx, j.streamConfig(shards[0], n)); err != nil {
			if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				return j.makeStreams(ctx) // and read the count it was made with
			}
			return err
		}
	}
	for _, s := range shards {
		if s.stream, err = j.js.CreateOrUpdateStream(ctx, j.streamConfig(s, n)); err != nil {
			return fmt.Errorf("stream %s: %w", s.name, err)
		}
		checkFull(&s.lanes, s.stream.CachedInfo())
	}
	j.shards = shards
	return nil
}

// storedShards returns the count of shards the store was made with, and
// false if it has no stream of lanes yet.
func (j *Journal) storedShards(ctx context.Context) (int, bool, error) {
	stream, err := j.js.Stream(ctx, StreamName)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	}
	v, ok := stream.CachedInfo().Config.Metadata[shardsKey]
	if !ok {
		return 1, true, nil // made before there were shards
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxShards {
		return 0, false, fmt.Errorf("%w: stream %s says %q shards", ErrShards, StreamName, v)
	}
	return n, true, nil
}

// streamConfig is the configuration of shard s of n.
func (j *Journal) streamConfig(s *shard, n int) jetstream.StreamConfig {
	cfg := jetstream.StreamConfig{
		Name:        s.name,
		Description: fmt.Sprintf("tenpin: the events of the lanes of shard %d of %d, a subject a lane", s.index, n),
		Subjects:    []string{s.prefix + "*"},
		Storage:     jetstream.FileStorage,
		Replicas:    j.cfg.Replicas,
		// Appends no longer roll a lane's subject up, but a server of an
		// earlier version still does with every snapshot: while one
		// shares a cluster with this one (a rolling upgrade), turning
		// rollups off would make its snapshots fail. Allowing them costs
		// nothing.
		AllowRollup: true,
		Duplicates:  max(duplicateWindow, 5*j.cfg.Timeout),
		// The lanes' budget: past it an append is refused, never an old
		// event dropped to make room (a lane's log is its truth).
		MaxBytes: s.lanes.maxBytes(n),
		Discard:  jetstream.DiscardNew,
	}
	if s.index == 0 {
		cfg.Description = "tenpin: the events of every lane, a subject a lane"
		if n > 1 {
			cfg.Description = fmt.Sprintf("tenpin: the events of the lanes of shard 0 of %d, a subject a lane", n)
		}
		cfg.Subjects = append(cfg.Subjects, HealthPrefix+"*")
		cfg.Metadata = map[string]string{shardsKey: strconv.Itoa(n)}
	}
	return cfg
}

// each runs f on every shard at once, and returns the first error.
func (j *Journal) each(ctx context.Context, f func(ctx context.Context, s *shard) error) error {
	if len(j.shards) == 1 {
		return f(ctx, j.shards[0])
	}
	g, ctx := errgroup.WithContext(ctx)
	for _, s := range j.shards {
		g.Go(func() error { return f(ctx, s) })
	}
	return g.Wait()
}

// Leaders. JetStream picks the first leader of a new replicated stream
// at random among its online servers (raftGroup.setPreferred in
// nats-server v2.15.2), nothing spreads the leaders of several streams
// (left to it, three streams made one after another on three servers were
// not led by three in any of 3 runs of TestShardLeadersSpread), and after
// a failover the leaders stay where the elections put them.
// spreadLeaders moves them apart.

// leaderWait is about how long spreadLeaders waits for every stream to
// have a leader.
const leaderWait = 5 * time.Second

// spreadEvery is how often a journal of several shards with copies on
// several servers looks at its streams' leaders again (with up to a tenth
// more at random, so that the nodes' journals do not all look at once):
// after a server's death its streams' leadership stays with the
// survivors, and once it is back spreadLeaders moves one over to it.
var spreadEvery = time.Minute

// spreads reports whether the journal spreads its streams' leaders.
func (j *Journal) spreads() bool { return len(j.shards) > 1 && j.cfg.Replicas > 1 }

// caughtUpPoll is how often keepSpread asks whether the node caught up.
const caughtUpPoll = 250 * time.Millisecond

// keepSpread spreads the leaders every spreadEvery until ctx ends; first,
// if pending (Open did not, for a node that had not caught up), once the
// node has caught up.
func (j *Journal) keepSpread(ctx context.Context, pending bool) {
	for pending {
		t := time.NewTimer(caughtUpPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if j.conn.CaughtUp() == nil {
			pending = false
			if err := j.spreadLeaders(ctx); err != nil && ctx.Err() == nil {
				j.log.Warn("natsstore: the streams' leaders not spread over the servers", "err", err)
			}
		}
	}
	for {
		every := spreadEvery
		t := time.NewTimer(every + rand.N(every/10+1))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if err := j.spreadLeaders(ctx); err != nil && ctx.Err() == nil {
			// Another node may have moved the same leader a moment before:
			// the next look settles it.
			j.log.Debug("natsstore: the streams' leaders not spread over the servers", "err", err)
		}
	}
}

// stepdownTimeout bounds a request that a stream's leader step down.
const stepdownTimeout = 2 * time.Second

// spreadLeaders asks the leader of a stream that leads more of them than
// another server of its group to hand it to that server, until no server
// leads two streams more than another. It changes nothing for a journal
// of one shard or one copy. A leader handed over this way moves in about
// 10 ms (a named follower campaigns at once): appends to that shard wait
// that long.
func (j *Journal) spreadLeaders(ctx context.Context) error {
	if !j.spreads() {
		return nil
	}
	infos := make([]*jetstream.StreamInfo, len(j.shards))
	// Streams just made may still elect their first leaders.
	for wait := 50 * time.Millisecond; ; wait *= 2 {
		err := j.each(ctx, func(ctx context.Context, s *shard) error {
			ctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
			defer cancel()
			info, err := s.stream.Info(ctx)
			infos[s.index] = info
			return err
		})
		if err != nil {
			return fmt.Errorf("natsstore: the streams' leaders: %w", err)
		}
		if !slices.ContainsFunc(infos, func(info *jetstream.StreamInfo) bool { return info.Cluster == nil || info.Cluster.Leader == "" }) {
			break
		}
		if wait > leaderWait {
			return errors.New("natsstore: the streams' leaders: a stream has none yet")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	led := map[string]int{} // server → streams it leads
	for _, info := range infos {
		if c := info.Cluster; c != nil {
			if c.Leader != "" {
				led[c.Leader]++
			}
			for _, p := range c.Replicas {
				if p.Current && !p.Offline {
					led[p.Name] += 0
				}
			}
		}
	}
	for _, info := range infos {
		c := info.Cluster
		if c == nil || c.Leader == "" || led[c.Leader] < 2 {
			continue
		}
		// The follower that leads the fewest, if it leads at least two
		// fewer: a move that evens nothing would only churn.
		to := ""
		for _, p := range c.Replicas {
			if p.Current && !p.Offline && (to == "" || led[p.Name] < led[to]) {
				to = p.Name
			}
		}
		if to == "" || led[to]+1 >= led[c.Leader] {
			continue
		}
		if err := j.stepDown(ctx, info.Config.Name, to); err != nil {
			return err
		}
		j.log.Info("natsstore: stream leader moved to spread the leaders", "stream", info.Config.Name, "from", c.Leader, "to", to)
		led[c.Leader]--
		led[to]++
		// Wait for it to be led again, so that the journal opens on
		// streams that take appends: the named server campaigns at once,
		// but a stream just made was seen to elect for seconds.
		if err := j.waitLeader(ctx, j.shards[slices.IndexFunc(j.shards, func(s *shard) bool { return s.name == info.Config.Name })]); err != nil {
			return err
		}
	}
	return nil
}

// waitLeader waits, at most about leaderWait, until shard s's stream has a
// leader.
func (j *Journal) waitLeader(ctx context.Context, s *shard) error {
	deadline := time.Now().Add(leaderWait)
	for {
		ictx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
		info, err := s.stream.Info(ictx)
		cancel()
		switch {
		case err == nil && info.Cluster != nil && info.Cluster.Leader != "":
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("natsstore: stream %s has had no leader for %v since it was asked to move", s.name, leaderWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stepDown asks the leader of stream to hand it to the server named to
// ($JS.API.STREAM.LEADER.STEPDOWN with a preferred placement, nats-server
// 2.11 and later), which the jetstream package does not offer.
func (j *Journal) stepDown(ctx context.Context, stream, to string) error {
	ctx, cancel := context.WithTimeout(ctx, stepdownTimeout)
	defer cancel()
	body, err := json.Marshal(map[string]any{"placement": map[string]string{"preferred": to}})
	if err != nil {
		return err
	}
	resp, err := j.nc.RequestWithContext(ctx, "$JS.API.STREAM.LEADER.STEPDOWN."+stream, body)
	if err != nil {
		return fmt.Errorf("natsstore: stream %s's leader step down for %s: %w", stream, to, err)
	}
	var answer struct {
		Error   *jetstream.APIError `json:"error"`
		Success bool                `json:"success"`
	}
	if err := json.Unmarshal(resp.Data, &answer); err != nil {
		return fmt.Errorf("natsstore: stream %s's leader step down for %s: %w", stream, to, err)
	}
	if answer.Error != nil {
		return fmt.Errorf("natsstore: stream %s's leader step down for %s: %w", stream, to, answer.Error)
	}
	return nil
}

// Marks. With shards, the position a lane's append gets says nothing of
// when it came relative to another shard's appends: a lane of a quiet
// shard appends at positions below those of a busy one. So Last returns
// a mark, not a position, and the journal remembers the sequence at which
// each shard stood when it was taken (its cut): Compact(mark+1) then
// drops exactly what was stored before Last was called, shard by shard,
// and never an event appended after it, as the lobby's compaction
// requires of the snapshots it has the lanes store after Last.

// mark is what Last returned, and each shard's last sequence then.
type mark struct {
	at  uint64
	cut []uint64
}

// maxMarks bounds the marks a journal remembers. The lobby compacts with
// the mark of the round before: two at a time, and Compact forgets those
// older than the one it used. A journal asked for its Last this many
// times without a compaction forgets its oldest.
const maxMarks = 256

// marks are the marks a journal handed out, in order: each one greater
// than the one before.
type marks struct {
	mu     sync.Mutex
	list   []mark
	forgot bool // a mark was dropped for room, not by a compaction
}

// markOf returns the mark of a cut: above the position of every event
// it holds, and growing with every append to any shard, so that two cuts
// have the same mark only if they are the same.
func markOf(cut []uint64) uint64 {
	var sum uint64
	for _, seq := range cut {
		sum += seq
	}
	if sum == 0 {
		return 0
	}
	n := uint64(len(cut))
	return sum*n + n - 1
}

func (m *marks) add(at uint64, cut []uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if k := len(m.list); k > 0 && m.list[k-1].at >= at {
		return // the same cut again (marks never go back)
	}
	if len(m.list) == maxMarks {
		m.list = slices.Delete(m.list, 0, 1)
		m.forgot = true
	}
	m.list = append(m.list, mark{at, slices.Clone(cut)})
}

// find returns the cut Compact(before) goes by: that of the oldest mark
// at or above before-1 (exact if it is before-1); nil if before-1 is
// beyond every mark, when Compact goes by the shards as they are; and ok
// false if the mark it needs may have been forgotten.
func (m *marks) find(before uint64) (cut []uint64, exact, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i, found := slices.BinarySearchFunc(m.list, before-1, func(m mark, at uint64) int {
		switch {
		case m.at < at:
			return -1
		case m.at > at:
			return 1
		}
		return 0
	})
	switch {
	case i == len(m.list):
		return nil, false, true
	case i == 0 && !found && m.forgot:
		return nil, false, false
	}
	// Older marks are no longer needed: the lobby's next compaction goes
	// by a mark it takes after this one.
	cut = m.list[i].cut
	m.list = m.list[i:]
	return cut, found, true
}
