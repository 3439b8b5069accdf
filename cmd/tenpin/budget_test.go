package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// TestConnectionFlood: under an open-file limit of 256, a flood of
// keep-alive HTTP connections left idle (which -max-conns, counting
// WebSockets, does not see), more than the limit allows, does not take
// the descriptors the store and new clients need: a new
// lane, a whole frame played over a WebSocket and /healthz all work
// during the flood, and the flood's idle connections are the ones closed.
func TestConnectionFlood(t *testing.T) {
	const nofile = 256
	srv := startChildEnv(t, []string{fmt.Sprintf("%s=%d", childFilesEnv, nofile)}, "-data", t.TempDir())
	addr := strings.TrimPrefix(srv.url, "http://")

	var flood []net.Conn
	t.Cleanup(func() {
		for _, c := range flood {
			c.Close()
		}
	})
	for i := range 300 {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("flood connection %d: %v", i, err)
		}
		flood = append(flood, c)
		// One request, then idle on a kept-alive connection. A server
		// that has run out of descriptors, or closed this one for a
		// newer, may not answer: that is what the flood is for.
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		if res, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
			res.Body.Close()
		}
	}

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	api := &client.Client{URL: srv.url}
	l, err := api.Create(ctx, protocol.CreateLane{Name: "flooded", GiveAway: true, Open: true})
	if err != nil {
		t.Fatalf("creating a lane during the flood: %v", err)
	}
	conn, err := api.Dial(ctx, l.ID)
	if err != nil {
		t.Fatalf("joining a lane during the flood: %v", err)
	}
	defer conn.CloseNow()
	if _, err := conn.Join(ctx, "Jo"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for ball, pins := range []int{7, 2} {
		if _, err := conn.Roll(ctx, 1, ball+1, pins); err != nil {
			t.Fatalf("ball %d during the flood: %v", ball+1, err)
		}
	}
	res, err := http.Get(srv.url + "/healthz")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("/healthz during the flood: %v %v", res, err)
	}
	res.Body.Close()

	closed := 0
	for _, c := range flood {
		c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err != nil && !isTimeout(err) {
			closed++
		}
	}
	if closed == 0 {
		t.Error("the server closed none of the flood's idle connections")
	}
	t.Logf("%d of the flood's %d connections were closed", closed, len(flood))
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestBudgetListener: every connection counts until it closes, however
// it closes (a keep-alive one the client drops, a hijacked one); at the
// budget the connection idle the longest makes room; and the connections
// keep the TCP connection's half-close and ReadFrom, which net/http uses,
// and its descriptor, which the WebSocket transport polls.
func TestBudgetListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	bl := newBudgetListener(ln, 2)
	hijacked := make(chan net.Conn, 1)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/hijack" {
				c, _, _ := http.NewResponseController(w).Hijack()
				hijacked <- c
				return
			}
			io.WriteString(w, "ok")
		}),
		ConnState: bl.connState,
	}
	go srv.Serve(bl)
	t.Cleanup(func() { srv.Close() })
	open := func() int {
		bl.mu.Lock()
		defer bl.mu.Unlock()
		return bl.open
	}
	waitOpen := func(want int) {
		t.Helper()
		// The server's goroutines close connections on their own time.
		polltest.Until(t, 5*time.Second, fmt.Sprint(want, " connections counted"), func() (any, bool) {
			n := open()
			return fmt.Sprint(n, " connections"), n == want
		})
	}
	get := func(path string) net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path)
		if path != "/hijack" {
			res, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
		}
		return c
	}

	idle := get("/") // kept alive, idle
	h := get("/hijack")
	server := <-hijacked
	if _, ok := server.(interface{ CloseWrite() error }); !ok {
		t.Error("a connection hides CloseWrite")
	}
	if _, ok := server.(io.ReaderFrom); !ok {
		t.Error("a connection hides ReadFrom")
	}
	if sc, ok := server.(syscall.Conn); !ok {
		t.Error("a connection hides its socket: the WebSocket transport cannot poll it at rest")
	} else if rc, err := sc.SyscallConn(); err != nil {
		t.Errorf("SyscallConn: %v", err)
	} else if err := rc.Control(func(uintptr) {}); err != nil {
		t.Errorf("the socket's descriptor: %v", err)
	}
	waitOpen(2)
	// The kept-alive connection is idle once net/http says so, which may
	// be after its client has read the answer.
	idleConns := func() int {
		bl.mu.Lock()
		defer bl.mu.Unlock()
		return bl.idle.Len()
	}
	polltest.Until(t, 5*time.Second, "the kept-alive connection to be idle", func() (any, bool) {
		n := idleConns()
		return fmt.Sprint(n, " idle connections"), n == 1
	})
	// At the budget: the idle one makes room for the next.
	next := get("/")
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := idle.Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Error("the idle connection was not closed for a new one")
	}
	waitOpen(2)
	server.Close()
	h.Close()
	next.Close()
	waitOpen(0)
}
