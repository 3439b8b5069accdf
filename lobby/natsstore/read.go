package natsstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tenpin/tenpin/lane/game"
)

// pullBatch is how many messages a read asks the server for at a time:
// Lanes reads the whole stream, and bigger batches cost fewer requests.
const pullBatch = 2048

// decodeChunk is the fewest events worth decoding on a goroutine of
// their own. Decoding is most of the CPU time of Lanes (a few µs an
// event), so a large read decodes on every core once it has everything.
const decodeChunk = 512

// stored is a message as read, not yet decoded.
type stored struct {
	subject string
	seq     uint64
	data    []byte
}

// Read returns the lane's events after position after.
func (j *Journal) Read(ctx context.Context, lane string, after uint64) (game.Log, error) {
	s, subject, err := j.subjectOf(lane)
	if err != nil {
		return game.Log{}, err
	}
	msgs, err := j.read(ctx, s, subject, j.seqAt(s, after))
	if err != nil {
		return game.Log{}, fmt.Errorf("natsstore: read lane %q after %d: %s%w", lane, after, j.conn.Explain(), err)
	}
	events, err := decode(msgs)
	if err != nil {
		return game.Log{}, fmt.Errorf("natsstore: read lane %q after %d: %w", lane, after, err)
	}
	log := game.Log{Lane: lane, Events: events, Last: after}
	if len(msgs) > 0 {
		log.First, log.Last = j.position(s, msgs[0].seq), j.position(s, msgs[len(msgs)-1].seq)
	}
	return log, nil
}

// Lanes returns every lane's log, ordered by the position of its first
// stored event. It reads the shards at once.
func (j *Journal) Lanes(ctx context.Context) ([]game.Log, error) {
	var mu sync.Mutex
	var logs []game.Log
	err := j.each(ctx, func(ctx context.Context, s *shard) error {
		l, err := j.lanesOf(ctx, s)
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, l...)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(j.shards) > 1 {
		slices.SortStableFunc(logs, func(a, b game.Log) int { return cmp.Compare(a.First, b.First) })
	}
	return logs, nil
}

// lanesOf returns the logs of the lanes of shard s, ordered by the
// position of their first stored event.
func (j *Journal) lanesOf(ctx context.Context, s *shard) ([]game.Log, error) {
	msgs, err := j.read(ctx, s, s.prefix+"*", 0)
	if err != nil {
		return nil, fmt.Errorf("natsstore: read every lane of stream %s: %s%w", s.name, j.conn.Explain(), err)
	}
	events, err := decode(msgs)
	var logs []game.Log
	index := map[string]int{} // subject → its log in logs
	for i, m := range msgs {
		k, ok := index[m.subject]
		if !ok {
			// Messages come in the stream's order, so a lane's first
			// message puts it in its place.
			k = len(logs)
			index[m.subject] = k
			logs = append(logs, game.Log{Lane: strings.TrimPrefix(m.subject, s.prefix), First: j.position(s, m.seq)})
		}
		l := &logs[k]
		l.Events = append(l.Events, events[i])
		l.Last = j.position(s, m.seq)
	}
	if err != nil {
		// Some event could not be decoded: say which lanes, so that one
		// bad log does not keep the others from being restored.
		for k := range logs {
			l := &logs[k]
			for i := range l.Events {
				if l.Events[i].Kind == "" { // left undecoded
					l.Err = fmt.Errorf("natsstore: lane %q: an event cannot be decoded: %w", l.Lane, err)
					l.Events = l.Events[:i]
					break
				}
			}
		}
	}
	return logs, nil
}

// decode decodes messages, in parallel if there are many.
func decode(msgs []stored) ([]game.Event, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	events := make([]game.Event, len(msgs))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(msgs)/decodeChunk))
	per := (len(msgs) + workers - 1) / workers
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w * per; i < min((w+1)*per, len(msgs)); i++ {
				e, err := game.Unmarshal(msgs[i].data)
				if err != nil {
					// Go on: the other lanes' events are good. The
					// undecoded one keeps an empty kind.
					errs[w] = errors.Join(errs[w], fmt.Errorf("%s, event at %d: %w", msgs[i].subject, msgs[i].seq, err))
					continue
				}
				events[i] = e
			}
		})
	}
	wg.Wait()
	return events, errors.Join(errs...)
}

