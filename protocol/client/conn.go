package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/protocol"
)

const (
	// MaxQueued is how many messages wait for Next at most (see the
	// package doc): a lane sends a board or two a second to a person's
	// client and a few dozen in a burst to a busy one; 64 lets a reader
	// that was not scheduled for a moment catch up without a gap, as the
	// server's own queue of boards for a client does.
	MaxQueued = 64

	// ReadLimit is the largest server message a Conn reads. A board of
	// eight players with their series is under 8 KiB; a megabyte is room
	// to spare, and a bound on what a broken server can make a client
	// hold. A larger message ends the connection.
	ReadLimit = 1 << 20

	// WriteTimeout bounds every write. A server that cannot take a message
	// in that time has stopped reading; the connection is closed.
	WriteTimeout = 10 * time.Second
)

// Conn is a WebSocket to one lane. See the package doc for what it does
// with the server's messages and which methods may be called at once.
type Conn struct {
	ws     *websocket.Conn
	handle func(data []byte) // nil: queue for Next
	nextID atomic.Uint64
	ready  chan struct{} // a token when the queue grew or the reader stopped
	done   chan struct{} // closed when the reader stops

	mu      sync.Mutex
	pending map[string]chan protocol.Message // the commands waiting, by id
	queue   []queued                         // for Next, oldest first
	lent    *[]byte                          // what NextRaw returned last, until the next call
	err     error                            // why the reader stopped; nil while it reads
}

// queued is a message waiting for Next: its bytes, and what the reader
// decoded of it already (everything but a board, which is decoded only if
// Next is asked for it).
type queued struct {
	data *[]byte
	msg  protocol.Message
	err  error // it did not decode
}

// buffers hold messages from the socket to Next and back, so that a
// Conn whose queue is empty holds no buffer for it (its reader keeps the
// one it reads into).
var buffers = sync.Pool{New: func() any { return new([]byte) }}

// NewConn returns ws, a WebSocket to a lane that the caller dialled
// itself (with options of its own), as a Conn, and starts reading it. It
// sets ws's read limit to [ReadLimit]. The Conn owns reading ws from then
// on; the caller may still write to it (for what the protocol does not
// say, such as a binary frame) and close it.
func NewConn(ws *websocket.Conn) *Conn {
	return NewConnFunc(ws, nil)
}

// NewConnFunc is NewConn for a program that takes the messages as they
// come rather than from Next: the Conn calls handle on its reading
// goroutine with each message that answers no waiting command, as the
// server sent it, instead of queueing it (Next then only waits for the
// end). The bytes are the Conn's again when handle returns. handle must
// not wait for the answer to a command, which is read after it returns:
// send commands from another goroutine. A program that follows thousands
// of lanes (the load tool) saves a goroutine, a hand-over and a copy a
// message this way.
func NewConnFunc(ws *websocket.Conn, handle func(data []byte)) *Conn {
	ws.SetReadLimit(ReadLimit)
	c := &Conn{
		ws:      ws,
		handle:  handle,
		ready:   make(chan struct{}, 1),
		done:    make(chan struct{}),
		pending: make(map[string]chan protocol.Message),
	}
	go c.read()
	return c
}

// read reads the connection until it ends: it hands each answer to the
// command waiting for it, and queues the rest for Next.
func (c *Conn) read() {
	defer close(c.done)
	var buf *[]byte
	for {
		if buf == nil {
			buf = buffers.Get().(*[]byte)
		}
		typ, r, err := c.ws.Reader(context.Background())
		if err == nil {
			*buf, err = readAll((*buf)[:0], r)
		}
		if err == nil && typ != websocket.MessageText {
			err = fmt.Errorf("client: the server sent a binary message")
			c.ws.Close(websocket.StatusUnsupportedData, "tenpin messages are text")
		}
		if err != nil {
			buffers.Put(buf)
			c.mu.Lock()
			c.err = fmt.Errorf("%w: %w", ErrClosed, err)
			c.mu.Unlock()
			c.signal()
			return
		}
		if !c.dispatch(buf) {
			buf = nil // queued: the next message needs another
		}
	}
}

