package ws

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/protocol"
)

// The tests in this file fence the connection wrapper (Accept's hijacker,
// batchConn) against the coder/websocket version go.mod pins. The wrapper
// depends on what the library does, not on what it promises: that Accept
// takes over the hijacked reader's buffer and what it holds, that it writes
// each frame whole under its lock and flushes at the end of each, that the
// frames it writes on its own (a pong, the echo of a close, the close
// after a read error) go through the same connection, that it closes that
// connection right after a close frame, and that it sets no deadline on
// it (batchConn keeps the one it set). The writer's messages are frames of
// ours (batchConn.writeFrame), beside the library's. Each test runs over a real TCP
// connection, with a raw client where it needs to see the bytes. Where
// something must happen while a batch is open, the test takes the writer's
// steps itself (those of Conn.write: begin, the messages, writeAndEnd),
// with the event between them.

// handshake is a client's opening handshake, without a Host line.
const handshake = "GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
	"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"

// dialRaw opens a WebSocket connection to addr byte by byte, sending early
// right behind the handshake, in the same write. It returns the connection
// and a reader of what the server sends after its answer.
func dialRaw(t testing.TB, addr string, early []byte) (net.Conn, *bufio.Reader) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	req := append([]byte(handshake+"Host: "+addr+"\r\n\r\n"), early...)
	if _, err := nc.Write(req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(nc)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake answered %s", res.Status)
	}
	return nc, br
}

// acceptRaw accepts one connection with Accept from a raw client (see
// dialRaw), and returns the server's end, set up as Serve sets it up, and
// the client's reader.
func acceptRaw(t testing.TB, early []byte) (*Conn, *bufio.Reader) {
	t.Helper()
	conn, _, br := acceptRawConn(t, early)
	return conn, br
}

// acceptRawConn is acceptRaw that also returns the client's connection.
func acceptRawConn(t testing.TB, early []byte) (*Conn, net.Conn, *bufio.Reader) {
	t.Helper()
	connc := make(chan *Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, nil)
		if err != nil {
			t.Errorf("Accept: %v", err)
			close(connc)
			return
		}
		connc <- conn
	}))
	t.Cleanup(srv.Close)
	nc, br := dialRaw(t, srv.Listener.Addr().String(), early)
	conn := <-connc
	if conn == nil {
		t.FailNow()
	}
	t.Cleanup(func() { conn.ws.CloseNow() })
	conn.ws.SetReadLimit(protocol.MaxMessageSize)
	conn.bc.setTimeout(WriteTimeout)
	conn.limit.setRate(MessagesPerSecond, MessageBurst, time.Now())
	return conn, nc, br
}

// frame is a frame as the raw client read it.
type frame struct {
	op      byte
	payload string
}

func (f frame) String() string {
	switch f.op {
	case opText:
		return fmt.Sprintf("text %q", f.payload)
	case opClose:
		if len(f.payload) < 2 {
			return "close"
		}
		return fmt.Sprintf("close %d %q", binary.BigEndian.Uint16([]byte(f.payload)), f.payload[2:])
	case opPing:
		return fmt.Sprintf("ping %q", f.payload)
	case opPong:
		return fmt.Sprintf("pong %q", f.payload)
	}
	return fmt.Sprintf("op %#x %q", f.op, f.payload)
}

// readFrames reads frames until the server closes the connection or n
// frames came, and describes them (see frame.String).
func readFrames(br *bufio.Reader, n int) []string {
	var got []string
	for len(got) < n {
		op, p, err := readFrame(br)
		if err != nil {
			break
		}
		got = append(got, frame{op, string(p)}.String())
	}
	return got
}

// textFrames describes messages as the client reads them (see frame.String).
func textFrames(msgs ...string) []string {
	var s []string
	for _, m := range msgs {
		s = append(s, frame{opText, m}.String())
	}
	return s
}

