package ws

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"sync"
)

// The reading side of batchConn: what the WebSocket library reads passes
// through it, and it follows the frames the client sends for two reasons.
//
// It takes the client's pongs out of the stream and reports them itself
// (pongFunc). The library handles a pong inside a read and then waits in
// the same read for the next message, so a connection that only ever
// answers pings (a spectator's) would keep a goroutine parked in a read
// for good; without pongs in the stream a read returns with each message,
// and between messages no goroutine needs to wait on the connection (see
// poller).
//
// It hands the library no byte past the end of the frame it is in, so
// that once a message is read nothing of the next one waits in the
// library's buffer, where only the library could see it: what has arrived
// and not been read is all here (pending), and rest can tell whether a
// reader may stop.

// readChunk is how much a read from the network takes at most: more than
// a tenpin message, which is a few hundred bytes.
const readChunk = 512

var readBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, readChunk)
	return &b
}}

// reader is the state batchConn keeps for reading. mu is held by the one
// goroutine reading at a time (the library's reader, or the poller's
// prefetch) for as long as it reads.
type reader struct {
	mu      sync.Mutex
	buf     *[]byte // bytes read and not yet handed on; nil when none
	scanned int     // (*buf)[:scanned] may be handed on; the rest is a frame's beginning, not yet whole enough to tell
	pass    uint64  // bytes of the last frame scanned still to come
	front   uint64  // bytes of the frame at the buffer's front still to hand on; 0: a frame starts there
	err     error   // the network's error (io.EOF), once the bytes before it are handed on

	pongFunc func(payload []byte) // called for each pong taken out, with its payload unmasked
}

// Read hands the library the bytes that arrived, pongs taken out, no
// further than the end of one frame, reading from the network (and so
// waiting) only when none are here.
func (bc *batchConn) Read(p []byte) (int, error) {
	r := &bc.reader
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.scanned == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.fill(func(b []byte) (int, error) { return bc.Conn.Read(b) })
	}
	if n := r.handOn(p); n > 0 {
		return n, nil
	}
	return 0, io.ErrNoProgress // handOn lost track of the frames: a bug, which must not spin the library
}

// prefetch reads what the network holds without waiting, and reports
// whether it holds a message to read (or an error, or the beginning of a
// frame): false means it held nothing or only pongs, and no reader is
// needed. The connection is a socket (bc.raw).
func (bc *batchConn) prefetch() bool {
	r := &bc.reader
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.fill(func(b []byte) (int, error) { return readNow(bc.raw, b) })
	}
	return r.waiting()
}

// waiting reports whether something was read that a reader must take:
// bytes to hand on, a frame begun that is not a pong, or an error. r.mu
// is held.
func (r *reader) waiting() bool {
	if r.err != nil || r.scanned > 0 {
		return true
	}
	if r.buf == nil {
		return false
	}
	b := *r.buf
	return len(b) > 0 && b[0]&0x0f != opPong
}

// idle reports whether nothing that arrived is waiting for a reader (see
// waiting).
func (bc *batchConn) idle() bool {
	r := &bc.reader
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.waiting()
}

// preload puts bytes the client sent before the connection was handed
// over (with the handshake) where the next read finds them.
func (bc *batchConn) preload(p []byte) {
	r := &bc.reader
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(p) > 0 { // fill makes room for more each time
		r.fill(func(b []byte) (int, error) {
			n := copy(b, p)
			p = p[n:]
			return n, nil
		})
	}
}

// fill reads once into the buffer, after what it holds, and scans what
// came. A read error is kept for when the bytes before it are handed on.
func (r *reader) fill(read func([]byte) (int, error)) {
	if r.buf == nil {
		r.buf = readBuffers.Get().(*[]byte)
	}
	b := *r.buf
	if len(b) == cap(b) { // only preload fills it: a frame's beginning left unscanned is short
		b = append(b, 0)[:len(b)]
	}
	n, err := read(b[len(b):cap(b)])
	*r.buf = b[:len(b)+max(n, 0)]
	r.scan()
	if err != nil {
		r.err = err
	}
	r.release()
}

// handOn copies into p what may be handed on, up to the end of the
// current frame.
func (r *reader) handOn(p []byte) int {
	b := *r.buf
	if r.front == 0 { // a frame starts here, and its header is whole: it was scanned
		h, _ := parseHeader(b)
		r.front = uint64(h.size) + h.length
		if r.front < h.length { // a length past 2^63, which RFC 6455 forbids: the library refuses it, once it has read it all
			r.front = math.MaxUint64
		}
	}
	n := copy(p, b[:min(uint64(r.scanned), r.front)])
	r.front -= uint64(n)
	*r.buf = b[:copy(b, b[n:])]
	r.scanned -= n
	r.release()
	return n
}

// release puts the buffer back in the pool once it is empty.
func (r *reader) release() {
	if r.buf != nil && len(*r.buf) == 0 {
		readBuffers.Put(r.buf)
		r.buf = nil
	}
}

// scan follows the frames in the buffer past what was scanned: a frame's
// bytes may be handed on once its header is whole; a pong is cut out once
// it is whole, and reported.
func (r *reader) scan() {
	b := *r.buf
	i := r.scanned
	for i < len(b) {
		if r.pass > 0 {
			k := min(r.pass, uint64(len(b)-i))
			i += int(k)
			r.pass -= k
			continue
		}
		h, ok := parseHeader(b[i:])
		if !ok {
			break // wait for the rest of the header
		}
		if h.opcode == opPong && h.fin && h.rsv == 0 && h.masked && h.length <= maxControlPayload {
			end := i + h.size + int(h.length)
			if end > len(b) {
				break // wait for the rest of it
			}
			if r.pongFunc != nil {
				r.pongFunc(unmask(b[i:end], h.size))
			}
			b = append(b[:i], b[end:]...)
			continue
		}
		// Any other frame goes through, malformed ones too (a pong with
		// reserved bits or unmasked among them): the library refuses those
		// with the right close code.
		i += h.size
		r.pass = h.length
	}
	*r.buf = b
	r.scanned = i
}

// unmask returns a copy of a client frame's payload, unmasked.
func unmask(frame []byte, headerSize int) []byte {
	p := bytes.Clone(frame[headerSize:])
	if frame[1]&0x80 != 0 {
		key := frame[headerSize-4 : headerSize]
		for i := range p {
			p[i] ^= key[i%4]
		}
	}
	return p
}

// The largest payload a control frame may have (RFC 6455, 5.5).
const maxControlPayload = 125

type frameHeader struct {
	fin    bool
	rsv    byte // the reserved bits: 0 without an extension
	masked bool
	opcode byte
	size   int    // of the header itself
	length uint64 // of the payload
}

// parseHeader parses the frame header at the start of p, if p holds all
// of it.
func parseHeader(p []byte) (frameHeader, bool) {
	if len(p) < 2 {
		return frameHeader{}, false
	}
	h := frameHeader{fin: p[0]&0x80 != 0, rsv: p[0] & 0x70, masked: p[1]&0x80 != 0, opcode: p[0] & 0x0f, size: 2}
	length := uint64(p[1] & 0x7f)
	switch length {
	case 126:
		h.size += 2
	case 127:
		h.size += 8
	}
	if h.masked {
		h.size += 4
	}
	if len(p) < h.size {
		return frameHeader{}, false
	}
	switch length {
	case 126:
		length = uint64(binary.BigEndian.Uint16(p[2:]))
	case 127:
		length = binary.BigEndian.Uint64(p[2:])
	}
	h.length = length
	return h, true
}
