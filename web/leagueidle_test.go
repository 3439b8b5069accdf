package web_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/server/servertest"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// TestLeagueNightOutlastsIdle: a league night of two matches on a server
// whose lanes close after 100 ms with nobody on them. Nobody opens the
// lanes for several times that; then each bowler opens their lane on
// their phone, taps their name and bowls five frames; every phone leaves
// the page for several idle (and abandon) times more; back on the page,
// each bowler has their place again and bowls the night to its end, and
// the night closes.
func TestLeagueNightOutlastsIdle(t *testing.T) {
	const idle = 100 * time.Millisecond
	logs := servertest.NewLogCount(t, slog.LevelError)
	s := serve(t, lobby.Config{Logger: slog.New(logs), Lane: lane.Config{IdleTimeout: idle, AbandonTimeout: idle}})
	c := &client.Client{URL: s.url}
	teams := []protocol.LeagueTeam{
		{Name: "Pin Pals", Bowlers: []protocol.LeagueBowler{{Name: "Kim", Average: 150}}},
		{Name: "Strikers", Bowlers: []protocol.LeagueBowler{{Name: "Park", Average: 170}}},
		{Name: "Aces", Bowlers: []protocol.LeagueBowler{{Name: "Ann", Average: 140}}},
		{Name: "Kingpins", Bowlers: []protocol.LeagueBowler{{Name: "Bob", Average: 160}}},
	}
	l, err := c.CreateLeague(t.Context(), protocol.CreateLeague{Name: "Late Shift", GamesPerNight: 1, Weeks: 3, Teams: teams})
	if err != nil {
		t.Fatal(err)
	}
	opened, err := c.OpenWeek(t.Context(), l.ID, l.SecretaryKey, 1, protocol.OpenWeek{})
	if err != nil {
		t.Fatal(err)
	}
	if len(opened.Matches) != 2 {
		t.Fatalf("week 1 has %d matches, want 2", len(opened.Matches))
	}
	// Each match's bowlers, home first, their lane and their team's
	// invitation.
	lanes, invites := map[string]string{}, map[string]string{}
	var order []string
	for _, m := range opened.Matches {
		for i, team := range []string{m.Home, m.Away} {
			for _, tm := range teams {
				if tm.Name == team {
					lanes[tm.Bowlers[0].Name] = m.Lane
					invites[tm.Bowlers[0].Name] = []string{m.HomeInvite, m.AwayInvite}[i]
					order = append(order, tm.Bowlers[0].Name)
				}
			}
		}
	}
	const stayedOpen = "the lane stays open: its league night is open"
	outlast := func(what string) {
		t.Helper()
		want := map[string]int{}
		for _, m := range opened.Matches {
			want[m.Lane] = logs.Count(stayedOpen, m.Lane) + 3
		}
		polltest.Until(t, step, "every lane of the week to outlast its idle time "+what, func() (any, bool) {
			seen := map[string]int{}
			ok := true
			for id, n := range want {
				seen[id] = logs.Count(stayedOpen, id)
				if l, running := s.lobby.Get(id); !running || l.Stopped() {
					t.Fatalf("lane %s of the open week closed %s", id, what)
				}
				ok = ok && seen[id] >= n
			}
			return seen, ok
		})
	}
	outlast("before anyone opens it")

	open := browser(t)
	phones := map[string]context.Context{}
	for _, name := range order {
		p := open()
		do(t, p, name+" opens their lane", chromedp.Navigate(s.url+"/lanes/"+lanes[name]+"?lang=en#invite="+invites[name]))
		join(t, p, name, name)
		phones[name] = p
	}
	for frame := 1; frame <= 5; frame++ {
		for _, name := range order {
			bowl(t, phones[name], name, 9, 10, false)
			bowl(t, phones[name], name, 0, 1, false)
		}
	}
	for _, name := range order {
		do(t, phones[name], name+" leaves the page", chromedp.Navigate("about:blank"))
	}
	outlast("with no page open, a game in play")

	for _, name := range order {
		do(t, phones[name], name+" comes back", chromedp.Navigate(s.url+"/lanes/"+lanes[name]+"?lang=en"))
		until(t, phones[name], name+" has their place back", `document.querySelector("#me").textContent === `+js("You are "+name+"."))
	}
	for frame := 6; frame <= 10; frame++ {
		for _, name := range order {
			bowl(t, phones[name], name, 9, 10, false)
			bowl(t, phones[name], name, 0, 1, false)
		}
	}
	polltest.Until(t, step, "the night closed by its lanes' last games", func() (any, bool) {
		st, err := c.Standings(t.Context(), l.ID)
		if err != nil {
			return err, false
		}
		return st.Week, st.Week == 1
	})
}