func TestContractEarlyDataIsKept(t *testing.T) {
	msg := func(i, size int) string { // a message whose frame is size bytes
		return fmt.Sprintf("%03d", i) + strings.Repeat("x", size-6-3)
	}
	for _, tc := range []struct {
		name  string
		sizes []int // of the frames sent right behind the handshake
	}{
		{"one small message", []int{40}},
		{"the reader's buffer exactly", []int{128, 128, 128, 128}}, // readChunk
		{"more than the reader's buffer", []int{100, 100, 100, 100, 100, 100, 100, 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var early []byte
			var want []string
			for i, size := range tc.sizes {
				m := msg(i, size)
				early = append(early, clientFrame(m)...)
				want = append(want, m)
			}
			conn, _ := acceptRaw(t, early)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for i, w := range want {
				_, got, err := conn.ws.Read(ctx)
				if err != nil {
					t.Fatalf("Read of early message %d: %v", i, err)
				}
				if string(got) != w {
					t.Fatalf("early message %d = %q, want %q", i, got, w)
				}
			}
		})
	}
}

func TestContractPingDuringABatchIsAnswered(t *testing.T) {
	// The client pings, then sends a message: reading the message, the
	// server answers the ping while its writer has a batch open.
	conn, br := acceptRaw(t, append(maskedFrame(opPing, []byte("p1")), clientFrame("after the ping")...))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	conn.bc.begin()
	if err := conn.bc.writeFrame(opText, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if _, m, err := conn.ws.Read(ctx); err != nil || string(m) != "after the ping" {
		t.Fatalf("Read = %q, %v; want the message after the ping", m, err)
	}
	if err := conn.writeAndEnd([]outgoing{{data: []byte("two")}}); err != nil {
		t.Fatal(err)
	}

	got := readFrames(br, 3)
	want := []string{`text "one"`, `pong "p1"`, `text "two"`}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("the client read %s, want %s", got, want)
	}
}