// readAll appends what r holds to dst, as io.ReadAll does into a new one.
func readAll(dst []byte, r io.Reader) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// dispatch hands an answer to the command waiting for it, and any other
// message to the Conn's func or to the queue for Next. Boards go as they
// are, undecoded. It reports whether buf is free again.
func (c *Conn) dispatch(buf *[]byte) bool {
	if protocol.IsBoard(*buf) {
		return c.deliver(queued{data: buf})
	}
	m, err := protocol.DecodeMessage(*buf)
	if ref := refOf(m); ref != "" {
		c.mu.Lock()
		ch, ok := c.pending[ref]
		delete(c.pending, ref)
		c.mu.Unlock()
		if ok {
			ch <- m // buffered: the only answer to that id
			return true
		}
	}
	return c.deliver(queued{data: buf, msg: m, err: err})
}

// deliver hands a message to the Conn's func, and reports that its buffer
// is free again, or queues it for Next.
func (c *Conn) deliver(q queued) bool {
	if c.handle != nil {
		c.handle(*q.data)
		return true
	}
	c.enqueue(q)
	return false
}

func refOf(m protocol.Message) string {
	switch m := m.(type) {
	case *protocol.Welcome:
		return m.Ref
	case *protocol.Ack:
		return m.Ref
	case *protocol.Error:
		return m.Ref
	}
	return ""
}

// enqueue queues a message for Next, dropping the oldest board (or, if
// none waits, the oldest message) when MaxQueued wait already.
func (c *Conn) enqueue(q queued) {
	c.mu.Lock()
	if len(c.queue) >= MaxQueued {
		drop := 0
		for i, e := range c.queue {
			if e.msg == nil && e.err == nil { // a board
				drop = i
				break
			}
		}
		buffers.Put(c.queue[drop].data)
		c.queue = append(c.queue[:drop], c.queue[drop+1:]...)
	}
	c.queue = append(c.queue, q)
	c.mu.Unlock()
	c.signal()
}

func (c *Conn) signal() {
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

// take returns the oldest queued message, waiting for one until ctx ends.
// Once the connection has ended and its messages have all been taken, it
// returns the error that ended it.
func (c *Conn) take(ctx context.Context) (queued, error) {
	for {
		c.mu.Lock()
		if c.lent != nil {
			buffers.Put(c.lent)
			c.lent = nil
		}
		if len(c.queue) > 0 {
			q := c.queue[0]
			n := copy(c.queue, c.queue[1:])
			c.queue[n] = queued{}
			c.queue = c.queue[:n]
			c.mu.Unlock()
			return q, nil
		}
		err := c.err
		c.mu.Unlock()
		if err != nil {
			return queued{}, err
		}
		select {
		case <-c.ready:
		case <-ctx.Done():
			return queued{}, ctx.Err()
		}
	}
}

// Next returns the next message that answers no waiting command, in the
// order the server sent them: a *protocol.Board, mostly; a
// *protocol.Error that answers no waiting command (a notice, which says
// why the server is about to close the connection or has made it a
// spectator; the refusal of a message sent with Send); a welcome or an
// ack that answers a message sent with Send, or a command that stopped
// waiting. A message that does not decode is an error wrapping
// protocol.ErrUndecodable, and the connection goes on. Once the
// connection has ended and every message before the end has been
// returned, Next returns an error wrapping ErrClosed. ctx bounds the wait
// only: when it ends, Next returns its error and the connection goes on.
// (A Conn made by NewConnFunc queues nothing: Next waits for the end.)
func (c *Conn) Next(ctx context.Context) (protocol.Message, error) {
	q, err := c.take(ctx)
	if err != nil {
		return nil, err
	}
	if q.msg == nil && q.err == nil {
		q.msg, q.err = protocol.DecodeMessage(*q.data)
	}
	buffers.Put(q.data)
	return q.msg, q.err
}

// NextRaw is Next without the decoding, for a client that reads less of a
// board than all of it (protocol.BoardSeq, protocol.DecodeBoardHead,
// protocol.DecodeBoardPlayer) or not at all: it returns the message as the
// server sent it. The bytes are the Conn's again at the next call of Next
// or NextRaw.
func (c *Conn) NextRaw(ctx context.Context) ([]byte, error) {
	q, err := c.take(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.lent = q.data
	c.mu.Unlock()
	return *q.data, nil
}

// Do sends r with an id of the Conn's own (whatever r.ID says) and waits
// until ctx ends for the server's answer to it: a *protocol.Welcome, a
// *protocol.Ack, or a refusal, returned as the error *protocol.Error. The
// commands are Do with the request made for them; Do is for requests they
// do not make. The Conn's ids are decimal numbers: a message sent with
// Send should carry other ids, or none.
func (c *Conn) Do(ctx context.Context, r protocol.Request) (protocol.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // a write under an ended context would close the socket
	}
	r.ID = strconv.FormatUint(c.nextID.Add(1), 10)
	data, err := encode(r)
	if err != nil {
		return nil, err
	}
	answer := make(chan protocol.Message, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	c.pending[r.ID] = answer
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, r.ID)
		c.mu.Unlock()
	}()
	if err := c.write(data); err != nil {
		return nil, fmt.Errorf("client: %s: %w", r.Type, err)
	}
	select {
	case m := <-answer:
		if e, ok := m.(*protocol.Error); ok {
			return nil, e
		}
		return m, nil
	case <-c.done:
		select {
		case m := <-answer: // answered just before the end
			if e, ok := m.(*protocol.Error); ok {
				return nil, e
			}
			return m, nil
		default:
		}
		return nil, fmt.Errorf("client: %s: %w", r.Type, c.closedErr())
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *Conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Send sends data as one text message, as it is, and does not wait for an
// answer: any answer comes from Next. It is for what the commands do not
// send — and for tests, what no client should send.
func (c *Conn) Send(ctx context.Context, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := c.write(data); err != nil {
		return fmt.Errorf("client: send: %w", err)
	}
	return nil
}

// write writes one text message within WriteTimeout. The caller's context
// does not bound it: a write cut short would close the connection.
func (c *Conn) write(data []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), WriteTimeout)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, data)
}

