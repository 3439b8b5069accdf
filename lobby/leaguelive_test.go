package lobby_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/server/servertest"
	"github.com/tenpin/tenpin/protocol"
	tenpin "github.com/tenpin/tenpin/protocol/client"
)

// A league night is never stuck: an open week's lanes take balls however
// long nobody is on them, and after a restart.

// stayedOpen is what a lane logs each time its idle timeout passes while
// its league night is open (lane.leagueOpen).
const stayedOpen = "the lane stays open: its league night is open"

// idleCount counts what the server's log says, by lane.
type idleCount struct{ *servertest.LogCount }

func newIdleCount(t *testing.T) *idleCount {
	return &idleCount{servertest.NewLogCount(t, slog.LevelWarn)}
}

// count returns how many times lane id stayed open for its night.
func (h *idleCount) count(id string) int { return h.Count(stayedOpen, id) }

// logged returns how many times the log said msg of lane id.
func (h *idleCount) logged(msg, id string) int { return h.Count(msg, id) }

// leagueIdle is a lane's idle and abandon timeouts in these tests:
// short, as the lanes must outlast several of them.
const leagueIdle = 20 * time.Millisecond

// outlastIdle waits until lane id of server s has seen its idle timeout
// pass n times with nobody on it and stayed open, failing the test if it
// closes first.
func outlastIdle(t *testing.T, s *testServer, h *idleCount, id string, n int) {
	t.Helper()
	l, ok := s.lobby.Get(id)
	if !ok {
		t.Fatalf("the night's lane %s is not open", id)
	}
	polltest.Until(t, wait, "the lane to outlast its idle timeout", func() (any, bool) {
		if l.Stopped() {
			t.Fatalf("the lane of an open week closed after %d idle timeouts with nobody on it", h.count(id))
		}
		return h.count(id), h.count(id) >= n
	})
	if l.Stopped() {
		t.Fatal("the lane of an open week closed")
	}
}

// bowl has Kim take her place on lane id with her team's invitation, or
// take it back with her token, bowl a ball of her first frame and leave:
// the lane takes balls. It returns her token.
func bowl(t *testing.T, s *testServer, id, invite, token string, ball, pins int) string {
	t.Helper()
	kim := s.dial(t, id)
	if token == "" {
		token = kim.joinInvited(t, "Kim", invite).Token
	} else {
		kim.send(t, map[string]any{"type": "resume", "token": token, "id": "resume"})
		if w := kim.waitFor(t, "welcome", func(m msg) bool { return m.Ref == "resume" }); w.Type != "welcome" {
			t.Fatalf("Kim resuming her place: %s", w.raw)
		}
	}
	ref := fmt.Sprint("ball", ball)
	kim.send(t, fmt.Sprintf(`{"type":"roll","frame":1,"ball":%d,"pins":%d,"id":%q}`, ball, pins, ref))
	kim.expectAck(t, ref)
	kim.ws.CloseNow()
	return token
}

