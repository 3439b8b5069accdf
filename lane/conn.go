package lane

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/protocol"
)

// errDropped ends a connection the lane (or its own outbox) dropped.
var errDropped = errors.New("lane: connection dropped")

// Connection buffers. Clients send small messages (a roll is under 60
// bytes; the largest allowed is protocol.MaxMessageSize), and what the
// server writes is gathered in a pooled buffer only while a batch is
// written (see batchConn). net/http's 4 KiB reader and writer would sit
// idle most of a connection's life, once for each of many connections.
const (
	readBufferSize  = 512
	writeBufferSize = 256 // frames pass through it on their way to batchConn

	// maxPooledBatch is the largest batch buffer kept for reuse: a batch of
	// boards for a client that fell behind may be larger, and is rare.
	maxPooledBatch = 64 << 10
)

// Conn is a client's WebSocket connection, upgraded by [Accept] and served
// by [Lane.Serve].
type Conn struct {
	ws *websocket.Conn
	bc *batchConn // under ws

	// Set by Serve from the lane's Config.
	pingInterval, pongTimeout time.Duration
}

// Accept upgrades an HTTP request to a WebSocket connection for a lane,
// answering the request itself when it cannot. After Accept the handler may
// return: the connection lives on in [Lane.Serve].
func Accept(w http.ResponseWriter, r *http.Request, opts *websocket.AcceptOptions) (*Conn, error) {
	h := &hijacker{ResponseWriter: w}
	ws, err := websocket.Accept(h, r, opts)
	if err != nil {
		return nil, err
	}
	return &Conn{ws: ws, bc: h.conn}, nil
}

// hijacker hands the WebSocket library the hijacked connection as a
// batchConn, with small buffers of its own instead of net/http's.
type hijacker struct {
	http.ResponseWriter
	conn *batchConn
}

func (h *hijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	h.conn = &batchConn{Conn: nc}
	w := bufio.NewWriterSize(h.conn, writeBufferSize)
	n := brw.Reader.Buffered() // sent by the client before our answer
	if n > readBufferSize {
		return h.conn, bufio.NewReadWriter(brw.Reader, w), nil
	}
	// The WebSocket library takes over what the reader holds, not what it
	// reads from: what the client sent early must be in the new buffer.
	b, _ := brw.Reader.Peek(n)
	r := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(bytes.Clone(b)), nc), readBufferSize)
	if _, err := r.Peek(n); err != nil {
		nc.Close()
		return nil, nil, err
	}
	return h.conn, bufio.NewReadWriter(r, w), nil
}

// batchConn is the network connection as the WebSocket library writes to
// it. During a batch it gathers the frames written in a pooled buffer and
// sends them in one system call at the batch's end; outside a batch
// (pings, pongs, closes) it writes through. A connection so holds no write
// buffer between batches, and a client that fell behind gets its backlog
// in one write.
//
// Every write it makes is bounded by the write timeout: a client that
// cannot take what is sent to it in that time has stopped reading.
type batchConn struct {
	net.Conn
	mu       sync.Mutex
	batch    *[]byte       // gathering; nil outside a batch
	timeout  time.Duration // 0: no deadline
	deadline time.Time     // the write deadline set
}

var batchBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, 4<<10) // an eight-player board, finished, is under 4 KiB
	return &b
}}

func (bc *batchConn) setTimeout(d time.Duration) {
	bc.mu.Lock()
	bc.timeout = d
	bc.mu.Unlock()
}

func (bc *batchConn) Write(p []byte) (int, error) {
	bc.mu.Lock()
	if b := bc.batch; b != nil {
		*b = append(*b, p...)
		bc.mu.Unlock()
		return len(p), nil
	}
	bc.mu.Unlock()
	if err := bc.arm(); err != nil {
		return 0, err
	}
	return bc.Conn.Write(p)
}

// arm makes sure the write deadline is at least half the write timeout
// away, so that a write is given between half the timeout and all of it.
// Moving the deadline only when it is that close spares a timer update a
// write: on a busy connection most writes find it far enough.
func (bc *batchConn) arm() error {
	now := time.Now()
	bc.mu.Lock()
	if bc.timeout <= 0 || bc.deadline.Sub(now) >= bc.timeout/2 {
		bc.mu.Unlock()
		return nil
	}
	bc.deadline = now.Add(bc.timeout)
	d := bc.deadline
	bc.mu.Unlock()
	return bc.Conn.SetWriteDeadline(d)
}

// begin starts gathering writes.
func (bc *batchConn) begin() {
	bc.mu.Lock()
	bc.batch = batchBuffers.Get().(*[]byte)
	bc.mu.Unlock()
}

// end stops gathering and, if send, writes what was gathered. The
// WebSocket library writes whole frames under its own lock, so the batch
// holds whole frames; a control frame written by another goroutine meanwhile
// joins the batch or goes ahead of it, both allowed between messages.
func (bc *batchConn) end(send bool) error {
	bc.mu.Lock()
	b := bc.batch
	bc.batch = nil
	bc.mu.Unlock()
	var err error
	if send && len(*b) > 0 {
		if err = bc.arm(); err == nil {
			_, err = bc.Conn.Write(*b)
		}
	}
	if cap(*b) <= maxPooledBatch {
		*b = (*b)[:0]
		batchBuffers.Put(b)
	}
	return err
}

