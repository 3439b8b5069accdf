package ws

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/ws/wstest"
)

// TestUnansweredPingCloses: the server pings a connection every
// PingInterval; one whose client does not answer (it never reads) is
// closed once PongTimeout has passed since the ping, to the nanosecond,
// while one whose client reads stays, ping after ping. In a synctest
// bubble, over pipes.
func TestUnansweredPingCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ping, pong = 30 * time.Second, 15 * time.Second
		l := lane.New("pings", "pings", lane.Config{Logger: testLogger(t)})
		ctx, cancel := context.WithCancel(t.Context())
		ran := make(chan error, 1)
		go func() { ran <- l.Run(ctx) }()

		ln := wstest.NewListener()
		served := make(chan error, 2) // Serve's error, for each connection, as it ends
		var wg sync.WaitGroup
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conn, err := Accept(w, r, nil)
			if err != nil {
				t.Errorf("Accept: %v", err)
				return
			}
			wg.Go(func() {
				served <- Serve(context.WithoutCancel(ctx), conn, l, Config{PingInterval: ping, PongTimeout: pong})
			})
		})}
		go srv.Serve(ln)
		tr := &http.Transport{DialContext: ln.Dial}
		dial := func() *websocket.Conn {
			c, _, err := websocket.Dial(t.Context(), "ws://tenpin.test/", &websocket.DialOptions{HTTPClient: &http.Client{Transport: tr}})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		reader := dial()
		readerDone := make(chan struct{})
		go func() { // reads, and so answers the server's pings
			defer close(readerDone)
			for {
				if _, _, err := reader.Read(context.Background()); err != nil {
					return
				}
			}
		}()
		deaf := dial() // never reads: its pings go unanswered
		synctest.Wait()

		time.Sleep(ping + pong - time.Nanosecond)
		synctest.Wait()
		select {
		case err := <-served:
			t.Fatalf("a connection ended (%v) before an unanswered ping's pong timeout", err)
		default:
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		select {
		case err := <-served:
			if err == nil || !strings.Contains(err.Error(), "no pong within 15s") {
				t.Errorf("the deaf client's connection ended with %v, want no pong within 15s", err)
			}
		default:
			t.Fatal("the deaf client's connection is open after its ping went unanswered for PongTimeout")
		}
		time.Sleep(10 * ping)
		synctest.Wait()
		select {
		case err := <-served:
			t.Errorf("the reading client's connection ended (%v) after 10 pings", err)
		default:
		}

		deaf.CloseNow()
		reader.CloseNow()
		<-readerDone
		cancel() // the lane closes its clients
		<-ran
		wg.Wait()
		srv.Close()
		tr.CloseIdleConnections()
	})
}