func TestContractCloseDuringABatch(t *testing.T) {
	// The client's close is read while the writer has a batch open: the
	// library echoes it and closes the connection at once, and the writer's
	// next message fails. What the batch held, and the echo, must go out.
	conn, br := acceptRaw(t, closeFrame(uint16(websocket.StatusNormalClosure), "bye"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	conn.bc.begin()
	for _, m := range []string{"one", "two"} {
		if err := conn.bc.writeFrame(opText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := conn.ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("Read = %v, want the client's close", err)
	}
	if err := conn.writeAndEnd([]outgoing{{data: []byte("three")}}); err == nil {
		t.Error("a message was written after the close")
	}

	got := readFrames(br, 10)
	want := append(textFrames("one", "two"), `close 1000 "bye"`)
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("the client read %s, want %s", got, want)
	}
}

func TestContractReadLimitCloseDuringABatch(t *testing.T) {
	// A message over the read limit is read while the writer has a batch
	// open: the library writes a close 1009 into the batch, Read fails, and
	// the reader closes the connection (as Serve does) before or after the
	// writer's next message fails and ends the batch.
	for _, readerFirst := range []bool{false, true} {
		name := "the writer ends the batch first"
		if readerFirst {
			name = "the reader closes first"
		}
		t.Run(name, func(t *testing.T) {
			big := strings.Repeat("x", protocol.MaxMessageSize+100)
			conn, br := acceptRaw(t, clientFrame(big))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			conn.bc.begin()
			for _, m := range []string{"one", "two"} {
				if err := conn.bc.writeFrame(opText, []byte(m)); err != nil {
					t.Fatal(err)
				}
			}
			if _, _, err := conn.ws.Read(ctx); err == nil {
				t.Fatal("a message over the read limit was read")
			}
			if readerFirst {
				conn.ws.CloseNow()
			}
			if err := conn.writeAndEnd([]outgoing{{data: []byte("three")}}); err == nil {
				t.Error("a message was written after the close")
			}
			conn.ws.CloseNow()

			got := readFrames(br, 10)
			want := append(textFrames("one", "two"), fmt.Sprintf("close %d", websocket.StatusMessageTooBig))
			if len(got) == len(want) { // the reason is the library's
				got[2], _, _ = strings.Cut(got[2], ` "`)
			}
			if strings.Join(got, ", ") != strings.Join(want, ", ") {
				t.Errorf("the client read %s, want %s", got, want)
			}
		})
	}
}

// deadlineConn is a server's end of a connection that records the
// deadlines set on it once watched.
type deadlineConn struct {
	net.Conn
	mu      sync.Mutex
	watched bool
	set     []string
}

func (d *deadlineConn) watch() {
	d.mu.Lock()
	d.watched = true
	d.mu.Unlock()
}

func (d *deadlineConn) record(what string, t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.watched {
		d.set = append(d.set, fmt.Sprintf("%s in %v", what, time.Until(t).Round(time.Minute)))
	}
}

func (d *deadlineConn) SetDeadline(t time.Time) error {
	d.record("SetDeadline", t)
	return d.Conn.SetDeadline(t)
}

func (d *deadlineConn) SetReadDeadline(t time.Time) error {
	d.record("SetReadDeadline", t)
	return d.Conn.SetReadDeadline(t)
}

func (d *deadlineConn) SetWriteDeadline(t time.Time) error {
	d.record("SetWriteDeadline", t)
	return d.Conn.SetWriteDeadline(t)
}

// deadlineListener hands out its connections as deadlineConns.
type deadlineListener struct {
	net.Listener
	conns chan *deadlineConn
}

func (l deadlineListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	d := &deadlineConn{Conn: c}
	l.conns <- d
	return d, nil
}

func TestContractTheLibrarySetsNoDeadlines(t *testing.T) {
	// A whole connection's life on a lane: messages, batches, the
	// server's pings and the client's, and a close. The only deadlines set
	// are batchConn's, each the write timeout away.
	l := lane.New("deadlines", "deadlines", lane.Config{Logger: testLogger(t)})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- l.Run(ctx) }()
	defer func() { cancel(); <-ran }()
	p := runPoller(t)
	conns := make(chan *deadlineConn, 1)
	watched := make(chan *deadlineConn, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, nil)
		if err != nil {
			close(watched)
			return
		}
		d := <-conns
		d.watch()
		Serve(context.WithoutCancel(ctx), conn, l, Config{WriteTimeout: time.Hour, PingInterval: 5 * time.Millisecond, Poller: p})
		watched <- d
	}))
	srv.Listener = deadlineListener{srv.Listener, conns}
	srv.Start()
	defer srv.Close()

	serverPings := make(chan struct{}, 1)
	ws, _, err := websocket.Dial(ctx, srv.URL, &websocket.DialOptions{
		OnPingReceived: func(context.Context, []byte) bool {
			select {
			case serverPings <- struct{}{}:
			default:
			}
			return true
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	pinged := make(chan error, 1)
	go func() { // while the test reads
		for range 3 {
			ws.Write(ctx, websocket.MessageText, []byte(`{"type":"rematch","id":"x"}`))
		}
		for range 3 {
			select {
			case <-serverPings:
			case <-ctx.Done():
			}
		}
		pinged <- ws.Ping(ctx)
		ws.Close(websocket.StatusNormalClosure, "bye")
	}()
	for {
		if _, _, err := ws.Read(ctx); err != nil {
			break
		}
	}
	if err := <-pinged; err != nil {
		t.Errorf("the client's ping: %v", err)
	}
	d := <-watched
	if d == nil {
		t.Fatal("Accept failed")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.set) == 0 {
		t.Fatal("no deadline was set on the connection")
	}
	for _, s := range d.set {
		if s != "SetWriteDeadline in 1h0m0s" {
			t.Errorf("deadlines set = %q, want only write deadlines an hour away", d.set)
			break
		}
	}
}
