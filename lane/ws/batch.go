package ws

import (
	"cmp"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"syscall"
	"time"
)

// batchConn is the network connection as the WebSocket library writes to
// it. During a batch it gathers the frames written in a pooled buffer (the
// writer's own, see writeFrame, and the library's) and sends them in one
// system call at the batch's end; outside a batch the library's frames
// (pongs, closes) are written through, and a lane may write a board
// itself (tryWrite). A connection so holds no write buffer between
// batches, and a client that fell behind gets its backlog in one write.
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

	// closeSent is set, under mu, once the library has written a close
	// frame: after it no frame of ours may follow (see writeFrame).
	closeSent bool
	// tail is how many bytes at the start of the open batch tryWrite
	// left of the frames it began on the socket: the end of one, and the
	// next whole, if it wrote two (the rest of the batch is whole
	// frames). Under mu.
	tail int

	reader  reader          // the reading side (read.go)
	raw     syscall.RawConn // the socket's descriptor; nil if the connection is not a socket
	onClose func()          // called once the connection is closed, if set
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

// Write is the library's: it writes each frame whole, flushing its small
// buffer at the frame's end (see writeBufferSize), and the only frames it
// writes are control frames (tenpin's messages are written by
// writeFrame), so every Write begins a frame. Outside a batch it writes
// through, under sending: frames tryWrite left half written are finished
// first, as the batch it left.
func (bc *batchConn) Write(p []byte) (int, error) {
	if bc.gather(p) {
		return len(p), nil
	}
	bc.sending.Lock()
	defer bc.sending.Unlock()
	if bc.gather(p) { // tryWrite left a batch meanwhile
		return len(p), nil
	}
	if err := bc.arm(); err != nil {
		return 0, err
	}
	return bc.Conn.Write(p)
}

