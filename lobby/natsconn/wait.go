package natsconn

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// How Take waits: from the first pause, doubling up to the last, and
// logging again after waitLogEvery if what it waits for is the same.
const (
	firstPause   = 250 * time.Millisecond
	lastPause    = 2 * time.Second // an election takes 4–9 s: try several times in one
	waitLogEvery = 10 * time.Second
)

// JetStream's codes of API errors: those a cluster still forming answers,
// and those that waiting does not mend (nats-server's
// jetstream_errors_generated.go).
const (
	codeNoPeers               = 10005 // no suitable peers for placement: fewer servers met so far
	codeClusterNotAvail       = 10008 // JetStream system temporarily unavailable: no meta leader
	codeReplicasNotSupported  = 10074 // replicas > 1 not supported in non-clustered mode
	codeInsufficientResources = 10023
	codeBadRequest            = 10003
	codeInvalidJSON           = 10025
	codeInvalidConfig         = 10052
	codeSubjectOverlap        = 10065
)

// waits reports whether Take waits for NATS to take what it creates: at a URL, or in a cluster of the embedded servers, which form
// and elect their leaders some seconds after they start. The embedded
// server alone is ready once it has started.
func (c *Conn) waits() bool { return c.cfg.URL != "" || c.cfg.Cluster != "" }

// TakeWait is how long Open, and the store after it, wait for NATS to
// take what they create: ClusterWait when Take waits at all (a cluster,
// or a URL), otherwise long enough for the embedded server alone to
// answer.
func (c *Conn) TakeWait() time.Duration {
	if c.waits() {
		return c.cfg.ClusterWait
	}
	return max(c.cfg.Timeout, 10*time.Second)
}

// Take creates what (a connection, a stream, a bucket) with create
// and, when NATS is a cluster or at a URL, tries again with backoff while
// NATS is not ready — not connected, no JetStream meta leader yet, fewer
// servers met than replicas — until ctx ends, logging what it waits for.
// A refusal that waiting does not mend (a single server asked for more
// than one copy, a configuration the server rejects, bad credentials)
// returns at once.
func (c *Conn) Take(ctx context.Context, what string, create func(context.Context) error) error {
	var (
		logged    string // the last reason logged
		loggedAt  time.Time
		start     = time.Now()
		lastError error
	)
	for pause := firstPause; ; pause = min(2*pause, lastPause) {
		err := create(ctx)
		switch {
		case err == nil:
			if logged != "" {
				c.log.Info("natsconn: NATS took the "+what, "after", time.Since(start).Round(time.Millisecond))
			}
			return nil
		case isCode(err, codeReplicasNotSupported):
			return fmt.Errorf("%w: the NATS server at %s is a single server, not a cluster, and cannot keep %d copies of the %s: run a cluster of %d, or keep one copy: %w", ErrFewServers, RedactURLs(c.cfg.URL), c.cfg.Replicas, what, c.cfg.Replicas, err)
		case !c.waits() || !transient(err):
			return err
		}
		lastError = err
		why := waitingFor(err, c.cfg.Replicas)
		if now := time.Now(); why != logged || now.Sub(loggedAt) >= waitLogEvery {
			c.log.Info("natsconn: waiting for NATS to take the "+what+": "+why, "replicas", c.cfg.Replicas, "waited", now.Sub(start).Round(time.Millisecond), "err", err)
			logged, loggedAt = why, now
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				return fmt.Errorf("natsconn: stopped waiting for NATS to take the %s: %w", what, ctx.Err())
			}
			if isCode(lastError, codeNoPeers) || isCode(lastError, codeInsufficientResources) {
				return fmt.Errorf("%w: NATS did not take the %s with %d replicas in %v: fewer than %d servers with JetStream answered (are %d up, with routes to each other?): %w", ErrFewServers, what, c.cfg.Replicas, time.Since(start).Round(time.Second), c.cfg.Replicas, c.cfg.Replicas, lastError)
			}
			return fmt.Errorf("natsconn: NATS did not take the %s in %v, while %s: %w", what, time.Since(start).Round(time.Second), why, lastError)
		case <-time.After(pause):
		}
	}
}

// transient reports whether err may pass by waiting: anything but a
// refusal that says the request itself is wrong (a configuration
// JetStream rejects, subjects another stream has) or credentials the
// server refuses, or a bad URL. A stream "already in use" is transient: a
// node creating it races another, and the next try updates it.
func transient(err error) bool {
	var api *jetstream.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode {
		case codeBadRequest, codeInvalidJSON, codeInvalidConfig, codeSubjectOverlap, codeReplicasNotSupported:
			return false
		}
		return true
	}
	var bad *url.Error
	switch {
	case errors.As(err, &bad),
		errors.Is(err, nats.ErrAuthorization),
		errors.Is(err, nats.ErrAuthExpired),
		errors.Is(err, nats.ErrAuthRevoked),
		errors.Is(err, nats.ErrPermissionViolation):
		return false
	}
	return true
}

// waitingFor says in words what an error of a NATS that is not ready
// means.
func waitingFor(err error, replicas int) string {
	switch {
	case errors.Is(err, nats.ErrNoServers):
		return "no NATS server answers at the URL yet"
	case errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, nats.ErrNoResponders):
		return "JetStream does not answer yet (its servers are starting)"
	case isCode(err, codeNoPeers), isCode(err, codeInsufficientResources):
		return fmt.Sprintf("fewer than %d servers with JetStream have met so far", replicas)
	case isCode(err, codeClusterNotAvail), errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return "no JetStream meta leader answers yet (the servers elect one 4 to 9 s after they meet)"
	case errors.Is(err, nats.ErrConnectionReconnecting), errors.Is(err, nats.ErrDisconnected):
		return "the connection to NATS is down"
	}
	return "NATS is not ready"
}

// isCode reports whether err is a JetStream API error of that code.
func isCode(err error, code jetstream.ErrorCode) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && api.ErrorCode == code
}

// RedactURLs returns NATS URLs (comma-separated) with any password or
// token in them replaced, for logs and errors.
func RedactURLs(urls string) string {
	if !strings.Contains(urls, "@") {
		return urls
	}
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		u, err := url.Parse(strings.TrimSpace(p))
		if err != nil || u.User == nil {
			if strings.Contains(p, "@") {
				parts[i] = "(a URL with credentials)"
			}
			continue
		}
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		} else {
			u.User = url.User("xxxxx") // a token
		}
		parts[i] = u.String()
	}
	return strings.Join(parts, ",")
}