// Serve attaches an accepted connection to the lane and runs it until
// either side ends it or ctx ends. It reads the client's messages on the
// caller's goroutine and hands them to the lane; writes happen on writer
// goroutines that exist only while something is queued (see
// [client.writeOut]), and pings on a timer. Serve closes the connection.
func (l *Lane) Serve(ctx context.Context, conn *Conn) error {
	ws := conn.ws
	ws.SetReadLimit(protocol.MaxMessageSize)
	conn.bc.setTimeout(l.cfg.WriteTimeout)
	conn.pingInterval, conn.pongTimeout = l.cfg.PingInterval, l.cfg.PongTimeout
	c := newConnClient(conn)
	if !l.submit(ctx, request{op: opAttach, c: c}) {
		ws.Close(websocket.StatusGoingAway, "lane closed")
		return errDropped
	}
	l.log.Debug("connection opened")
	// A lane that stops drops its clients; this catches one whose attach
	// was still in the inbox when the lane stopped.
	stopDrop := context.AfterFunc(l.stopped, func() { c.drop(websocket.StatusGoingAway, "lane closed") })
	defer stopDrop()
	c.mu.Lock()
	c.pinger = time.AfterFunc(conn.pingInterval, c.ping)
	c.mu.Unlock()

	err := l.readLoop(ctx, ws, c)
	if err == nil {
		// The reader dropped the client: let the writer write what is
		// queued and close the connection, saying why.
		c.wg.Wait()
		err = errDropped
	}
	c.end()
	ws.CloseNow()
	c.wg.Wait()
	if f := c.failure(); f != nil && errors.Is(err, net.ErrClosed) {
		err = f // the writer closed the connection, and knows why
	}
	// Tell the lane, unless it has stopped; never wait on a stopped lane.
	l.submit(context.WithoutCancel(ctx), request{op: opDetach, c: c})
	l.log.Debug("connection closed", "status", websocket.CloseStatus(err), "skipped", c.skippedCount())
	return err
}

// readLoop reads client messages and hands them to the lane, refusing
// those over the rate limit and binary ones on the way. It returns nil when
// it dropped the client.
//
// The lane goroutine decodes what it is handed: JSON decoding runs deep,
// and a reader that never does keeps a small stack, for as long as its
// connection lasts.
func (l *Lane) readLoop(ctx context.Context, ws *websocket.Conn, c *client) error {
	bucket := newTokenBucket(l.cfg.MessageRate, l.cfg.MessageBurst, time.Now())
	limited := 0 // rate-limited messages in a row
	for {
		typ, data, err := ws.Read(ctx)
		if err != nil {
			return err
		}
		r := request{op: opRead, c: c, data: data}
		switch {
		case !bucket.take(time.Now()):
			limited++
			if limited > FloodLimit {
				c.drop(websocket.StatusPolicyViolation, "flooding")
				l.log.Info("connection dropped for flooding")
				return nil
			}
			r.refusal = protocol.Errorf(protocol.CodeRateLimited, "more than %g messages a second; slow down", l.cfg.MessageRate)
		case typ != websocket.MessageText:
			limited = 0
			r.data = nil
			r.refusal = protocol.Errorf(protocol.CodeBadMessage, "binary frames are not tenpin messages; send JSON text")
		default:
			limited = 0
		}
		if !l.submit(ctx, r) {
			return errDropped
		}
	}
}

// writeOut writes the client's queue out, batch by batch, and returns when
// it is empty; a client dropped meanwhile has its connection closed with
// the status the drop gave. A write that fails closes the connection, which
// ends the reader and so Serve.
func (c *client) writeOut() {
	defer c.wg.Done()
	c.mu.Lock()
	for len(c.queue) > 0 && !c.ended {
		batch := c.queue
		c.queue, c.spare, c.boards = c.spare[:0], nil, 0
		c.mu.Unlock()
		err := c.conn.write(batch)
		clear(batch)
		c.mu.Lock()
		c.spare = batch[:0]
		if err != nil {
			c.mu.Unlock()
			c.fail(err) // writing stays set: nothing more is written
			return
		}
	}
	if c.dropped && !c.ended {
		status, reason := c.closeStatus, c.closeReason
		c.mu.Unlock()
		c.conn.ws.Close(status, reason) // writing stays set: nothing more is written
		return
	}
	c.writing = false
	c.mu.Unlock()
}

// write writes a batch of messages in one system call (see batchConn).
func (conn *Conn) write(batch []outgoing) error {
	conn.bc.begin()
	for _, m := range batch {
		if err := conn.ws.Write(context.Background(), websocket.MessageText, m.data); err != nil {
			conn.bc.end(false)
			return err
		}
	}
	return conn.bc.end(true)
}

// ping pings the client and, once the pong is back, schedules the next
// ping. A client that does not answer within the pong timeout is
// disconnected.
func (c *client) ping() {
	ctx, cancel := context.WithTimeout(context.Background(), c.conn.pongTimeout)
	err := c.conn.ws.Ping(ctx)
	cancel()
	if err != nil {
		c.fail(fmt.Errorf("no pong within %v: %w", c.conn.pongTimeout, err))
		return
	}
	c.mu.Lock()
	if !c.ended {
		c.pinger = time.AfterFunc(c.conn.pingInterval, c.ping)
	}
	c.mu.Unlock()
}

// fail records why the connection broke, unless it was over already, and
// closes it.
func (c *client) fail(err error) {
	c.mu.Lock()
	if !c.ended && c.failed == nil {
		c.failed = err
	}
	c.mu.Unlock()
	c.conn.ws.CloseNow()
}

func (c *client) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

// end marks the connection over: no writer starts after it, and no ping.
func (c *client) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	if c.pinger != nil {
		c.pinger.Stop()
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