// read returns, in order, the messages on the subjects of filter stored
// after sequence after, up to the last one stored when read began.
//
// It first asks the stream's leader for the last message on filter: in a
// cluster, the consumer that reads may live on a follower that has not
// stored the newest messages yet (an append is acknowledged once most
// servers have it), and its count of pending messages is then short. A
// read that returned without them would let a lane decide on a log that
// misses an acknowledged event. So read stops once it has had that last
// message, and never waits for a message that will not come.
//
// A lane reading its log back (after > 0) wants the events since it last
// looked: those it asks the leader for one by one (getEach), however
// many, for a consumer is made by the cluster's meta leader, and a lane
// reads back when the cluster is in trouble (an append's answer lost, its
// node paused): a meta leader being elected must not hold it up. Only a
// longer read of a lane from its start (a lane taken over) takes a
// consumer (consume), of which a stream has a limited
// number (1,000 by default): when a node dies, the survivors read back
// the logs of every lane it ran at once, which with a consumer each
// failed past a thousand lanes, and would have queued that many consumer
// creations on the cluster's meta leader.
//
// A compaction during the read would leave a gap between the messages
// read before it and after it: read drops the first ones, as if it had
// begun after the compaction.
func (j *Journal) read(ctx context.Context, s *shard, filter string, after uint64) ([]stored, error) {
	last, err := j.lastOn(ctx, s, filter)
	if err != nil {
		return nil, err
	}
	if last <= after {
		return nil, nil
	}
	var msgs []stored
	if !strings.HasSuffix(filter, "*") {
		var done bool
		most := maxGets
		if after > 0 {
			most = math.MaxInt // a read-back
		}
		if msgs, done, err = j.getEach(ctx, s, filter, after, last, most); err != nil {
			return nil, err
		}
		if n := len(msgs); !done {
			rest, err := j.consume(ctx, s, filter, msgs[n-1].seq, last)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, rest...)
		}
	} else if msgs, err = j.consume(ctx, s, filter, after, last); err != nil {
		return nil, err
	}
	return j.dropPurged(ctx, s, msgs)
}

// maxGets is how many messages a read of a lane from its start asks for
// one by one before it takes a consumer for the rest.
const maxGets = 16

// getEach returns the messages on filter after sequence after, up to
// last, asking the stream's leader for each in turn: done is false if it
// stopped at most messages, and at least one remains (getEach returns at
// least one then). A message purged on the way ends the read there:
// the compaction that purged it purged what came before it too.
func (j *Journal) getEach(ctx context.Context, s *shard, filter string, after, last uint64, most int) (msgs []stored, done bool, err error) {
	for from := after + 1; len(msgs) < most; {
		m, err := j.next(ctx, s, filter, from)
		switch {
		case errors.Is(err, jetstream.ErrMsgNotFound):
			return msgs, true, nil
		case err != nil:
			return nil, false, fmt.Errorf("the message on %s at %d or after: %w", filter, from, err)
		}
		msgs = append(msgs, stored{m.Subject, m.Sequence, m.Data})
		if m.Sequence >= last {
			return msgs, true, nil
		}
		from = m.Sequence + 1
	}
	return msgs, false, nil
}

// next returns the first message on filter at sequence from or after it,
// as the stream's leader has it.
func (j *Journal) next(ctx context.Context, s *shard, filter string, from uint64) (*jetstream.RawStreamMsg, error) {
	ctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	return s.stream.GetMsg(ctx, from, jetstream.WithGetMsgSubject(filter))
}

// maxConsumers is how many consumers a journal reads with at once. A read
// that finds them all taken waits for one: a burst of reads (a node
// taking over the lanes of another) takes turns rather than run into
// the stream's limit of consumers, and each node of a cluster stays well
// within it.
const maxConsumers = 64

