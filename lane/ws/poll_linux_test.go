package ws

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/polltest"
)

// goroutinesIn counts the goroutines whose stack has fn.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, fn) {
			n++
		}
	}
	return n
}

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
	// Pinged 50 times a second: their clients read, so they answer.
	ps := servePolled(t, "rest", Config{PingInterval: 20 * time.Millisecond})
	s, ended := ps.testServer, ps.ended

	player := s.startPlaying(t)
	var watchers []*testClient
	for range spectators {
		watchers = append(watchers, s.dial(t))
	}
	player.play(t, s, 3, "r1")

	// At rest, every reader ends: the pongs coming in every 20 ms start
	// none that waits.
	atRest(t, "after a roll")
	time.Sleep(200 * time.Millisecond) // ten pings a connection, answered
	atRest(t, "after ten pings")

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
	atRest(t, "after a second roll")

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

// polledServer serves a lane whose connections a poller of its own
// serves, as a server does: run and stopped by the test.
type polledServer struct {
	*testServer
	poller *Poller
	ran    chan struct{} // closed when the poller's Run has returned, runErr set
	runErr error
	ended  chan error    // each connection's end
	stop   func()        // ends the poller's Run
	fail   chan struct{} // closed, makes epoll_wait fail (see failingWait)
}

func servePolled(t *testing.T, id string, cfg Config) *polledServer {
	t.Helper()
	p, err := NewPoller()
	if err != nil {
		t.Fatal(err)
	}
	ps := &polledServer{poller: p, ran: make(chan struct{}), ended: make(chan error, 64), fail: make(chan struct{})}
	p.ep.wait = ps.failingWait
	cfg.Poller = p
	pctx, stop := context.WithCancel(context.Background())
	ps.stop = stop
	go func() {
		defer close(ps.ran)
		ps.runErr = p.Run(pctx)
	}()
	t.Cleanup(func() {
		stop()
		<-ps.ran
	})
	l := lane.New(id, id, lane.Config{Logger: testLogger(t)})
	ctx, cancel := context.WithCancel(context.Background())
	var wg, conns sync.WaitGroup
	wg.Go(func() { l.Run(ctx) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, nil)
		if err != nil {
			return
		}
		conns.Add(1)
		Start(context.WithoutCancel(ctx), conn, l, cfg, func(err error) {
			ps.ended <- err
			conns.Done()
		})
	}))
	t.Cleanup(func() {
		cancel() // the lane drops its clients, which ends their connections
		srv.Close()
		wg.Wait()
		conns.Wait()
	})
	ps.testServer = &testServer{l: l, srv: srv, addr: srv.Listener.Addr().String()}
	return ps
}

// failingWait is epoll_wait, until ps.fail is closed: then it fails as
// on a descriptor that is not epoll's.
func (ps *polledServer) failingWait(epfd int, events []syscall.EpollEvent) (int, error) {
	select {
	case <-ps.fail:
		return -1, syscall.EBADF
	default:
		return epollWaitNow(epfd, events)
	}
}

// atRest waits until no server goroutine waits in a read.
func atRest(t *testing.T, what string) {
	t.Helper()
	polltest.Until(t, wait, what+": no server goroutine waiting in a read", func() (any, bool) {
		n := serverReaders()
		return fmt.Sprint(n, " waiting"), n == 0
	})
}

// expectEnded waits for n connections of ps to end, each with an error
// that is want.
func (ps *polledServer) expectEnded(t *testing.T, n int, want error) {
	t.Helper()
	for range n {
		select {
		case err := <-ps.ended:
			if !errors.Is(err, want) {
				t.Errorf("a connection ended with %v, want %v", err, want)
			}
		case <-time.After(wait):
			t.Fatalf("a connection of the stopped poller did not end")
		}
	}
}

// TestPollersAreIndependent: two servers in one process each have their
// own poller; stopping one closes its connections, and leaves the other's
// served at rest, rolls and boards going.
func TestPollersAreIndependent(t *testing.T) {
	a, b := servePolled(t, "a", Config{}), servePolled(t, "b", Config{})
	var clients [2][]*testClient
	for i, s := range []*polledServer{a, b} {
		player := s.startPlaying(t)
		clients[i] = []*testClient{player, s.dial(t), s.dial(t)}
		player.play(t, s.testServer, 3, "r1")
		for _, w := range clients[i][1:] { // attached, so served by the poller
			w.expect(t, "the board of r1", func(m wireMsg) bool { return m.Type == "board" && strings.Contains(m.raw, `"rolls":[3]`) })
		}
	}
	atRest(t, "after a roll on each")

	a.stop()
	if <-a.ran; a.runErr != nil {
		t.Errorf("a's Run = %v, want nil", a.runErr)
	}
	a.expectEnded(t, len(clients[0]), ErrPollerStopped)
	for i, c := range clients[0] {
		select {
		case <-c.done:
		case <-time.After(wait):
			t.Fatalf("a's client %d is still connected, its poller stopped", i)
		}
	}

	player := clients[1][0]
	player.play(t, b.testServer, 4, "r2")
	for i, w := range clients[1][1:] {
		w.expect(t, "b's board of r2", func(m wireMsg) bool { return m.Type == "board" && strings.Contains(m.raw, `"rolls":[3,4]`) })
		select {
		case <-w.done:
			t.Fatalf("b's watcher %d was disconnected: %v", i, w.err)
		default:
		}
	}
	atRest(t, "b, after a second roll") // b's poller still reports its clients
	player.play(t, b.testServer, 5, "r3")
	select {
	case err := <-b.ended:
		t.Fatalf("a connection of b ended: %v", err)
	default:
	}
}

// TestPollerFailureIsReturned: when epoll_wait fails, the poller's Run
// returns the error, rather than panic, and closes the connections it
// served, so that their clients reconnect; a connection made afterwards is
// served without the poller.
func TestPollerFailureIsReturned(t *testing.T) {
	s := servePolled(t, "failing", Config{})
	player := s.startPlaying(t)
	watcher := s.dial(t)
	player.play(t, s.testServer, 3, "r1")
	watcher.expect(t, "the board of r1", func(m wireMsg) bool { return m.Type == "board" && strings.Contains(m.raw, `"rolls":[3]`) })
	atRest(t, "after a roll")

	close(s.fail)
	player.send(t, rollFor(s.l, 4, "r2")) // epoll reports it: its wait fails
	select {
	case <-s.ran:
		if !errors.Is(s.runErr, syscall.EBADF) {
			t.Errorf("Run = %v, want an error wrapping EBADF", s.runErr)
		}
	case <-time.After(wait):
		t.Fatal("the poller's Run did not return when epoll_wait failed")
	}
	// A worker's last act is to say it is done: it may still be exiting.
	polltest.Until(t, time.Second, "no worker to run once their poller's Run returned", func() (any, bool) {
		n := goroutinesIn("lane/ws.(*workers).work(")
		return fmt.Sprint(n, " workers"), n == 0
	})
	s.expectEnded(t, 2, ErrPollerStopped)
	for _, c := range []*testClient{player, watcher} {
		select {
		case <-c.done:
		case <-time.After(wait):
			t.Fatal("a client is still connected to the failed poller")
		}
	}

	// A newcomer is read by a goroutine of its own: its roll (it has no
	// seat) is answered.
	again := s.dial(t)
	again.expect(t, "a board", func(m wireMsg) bool { return m.Type == "board" })
	again.send(t, rollFor(s.l, 4, "unseated"))
	again.expect(t, "the answer to its roll", func(m wireMsg) bool { return m.Ref == "unseated" })
}
