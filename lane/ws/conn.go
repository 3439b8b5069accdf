package ws

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/protocol"
)

// errDropped ends a connection the lane (or its own outbox) dropped.
var errDropped = errors.New("ws: connection dropped")

// Conn is a client's WebSocket connection, upgraded by [Accept] and served
// by [Serve]: the [lane.Conn] its lane sends to. Its outbox is filled
// without ever blocking, and written by writer goroutines that exist only
// while something is queued (see [Conn.writeOut]).
type Conn struct {
	ws *websocket.Conn
	bc *batchConn // under ws

	// Set by Serve from its endpoint's settings.
	pingInterval, pongTimeout time.Duration
	limit                     limiter

	// The outbox.
	mu      sync.Mutex
	queue   []outgoing // waiting to be written, in order
	spare   []outgoing // the last batch written, emptied: the next queue
	boards  int        // boards in queue
	skipped int        // boards dropped because the client fell behind

	writing bool           // a writer goroutine, or WriteBoard's tryWrite, owns the connection's writes
	unsent  bool           // tryWrite left an open batch for the writer to send
	ended   bool           // the connection is over: start no more writers
	dropped bool           // the connection must close, with closeStatus
	failed  error          // why the connection broke, if it did
	wg      sync.WaitGroup // writer goroutines
	pinger  *time.Timer    // the next ping, or the end of the wait for its pong

	closeStatus websocket.StatusCode
	closeReason string

	// writeOutFn is c.writeOut, made once: a go statement with a method
	// call would allocate a closure a batch.
	writeOutFn func()

	// The reading side, under mu (see read.go).
	serving  *serving // set once Serve has attached the connection
	reading  bool     // a reader goroutine runs
	finished bool     // the connection is over: start no more readers
	readOnFn func()   // c.readOn, made once as writeOutFn is

	// Set when a poller serves the connection (its socket, bc.raw), before
	// serving: its jobs run on the poller's workers, and it waits for its
	// client on the poller's epoll.
	poller   *Poller
	pollKey  uint64
	unpolled bool // epoll could not register or re-arm it: its reader waits in a read; under mu

	// pinged is set while the server's ping waits for its pong: that pong
	// was asked for, and does not count toward the client's rate. Under mu.
	pinged bool
	onPong func(context.Context, []byte)
}

type outgoing struct {
	data  []byte // a text message's payload
	board bool
	ping  bool // a ping frame, with no data
}

// Accept upgrades an HTTP request to a WebSocket connection for a lane,
// answering the request itself when it cannot. After Accept the handler may
// return: the connection lives on in [Serve].
//
// The pings and pongs the client sends count toward its message rate (see
// Config.MessageRate), but for the pong that answers the server's
// ping: a ping over the rate is not answered, and a client that keeps
// sending over it is disconnected. Callbacks set in opts for them are
// called for those within the rate.
func Accept(w http.ResponseWriter, r *http.Request, opts *websocket.AcceptOptions) (*Conn, error) {
	conn := newConn()
	var o websocket.AcceptOptions
	if opts != nil {
		o = *opts
	}
	onPing := o.OnPingReceived
	o.OnPingReceived = func(ctx context.Context, p []byte) bool {
		return conn.limit.allow(time.Now()) && (onPing == nil || onPing(ctx, p))
	}
	conn.onPong, o.OnPongReceived = o.OnPongReceived, nil // the library sees no pong (see read.go)
	h := &hijacker{ResponseWriter: w, c: conn}
	ws, err := websocket.Accept(h, r, &o)
	if err != nil {
		return nil, err
	}
	conn.ws = ws
	return conn, nil
}

func newConn() *Conn {
	c := new(Conn)
	c.writeOutFn = c.writeOut
	c.readOnFn = c.readOn
	c.limit.conn = c
	return c
}

// hijacker hands the WebSocket library the hijacked connection as a
// batchConn, with small buffers of its own instead of net/http's.
type hijacker struct {
	http.ResponseWriter
	c *Conn
}

func (h *hijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	bc := &batchConn{Conn: nc, onClose: h.c.wake}
	bc.reader.pongFunc = h.c.pong
	// What the client sent before our answer is read first, as all it
	// sends is: through batchConn, which follows its frames.
	if n := brw.Reader.Buffered(); n > 0 {
		b, _ := brw.Reader.Peek(n)
		bc.preload(b)
	}
	bc.raw, _ = bc.rawConn()
	h.c.bc = bc
	r := bufio.NewReaderSize(bc, readBufferSize)
	w := bufio.NewWriterSize(bc, writeBufferSize)
	return bc, bufio.NewReadWriter(r, w), nil
}

var _ lane.BoardWriter = (*Conn)(nil)