// gather adds the library's frames p to the open batch, if there is one,
// and reports whether there was.
func (bc *batchConn) gather(p []byte) bool {
	bc.mu.Lock()
	defer bc.mu.Unlock()
	if len(p) > 0 && p[0] == finBit|opClose {
		bc.closeSent = true
	}
	if b := bc.batch; b != nil {
		*b = append(*b, p...)
		return true
	}
	return false
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

// Opcodes and the final bit of a frame's first byte (RFC 6455, 5.2).
const (
	finBit  = 0x80
	opText  = 0x1
	opClose = 0x8
	opPing  = 0x9
	opPong  = 0xa
)

// errCloseSent refuses a frame after the library's close frame: the
// connection is closing.
var errCloseSent = errors.New("ws: the close frame is sent")

// writeFrame adds a whole, unfragmented frame of ours, with the given
// opcode and payload, to the open batch. The frame is a server's, so not
// masked, and needs no more than its header in front of the payload: a
// board, encoded once by its lane, is copied into each client's batch as
// it is, without the library's message writer (its locks, its buffer, a
// reset per message: a tenth of the server's CPU at a ball per 200 ms).
// After the library has written a close frame, in this batch or before
// it, writeFrame refuses. It is called only within a batch.
func (bc *batchConn) writeFrame(op byte, payload []byte) error {
	bc.mu.Lock()
	defer bc.mu.Unlock()
	switch {
	case bc.closeSent:
		return errCloseSent
	case bc.batch == nil:
		return net.ErrClosed // closed, or a misuse: frames of ours are only batched
	}
	*bc.batch = appendFrame(*bc.batch, op, payload)
	return nil
}

// tryWrite writes a frame of ours straight to the socket, from the
// caller's goroutine, if nothing else is being written to it: no batch
// open or being sent, no write of the library's or Close under way. It
// does not wait: what the socket does not take at once is left in an
// open batch, ahead of anything written after it, for a writer to send
// (unsent). A frame of next follows payload's in the same write, if next
// is not nil. It reports false if it could not start, for the caller to
// queue the frames instead; err if the socket failed, or the library has
// sent its close frame (errCloseSent). The caller must be the
// connection's only writer of ours, with no batch of its own open.
//
// Most boards so reach their client without a writer goroutine: the
// lane that encoded the board writes it, which spares waking a worker
// for each board (a tenth of the server's CPU at a ball per 200 ms).
func (bc *batchConn) tryWrite(op byte, payload, next []byte) (ok, unsent bool, err error) {
	if !writesNow || bc.raw == nil || !bc.sending.TryLock() {
		return false, false, nil
	}
	defer bc.sending.Unlock()
	bc.mu.Lock()
	closeSent, open := bc.closeSent, bc.batch != nil
	bc.mu.Unlock()
	switch {
	case closeSent:
		return true, false, errCloseSent
	case open:
		return false, false, nil
	}
	// The runtime refuses a write, even one that does not wait, once
	// the write deadline has passed: the deadline an earlier writer set
	// must be moved on, as a writer's own write would.
	if err := bc.arm(); err != nil {
		return true, false, err
	}
	b := batchBuffers.Get().(*[]byte)
	*b = appendFrame((*b)[:0], op, payload)
	if next != nil {
		*b = appendFrame(*b, op, next)
	}
	w := rawWrites.Get().(*rawIO)
	w.p = *b
	err = bc.raw.Write(w.run)
	n, werr := w.done()
	rawWrites.Put(w)
	if err != nil || werr != nil || n == len(*b) {
		recycleBatch(b)
		return true, false, cmp.Or(err, werr)
	}
	// The socket took less than all of it, without waiting: the rest
	// waits for the writer.
	*b = (*b)[:copy(*b, (*b)[n:])]
	bc.mu.Lock()
	bc.batch = b
	if n > 0 {
		bc.tail = len(*b)
	}
	bc.mu.Unlock()
	return true, true, nil
}

// rawIO is one read or write of p on a socket's descriptor, which
// syscall.RawConn.Read or Write calls run with. Pooled with run bound to
// it, it allocates nothing, where a closure capturing its results cost
// three allocations each time: a board written by its lane (tryWrite),
// a ball read without waiting (readNow).
type rawIO struct {
	op  func(fd uintptr, p []byte) (int, error) // never waits
	run func(fd uintptr) bool                   // r.do
	p   []byte
	n   int
	err error
}

// rawIOs returns a pool of rawIO that do op.
func rawIOs(op func(fd uintptr, p []byte) (int, error)) *sync.Pool {
	return &sync.Pool{New: func() any {
		r := &rawIO{op: op}
		r.run = r.do
		return r
	}}
}

func (r *rawIO) do(fd uintptr) bool {
	r.n, r.err = r.op(fd, r.p)
	return true // whatever happened: the caller, or the poller, waits
}

// done returns what op did, and clears r for its pool.
func (r *rawIO) done() (int, error) {
	n, err := r.n, r.err
	r.p, r.n, r.err = nil, 0, nil
	return n, err
}

// rawWrites are tryWrite's writes.
var rawWrites = rawIOs(writeOnce)

// appendFrame appends an unmasked, final frame to b.
func appendFrame(b []byte, op byte, payload []byte) []byte {
	b = append(b, finBit|op)
	switch n := len(payload); {
	case n < 126:
		b = append(b, byte(n))
	case n <= 0xffff:
		b = append(b, 126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, 127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	return append(b, payload...)
}

// begin starts gathering writes, after the batch tryWrite left, if it
// left one.
func (bc *batchConn) begin() {
	bc.mu.Lock()
	if bc.batch == nil {
		bc.batch = batchBuffers.Get().(*[]byte)
	}
	bc.mu.Unlock()
}

// end stops gathering and writes what was gathered: what tryWrite left of
// the frames it began, if it left any (see tail), then whole frames: the
// writer's, and control frames the library wrote meanwhile (a pong, or a
// close frame of its own, after which writeFrame refuses the writer's
// next one). They are sent whatever became of the writer's last message,
// unless Close sent them already.
func (bc *batchConn) end() error {
	bc.sending.Lock()
	defer bc.sending.Unlock()
	b, _ := bc.take()
	if b == nil {
		return net.ErrClosed
	}
	return bc.send(b, len(*b))
}

// Close sends an open batch's whole frames (and first what tryWrite left
// of the frames it began), then closes the connection. Outside a batch every
// write went through already; while a batch is sent Close waits for it,
// within the write timeout. Frames join a batch whole, so a batch that
// does not end in one (the library's, if it ever wrote a frame in parts)
// has that part left out.
func (bc *batchConn) Close() error {
	bc.sending.Lock()
	defer bc.sending.Unlock()
	if b, tail := bc.take(); b != nil {
		bc.send(b, tail+wholeFrames((*b)[tail:]))
	}
	err := bc.Conn.Close()
	if bc.onClose != nil {
		bc.onClose()
	}
	return err
}

// take ends the open batch, if there is one, and returns it with its
// tail (see batchConn.tail).
func (bc *batchConn) take() (b *[]byte, tail int) {
	bc.mu.Lock()
	defer bc.mu.Unlock()
	b, tail = bc.batch, bc.tail
	bc.batch, bc.tail = nil, 0
	return b, tail
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
	recycleBatch(b)
	return err
}

// recycleBatch puts a batch's buffer back in the pool, unless it grew
// too big.
func recycleBatch(b *[]byte) {
	if cap(*b) <= maxPooledBatch {
		*b = (*b)[:0]
		batchBuffers.Put(b)
	}
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

// rawConn returns the connection's descriptor, if it has one. The poller
// reads it directly (see prefetch) and tryWrite writes to it: a wrapper
// that offers its socket must neither read ahead of its caller nor hold
// back what it is given to write, as net.TCPConn and cmd/tenpin's
// budgetConn do not.
func (bc *batchConn) rawConn() (syscall.RawConn, error) {
	sc, ok := bc.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.New("not a socket")
	}
	return sc.SyscallConn()
}
