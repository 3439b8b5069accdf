package ws

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// These benchmarks weigh the connection wrapper (Accept's small buffers,
// batchConn) against coder/websocket's own Accept: what an idle
// connection costs the server, and writing a batch of boards.

// acceptAll accepts n connections from raw clients, with the wrapper or
// with the library alone, each with a reader waiting for a message as
// Serve's does. It returns the server's ends and a func that closes all.
func acceptAll(b *testing.B, n int, wrapper bool) ([]*websocket.Conn, func()) {
	type accepted struct {
		ws   *websocket.Conn
		conn *Conn
	}
	connc := make(chan accepted)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wrapper {
			conn, err := Accept(w, r, nil)
			if err != nil {
				b.Error(err)
				return
			}
			conn.limit.setRate(MessagesPerSecond, MessageBurst, time.Now())
			connc <- accepted{conn.ws, conn}
			return
		}
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			b.Error(err)
			return
		}
		connc <- accepted{ws: ws}
	}))
	var clients []net.Conn
	var wss []*websocket.Conn
	readers := make(chan struct{}, n)
	for range n {
		nc := dialHandshake(b, srv)
		a := <-connc
		go func() {
			a.ws.Read(context.Background())
			readers <- struct{}{}
		}()
		clients = append(clients, nc)
		wss = append(wss, a.ws)
	}
	return wss, func() {
		for _, ws := range wss {
			ws.CloseNow()
		}
		for range n {
			<-readers
		}
		for _, nc := range clients {
			nc.Close()
		}
		srv.Close()
	}
}

// dialHandshake dials srv and sends a WebSocket handshake, reading
// nothing: what the server sends waits for the caller.
func dialHandshake(b testing.TB, srv *httptest.Server) net.Conn {
	b.Helper()
	nc, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(nc, "%sHost: x\r\n\r\n", handshake)
	return nc
}

// BenchmarkIdleConnection reports what an idle connection holds: heap and
// goroutine stacks, the server's side and its raw client's (the same for
// both).
func BenchmarkIdleConnection(b *testing.B) {
	const n = 500
	for _, wrapper := range []bool{true, false} {
		name := map[bool]string{true: "wrapper", false: "library"}[wrapper]
		b.Run(name, func(b *testing.B) {
			var heap, stack float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				_, closeAll := acceptAll(b, n, wrapper)
				runtime.GC()
				runtime.ReadMemStats(&after)
				heap += float64(after.HeapAlloc) - float64(before.HeapAlloc)
				stack += float64(after.StackInuse) - float64(before.StackInuse)
				closeAll()
			}
			b.ReportMetric(heap/float64(b.N)/n, "heap-B/conn")
			b.ReportMetric(stack/float64(b.N)/n, "stack-B/conn")
		})
	}
}

// BenchmarkBatchToSocket writes 8 mid-game boards to a socket: with the
// wrapper in one system call, with the library alone in one a board.
func BenchmarkBatchToSocket(b *testing.B) {
	board := bytes.Repeat([]byte("x"), 1172)
	for _, wrapper := range []bool{true, false} {
		name := map[bool]string{true: "wrapper", false: "library"}[wrapper]
		b.Run(name, func(b *testing.B) {
			connc := make(chan *websocket.Conn, 1)
			convc := make(chan *Conn, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if wrapper {
					conn, err := Accept(w, r, nil)
					if err != nil {
						b.Error(err)
						return
					}
					conn.bc.setTimeout(WriteTimeout)
					convc <- conn
					return
				}
				ws, err := websocket.Accept(w, r, nil)
				if err != nil {
					b.Error(err)
					return
				}
				connc <- ws
			}))
			defer srv.Close()
			nc := dialHandshake(b, srv)
			defer nc.Close()
			go io.Copy(io.Discard, nc)
			batch := make([]outgoing, 8)
			for i := range batch {
				batch[i] = outgoing{data: board, board: true}
			}
			ctx := context.Background()
			if wrapper {
				conn := <-convc
				b.ReportAllocs()
				for b.Loop() {
					if err := conn.write(batch); err != nil {
						b.Fatal(err)
					}
				}
				return
			}
			ws := <-connc
			b.ReportAllocs()
			for b.Loop() {
				for _, m := range batch {
					if err := ws.Write(ctx, websocket.MessageText, m.data); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