// Close closes the connection normally: it sends a close frame and waits
// a few seconds at most for the server's. Next then returns ErrClosed once
// it has returned what was queued.
func (c *Conn) Close() error {
	return c.ws.Close(websocket.StatusNormalClosure, "")
}

// CloseNow closes the connection without a close frame, as a dropped
// network would.
func (c *Conn) CloseNow() error {
	return c.ws.CloseNow()
}

// Done is closed when the connection has ended (and the Conn has stopped
// reading it).
func (c *Conn) Done() <-chan struct{} {
	return c.done
}

// Join takes a seat under name (1 to 12 letters of any script), before
// the game starts or while seats remain, on a lane anyone may join (one
// created "open"). Its answer is the welcome, with the seat and the token
// that takes the seat back after a reconnect (Resume).
func (c *Conn) Join(ctx context.Context, name string) (*protocol.Welcome, error) {
	return welcome(c.Do(ctx, protocol.Request{Type: protocol.TypeJoin, Name: name}))
}

// JoinInvited is Join with the lane's invitation (from [Client.Create],
// or the fragment of the lane's link): a lane not created open seats
// only a join that carries it.
func (c *Conn) JoinInvited(ctx context.Context, name, invite string) (*protocol.Welcome, error) {
	return welcome(c.Do(ctx, protocol.Request{Type: protocol.TypeJoin, Name: name, Invite: invite}))
}

// NewInvite issues the lane a new invitation (the host only) and returns
// it: from then on a join needs it, and the one before seats nobody.
func (c *Conn) NewInvite(ctx context.Context) (string, error) {
	a, err := ack(c.Do(ctx, protocol.Request{Type: protocol.TypeNewInvite}))
	if err != nil {
		return "", err
	}
	return a.Invite, nil
}

// JoinHost is Join with the lane's host key, from [Client.Create]: the
// seat taken is the lane's host.
func (c *Conn) JoinHost(ctx context.Context, name, key string) (*protocol.Welcome, error) {
	return welcome(c.Do(ctx, protocol.Request{Type: protocol.TypeJoin, Name: name, HostKey: key}))
}

// Resume takes back the seat token holds, on a new connection.
func (c *Conn) Resume(ctx context.Context, token string) (*protocol.Welcome, error) {
	return welcome(c.Do(ctx, protocol.Request{Type: protocol.TypeResume, Token: token}))
}

