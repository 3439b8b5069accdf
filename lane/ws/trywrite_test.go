//go:build unix

package ws

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// slowPair returns a TCP connection's server end as a batchConn with a
// small send buffer, whose client reads nothing until the test reads
// from the returned reader: a big frame fills both ends' buffers, and
// tryWrite leaves the rest of it.
func slowPair(t *testing.T) (*batchConn, *bufio.Reader) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	client.SetDeadline(time.Now().Add(10 * time.Second))
	if err := client.(*net.TCPConn).SetReadBuffer(16 << 10); err != nil {
		t.Fatal(err)
	}
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	if err := server.(*net.TCPConn).SetWriteBuffer(8 << 10); err != nil {
		t.Fatal(err)
	}
	bc := &batchConn{Conn: server}
	if bc.raw, err = bc.rawConn(); err != nil {
		t.Fatal(err)
	}
	bc.setTimeout(WriteTimeout)
	return bc, bufio.NewReader(client)
}

// bigFrame is a text payload no socket here takes at once.
var bigFrame = bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB

// tryWriteInPart writes bigFrame with tryWrite, which must leave a part.
func tryWriteInPart(t *testing.T, bc *batchConn) {
	t.Helper()
	ok, unsent, err := bc.tryWrite(opText, bigFrame, nil)
	if !ok || !unsent || err != nil {
		t.Fatalf("tryWrite of 1 MiB = %t, unsent %t, %v; want it begun and left unsent", ok, unsent, err)
	}
	bc.mu.Lock()
	tail := bc.tail
	bc.mu.Unlock()
	if tail <= 0 || tail >= len(bigFrame) {
		t.Fatalf("tryWrite left a tail of %d bytes; want part of the frame", tail)
	}
}

func TestTryWriteLeavesTheRestAheadOfTheLibrarysFrames(t *testing.T) {
	bc, br := slowPair(t)
	tryWriteInPart(t, bc)

	// A pong the library writes now must follow the frame begun, not cut
	// into it; and no writer of ours may begin while the rest waits.
	if _, err := bc.Write([]byte{finBit | opPong, 2, 'h', 'i'}); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := bc.tryWrite(opText, []byte("next"), nil); ok {
		t.Error("tryWrite began a frame while the rest of one waited")
	}
	sent := make(chan error, 1)
	go func() { // the writer (see Conn.writeOut)
		bc.begin()
		sent <- errors.Join(bc.writeFrame(opText, []byte("after")), bc.end())
	}()

	want := []frame{{opText, string(bigFrame)}, {opPong, "hi"}, {opText, "after"}}
	for i, w := range want {
		op, p, err := readFrame(br)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if got := (frame{op, string(p)}); got != w {
			t.Fatalf("frame %d = %.40s…, want %.40s…", i, got, w)
		}
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
}

func TestCloseFinishesTheFrameTryWriteBegan(t *testing.T) {
	bc, br := slowPair(t)
	tryWriteInPart(t, bc)

	// The library's close frame, then its Close: the frame begun goes
	// out whole, then the close frame, and no frame of ours after it.
	closing := append([]byte{finBit | opClose, 5}, binary.BigEndian.AppendUint16(nil, 1001)...)
	closing = append(closing, "bye"...)
	if _, err := bc.Write(closing); err != nil {
		t.Fatal(err)
	}
	if _, _, err := bc.tryWrite(opText, []byte("late"), nil); !errors.Is(err, errCloseSent) {
		t.Errorf("tryWrite after the close frame: %v, want %v", err, errCloseSent)
	}
	closed := make(chan error, 1)
	go func() { closed <- bc.Close() }()

	got := readFrames(br, 10)
	want := []string{frame{opText, string(bigFrame)}.String(), `close 1001 "bye"`}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("the client read %d frames (%.60q…), want the frame begun and the close", len(got), got)
	}
	if err := <-closed; err != nil {
		t.Error(err)
	}
}

func TestTryWriteLeavesTheRestOfTwoFrames(t *testing.T) {
	// A board and its reply in one write, which the socket takes only in
	// part, in the first frame or the second: the rest goes out whole, in
	// order, before the library's close frame.
	for _, tc := range []struct{ name, first, next string }{
		{"in the board", string(bigFrame), "ack"},
		{"in the reply", "board", string(bigFrame)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bc, br := slowPair(t)
			ok, unsent, err := bc.tryWrite(opText, []byte(tc.first), []byte(tc.next))
			if !ok || !unsent || err != nil {
				t.Fatalf("tryWrite of over 1 MiB = %t, unsent %t, %v; want it begun and left unsent", ok, unsent, err)
			}
			closing := append([]byte{finBit | opClose, 5}, binary.BigEndian.AppendUint16(nil, 1001)...)
			closing = append(closing, "bye"...)
			if _, err := bc.Write(closing); err != nil {
				t.Fatal(err)
			}
			closed := make(chan error, 1)
			go func() { closed <- bc.Close() }()

			got := readFrames(br, 10)
			want := []string{frame{opText, tc.first}.String(), frame{opText, tc.next}.String(), `close 1001 "bye"`}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("the client read %d frames (%.60q…), want the two frames whole and the close", len(got), got)
			}
			if err := <-closed; err != nil {
				t.Error(err)
			}
		})
	}
}