// WriteBoard writes a board, and reply after it if reply is not nil, at
// once if the connection has nothing else to write and its socket takes
// them without waiting (see batchConn.tryWrite): both in one write. What
// the socket does not take is left to a writer, ahead of anything queued
// after it. Otherwise it queues the board as Board does, and the reply as
// Reply does (see [lane.BoardWriter]).
func (c *Conn) WriteBoard(b []byte, _ uint64, reply []byte) (skipped int) {
	c.mu.Lock()
	if writesNow && len(c.queue) == 0 && !c.writing && !c.ended && !c.dropped && c.ws != nil && c.bc.raw != nil {
		c.writing = true
		c.wg.Add(1) // the connection's end waits for this write as for a writer's
		c.mu.Unlock()
		c.writeNow(b, reply)
		return 0
	}
	skipped, over := c.queueBoardReplyLocked(b, reply)
	c.startWriterLocked()
	c.mu.Unlock()
	if over {
		c.closeWith(websocket.StatusPolicyViolation, "too many unread replies")
	}
	return skipped
}

// queueBoardReplyLocked queues a board, and reply after it if reply is
// not nil. It reports how many older boards it dropped, and over if the
// client has let too many replies pile up (to be closed). c.mu is held.
func (c *Conn) queueBoardReplyLocked(b, reply []byte) (skipped int, over bool) {
	skipped = c.queueBoardLocked(b)
	return skipped, reply != nil && !c.queueReplyLocked(reply)
}

// Board queues a board (see [lane.Conn]). A client that has fallen
// maxQueuedBoards behind loses its older boards: each board is a full
// snapshot, so the newest is all it needs. It reports how many boards
// were dropped.
func (c *Conn) Board(b []byte, _ uint64) (skipped int) {
	c.mu.Lock()
	skipped = c.queueBoardLocked(b)
	c.startWriterLocked()
	c.mu.Unlock()
	return skipped
}

// queueBoardLocked appends a board to the queue, first dropping the older
// boards of a client maxQueuedBoards behind, and reports how many it
// dropped. c.mu is held.
func (c *Conn) queueBoardLocked(b []byte) (skipped int) {
	if c.boards < maxQueuedBoards {
		c.queue = append(c.queue, outgoing{data: b, board: true})
		c.boards++
		return 0
	}
	kept := c.queue[:0]
	for _, m := range c.queue {
		if !m.board {
			kept = append(kept, m)
		}
	}
	clear(c.queue[len(kept):])
	skipped = c.boards
	c.skipped += skipped
	// The new board goes ahead of the replies kept: each followed a board
	// just dropped, and must still follow one at least as new.
	kept = append(kept, outgoing{})
	copy(kept[1:], kept)
	kept[0] = outgoing{data: b, board: true}
	c.queue, c.boards = kept, 1
	return skipped
}

// writeNow writes a board, and a reply after it if reply is not nil, with
// tryWrite, the connection's writer for as long as it takes (c.writing is
// set): a writer starts afterwards only if something is left to write, was
// queued meanwhile, or the connection was dropped meanwhile. A failed write is handed to a worker to close the
// connection: closing waits on the library's locks, which the lane's
// goroutine must not.
func (c *Conn) writeNow(b, reply []byte) {
	defer c.wg.Done()
	ok, unsent, err := c.bc.tryWrite(opText, b, reply)
	if err != nil { // writing stays set: nothing more is written
		c.wg.Add(1)
		c.run(func() { defer c.wg.Done(); c.fail(err) })
		return
	}
	c.mu.Lock()
	over := false
	if !ok {
		// Whatever was queued meanwhile goes first, as if this board
		// and its reply had been queued after it.
		_, over = c.queueBoardReplyLocked(b, reply)
	}
	c.unsent = unsent
	c.writing = false
	if len(c.queue) > 0 || c.unsent || c.dropped {
		c.startWriterLocked()
	}
	c.mu.Unlock()
	if over {
		c.closeWith(websocket.StatusPolicyViolation, "too many unread replies")
	}
}

// Reply queues an answer meant for this client alone (see [lane.Conn]):
// after every board queued before it, so after the board its seq names.
// A client that has let too many answers pile up is closed.
func (c *Conn) Reply(b []byte, _ uint64) {
	c.mu.Lock()
	c.answered(b)
	over := !c.queueReplyLocked(b)
	if !over {
		c.startWriterLocked()
	}
	c.mu.Unlock()
	if over {
		c.closeWith(websocket.StatusPolicyViolation, "too many unread replies")
	}
}

// queueReplyLocked queues a reply, and reports false if the client has let
// too many pile up (it is to be closed). c.mu is held.
func (c *Conn) queueReplyLocked(b []byte) bool {
	if len(c.queue)-c.boards >= maxQueuedReplies {
		return false
	}
	c.queue = append(c.queue, outgoing{data: b})
	return true
}

// Close closes the connection once what is already queued is written, with
// the WebSocket status of code (see Status). Only the first call counts.
func (c *Conn) Close(code protocol.Code, reason string) { c.closeWith(Status(code), reason) }

