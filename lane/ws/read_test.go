package ws

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
)

// chunkConn is a network connection that delivers a stream in chunks of a
// given size, then io.EOF.
type chunkConn struct {
	net.Conn
	rest  []byte
	chunk int
}

func (c *chunkConn) Read(p []byte) (int, error) {
	if len(c.rest) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.chunk)], c.rest)
	c.rest = c.rest[n:]
	return n, nil
}

// TestReaderTakesOutPongs: whatever the chunks the network delivers and
// the reads the library makes, the library is handed every frame but the
// pongs, byte for byte, never two frames in one read; each pong is
// reported once, unmasked.
func TestReaderTakesOutPongs(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 300) // a 16-bit length
	frames := []struct {
		frame []byte
		pong  bool
	}{
		{maskedFrame(opPong, []byte("p1")), true},
		{clientFrame(`{"type":"roll"}`), false},
		{maskedFrame(opPong, nil), true},
		{maskedFrame(opPing, []byte("x")), false},
		{maskedFrame(opText, long), false},
		{maskedFrame(opPong, []byte("p3")), true},
		{maskedFrame(opPong, []byte("p4")), true},
		{maskedFrame(opPong, bytes.Repeat([]byte("y"), 126)), false}, // too long for a control frame: the library refuses it
		{[]byte{0x0a, 0x80, 1, 2, 3, 4}, false},                      // a pong not final: the same
		{[]byte{0xca, 0x80, 1, 2, 3, 4}, false},                      // a pong with a reserved bit: the same
		{[]byte{0x8a, 0x00}, false},                                  // an unmasked pong: the same
		{closeFrame(1000, "bye"), false},
	}
	var stream, want []byte
	var bounds []int // where a frame the library gets ends, in want
	for _, f := range frames {
		stream = append(stream, f.frame...)
		if !f.pong {
			want = append(want, f.frame...)
			bounds = append(bounds, len(want))
		}
	}
	for _, chunk := range []int{1, 2, 3, 5, 7, 13, 64, readChunk, len(stream)} {
		for _, read := range []int{1, 6, 100, readChunk} {
			t.Run(fmt.Sprintf("chunks of %d, reads of %d", chunk, read), func(t *testing.T) {
				var pongs []string
				bc := &batchConn{Conn: &chunkConn{rest: stream, chunk: chunk}}
				bc.reader.pongFunc = func(p []byte) { pongs = append(pongs, string(p)) }
				var got []byte
				p := make([]byte, read)
				for {
					n, err := bc.Read(p)
					end := len(got) + n
					for _, b := range bounds {
						if len(got) < b && b < end {
							t.Fatalf("a read of bytes %d to %d crosses the end of a frame, at %d", len(got), end, b)
						}
					}
					got = append(got, p[:n]...)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if !bytes.Equal(got, want) {
					t.Errorf("handed on %d bytes, want %d:\n%q\nwant\n%q", len(got), len(want), got, want)
				}
				if wantPongs := []string{"p1", "", "p3", "p4"}; !slices.Equal(pongs, wantPongs) {
					t.Errorf("pongs %q, want %q", pongs, wantPongs)
				}
				if bc.reader.buf != nil {
					t.Error("the reader keeps a buffer once everything is handed on")
				}
			})
		}
	}
}

// TestPongFloodIsClosed: pongs the server did not ask for count toward
// the client's message rate, taken out of the stream as they are; a
// client that floods them is closed as one that floods pings is, and the
// lane plays on.
func TestPongFloodIsClosed(t *testing.T) {
	s := serveLane(t, lane.New("pong-flood", "pong flood", lane.Config{Logger: testLogger(t)}), Config{})
	player := s.startPlaying(t)

	nc, br := dialRaw(t, s.addr, nil)
	defer nc.Close()
	if _, err := nc.Write(bytes.Repeat(maskedFrame(opPong, []byte("flood")), MessageBurst+FloodLimit+10)); err != nil {
		t.Fatal(err)
	}
	for {
		op, p, err := readFrame(br)
		if err != nil {
			t.Fatalf("the flooder's connection ended without a close frame: %v", err)
		}
		if op == opClose {
			if got, want := (frame{op, string(p)}).String(), fmt.Sprintf("close %d %q", websocket.StatusPolicyViolation, "flooding"); got != want {
				t.Errorf("the flooder got %s, want %s", got, want)
			}
			break
		}
	}
	player.play(t, s, 1, "after")
}

// TestPreloadIsFollowed: what the client sent with its handshake is read
// as what follows it is, however much of it came, pongs taken out.
func TestPreloadIsFollowed(t *testing.T) {
	pong := maskedFrame(opPong, []byte("early-pong")) // 16 bytes: a chunk holds pongs only
	pongs := bytes.Repeat(pong, 2*readChunk/len(pong))
	msg := clientFrame(`{"type":"join"}`)
	later := clientFrame(`{"type":"roll"}`)
	bc := &batchConn{Conn: &chunkConn{rest: later, chunk: readChunk}}
	n := 0
	bc.reader.pongFunc = func([]byte) { n++ }
	bc.preload(append(bytes.Clone(pongs), msg...))
	got, err := io.ReadAll(bc)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(bytes.Clone(msg), later...); !bytes.Equal(got, want) {
		t.Errorf("read %q, want %q", got, want)
	}
	if want := 2 * readChunk / len(pong); n != want {
		t.Errorf("%d pongs reported, want %d", n, want)
	}
}