// Start starts the game (the host only).
func (c *Conn) Start(ctx context.Context) (*protocol.Ack, error) {
	return ack(c.Do(ctx, protocol.Request{Type: protocol.TypeStart}))
}

// Roll enters the pins the sender's ball up knocked down: frame and ball
// name it (the board's up.frame and up.ball), so that a roll sent twice
// counts once.
func (c *Conn) Roll(ctx context.Context, frame, ball, pins int) (*protocol.Ack, error) {
	return ack(c.Do(ctx, protocol.Request{Type: protocol.TypeRoll, Frame: &frame, Ball: &ball, Pins: &pins}))
}

// RollFor enters the ball of the player name: the host may for whoever
// is up, anyone seated for a player who is offline.
func (c *Conn) RollFor(ctx context.Context, name string, frame, ball, pins int) (*protocol.Ack, error) {
	return ack(c.Do(ctx, protocol.Request{Type: protocol.TypeRoll, Name: name, Frame: &frame, Ball: &ball, Pins: &pins}))
}

// Leave gives up the sender's seat.
func (c *Conn) Leave(ctx context.Context) (*protocol.Ack, error) {
	return ack(c.Do(ctx, protocol.Request{Type: protocol.TypeLeave}))
}

// Rematch starts a new game with the same players once the game is over
// (the host only).
func (c *Conn) Rematch(ctx context.Context) (*protocol.Ack, error) {
	return ack(c.Do(ctx, protocol.Request{Type: protocol.TypeRematch}))
}

// Correct changes the pins of a ball already bowled, frame and ball of
// the player name ("" for the sender's own).
func (c *Conn) Correct(ctx context.Context, name string, frame, ball, pins int) (*protocol.Ack, error) {
	return ack(c.Do(ctx, protocol.Request{Type: protocol.TypeCorrect, Name: name, Frame: &frame, Ball: &ball, Pins: &pins}))
}

// Skip skips the player up while they are away.
func (c *Conn) Skip(ctx context.Context) (*protocol.Ack, error) {
	return ack(c.Do(ctx, protocol.Request{Type: protocol.TypeSkip}))
}

// Remove removes the player name from the lane (the host only).
func (c *Conn) Remove(ctx context.Context, name string) (*protocol.Ack, error) {
	return ack(c.Do(ctx, protocol.Request{Type: protocol.TypeRemove, Name: name}))
}

// Give gives the lane away with its host key (a "give"): it waits for its
// creator no longer, and its first player seated hosts it. The connection
// need not be seated.
func (c *Conn) Give(ctx context.Context, key string) (*protocol.Ack, error) {
	return ack(c.Do(ctx, protocol.Request{Type: protocol.TypeGive, HostKey: key}))
}

// Free frees the seat of a player who left the game after bowling (a
// "free"; the host's): their frames of this game go, and the seat is free
// for another player.
func (c *Conn) Free(ctx context.Context, name string) (*protocol.Ack, error) {
	return ack(c.Do(ctx, protocol.Request{Type: protocol.TypeFree, Name: name}))
}

func welcome(m protocol.Message, err error) (*protocol.Welcome, error) {
	if err != nil {
		return nil, err
	}
	if w, ok := m.(*protocol.Welcome); ok {
		return w, nil
	}
	return nil, fmt.Errorf("client: the answer is %s, not a welcome", typeOf(m))
}

func ack(m protocol.Message, err error) (*protocol.Ack, error) {
	if err != nil {
		return nil, err
	}
	if a, ok := m.(*protocol.Ack); ok {
		return a, nil
	}
	return nil, fmt.Errorf("client: the answer is %s, not an ack", typeOf(m))
}

func typeOf(m protocol.Message) string {
	switch m := m.(type) {
	case *protocol.Welcome:
		return "a " + string(m.Type)
	case *protocol.Ack:
		return "an " + string(m.Type)
	case *protocol.Board:
		return "a " + string(m.Type)
	}
	return fmt.Sprintf("%T", m)
}

// encode encodes a request or an API body as a tenpin client does.
func encode(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("client: encoding %T: %w", v, err)
	}
	return data, nil
}
