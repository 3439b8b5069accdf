package web_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lane/bowling"
	tenpin "github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/lobby/server/servertest"
)

// TestPageMovesToAnotherNode: a player's page is served by one node of a
// cluster of three, which runs the lane. The node dies. The page, which
// asked the server for the cluster's nodes, finds its own gone, moves to
// another node with the seat's token, and the player is seated again
// there: the lane taken over from the journal, with the ball bowled.
func TestPageMovesToAnotherNode(t *testing.T) {
	nodes := servertest.StartCluster(t, 3, tenpin.Config{Logger: slog.New(slog.DiscardHandler)})
	first := nodes[0]
	id := createLane(t, &server{url: first.URL}, "Cluster")
	p := browser(t)()
	do(t, p, "open the lane on the first node", chromedp.Navigate(invited(t, first.URL, id)))
	join(t, p, "AAA", "AAA")
	do(t, p, "start", chromedp.Click(chromedp.CSS("#start")))
	bowl(t, p, "AAA", 7, 10, false)
	until(t, p, "the other two nodes known", `tenpin.nodes().length === 2`)

	died := time.Now()
	first.Stop()
	until(t, p, "the page on another node", `location.origin !== `+js(first.URL))
	// A figure for OPERATING.md, not a test: timings vary with the machine.
	t.Logf("the page left the dead node %v after its death", time.Since(died).Round(10*time.Millisecond))
	until(t, p, "the page connected there", `document.querySelector("#conn").textContent === "connected"`)
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