// TestConnectionEndsWithItsContext: a connection at rest, with no reader
// to see its context end, is ended when it does, with the context's
// cause.
func TestConnectionEndsWithItsContext(t *testing.T) {
	l := lane.New("ctx", "ctx", lane.Config{Logger: testLogger(t)})
	runCtx, stopLane := context.WithCancel(context.Background())
	defer stopLane()
	go l.Run(runCtx)
	ctx, cancel := context.WithCancelCause(context.Background())
	p := runPoller(t)
	ended := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, nil)
		if err != nil {
			return
		}
		Start(ctx, conn, l, Config{Poller: p}, func(err error) { ended <- err })
	}))
	defer srv.Close()
	s := &testServer{l: l, srv: srv, addr: srv.Listener.Addr().String()}
	c := s.dial(t)
	c.expect(t, "a board", func(m wireMsg) bool { return m.Type == "board" })

	stop := errors.New("the server is stopping")
	cancel(stop)
	select {
	case err := <-ended:
		if !errors.Is(err, stop) {
			t.Errorf("the connection ended with %v, want %v", err, stop)
		}
	case <-time.After(wait):
		t.Fatal("the connection did not end with its context")
	}
	select {
	case <-c.done:
	case <-time.After(wait):
		t.Fatal("the client's connection is still open")
	}
}

// TestHugeFrameLengthEndsTheConnection: a frame header whose 64-bit length
// is past what RFC 6455 allows (the top bit set) reaches the library,
// which refuses it, and the connection ends; the reading side once lost
// track of the frames on it, and the library's read of the header spun
// forever.
func TestHugeFrameLengthEndsTheConnection(t *testing.T) {
	l := lane.New("huge", "huge", lane.Config{Logger: testLogger(t)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go l.Run(ctx)
	p := runPoller(t)
	ended := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, nil)
		if err != nil {
			return
		}
		Start(context.WithoutCancel(ctx), conn, l, Config{Poller: p}, func(err error) { ended <- err })
	}))
	defer srv.Close()
	nc, _ := dialRaw(t, srv.Listener.Addr().String(), nil)
	defer nc.Close()
	huge := []byte{0x81, 0xff}
	huge = binary.BigEndian.AppendUint64(huge, ^uint64(0)-11) // the header's size and this overflow 64 bits
	huge = append(huge, 1, 2, 3, 4)
	if _, err := nc.Write(huge); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		if err == nil || !strings.Contains(err.Error(), "negative payload length") {
			t.Errorf("ended with %v, want the library's refusal of the length (the header read whole)", err)
		}
	case <-time.After(wait):
		t.Fatal("the connection did not end")
	}
}

// TestReadWholeMessages: read returns every message whole, byte for byte
// and in a slice of about its own length (the library's Read keeps a roll
// of 80 bytes in 512), whether it fits the pooled buffer or not, and a
// message split over frames too; it says the library's error for one past
// the read limit.
func TestReadWholeMessages(t *testing.T) {
	sizes := []int{0, 1, 80, readChunk - 1, readChunk, readChunk + 1, 3 * readChunk, 20000}
	type got struct {
		data []byte
		err  error
	}
	results := make(chan got, len(sizes)+1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer conn.CloseNow()
		conn.SetReadLimit(int64(sizes[len(sizes)-1]))
		for range len(sizes) + 1 {
			_, data, err := read(r.Context(), conn)
			results <- got{data, err}
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(-1)
	for i, n := range sizes {
		msg := bytes.Repeat([]byte{byte('a' + i)}, n)
		if i%2 == 1 { // in two frames
			var w io.WriteCloser
			if w, err = c.Writer(ctx, websocket.MessageText); err != nil {
				t.Fatal(err)
			}
			w.Write(msg[:n/2])
			w.Write(msg[n/2:])
			err = w.Close()
		} else {
			err = c.Write(ctx, websocket.MessageText, msg)
		}
		if err != nil {
			t.Fatalf("writing %d bytes: %v", n, err)
		}
		select {
		case r := <-results:
			if r.err != nil || !bytes.Equal(r.data, msg) {
				t.Errorf("a message of %d bytes read as %d bytes, %v", n, len(r.data), r.err)
			}
			if n < readChunk/2 && cap(r.data) >= readChunk {
				t.Errorf("a message of %d bytes is held in %d", n, cap(r.data)) // a roll kept in a whole buffer
			}
		case <-time.After(wait):
			t.Fatalf("a message of %d bytes was not read", n)
		}
	}
	c.Write(ctx, websocket.MessageText, make([]byte, sizes[len(sizes)-1]+1))
	select {
	case r := <-results:
		if r.err == nil {
			t.Errorf("a message past the read limit read as %d bytes, want an error", len(r.data))
		}
	case <-time.After(wait):
		t.Fatal("a message past the read limit was not refused")
	}
}