// Status is the WebSocket close status a connection closed with a
// refusal's code is sent: the status protocol's table gives the code
// ([protocol.Code.CloseStatus]), as the library's type.
func Status(code protocol.Code) websocket.StatusCode {
	return websocket.StatusCode(code.CloseStatus())
}

// closeWith closes the connection with status once what is already queued
// is written. Only the first call counts.
func (c *Conn) closeWith(status websocket.StatusCode, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dropped {
		return
	}
	c.dropped, c.closeStatus, c.closeReason = true, status, reason
	c.startWriterLocked()
}

// startWriterLocked starts a writer goroutine unless one is running or the
// connection is over. c.mu is held. A Conn not accepted (the outbox alone,
// in tests) has no writer.
func (c *Conn) startWriterLocked() {
	if c.ws == nil || c.writing || c.ended {
		return
	}
	c.writing = true
	c.wg.Add(1)
	c.run(c.writeOutFn)
}

// run runs a job of the connection's: on its poller's workers if it has
// one.
func (c *Conn) run(job func()) {
	if c.poller != nil {
		c.poller.workers.Go(job)
	} else {
		go job()
	}
}

func (c *Conn) skippedCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.skipped
}

// writeOut writes the client's queue out, batch by batch, and returns when
// it is empty; a client dropped meanwhile has its connection closed with
// the status the drop gave. A write that fails closes the connection, which
// ends the reader and so Serve.
func (c *Conn) writeOut() {
	defer c.wg.Done()
	c.mu.Lock()
	for (len(c.queue) > 0 || c.unsent) && !c.ended {
		batch := c.queue
		c.queue, c.spare, c.boards, c.unsent = c.spare[:0], nil, 0, false
		c.mu.Unlock()
		err := c.write(batch)
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
		c.ws.Close(status, reason) // writing stays set: nothing more is written
		return
	}
	c.writing = false
	c.mu.Unlock()
}

// write writes a batch of messages in one system call (see batchConn),
// after what tryWrite left unsent.
func (c *Conn) write(batch []outgoing) error {
	c.bc.begin()
	return c.writeAndEnd(batch)
}

// writeAndEnd writes messages into the open batch, and ends it. If the
// library has sent a close frame, the connection is closing: the batch is
// sent all the same, with the frames before it, and the close frame if
// the library wrote it into this batch.
func (c *Conn) writeAndEnd(batch []outgoing) error {
	var err error
	for _, m := range batch {
		if m.ping {
			err = c.bc.writeFrame(opPing, nil)
		} else {
			err = c.bc.writeFrame(opText, m.data)
		}
		if err != nil {
			break
		}
	}
	if err2 := c.bc.end(); err == nil {
		err = err2
	}
	return err
}

// ping is the connection's one timer. With no ping in flight it queues
// one for the client, written by the writer between messages, and gives
// it PongTimeout to answer; with one in flight, unanswered, it closes the
// connection. The pong (see pong) sets it for the next ping.
//
// The library's Ping is not used: it waits for the pong inside a read
// (which the reader no longer makes at rest, see read.go) and ends its
// write under the context it is given, so no pong may cut its wait
// short. A ping frame is two bytes, written whole between the writer's
// messages, as they are (see batchConn.writeFrame).
func (c *Conn) ping() {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	if c.pinged {
		c.mu.Unlock()
		c.fail(fmt.Errorf("no pong within %v", c.pongTimeout))
		return
	}
	c.pinged = true
	c.queue = append(c.queue, outgoing{ping: true})
	c.startWriterLocked()
	c.pinger.Reset(c.pongTimeout)
	c.mu.Unlock()
}

// pong is called for each pong the client sends (see read.go): the
// answer to the server's ping in flight, or one the client volunteers,
// which counts toward its message rate.
func (c *Conn) pong(payload []byte) {
	c.mu.Lock()
	answer := c.pinged
	if answer {
		c.pinged = false
		if !c.ended {
			c.pinger.Reset(c.pingInterval)
		}
	}
	c.mu.Unlock()
	if !answer && !c.limit.allow(time.Now()) {
		return
	}
	if c.onPong != nil {
		c.onPong(context.Background(), payload)
	}
}

// fail records why the connection broke, unless it was over already, and
// closes it. A write refused after the library's close frame (errCloseSent)
// leaves the closing to the library, which closes the connection once
// that frame is written: closing it here could come first and lose it.
func (c *Conn) fail(err error) {
	if errors.Is(err, errCloseSent) {
		return
	}
	c.mu.Lock()
	if !c.ended && c.failed == nil {
		c.failed = err
	}
	c.mu.Unlock()
	c.ws.CloseNow()
}

func (c *Conn) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

// end marks the connection over: no writer starts after it, and no ping.
func (c *Conn) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	if c.pinger != nil {
		c.pinger.Stop()
	}
}