func TestTryWriteAfterTheWriteDeadline(t *testing.T) {
	// A writer set the write deadline, and nothing was written for longer
	// than the write timeout: tryWrite must write all the same.
	bc, br := slowPair(t)
	bc.setTimeout(20 * time.Millisecond)
	if _, err := bc.Write([]byte{finBit | opPing, 0}); err != nil { // sets the deadline
		t.Fatal(err)
	}
	time.Sleep(40 * time.Millisecond)
	if ok, unsent, err := bc.tryWrite(opText, []byte("late"), nil); !ok || unsent || err != nil {
		t.Fatalf("tryWrite past the deadline = %t, unsent %t, %v; want it written", ok, unsent, err)
	}
	if got := readFrames(br, 2); len(got) != 2 || got[1] != `text "late"` {
		t.Errorf("the client read %s, want the ping and the text", got)
	}
}

// acceptSlow is acceptRaw with small buffers at both ends of the
// connection, as slowPair's.
func acceptSlow(t *testing.T) (*Conn, *bufio.Reader) {
	t.Helper()
	conn, nc, br := acceptRawConn(t, nil)
	if err := nc.(*net.TCPConn).SetReadBuffer(16 << 10); err != nil {
		t.Fatal(err)
	}
	if err := conn.bc.Conn.(*net.TCPConn).SetWriteBuffer(8 << 10); err != nil {
		t.Fatal(err)
	}
	return conn, br
}

func TestWriteBoardLeavesTheRestToAWriter(t *testing.T) {
	// The socket takes part of the board: a writer must send the rest,
	// with no other message to start one.
	conn, br := acceptSlow(t)
	conn.WriteBoard(bigFrame, 1, nil)
	conn.mu.Lock()
	writing, unsent := conn.writing, conn.unsent
	conn.mu.Unlock()
	switch {
	case !writing && unsent:
		t.Fatal("the rest of the board waits with no writer to send it")
	case !writing:
		t.Fatal("the socket took 1 MiB at once: no writer to test")
	}
	if op, p, err := readFrame(br); err != nil || op != opText || !bytes.Equal(p, bigFrame) {
		t.Fatalf("the client read op %#x, %d bytes, %v; want the board whole", op, len(p), err)
	}
}

func TestWriterLeavesTheClosingToTheLibrary(t *testing.T) {
	// The library has begun its close frame (gather saw it) and waits to
	// write it: the writer, refused, must not close the connection under
	// it, or the client never gets the frame.
	conn, br := acceptRaw(t, nil)
	closing := append([]byte{finBit | opClose, 5}, binary.BigEndian.AppendUint16(nil, 1001)...)
	closing = append(closing, "bye"...)
	conn.bc.gather(closing) // outside a batch: the library's write waits for sending
	conn.Board([]byte("refused"), 1)
	conn.wg.Wait()
	if _, err := conn.bc.Write(closing); err != nil {
		t.Fatalf("the library's close frame: %v", err)
	}
	if got := readFrames(br, 1); len(got) != 1 || got[0] != `close 1001 "bye"` {
		t.Errorf("the client read %s, want the close frame", got)
	}
}

func TestWriteBoardWaitsItsTurn(t *testing.T) {
	// A board the lane writes itself, and its reply, must not overtake
	// what is queued, nor cut in while a writer owns the connection's
	// writes.
	t.Run("behind a queued reply", func(t *testing.T) {
		conn, br := acceptRaw(t, nil)
		conn.mu.Lock()
		conn.queue = append(conn.queue, outgoing{data: []byte("reply")}) // its writer not started yet
		conn.mu.Unlock()
		conn.WriteBoard([]byte("board"), 1, []byte("ack"))
		conn.mu.Lock()
		conn.startWriterLocked()
		conn.mu.Unlock()
		if got, want := readFrames(br, 3), textFrames("reply", "board", "ack"); strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("the client read %s, want %s", got, want)
		}
	})
	t.Run("while a writer writes", func(t *testing.T) {
		conn, br := acceptRaw(t, nil)
		conn.mu.Lock()
		conn.writing = true // a writer between two batches
		conn.mu.Unlock()
		conn.WriteBoard([]byte("board"), 1, []byte("ack"))
		conn.mu.Lock()
		queued := len(conn.queue)
		conn.writing = false
		conn.startWriterLocked()
		conn.mu.Unlock()
		if queued != 2 {
			t.Errorf("%d messages queued, want the board and its reply", queued)
		}
		if got, want := readFrames(br, 2), textFrames("board", "ack"); strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("the client read %s, want %s", got, want)
		}
	})
}
