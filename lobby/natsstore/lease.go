package natsstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/tenpin/tenpin/lobby/natsconn"
)

// The lease a tenpin server holds on an external NATS server's stream of
// lanes: the embedded server's data directory has a file lock, a stream
// at a URL has this. Two tenpin servers on one stream would each restore,
// claim and compact the other's lanes; several nodes sharing the lanes is
// the cluster's work, which will hold a lease a node instead.
const (
	// LeaseBucket is the key-value bucket of the lease, and leaseKey its
	// key. They are stored: never change them.
	LeaseBucket = "TENPIN_SERVERS"
	leaseKey    = "lanes"

	// DefaultLeaseTTL is how long a lease lasts unless renewed: a server
	// that died without letting go holds the stream this long, at most.
	// It is renewed three times a TTL.
	DefaultLeaseTTL = 10 * time.Second
)

// lease is the journal's hold on the stream while it renews it.
type lease struct {
	kv   jetstream.KeyValue
	stop context.CancelFunc
	done chan struct{}

	mu   sync.Mutex
	rev  uint64 // the key's revision this server wrote last
	lost error  // why the lease is no longer this server's, once it is not
}

// takeLease takes the stream's lease, or fails with an error wrapping
// [natsconn.ErrLocked] that says who holds it, and keeps renewing it
// until Close.
func (j *Journal) takeLease(ctx context.Context) error {
	var kv jetstream.KeyValue
	err := j.conn.Take(ctx, "bucket "+LeaseBucket, func(ctx context.Context) (err error) {
		ctx, cancel := context.WithTimeout(ctx, max(j.cfg.Timeout, 5*time.Second))
		defer cancel()
		kv, err = j.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      LeaseBucket,
			Description: "tenpin: which server uses the stream of lanes",
			TTL:         j.opts.LeaseTTL, // a key not renewed within it expires
			History:     1,
			Replicas:    j.cfg.Replicas,
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("natsstore: the lease bucket %s: %w", LeaseBucket, err)
	}
	host, _ := os.Hostname()
	holder := fmt.Sprintf("%s (pid %d on %s, since %s)", j.cfg.Node, os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	rev, err := kv.Create(ctx, leaseKey, []byte(holder))
	if errors.Is(err, jetstream.ErrKeyExists) {
		who := "another tenpin server"
		if e, err := kv.Get(ctx, leaseKey); err == nil {
			who = string(e.Value())
		}
		return fmt.Errorf("%w: %s uses the stream %s at %s; stop it, or wait %v after it died", natsconn.ErrLocked, who, StreamName, natsconn.RedactURLs(j.cfg.URL), j.opts.LeaseTTL)
	}
	if err != nil {
		return fmt.Errorf("natsstore: take the lease on %s: %w", StreamName, err)
	}
	renewCtx, stop := context.WithCancel(context.Background())
	l := &lease{kv: kv, stop: stop, done: make(chan struct{}), rev: rev}
	j.lease = l
	go func() {
		defer close(l.done)
		l.renew(renewCtx, j, []byte(holder))
	}()
	return nil
}

// renew renews the lease three times a TTL until ctx ends. A renewal
// refused because the key moved on means another server took the lease
// after this one let it expire (a long pause): the lease is lost, and
// Check says so. The lanes are safe all the same: the log's fence
// refuses this server's appends once another has claimed them.
func (l *lease) renew(ctx context.Context, j *Journal, holder []byte) {
	tick := time.NewTicker(j.opts.LeaseTTL / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		l.mu.Lock()
		rev := l.rev
		l.mu.Unlock()
		rctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
		next, err := l.kv.Update(rctx, leaseKey, holder, rev)
		cancel()
		l.mu.Lock()
		switch {
		case err == nil:
			l.rev = next
		case errors.Is(err, jetstream.ErrKeyExists), errors.Is(err, jetstream.ErrKeyNotFound):
			// The key moved on: it expired (the renewals came too late),
			// and perhaps another server took it since. Take it again if
			// nobody did.
			rctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
			next, err := l.kv.Create(rctx, leaseKey, holder)
			cancel()
			if err == nil {
				l.rev = next
				j.log.Warn("natsstore: the lease had expired (renewals late); taken again")
				break
			}
			l.lost = fmt.Errorf("natsstore: the lease on %s was lost (renewals late by over %v): another server may be using the stream", StreamName, j.opts.LeaseTTL)
			j.log.Error(l.lost.Error())
		default:
			j.log.Warn("natsstore: renewing the lease failed; trying again", "err", err)
		}
		l.mu.Unlock()
		if l.lostErr() != nil {
			return
		}
	}
}

func (l *lease) lostErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// release stops renewing and lets the lease go, so that another server
// may start at once.
func (l *lease) release(ctx context.Context, timeout time.Duration) {
	l.stop()
	<-l.done
	if l.lostErr() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	l.kv.Delete(ctx, leaseKey, jetstream.LastRevision(l.rev))
}
