package ws

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
)

// recordingConn is a net.Conn that records its writes and deadlines.
type recordingConn struct {
	net.Conn  // nil: only what batchConn uses is implemented
	writes    [][]byte
	deadlines []time.Time
}

func (r *recordingConn) Write(p []byte) (int, error) {
	r.writes = append(r.writes, bytes.Clone(p))
	return len(p), nil
}

func (r *recordingConn) SetWriteDeadline(t time.Time) error {
	r.deadlines = append(r.deadlines, t)
	return nil
}

func TestBatchConnSendsABatchInOneWrite(t *testing.T) {
	rc := &recordingConn{}
	bc := &batchConn{Conn: rc}

	bc.Write([]byte("ping"))
	bc.begin()
	for _, s := range []string{"one", "two", "three"} {
		if n, err := bc.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) in a batch = %d, %v", s, n, err)
		}
	}
	if len(rc.writes) != 1 {
		t.Fatalf("%d writes reached the connection before the batch ended, want only the one before it", len(rc.writes))
	}
	if err := bc.end(); err != nil {
		t.Fatal(err)
	}
	bc.Write([]byte("pong"))

	var got []string
	for _, w := range rc.writes {
		got = append(got, string(w))
	}
	if want := []string{"ping", "onetwothree", "pong"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("writes = %q, want %q", got, want)
	}
}

func (r *recordingConn) Close() error { return nil }

func TestBatchConnCloseSendsTheBatchsWholeFrames(t *testing.T) {
	text := func(s string) []byte { return append([]byte{0x81, byte(len(s))}, s...) }
	close1000 := []byte{0x88, 2, 0x03, 0xe8}
	for _, tc := range []struct {
		name    string
		batch   [][]byte // written during the batch; nil: no batch open
		want    string   // what Close sends
		written int      // how many writes reach the connection in all
	}{
		{"no batch open", nil, "", 0},
		{"an empty batch", [][]byte{}, "", 0},
		{"a message and a close frame", [][]byte{text("one"), close1000}, string(text("one")) + string(close1000), 1},
		{"a frame cut short", [][]byte{text("one"), text("two")[:3]}, string(text("one")), 1},
		{"a header cut short", [][]byte{text("one"), {0x81}}, string(text("one")), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := &recordingConn{}
			bc := &batchConn{Conn: rc}
			if tc.batch != nil {
				bc.begin()
				for _, p := range tc.batch {
					bc.Write(p)
				}
			}
			bc.Close()
			if len(rc.writes) != tc.written || tc.written > 0 && string(rc.writes[0]) != tc.want {
				t.Errorf("Close wrote %q, want %q", rc.writes, tc.want)
			}
			if tc.batch != nil {
				if err := bc.end(); err == nil {
					t.Errorf("end after Close = nil, want an error")
				}
				if len(rc.writes) != tc.written {
					t.Errorf("end after Close wrote %q", rc.writes[tc.written:])
				}
			}
		})
	}
}

func TestAppendFrame(t *testing.T) {
	// Each length's header form at its bounds, read back as a client
	// reads frames.
	for _, n := range []int{0, 1, 125, 126, 127, 0xffff, 0x10000, 70_000} {
		payload := bytes.Repeat([]byte("b"), n)
		b := appendFrame([]byte("kept"), opText, payload)
		if !bytes.HasPrefix(b, []byte("kept")) {
			t.Fatalf("%d bytes: appendFrame lost what b held", n)
		}
		f := b[len("kept"):]
		if got := wholeFrames(f); got != len(f) {
			t.Errorf("%d bytes: a frame of %d bytes, of which %d whole", n, len(f), got)
		}
		op, got, err := readFrame(bufio.NewReader(bytes.NewReader(f)))
		if err != nil || op != opText || !bytes.Equal(got, payload) {
			t.Errorf("%d bytes: read back op %#x, %d bytes, %v; want a text frame of %d", n, op, len(got), err, n)
		}
		if f[0]&finBit == 0 || f[1]&0x80 != 0 {
			t.Errorf("%d bytes: header % x is not final and unmasked", n, f[:2])
		}
	}
}

