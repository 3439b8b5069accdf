package ws

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
)

// serverReaders counts the server's goroutines waiting in the WebSocket
// library's Read: the test's own clients read in functions of the test.
func serverReaders() int {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "coder/websocket.(*Conn).Read(") && !strings.Contains(g, "lane/ws.(*testServer).dial") {
			n++
		}
	}
	return n
}

// TestConnectionsAtRestHoldNoReader: on Linux a connection whose client
// sends nothing holds no goroutine waiting to read it, pings answered or
// not, and a reader starts again when the client sends, or hangs up.
func TestConnectionsAtRestHoldNoReader(t *testing.T) {
	const spectators = 20
	l := lane.New("rest", "rest", lane.Config{Logger: testLogger(t)})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { l.Run(ctx) })
	ended := make(chan error, spectators+1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, nil)
		if err != nil {
			return
		}
		// Pinged 50 times a second: their clients read, so they answer.
		Start(context.WithoutCancel(ctx), conn, l, Config{PingInterval: 20 * time.Millisecond}, func(err error) { ended <- err })
	}))
	defer func() {
		cancel()
		srv.Close()
		wg.Wait()
	}()
	s := &testServer{l: l, srv: srv, addr: srv.Listener.Addr().String()}

	player := s.startPlaying(t)
	var watchers []*testClient
	for range spectators {
		watchers = append(watchers, s.dial(t))
	}
	player.play(t, s, 3, "r1")

	// At rest, every reader ends: the pongs coming in every 20 ms start
	// none that waits.
	restful := func(what string) {
		t.Helper()
		deadline := time.Now().Add(wait)
		for serverReaders() > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d server goroutines wait in a read, want none", what, serverReaders())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	restful("after a roll")
	time.Sleep(200 * time.Millisecond) // ten pings a connection, answered
	restful("after ten pings")

	// The player's next roll is read, and reaches every watcher.
	player.play(t, s, 4, "r2")
	for i, w := range watchers {
		w.expect(t, "the board of r2", func(m wireMsg) bool { return m.Type == "board" && strings.Contains(m.raw, `"rolls":[3,4]`) })
		select {
		case <-w.done:
			t.Fatalf("watcher %d was disconnected: %v", i, w.err)
		default:
		}
	}
	restful("after a second roll")

	// Watchers that hang up at rest are ended.
	for _, w := range watchers[:spectators/2] {
		w.ws.CloseNow()
	}
	for range spectators / 2 {
		select {
		case <-ended:
		case <-time.After(wait):
			t.Fatal("a connection closed by its client at rest did not end")
		}
	}
	select {
	case err := <-ended:
		t.Fatalf("a connection ended that was not closed: %v", err)
	default:
	}
}
