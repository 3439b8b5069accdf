package natsstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tenpin/tenpin/lane/game"
)

// HealthPrefix is the subject a node's probes are stored on, followed by
// the node's name: a subject of the stream of lanes, outside the lanes'.
const HealthPrefix = "tenpin.health."

// healthEvery is how often the journal of an embedded server probes the
// store, and heals it if the probe fails.
const healthEvery = 5 * time.Second

// probe stores a message on this node's health subject, rolling up the
// one before: the store takes writes, or the error says why not. A stream
// that answers questions may still refuse every write (a full disk, no
// file descriptors left), so only a write tells.
func (j *Journal) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	msg := nats.NewMsg(HealthPrefix + j.cfg.Node)
	msg.Data = []byte(time.Now().UTC().Format(time.RFC3339))
	msg.Header.Set(jetstream.MsgRollup, jetstream.MsgRollupSubject)
	_, err := j.js.PublishMsg(ctx, msg)
	switch {
	case isMaxBytes(err):
		// The first stream of lanes is at its budget: the store works,
		// and restarting it would not make room.
		s := j.shards[0]
		s.lanes.full.Store(true)
		err = fmt.Errorf("natsstore: the store takes no more lanes' events: %w", s.lanes.note(err))
	case err != nil:
		err = fmt.Errorf("natsstore: the store does not take writes: %s%w", j.conn.Explain(), err)
	}
	j.probed.Store(&probeResult{at: time.Now(), err: err})
	return err
}

// watch probes the embedded server's store every healthEvery until ctx
// ends, and heals it when probes fail: at once if JetStream has shut
// itself down (a full disk), after healAfter failures in a row otherwise
// (a probe may time out under load alone), and not again for a while
// after a try, doubling to healBackoffMax while it keeps failing.
func (j *Journal) watch(ctx context.Context) {
	t := time.NewTicker(healthEvery)
	defer t.Stop()
	failures, backoff := 0, healthEvery
	var next time.Time // no heal before
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := j.probe(ctx)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			failures, backoff = 0, healthEvery
			continue
		}
		if errors.Is(err, game.ErrStorageFull) {
			failures = 0 // a full budget, not a failed store: nothing to heal
			continue
		}
		failures++
		down := !j.conn.JetStreamEnabled()
		if (down || failures >= healAfter) && time.Now().After(next) {
			j.heal(err)
			next = time.Now().Add(backoff)
			backoff = min(2*backoff, healBackoffMax)
		}
	}
}

// When the watch heals the store: see watch.
const (
	healAfter      = 3
	healBackoffMax = time.Minute
)

// probeResult is a probe's outcome, and when it was had.
type probeResult struct {
	at  time.Time
	err error
}

// lastProbe returns the outcome of a probe had within healthEvery, if
// there is one: /healthz asks no more writes of the store than the watch
// makes, however often it is asked. A failed append forgets it.
func (j *Journal) lastProbe() (error, bool) {
	r := j.probed.Load()
	if r == nil || time.Since(r.at) >= healthEvery {
		return nil, false
	}
	return r.err, true
}

// heal restarts the embedded server's JetStream, which reopens the
// store's files (see natsconn.Conn.RestartJetStream). Only an embedded
// server alone is watched and healed (see Journal.probes): in a cluster,
// restarting a node's JetStream would take its replicas out of their raft
// groups while they catch up.
func (j *Journal) heal(cause error) {
	j.log.Warn("the store does not take writes: restarting JetStream", "err", cause)
	if err := j.conn.RestartJetStream(); err != nil {
		j.log.Error("could not restart JetStream; trying again later", "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), j.cfg.Timeout)
	defer cancel()
	if err := j.probe(ctx); err != nil {
		j.log.Warn("JetStream started again, and the store still does not take writes; trying again later", "err", err)
		return
	}
	j.log.Info("the store takes writes again")
}
