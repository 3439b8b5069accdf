package lane

import (
	"context"
	"errors"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/sync/errgroup"

	"github.com/tenpin/tenpin/protocol"
)

// errDropped ends a connection the lane (or its own outbox) dropped.
var errDropped = errors.New("lane: connection dropped")

// Serve attaches an accepted WebSocket connection to the lane and runs it
// until either side ends it: one goroutine reads the client's messages and
// hands them to the lane, another writes what the lane queued for it and
// pings it. Either failing ends both. Serve closes the connection.
func (l *Lane) Serve(ctx context.Context, ws *websocket.Conn) error {
	ws.SetReadLimit(protocol.MaxMessageSize)
	c := newClient()
	if !l.submit(ctx, request{op: opAttach, c: c}) {
		ws.Close(websocket.StatusGoingAway, "lane closed")
		return errDropped
	}
	l.log.Debug("connection opened")
	defer func() {
		// Tell the lane, unless it has stopped; never wait on a stopped lane.
		l.submit(context.WithoutCancel(ctx), request{op: opDetach, c: c})
	}()

	// The reader runs on this goroutine and the writer on the errgroup's:
	// a connection costs two goroutines, not three. The reader's failure
	// cancels the writer as the errgroup's own would.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return l.writeLoop(gctx, ws, c) })
	if rerr := l.readLoop(gctx, ws, c); rerr != nil {
		cancel(rerr)
	}
	err := g.Wait()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		err = cause // the reader's error says more than the writer's cancellation
	}
	status := websocket.CloseStatus(err)
	l.log.Debug("connection closed", "status", status, "skipped", c.skippedCount())
	ws.CloseNow()
	return err
}

func (c *client) skippedCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.skipped
}

// readLoop reads client messages, refusing malformed ones itself and
// handing the rest to the lane.
func (l *Lane) readLoop(ctx context.Context, ws *websocket.Conn, c *client) error {
	bucket := newTokenBucket(l.cfg.MessageRate, l.cfg.MessageBurst, time.Now())
	limited := 0 // rate-limited messages in a row
	for {
		typ, data, err := ws.Read(ctx)
		if err != nil {
			return err
		}
		var req protocol.Request
		if !bucket.take(time.Now()) {
			limited++
			if limited > FloodLimit {
				c.drop(websocket.StatusPolicyViolation, "flooding")
				l.log.Info("connection dropped for flooding")
				return nil // the writer closes the connection, saying why
			}
			req, _ = protocol.Decode(data) // for its id, if it has one
			req = protocol.Request{ID: req.ID}
			err = protocol.Errorf(protocol.CodeRateLimited, "more than %g messages a second; slow down", l.cfg.MessageRate)
		} else if typ != websocket.MessageText {
			limited = 0
			err = protocol.Errorf(protocol.CodeBadMessage, "binary frames are not tenpin messages; send JSON text")
		} else {
			limited = 0
			req, err = protocol.Decode(data)
		}
		if err != nil {
			l.cfg.Metrics.Refused.Add(1)
			pe := ErrorFor(err)
			l.log.Info("message refused", "code", pe.Code)
			pe.Ref = req.ID
			if !c.sendReply(encodeReply(pe)) {
				return nil // dropped: the writer closes the connection, saying why
			}
			continue
		}
		if !l.submit(ctx, request{op: opMessage, c: c, msg: req}) {
			return errDropped
		}
	}
}

// writeLoop writes the client's queued messages, each under a deadline,
// pings the client every ping interval, and closes the connection
// when the lane drops the client.
func (l *Lane) writeLoop(ctx context.Context, ws *websocket.Conn, c *client) error {
	ping := time.NewTicker(l.cfg.PingInterval)
	defer ping.Stop()
	var batch []outgoing
	write := func() error {
		batch = c.take(batch[:0])
		if len(batch) == 0 {
			return nil
		}
		// One deadline for the batch: a client that cannot take what is
		// queued for it within the write timeout has stopped reading.
		wctx, cancel := context.WithTimeout(ctx, l.cfg.WriteTimeout)
		defer cancel()
		for _, m := range batch {
			if err := ws.Write(wctx, websocket.MessageText, m.data); err != nil {
				return err
			}
		}
		clear(batch)
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			select {
			case <-c.dropped: // the reader dropped the client: say why
				ws.Close(c.closeStatus, c.closeReason)
			default:
			}
			return ctx.Err()
		case <-c.wake:
			if err := write(); err != nil {
				return err
			}
		case <-c.dropped:
			if err := write(); err != nil {
				return err
			}
			ws.Close(c.closeStatus, c.closeReason)
			return errDropped
		case <-l.done: // stopped between our attach and its loop's last look
			ws.Close(websocket.StatusGoingAway, "lane closed")
			return errDropped
		case <-ping.C:
			pctx, cancel := context.WithTimeout(ctx, l.cfg.PongTimeout)
			err := ws.Ping(pctx)
			cancel()
			if err != nil {
				return err
			}
		}
	}
}

// tokenBucket allows rate events a second on average, and bursts of up to
// burst. Only the connection's reader uses it.
type tokenBucket struct {
	rate, tokens, burst float64
	last                time.Time
}

func newTokenBucket(rate float64, burst int, now time.Time) *tokenBucket {
	return &tokenBucket{rate: rate, tokens: float64(burst), burst: float64(burst), last: now}
}

// take spends a token if there is one.
func (b *tokenBucket) take(now time.Time) bool {
	b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