// TestLeagueLaneOutlastsIdle: the lane of an open week nobody has opened
// stays open past several idle and abandon timeouts, with a ball bowled
// and its bowler gone, and takes balls each time; once the week closes
// it closes when idle, as any lane does.
func TestLeagueLaneOutlastsIdle(t *testing.T) {
	h := newIdleCount(t)
	s := newServer(t, lobby.Config{Logger: slog.New(h.LogCount), Lane: laneIdle()})
	c := &tenpin.Client{URL: s.srv.URL}
	l := createSmall(t, c)
	opened, err := c.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Lee"}})
	if err != nil {
		t.Fatal(err)
	}
	id := opened.Matches[0].Lane
	outlastIdle(t, s, h, id, 3) // nobody has opened it yet
	token := bowl(t, s, id, homeInvite(t, c, l), "", 1, 9)
	outlastIdle(t, s, h, id, 6) // a game in play, its bowler gone: the abandon timeout
	bowl(t, s, id, "", token, 2, 0)

	// The secretary closes the week, entering the night's scores by hand:
	// the lane then closes once idle.
	for _, b := range []string{"Kim", "Park", "Choi"} {
		if _, err := c.Score(t.Context(), l.ID, l.SecretaryKey, protocol.LeagueScore{Week: 1, Bowler: b, Game: 1, Score: 100}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CloseWeek(t.Context(), l.ID, l.SecretaryKey, 1); err != nil {
		t.Fatal(err)
	}
	ln, ok := s.lobby.Get(id)
	if !ok {
		return // closed already
	}
	select {
	case <-ln.Done():
	case <-time.After(wait):
		t.Fatal("the lane of a closed week did not close once idle")
	}
}

// laneIdle is the lanes' settings of these tests: short idle and abandon
// timeouts.
func laneIdle() lane.Config {
	return lane.Config{IdleTimeout: leagueIdle, AbandonTimeout: leagueIdle}
}

// durableLeagues returns a lobby's settings over journal j, its leagues
// in j's store too, its lanes' timeouts short and its log counted by h.
func durableLeagues(t *testing.T, j stored, h *idleCount) lobby.Config {
	t.Helper()
	leagues, err := j.Leagues(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	cfg := durable(j)
	cfg.Leagues, cfg.Logger = leagues, slog.New(h.LogCount)
	cfg.Lane.IdleTimeout, cfg.Lane.AbandonTimeout = leagueIdle, leagueIdle
	return cfg
}

// TestLeagueLaneSurvivesARestart: a server stores its lanes and leagues
// in JetStream; the open week's lane outlasts its idle timeouts with a
// ball bowled and nobody on it; the server stops, and a new one on the
// same data directory restores the lane: the same lane at the league
// page's link, its ball there, Kim back in her place with her token, and
// it takes her next ball and outlasts its idle timeouts again.
func TestLeagueLaneSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	h := newIdleCount(t)
	s, stop := startServer(t, durableLeagues(t, j, h), nil)
	c := &tenpin.Client{URL: s.srv.URL}
	l := createSmall(t, c)
	if _, err := c.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Lee"}}); err != nil {
		t.Fatal(err)
	}
	id := leagueLink(t, c, l.ID)
	token := bowl(t, s, id, homeInvite(t, c, l), "", 1, 9)
	outlastIdle(t, s, h, id, 3)

	stop()
	j.Close()
	j = openJournal(t, dir)
	h = newIdleCount(t)
	s, _ = startServer(t, durableLeagues(t, j, h), restoring(t, 1))
	c = &tenpin.Client{URL: s.srv.URL}
	if got := leagueLink(t, c, l.ID); got != id {
		t.Fatalf("the league page's link after the restart: lane %s, want %s", got, id)
	}
	b := getBoard(t, s, id)
	if len(b.Players) != 3 || b.Players[0].Name != "Kim" || len(b.Players[0].Frames) != 1 || len(b.Players[0].Frames[0].Rolls) != 1 || b.Players[0].Frames[0].Rolls[0] != 9 {
		t.Fatalf("the lane after the restart: %s; want Kim's first ball, 9", b.raw)
	}
	bowl(t, s, id, "", token, 2, 0)
	outlastIdle(t, s, h, id, 3)
}

// homeInvite returns the home team's invitation to week 1's match, as
// the secretary's page asks for it.
func homeInvite(t *testing.T, c *tenpin.Client, l protocol.CreatedLeague) string {
	t.Helper()
	w, err := c.WeekInvites(t.Context(), l.ID, l.SecretaryKey, 1)
	if err != nil {
		t.Fatal(err)
	}
	return w.Matches[0].HomeInvite
}

// leagueLink returns the lane the league page links to for week 1's
// match.
func leagueLink(t *testing.T, c *tenpin.Client, league string) string {
	t.Helper()
	lg, err := c.League(t.Context(), league)
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Schedule) == 0 || len(lg.Schedule[0].Matches) == 0 || lg.Schedule[0].Matches[0].Lane == "" {
		t.Fatalf("the league page links no lane for week 1: %+v", lg.Schedule)
	}
	return lg.Schedule[0].Matches[0].Lane
}

