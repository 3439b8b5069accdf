package web_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/nats"
	"github.com/tenpin/tenpin/web"
)

// node is one node of a cluster in the test process: an embedded NATS
// server routed to the others, the journal on it, the lobby, and the
// page and API on an HTTP server.
type node struct {
	url  string
	stop func() // stops it at once, NATS server first
}

// startNodes starts n nodes as one cluster, as tenpin serve -node does.
func startNodes(t *testing.T, n int) []*node {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = l.Addr().(*net.TCPAddr).Port
		l.Close() // for the node's server to take
	}
	dir := t.TempDir()
	nodes := make([]*node, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		var routes []string
		for k, p := range ports {
			if k != i {
				routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
			}
		}
		name := fmt.Sprint("n", i+1)
		wg.Go(func() {
			nodes[i], errs[i] = startNode(filepath.Join(dir, name), name, fmt.Sprintf("127.0.0.1:%d", ports[i]), routes)
		})
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, nd := range nodes {
			if nd != nil {
				nd.stop()
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("forming a cluster of %d: %v", n, err)
	}
	return nodes
}

func startNode(dir, name, cluster string, routes []string) (*node, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logger := slog.New(slog.DiscardHandler)
	j, err := nats.Open(ctx, nats.StoreConfig{Dir: dir, Node: name, Cluster: cluster, Routes: routes})
	if err != nil {
		return nil, err
	}
	// The HTTP server starts first: the node tells the others its address.
	var handler http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	laneCfg := lane.Config{Journal: j, Durable: true, Node: name, Logger: logger}
	cl, err := nats.NewCluster(nats.ClusterConfig{Conn: j.Conn(), Node: name, URLs: []string{srv.URL}, Lane: laneCfg, Logger: logger,
		Heartbeat: 200 * time.Millisecond, NodeTimeout: time.Second})
	if err != nil {
		srv.Close()
		j.Close()
		return nil, err
	}
	laneCfg.Publish, laneCfg.Wakes = cl.Publish, cl.Wakes
	lb := lobby.New(lobby.Config{Lane: laneCfg, Cluster: cl, Logger: logger, Health: j.Check, URLs: []string{srv.URL}})
	mux := http.NewServeMux()
	api := lb.Handler()
	mux.Handle("/api/", api)
	mux.Handle("/ws/", api)
	mux.Handle("/healthz", api)
	mux.Handle("/", web.Handler())
	handler = mux
	runCtx, stopRun := context.WithCancel(context.Background())
	var running sync.WaitGroup
	running.Go(func() { lb.Run(runCtx) })
	running.Go(func() { cl.Run(runCtx) })
	var once sync.Once
	return &node{url: srv.URL, stop: func() {
		once.Do(func() {
			j.Close()
			srv.CloseClientConnections()
			srv.Close()
			stopRun()
			running.Wait()
		})
	}}, nil
}

// TestPageMovesToAnotherNode: a player's page is served by one node of a
// cluster of three, which runs the lane. The node dies. The page, which
// asked the server for the cluster's nodes, finds its own gone, moves to
// another node with the seat's token, and the player is seated again
// there: the lane taken over from the journal, with the ball bowled.
func TestPageMovesToAnotherNode(t *testing.T) {
	nodes := startNodes(t, 3)
	first := nodes[0]
	id := createLane(t, &server{url: first.url}, "Cluster")
	p := browser(t)()
	do(t, p, "open the lane on the first node", chromedp.Navigate(first.url+"/lanes/"+id))
	join(t, p, "AAA", "AAA")
	do(t, p, "start", chromedp.Click(chromedp.CSS("#start")))
	bowl(t, p, "AAA", 7, 10, false)
	until(t, p, "the other two nodes known", `lane.nodes.length === 2`)

	first.stop()
	until(t, p, "the page on another node", `location.origin !== `+js(first.url)+
		` && document.querySelector("#conn").textContent === "connected"`)
	until(t, p, "the seat taken back there", `document.querySelector("#me").textContent === "You are AAA."`)
	if hash := eval[string](t, p, `location.hash`); hash != "" {
		t.Errorf("the token stays in the address bar: %q", hash)
	}
	// The ball bowled on the first node is on the board the new one shows,
	// and AAA bowls on.
	bowl(t, p, "AAA", 2, 3, false)
	model, err := bowling.NewMatch("AAA")
	if err != nil {
		t.Fatal(err)
	}
	for _, pins := range []int{7, 2} {
		if err := model.Roll(pins); err != nil {
			t.Fatal(err)
		}
	}
	until(t, p, "the frame on the board", `document.querySelector('#board tr[data-player="AAA"] td.total').textContent === "9"`)
	checkTable(t, p, "AAA on the new node", model)
}
