package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// newLobby serves a lobby, its lanes in memory, for one test.
func newLobby(t *testing.T, cfg lobby.Config) *client.Client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if cfg.Lane.Journal == nil {
		cfg.Lane.Journal = memjournal.New()
	}
	lb := lobby.New(cfg)
	done := make(chan struct{})
	go func() {
		defer close(done)
		lb.Run(ctx)
	}()
	srv := httptest.NewServer(server.API(lb, nil))
	t.Cleanup(func() {
		cancel()
		<-done
		srv.Close()
	})
	return &client.Client{URL: srv.URL}
}

// TestAPI: the HTTP API through the client, against a real lobby, its
// refusals as *protocol.Error.
func TestAPI(t *testing.T) {
	const n = 60 // more than a page of the list
	c := newLobby(t, lobby.Config{CreateBurst: n + 1})
	ctx := ctxWait(t)
	var ids []string
	for i := range n {
		l, err := c.CreateLane(ctx, fmt.Sprintf("lane %d", i))
		if err != nil {
			t.Fatal(err)
		}
		if l.Name != fmt.Sprintf("lane %d", i) || l.Phase != protocol.PhaseWaiting {
			t.Errorf("created %+v", l)
		}
		ids = append(ids, l.ID)
	}
	lanes, err := c.Lanes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(lanes) != n {
		t.Fatalf("Lanes = %d lanes, want %d", len(lanes), n)
	}
	for i, l := range lanes {
		if l.ID != ids[i] {
			t.Errorf("lane %d is %s, want %s (oldest first)", i, l.ID, ids[i])
		}
	}
	b, err := c.Board(ctx, ids[0])
	if err != nil || b.Lane != ids[0] || b.Name != "lane 0" || b.Phase != protocol.PhaseWaiting {
		t.Errorf("Board(%s) = %+v, %v", ids[0], b, err)
	}

	for _, tt := range []struct {
		what string
		call func() error
	}{
		{"a lane named with nothing", func() error { _, err := c.CreateLane(ctx, ""); return err }},
		{"the board of no lane", func() error { _, err := c.Board(ctx, "nope"); return err }},
		{"a socket to no lane", func() error { _, err := c.Dial(ctx, "nope"); return err }},
	} {
		var pe *protocol.Error
		if err := tt.call(); !errors.As(err, &pe) || pe.Code == "" {
			t.Errorf("%s: %v, want a *protocol.Error", tt.what, err)
		} else {
			t.Logf("%s: %v", tt.what, err)
		}
	}
	if _, err := client.Dial(ctx, "ftp://example.com", "x"); err == nil {
		t.Error("Dial of an ftp URL worked")
	}
}

// TestConnAgainstLobby: a player and a watcher on a real lane; the
// watcher sees every board the player's commands make.
func TestConnAgainstLobby(t *testing.T) {
	c := newLobby(t, lobby.Config{})
	ctx := ctxWait(t)
	l, err := c.CreateLane(ctx, "two")
	if err != nil {
		t.Fatal(err)
	}
	player, err := c.Dial(ctx, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	watcher, err := client.Dial(ctx, c.URL, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer player.Close()
	defer watcher.Close()
	w, err := player.JoinHost(ctx, "abc", l.HostKey)
	if err != nil || w.Name != "abc" || w.Token == "" {
		t.Fatalf("Join = %+v, %v", w, err)
	}
	if _, err := player.Join(ctx, "abd"); !isCode(err, protocol.CodeAlreadySeated) {
		t.Errorf("second Join: %v, want already_seated", err)
	}
	if _, err := player.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var last uint64
	for i, pins := range []int{3, 4, 10} {
		frame, ball := 1+i/2, 1+i%2
		a, err := player.Roll(ctx, frame, ball, pins)
		if err != nil {
			t.Fatalf("roll %d: %v", i, err)
		}
		last = a.Seq
	}
	for {
		m, err := watcher.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := m.(*protocol.Board)
		if !ok {
			t.Fatalf("the watcher got %+v", m)
		}
		if b.Seq == last {
			if got := b.Players[0].Total; got != 7 || len(b.Players[0].Frames) != 2 {
				t.Errorf("the last board: %+v", b.Players[0])
			}
			break
		}
	}
	if _, err := player.Leave(ctx); err != nil {
		t.Errorf("Leave: %v", err)
	}
}

func isCode(err error, code protocol.Code) bool {
	var pe *protocol.Error
	return errors.As(err, &pe) && pe.Code == code
}

// TestPrivateLaneGamesAndInvite: a private lane is not among Lanes; its
// games and its invitation come from their endpoints.
func TestPrivateLaneGamesAndInvite(t *testing.T) {
	c := newLobby(t, lobby.Config{URLs: []string{"http://192.168.1.20:8080"}})
	ctx := t.Context()
	l, err := c.Create(ctx, protocol.CreateLane{Name: "Secret", Private: true})
	if err != nil {
		t.Fatal(err)
	}
	if lanes, err := c.Lanes(ctx); err != nil || len(lanes) != 0 {
		t.Errorf("Lanes = %+v, %v; want none listed", lanes, err)
	}
	inv, err := c.Invite(ctx, l.ID)
	if err != nil || inv.URL != "http://192.168.1.20:8080/lanes/"+l.ID || inv.QR == "" {
		t.Errorf("Invite = %+v, %v", inv, err)
	}
	games, err := c.Games(ctx, l.ID)
	if err != nil || len(games.Games) != 0 {
		t.Errorf("Games of a lane nobody joined = %+v, %v; want none", games, err)
	}
}