// failingNight is the lobby's league night (set once the lobby is made)
// but for its next answer, once armed, to whether a week is open: a bug
// there panics, on the lane goroutine, as any bug of the lane's may.
type failingNight struct {
	lane.LeagueNight
	armed  atomic.Bool
	always bool // it stays armed: the bug is there for good
}

func (n *failingNight) WeekOpen(ctx context.Context, m game.LeagueLane) (bool, error) {
	if n.always && n.armed.Load() || n.armed.CompareAndSwap(true, false) {
		panic("a bug in the week's check")
	}
	return n.LeagueNight.WeekOpen(ctx, m)
}

// TestFailedLeagueLaneReopens: the lane of an open week fails (its
// goroutine panics at an idle timeout, Kim's ball bowled and nobody on
// it); the lobby reopens it from its log: the same lane at the league
// page's link, with Kim's ball, takes her next one and outlasts its idle
// timeouts.
func TestFailedLeagueLaneReopens(t *testing.T) {
	h := newIdleCount(t)
	night := new(failingNight)
	cfg := laneIdle()
	cfg.LeagueNight = night
	s, _ := startServer(t, lobby.Config{Logger: slog.New(h.LogCount), Lane: cfg}, func(lb *lobby.Lobby) { night.LeagueNight = lb.LeagueNight() })
	c := &tenpin.Client{URL: s.srv.URL}
	l := createSmall(t, c)
	if _, err := c.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Lee"}}); err != nil {
		t.Fatal(err)
	}
	id := leagueLink(t, c, l.ID)
	token := bowl(t, s, id, homeInvite(t, c, l), "", 1, 9)
	failed, ok := s.lobby.Get(id)
	if !ok {
		t.Fatal("the night's lane is not open")
	}
	night.armed.Store(true)
	select {
	case <-failed.Done():
	case <-time.After(wait):
		t.Fatal("the lane did not fail")
	}
	polltest.Until(t, wait, "the failed lane to be reopened", func() (any, bool) {
		l, ok := s.lobby.Get(id)
		return ok, ok && l != failed && !l.Stopped()
	})
	if got := leagueLink(t, c, l.ID); got != id {
		t.Fatalf("the league page's link: lane %s, want %s", got, id)
	}
	b := getBoard(t, s, id)
	if len(b.Players) != 3 || b.Players[0].Name != "Kim" || len(b.Players[0].Frames) != 1 || len(b.Players[0].Frames[0].Rolls) != 1 || b.Players[0].Frames[0].Rolls[0] != 9 {
		t.Fatalf("the lane reopened: %s; want Kim's first ball, 9", b.raw)
	}
	bowl(t, s, id, "", token, 2, 0)
	outlastIdle(t, s, h, id, h.count(id)+3)
}

// TestFailingLeagueLaneIsLeftClosed: a league lane that fails each time
// it is reopened is reopened three times (lobby.maxReopenings), then
// left closed: a bug that comes back is for the log, not a loop.
func TestFailingLeagueLaneIsLeftClosed(t *testing.T) {
	h := newIdleCount(t)
	night := &failingNight{always: true}
	cfg := laneIdle()
	cfg.LeagueNight = night
	s, _ := startServer(t, lobby.Config{Logger: slog.New(h.LogCount), Lane: cfg}, func(lb *lobby.Lobby) { night.LeagueNight = lb.LeagueNight() })
	c := &tenpin.Client{URL: s.srv.URL}
	l := createSmall(t, c)
	if _, err := c.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{Absent: []string{"Lee"}}); err != nil {
		t.Fatal(err)
	}
	id := leagueLink(t, c, l.ID)
	night.armed.Store(true)
	polltest.Until(t, wait, "the lane left closed", func() (any, bool) {
		return h.logged("league lane reopened", id), h.logged("a league lane failed again and is left closed", id) == 1
	})
	if n := h.logged("league lane reopened", id); n != 3 {
		t.Errorf("the lane was reopened %d times, want 3", n)
	}
	if _, ok := s.lobby.Get(id); ok {
		t.Error("the lane that failed again is in the lobby")
	}
}