func TestWholeFrames(t *testing.T) {
	frame := func(head []byte, n int) []byte { return append(head, bytes.Repeat([]byte("x"), n)...) }
	short := frame([]byte{0x81, 5}, 5)
	medium := frame([]byte{0x81, 126, 0x01, 0x00}, 256)
	long := frame([]byte{0x82, 127, 0, 0, 0, 0, 0, 1, 0x00, 0x00}, 1<<16)
	masked := frame([]byte{0x8a, 0x80 | 3, 1, 2, 3, 4}, 3)
	all := slices.Concat(short, medium, long, masked)
	for _, tc := range []struct {
		p    []byte
		want int
	}{
		{nil, 0},
		{short, len(short)},
		{short[:len(short)-1], 0},
		{slices.Concat(short, medium[:3]), len(short)},
		{slices.Concat(short, medium[:len(medium)-1]), len(short)},
		{slices.Concat(short, medium), len(short) + len(medium)},
		{slices.Concat(short, long[:9]), len(short)},
		{all, len(all)},
		{all[:len(all)-1], len(all) - len(masked)},
		{[]byte{0x81, 127, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0}, // absurd length
	} {
		if got := wholeFrames(tc.p); got != tc.want {
			t.Errorf("wholeFrames(% x…) = %d, want %d", tc.p[:min(len(tc.p), 12)], got, tc.want)
		}
	}
}

func TestBatchConnMovesItsDeadlineOnlyWhenItIsNear(t *testing.T) {
	rc := &recordingConn{}
	bc := &batchConn{Conn: rc}
	bc.Write([]byte("x"))
	if len(rc.deadlines) != 0 {
		t.Fatalf("a deadline was set without a write timeout: %v", rc.deadlines)
	}

	bc.setTimeout(time.Hour)
	start := time.Now()
	for range 3 {
		bc.Write([]byte("x"))
	}
	if len(rc.deadlines) != 1 {
		t.Fatalf("3 writes in a row set %d deadlines, want 1", len(rc.deadlines))
	}
	if d := rc.deadlines[0].Sub(start); d < time.Hour || d > time.Hour+time.Minute {
		t.Errorf("deadline %v after the write, want the write timeout", d)
	}

	bc.mu.Lock()
	bc.deadline = time.Now().Add(10 * time.Minute) // less than half the timeout left
	bc.mu.Unlock()
	bc.begin()
	bc.Write([]byte("x"))
	bc.end()
	if len(rc.deadlines) != 2 || time.Until(rc.deadlines[1]) < 59*time.Minute {
		t.Errorf("a near deadline was not moved a whole timeout on: %v", rc.deadlines)
	}
}

// TestAcceptKeepsWhatTheClientSentEarly sends the handshake and the first
// message in one packet, as a client that does not wait for the server's
// answer may: the message must survive the swap of net/http's read buffer
// for Accept's smaller one.
func TestAcceptKeepsWhatTheClientSentEarly(t *testing.T) {
	l := lane.New("early", "early", lane.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go l.Run(ctx)
	p := runPoller(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, nil)
		if err != nil {
			return
		}
		go Serve(context.WithoutCancel(ctx), conn, l, Config{Poller: p})
	}))
	defer srv.Close()

	nc, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	handshake := "GET / HTTP/1.1\r\nHost: " + srv.Listener.Addr().String() + "\r\n" +
		"Upgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
	early := append([]byte(handshake), clientFrame(`{"type":"join","name":"AAA","id":"j"}`)...)
	if _, err := nc.Write(early); err != nil {
		t.Fatal(err)
	}

	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake answered %s", resp.Status)
	}
	for {
		msg, err := serverFrame(br)
		if err != nil {
			t.Fatalf("no welcome for the early join: %v", err)
		}
		var m struct{ Type, Ref string }
		json.Unmarshal(msg, &m)
		if m.Type == "welcome" && m.Ref == "j" {
			return
		}
		if m.Type == "error" {
			t.Fatalf("the early join was refused: %s", msg)
		}
	}
}

// clientFrame returns msg as a masked text frame, as clients must send it.
func clientFrame(msg string) []byte { return maskedFrame(opText, []byte(msg)) }

// maskedFrame returns a final, masked frame of payloads up to 64 KiB.
func maskedFrame(op byte, payload []byte) []byte {
	mask := [4]byte{1, 2, 3, 4}
	f := []byte{0x80 | op}
	if n := len(payload); n < 126 {
		f = append(f, 0x80|byte(n))
	} else {
		f = append(f, 0x80|126)
		f = binary.BigEndian.AppendUint16(f, uint16(n))
	}
	f = append(f, mask[:]...)
	for i, b := range payload {
		f = append(f, b^mask[i%4])
	}
	return f
}

// closeFrame returns a masked close frame with a status and reason.
func closeFrame(status uint16, reason string) []byte {
	return maskedFrame(opClose, append(binary.BigEndian.AppendUint16(nil, status), reason...))
}

// serverFrame reads one unmasked, unfragmented frame's payload.
func serverFrame(r *bufio.Reader) ([]byte, error) {
	_, p, err := readFrame(r)
	return p, err
}

// readFrame reads one unmasked, unfragmented frame: its opcode and payload.
func readFrame(r *bufio.Reader) (op byte, payload []byte, err error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var ext [2]byte
		if _, err := io.ReadFull(r, ext[:]); err != nil {
			return 0, nil, err
		}
		n = uint64(binary.BigEndian.Uint16(ext[:]))
	case 127:
		var ext [8]byte
		if _, err := io.ReadFull(r, ext[:]); err != nil {
			return 0, nil, err
		}
		n = binary.BigEndian.Uint64(ext[:])
	}
	p := make([]byte, n)
	_, err = io.ReadFull(r, p)
	return h[0] & 0xf, p, err
}