// consume returns, in order, the messages on filter stored after sequence
// after, up to last, through a consumer. Except when a compaction purges
// messages before they are delivered: so once no message has come for
// [quietProbe], consume asks the stream whether a message after the last
// it had is still there to come, and stops if none is. A read that gets
// no message for the configured Timeout fails.
func (j *Journal) consume(ctx context.Context, s *shard, filter string, after, last uint64) ([]stored, error) {
	select {
	case j.consumers <- struct{}{}:
		defer func() { <-j.consumers }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	cfg := jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{filter},
		// If the consumer has to be made again (a lost heartbeat), try
		// once: the idle timeout below ends a read that makes no progress.
		MaxResetAttempts: 1,
		// The consumer is deleted when the read ends; this only cleans up
		// after a read that could not delete it.
		InactiveThreshold: time.Minute,
	}
	if after > 0 {
		cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
		cfg.OptStartSeq = after + 1
	}
	cctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	cons, err := s.stream.OrderedConsumer(cctx, cfg)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("create a consumer: %w", err)
	}
	defer func() { j.deleteConsumer(ctx, s, cons.CachedInfo().Name) }()
	pending := cons.CachedInfo().NumPending

	// The handler runs on the consumer's goroutine; msgs, done and
	// lastErr are shared with this one under mu.
	var (
		mu      sync.Mutex
		msgs    = make([]stored, 0, pending)
		done    bool
		lastErr error
		result  = make(chan error, 1)
	)
	finish := func(err error) {
		done = true
		result <- err
	}
	handle := func(m jetstream.Msg) {
		md, err := m.Metadata()
		mu.Lock()
		defer mu.Unlock()
		switch {
		case done:
		case err != nil:
			finish(err)
		default:
			msgs = append(msgs, stored{m.Subject(), md.Sequence.Stream, m.Data()})
			if md.Sequence.Stream >= last {
				finish(nil)
			}
		}
	}
	cc, err := cons.Consume(handle,
		jetstream.PullMaxMessages(pullBatch),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			mu.Lock()
			lastErr = err
			mu.Unlock()
		}))
	if err != nil {
		return nil, fmt.Errorf("consume: %w", err)
	}
	defer cc.Stop()

	tick := time.NewTicker(quietProbe)
	defer tick.Stop()
	seen, since := 0, time.Now() // the messages had, since when
	for {
		select {
		case err := <-result:
			if err != nil {
				return nil, err
			}
			return msgs, nil // finish set done: the handler is through with msgs
		case <-ctx.Done():
			mu.Lock()
			done = true // msgs is no longer appended to
			mu.Unlock()
			return nil, ctx.Err()
		case now := <-tick.C:
			mu.Lock()
			n, why, next := len(msgs), lastErr, after+1
			if n > 0 {
				next = msgs[n-1].seq + 1
			}
			mu.Unlock()
			if n != seen {
				seen, since = n, now
				continue
			}
			more, err := j.more(ctx, s, filter, next)
			if err == nil && !more {
				mu.Lock()
				done = true
				mu.Unlock()
				return msgs, nil
			}
			if now.Sub(since) >= j.cfg.Timeout {
				mu.Lock()
				done = true
				mu.Unlock()
				if why == nil {
					why = errors.New("the server sent nothing")
				}
				return nil, fmt.Errorf("no message for %v after %d of %d: %w", j.cfg.Timeout, n, pending, why)
			}
		}
	}
}

// lastOn returns the stream sequence of the last message on filter (0 if
// there is none), as the stream's leader has it. The stream does not
// allow direct gets, so its followers never answer these requests.
func (j *Journal) lastOn(ctx context.Context, s *shard, filter string) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	if strings.HasSuffix(filter, "*") {
		info, err := s.stream.Info(ctx)
		if err != nil {
			return 0, fmt.Errorf("stream info: %w", err)
		}
		return info.State.LastSeq, nil
	}
	m, err := s.stream.GetLastMsgForSubject(ctx, filter)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("the last message on %s: %w", filter, err)
	}
	return m.Sequence, nil
}

// dropPurged drops from msgs, read in order, those that a compaction has
// purged since they were read, so that a read that ran into a compaction
// returns what the stream holds after it, not the messages before it and
// after it without those it purged on the way.
func (j *Journal) dropPurged(ctx context.Context, s *shard, msgs []stored) ([]stored, error) {
	if len(msgs) == 0 {
		return msgs, nil
	}
	ctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	info, err := s.stream.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("stream info: %w", err)
	}
	i, _ := slices.BinarySearchFunc(msgs, info.State.FirstSeq, func(m stored, seq uint64) int { return cmp.Compare(m.seq, seq) })
	return msgs[i:], nil
}

// quietProbe is how long a read waits for a message before it asks the
// stream whether one is still to come.
const quietProbe = 100 * time.Millisecond

// more reports whether the stream holds a message on the subjects of
// filter at sequence from or after it.
func (j *Journal) more(ctx context.Context, s *shard, filter string, from uint64) (bool, error) {
	_, err := j.next(ctx, s, filter, from)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return false, nil
	}
	return false, err
}

// deleteConsumer deletes a read's consumer right away rather than leave
// the server to time it out, even when ctx has ended.
func (j *Journal) deleteConsumer(ctx context.Context, s *shard, name string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), j.cfg.Timeout)
	defer cancel()
	if err := j.js.DeleteConsumer(ctx, s.name, name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		j.log.Debug("natsstore: delete a read's consumer", "stream", s.name, "consumer", name, "err", err)
	}
}
