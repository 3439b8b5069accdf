package lane

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
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
	limit                     limiter

	// pinged is set while the server's ping waits for its pong: that pong
	// was asked for, and does not count toward the client's rate.
	pinged atomic.Bool
}

// Accept upgrades an HTTP request to a WebSocket connection for a lane,
// answering the request itself when it cannot. After Accept the handler may
// return: the connection lives on in [Lane.Serve].
//
// The pings and pongs the client sends count toward its message rate (see
// [Config.MessageRate]), but for the pong that answers the server's ping:
// a ping over the rate is not answered, and a client that keeps sending
// over it is disconnected. Callbacks set in opts for them are called for
// those within the rate.
func Accept(w http.ResponseWriter, r *http.Request, opts *websocket.AcceptOptions) (*Conn, error) {
	conn := new(Conn)
	var o websocket.AcceptOptions
	if opts != nil {
		o = *opts
	}
	onPing, onPong := o.OnPingReceived, o.OnPongReceived
	o.OnPingReceived = func(ctx context.Context, p []byte) bool {
		return conn.limit.allow(time.Now()) && (onPing == nil || onPing(ctx, p))
	}
	o.OnPongReceived = func(ctx context.Context, p []byte) {
		if (conn.pinged.CompareAndSwap(true, false) || conn.limit.allow(time.Now())) && onPong != nil {
			onPong(ctx, p)
		}
	}
	h := &hijacker{ResponseWriter: w}
	ws, err := websocket.Accept(h, r, &o)
	if err != nil {
		return nil, err
	}
	conn.ws, conn.bc = ws, h.conn
	return conn, nil
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
//
// The library closes the connection right after it writes a close frame
// of its own (the echo of a client's close, or its answer to a message over
// the read limit), which may have joined a batch: Close sends the batch's
// whole frames before it closes, and waits for a batch being sent.
type batchConn struct {
	net.Conn
	mu       sync.Mutex
	batch    *[]byte       // gathering; nil outside a batch
	timeout  time.Duration // 0: no deadline
	deadline time.Time     // the write deadline set

	sending sync.Mutex // held while a batch is sent, and by Close
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

// end stops gathering and writes what was gathered. The WebSocket library
// writes each frame whole, under its own lock, and flushes at its end, so
// the batch holds whole frames: the writer's, and control frames other
// goroutines wrote meanwhile (a pong, or a close frame the library wrote
// on its own, after which it refuses the writer's next message). They are
// sent whatever became of the writer's last message, unless Close sent
// them already.
func (bc *batchConn) end() error {
	bc.sending.Lock()
	defer bc.sending.Unlock()
	b := bc.take()
	if b == nil {
		return net.ErrClosed
	}
	return bc.send(b, len(*b))
}

// Close sends an open batch's whole frames, then closes the connection.
// Outside a batch every write went through already; while a batch is sent
// Close waits for it, within the write timeout. A batch may end in part of
// a frame only if the connection is closed without a close frame (CloseNow)
// while the writer is writing one: that part is not sent.
func (bc *batchConn) Close() error {
	bc.sending.Lock()
	defer bc.sending.Unlock()
	if b := bc.take(); b != nil {
		bc.send(b, wholeFrames(*b))
	}
	return bc.Conn.Close()
}

// take ends the open batch, if there is one, and returns it.
func (bc *batchConn) take() *[]byte {
	bc.mu.Lock()
	defer bc.mu.Unlock()
	b := bc.batch
	bc.batch = nil
	return b
}

// send writes the first n bytes of a batch, and puts the batch back in the
// pool. bc.sending is held.
func (bc *batchConn) send(b *[]byte, n int) error {
	var err error
	if n > 0 {
		if err = bc.arm(); err == nil {
			_, err = bc.Conn.Write((*b)[:n])
		}
	}
	if cap(*b) <= maxPooledBatch {
		*b = (*b)[:0]
		batchBuffers.Put(b)
	}
	return err
}

// wholeFrames returns the length of the longest prefix of p made of whole
// WebSocket frames.
func wholeFrames(p []byte) int {
	n := 0
	for {
		f := p[n:]
		if len(f) < 2 {
			return n
		}
		head, size := 2, uint64(f[1]&0x7f)
		switch size {
		case 126:
			head = 4
		case 127:
			head = 10
		}
		if f[1]&0x80 != 0 { // masked: a server's frames are not
			head += 4
		}
		if len(f) < head {
			return n
		}
		switch size {
		case 126:
			size = uint64(binary.BigEndian.Uint16(f[2:]))
		case 127:
			size = binary.BigEndian.Uint64(f[2:])
		}
		if size > uint64(len(f)-head) {
			return n
		}
		n += head + int(size)
	}
}

// Serve attaches an accepted connection to the lane and runs it until
// either side ends it or ctx ends. It reads the client's messages on the
// caller's goroutine and hands them to the lane; writes happen on writer
// goroutines that exist only while something is queued (see
// [client.writeOut]), and pings on a timer. Serve closes the connection.
func (l *Lane) Serve(ctx context.Context, conn *Conn) error {
	return serve(ctx, conn, endpoint{cfg: l.cfg, log: l.log, stopped: l.stopped, submit: l.submit})
}

// endpoint is what serve attaches a connection to: a lane, or a relay of a
// lane that runs on another node. submit takes the connection's attach,
// reads and detach, and reports false once the endpoint has stopped.
type endpoint struct {
	cfg     Config
	log     *slog.Logger
	stopped context.Context
	submit  func(context.Context, request) bool
}

func serve(ctx context.Context, conn *Conn, l endpoint) error {
	ws := conn.ws
	ws.SetReadLimit(protocol.MaxMessageSize)
	conn.bc.setTimeout(l.cfg.WriteTimeout)
	conn.pingInterval, conn.pongTimeout = l.cfg.PingInterval, l.cfg.PongTimeout
	c := newConnClient(conn)
	conn.limit = limiter{bucket: newTokenBucket(l.cfg.MessageRate, l.cfg.MessageBurst, time.Now()), c: c}
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

	err := l.readLoop(ctx, conn, c)
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
func (l endpoint) readLoop(ctx context.Context, conn *Conn, c *client) error {
	for {
		typ, data, err := conn.ws.Read(ctx)
		if conn.limit.flooded() {
			// With pings or pongs, while Read waited for a message: it
			// dropped the client (see Accept).
			l.log.Info("connection dropped for flooding")
			return nil
		}
		if err != nil {
			return err
		}
		r := request{op: opRead, c: c, data: data}
		switch {
		case !conn.limit.allow(time.Now()):
			if conn.limit.flooded() {
				l.log.Info("connection dropped for flooding")
				return nil
			}
			r.refusal = protocol.Errorf(protocol.CodeRateLimited, "more than %g messages a second; slow down", l.cfg.MessageRate)
		case typ != websocket.MessageText:
			r.data = nil
			r.refusal = protocol.Errorf(protocol.CodeBadMessage, "binary frames are not tenpin messages; send JSON text")
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
	return conn.writeAndEnd(batch)
}

// writeAndEnd writes messages into the open batch, and ends it. If the
// library refuses a message, the connection is closing: the batch is sent
// all the same, with the close frame the library wrote into it.
func (conn *Conn) writeAndEnd(batch []outgoing) error {
	var err error
	for _, m := range batch {
		if err = conn.ws.Write(context.Background(), websocket.MessageText, m.data); err != nil {
			break
		}
	}
	if err2 := conn.bc.end(); err == nil {
		err = err2
	}
	return err
}

// ping pings the client and, once the pong is back, schedules the next
// ping. A client that does not answer within the pong timeout is
// disconnected.
func (c *client) ping() {
	ctx, cancel := context.WithTimeout(context.Background(), c.conn.pongTimeout)
	c.conn.pinged.Store(true)
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

// limiter is a connection's rate limit. Every frame the client sends
// counts: its messages, and the pings and pongs the WebSocket library
// handles inside Read (see Accept). Those may be read by a close handshake
// on the writer's goroutine while the reader checks a message, hence the
// mutex.
type limiter struct {
	mu       sync.Mutex
	bucket   tokenBucket
	refused  int     // frames over the rate in a row
	flooding bool    // more than FloodLimit of them: c was dropped
	c        *client // set by Serve before the first read
}

// allow reports whether a frame read now is within the rate. A client that
// sends more than FloodLimit frames in a row over it is flooding, and is
// dropped with StatusPolicyViolation.
func (lim *limiter) allow(now time.Time) bool {
	lim.mu.Lock()
	ok, flood := lim.bucket.take(now), false
	switch {
	case ok:
		lim.refused = 0
	case !lim.flooding:
		lim.refused++
		flood = lim.refused > FloodLimit
		lim.flooding = flood
	}
	lim.mu.Unlock()
	if flood {
		lim.c.drop(websocket.StatusPolicyViolation, "flooding")
	}
	return ok
}

// flooded reports whether the client was dropped for flooding.
func (lim *limiter) flooded() bool {
	lim.mu.Lock()
	defer lim.mu.Unlock()
	return lim.flooding
}

// tokenBucket allows rate events a second on average, and bursts of up to
// burst.
type tokenBucket struct {
	rate, tokens, burst float64
	last                time.Time
}

func newTokenBucket(rate float64, burst int, now time.Time) tokenBucket {
	return tokenBucket{rate: rate, tokens: float64(burst), burst: float64(burst), last: now}
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
