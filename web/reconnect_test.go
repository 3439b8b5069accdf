package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol/client"
)

// quiet is how long a page that has given up must stay quiet: longer than
// the page's first two backoffs (at most 0.5 s and 1 s), so a page
// that still reconnected would be caught.
const quiet = 2 * time.Second

// closedView holds when the page shows a lane's closed view in place of
// its board and pin pad.
const closedView = `!document.querySelector("#closed").hidden &&
	document.querySelector("#closed").innerText.includes("This lane is closed") &&
	document.querySelector("#board").offsetParent === null &&
	document.querySelector("#pins").offsetParent === null`

// backToLobby checks that the closed view's link leads to the lobby.
func backToLobby(t *testing.T, ctx context.Context) {
	t.Helper()
	do(t, ctx, "follow the link to the lobby", chromedp.Click(chromedp.CSS(`#closed a[href="/"]`)))
	until(t, ctx, "the lobby", `location.pathname === "/" && !document.querySelector("#lobby").hidden`)
}

func TestUnknownLaneIsClosed(t *testing.T) {
	s := serve(t, lobby.Config{})
	p := browser(t)()
	do(t, p, "open an unknown lane", chromedp.Navigate(s.url+"/lanes/nosuchlane"))
	until(t, p, "the closed view", closedView)
	if got := eval[string](t, p, `document.querySelector("#announce").textContent`); got != "This lane is closed." {
		t.Errorf("live region says %q, want %q", got, "This lane is closed.")
	}

	// The page has given up: it asks nothing more about the lane, and its
	// status counts down to no reconnect.
	for len(s.requests) > 0 {
		<-s.requests // what the page asked before it showed the closed view
	}
	select {
	case path := <-s.requests:
		t.Errorf("after showing the lane closed, the page requested %s", path)
	case <-time.After(quiet):
	}
	if got := eval[string](t, p, `document.querySelector("#conn").textContent`); got != "lane closed" {
		t.Errorf("status %q, want %q", got, "lane closed")
	}
	if got := eval[string](t, p, `document.title`); got != "Lane closed — tenpin" {
		t.Errorf("title %q, want %q", got, "Lane closed — tenpin")
	}
	screenshot(t, p, "closed.png")
	backToLobby(t, p)
}

func TestIdleLaneIsClosed(t *testing.T) {
	s := serve(t, lobby.Config{Lane: lane.Config{IdleTimeout: 200 * time.Millisecond}})
	p := browser(t)()
	id := createLane(t, s, "Idle")
	l, ok := s.lobby.Get(id)
	if !ok {
		t.Fatalf("lane %s not found right after creation", id)
	}
	// A socket of the test's own keeps the lane from idling out while the
	// page loads.
	ctx, cancel := context.WithTimeout(context.Background(), step)
	defer cancel()
	holder, _, err := websocket.Dial(ctx, strings.Replace(s.url, "http", "ws", 1)+"/ws/lanes/"+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.CloseNow()
	do(t, p, "open the lane", chromedp.Navigate(s.url+"/lanes/"+id))
	until(t, p, "the lane, connected", `document.querySelector("#lane-name").textContent === "Idle" && document.querySelector("#conn").textContent === "connected"`)

	// The network fails and the server stays out of reach: the page says so
	// and keeps trying, while the lane, with nobody connected, idles out.
	s.down.Store(true)
	s.cut()
	until(t, p, "the page retrying", `document.querySelector("#conn").textContent.startsWith("cannot reach the server — reconnecting in ")`)
	select {
	case <-l.Done():
	case <-time.After(step):
		t.Fatal("the lane did not idle out")
	}
	s.down.Store(false)

	// Back in reach, the page learns that the lane is gone.
	until(t, p, "the closed view", closedView)
	backToLobby(t, p)
}

func TestRestartKeepsTheSeat(t *testing.T) {
	s := serve(t, lobby.Config{})
	p := browser(t)()
	id := createLane(t, s, "Restart")
	do(t, p, "open the lane", chromedp.Navigate(invited(t, s.url, id)))
	join(t, p, "AAA", "AAA")
	welcomes := `[...document.querySelectorAll("#notices li")].filter(li => li.textContent === "You are AAA, seat 1").length`

	// The page's socket drops, and the server it reaches next is going down
	// to restart: the page says so, not as an error, and keeps trying.
	s.restarting.Store(true)
	s.cut()
	until(t, p, "the restart shown", `document.querySelector("#conn").textContent.startsWith("the server is restarting — reconnecting")`)
	if got := eval[string](t, p, `document.querySelector("#lane-error").textContent`); got != "" {
		t.Errorf("the restart shown as the error %q", got)
	}
	if n := eval[int](t, p, welcomes); n != 1 {
		t.Fatalf("welcomed %d times before the restart, want 1", n)
	}

	// The server is back: the page takes its seat back with its token.
	s.restarting.Store(false)
	until(t, p, "the seat resumed", welcomes+` === 2 && document.querySelector("#conn").textContent === "connected"`)
	if !eval[bool](t, p, `document.querySelector("#closed").hidden`) {
		t.Error("the closed view is shown after a restart")
	}
}

// seatPlayer seats name on lane id (made by createLane, with its
// invitation) through the protocol's client, a player without a page,
// closed when the test ends.
func seatPlayer(t *testing.T, ctx context.Context, s *server, id, name string) *client.Conn {
	t.Helper()
	c, err := client.Dial(ctx, s.url, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	if _, err := c.JoinInvited(ctx, name, inviteOf(t, id)); err != nil {
		t.Fatal(err)
	}
	return c
}

// createLane creates a lane given away (whoever joins first hosts it, as
// a friend who opened the link first would), and returns its id. Its
// invitation is kept for invited and seatPlayer.
func createLane(t *testing.T, s *server, name string) string {
	t.Helper()
	res, err := http.Post(s.url+"/api/lanes", "application/json", strings.NewReader(`{"give_away":true,"name":`+js(name)+`}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct{ ID, Invite string }
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/lanes: %s, %v", res.Status, err)
	}
	if body.Invite == "" {
		t.Fatalf("POST /api/lanes answered no invitation")
	}
	laneInvites.Store(body.ID, body.Invite)
	return body.ID
}

// laneInvites is the invitation of each lane createLane made, by the
// lane's id: ids are drawn at random, so no two tests' lanes share one.
var laneInvites sync.Map

// inviteOf is the invitation of lane id, made by createLane.
func inviteOf(t *testing.T, id string) string {
	t.Helper()
	v, ok := laneInvites.Load(id)
	if !ok {
		t.Fatalf("no invitation kept for lane %s: made by createLane?", id)
	}
	return v.(string)
}

// invited is the link to lane id at base with its invitation, as its
// creator's page shares it: the one a friend who bowls opens.
func invited(t *testing.T, base, id string) string {
	t.Helper()
	return base + "/lanes/" + id + "#invite=" + inviteOf(t, id)
}
