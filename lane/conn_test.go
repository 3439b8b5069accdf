package lane

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
	"strings"
	"testing"
	"time"
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
	if err := bc.end(true); err != nil {
		t.Fatal(err)
	}
	bc.begin()
	bc.Write([]byte("lost"))
	bc.end(false) // a batch abandoned after a failed frame
	bc.Write([]byte("pong"))

	var got []string
	for _, w := range rc.writes {
		got = append(got, string(w))
	}
	if want := []string{"ping", "onetwothree", "pong"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("writes = %q, want %q", got, want)
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
	bc.end(true)
	if len(rc.deadlines) != 2 || time.Until(rc.deadlines[1]) < 59*time.Minute {
		t.Errorf("a near deadline was not moved a whole timeout on: %v", rc.deadlines)
	}
}

// TestAcceptKeepsWhatTheClientSentEarly sends the handshake and the first
// message in one packet, as a client that does not wait for the server's
// answer may: the message must survive the swap of net/http's read buffer
// for Accept's smaller one.
func TestAcceptKeepsWhatTheClientSentEarly(t *testing.T) {
	l := New("early", "early", Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go l.Run(ctx)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, nil)
		if err != nil {
			return
		}
		go l.Serve(context.WithoutCancel(ctx), conn)
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
func clientFrame(msg string) []byte {
	mask := [4]byte{1, 2, 3, 4}
	f := []byte{0x81, 0x80 | byte(len(msg))} // short messages only
	f = append(f, mask[:]...)
	for i := range len(msg) {
		f = append(f, msg[i]^mask[i%4])
	}
	return f
}

// serverFrame reads one unmasked, unfragmented frame's payload.
func serverFrame(r *bufio.Reader) ([]byte, error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var ext [2]byte
		if _, err := io.ReadFull(r, ext[:]); err != nil {
			return nil, err
		}
		n = uint64(binary.BigEndian.Uint16(ext[:]))
	case 127:
		var ext [8]byte
		if _, err := io.ReadFull(r, ext[:]); err != nil {
			return nil, err
		}
		n = binary.BigEndian.Uint64(ext[:])
	}
	p := make([]byte, n)
	_, err := io.ReadFull(r, p)
	return p, err
}
