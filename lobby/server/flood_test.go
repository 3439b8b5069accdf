package server_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/lobby/natsstore"
	"github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/lobby/server/servertest"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// floodFor is how long TestRememberFlood's attack lasts.
const floodFor = 60 * time.Second

// letters spells n in letters, for names, which have no digits.
func letters(n int) string {
	b := []byte{byte('a' + n%26)}
	for n /= 26; n > 0; n /= 26 {
		b = append(b, byte('a'+n%26))
	}
	return string(b)
}

// dirSize returns the bytes of the files under dir.
func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRememberFlood replays the attack that filled a store: one address
// joins and leaves with "remember me" on 20 connections for a minute, at
// the connections' own message rate, beside a lane being played, on a
// store with small budgets. The data directory grows by less than 1 MB,
// the lane plays through, /healthz stays 200 throughout, and a restart
// on the store serves.
func TestRememberFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute's attack")
	}
	dir := t.TempDir()
	cfg := server.Config{
		Store:   natsconn.Config{Dir: dir},
		Budgets: natsstore.Budgets{Lanes: 16 << 20, Kept: 1 << 20, Bowlers: 1 << 20, Leagues: 1 << 20},
	}
	// The people's rate, not the tests' (see servertest.Start): the
	// attack goes as fast as a client may.
	cfg.Lobby.Socket.MessageRate, cfg.Lobby.Socket.MessageBurst = ws.MessagesPerSecond, ws.MessageBurst
	n := servertest.Start(t, cfg)
	ctx := t.Context()

	// The lane being played: two players, a ball every 50 ms.
	played, err := n.API.Create(ctx, protocol.CreateLane{Name: "Played", Open: true})
	if err != nil {
		t.Fatal(err)
	}
	var players [2]*client.Conn
	for i, name := range []string{"Ann", "Bo"} {
		c, err := n.API.Dial(ctx, played.ID)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.CloseNow() })
		if i == 0 {
			_, err = c.JoinHost(ctx, name, played.HostKey)
		} else {
			_, err = c.Join(ctx, name)
		}
		if err != nil {
			t.Fatalf("join %s: %v", name, err)
		}
		players[i] = c
	}
	if _, err := players[0].Start(ctx); err != nil {
		t.Fatal(err)
	}

	// The attackers' lanes: 20 connections, five on each of four lanes.
	var lanes []string
	for range 4 {
		l, err := n.API.Create(ctx, protocol.CreateLane{Name: "Flood", Open: true})
		if err != nil {
			t.Fatal(err)
		}
		lanes = append(lanes, l.ID)
	}
	before := dirSize(t, dir)

	attack, stop := context.WithTimeout(ctx, floodFor)
	defer stop()
	var (
		wg                   sync.WaitGroup
		joins, keys, redials atomic.Int64
		refused              sync.Map // by code: how many joins were refused so
		unhealthy            atomic.Int64
		healthChecked        atomic.Int64
	)
	// Each connection joins and leaves as fast as its message rate lets
	// it (a join and a leave every 100 ms: 20 messages a second), waits
	// the second a refusal asks, and dials again if it is closed.
	for i := range 20 {
		wg.Go(func() {
			var c *client.Conn
			defer func() {
				if c != nil {
					c.CloseNow()
				}
			}()
			pace := time.NewTicker(100 * time.Millisecond)
			defer pace.Stop()
			for k := 0; attack.Err() == nil; k++ {
				select {
				case <-pace.C:
				case <-attack.Done():
					return
				}
				if c == nil {
					var err error
					if c, err = n.API.Dial(attack, lanes[i%len(lanes)]); err != nil {
						continue
					}
					redials.Add(1)
				}
				w, err := c.JoinRemember(attack, "Spam"+letters(i*1_000_000+k), "")
				var pe *protocol.Error
				switch {
				case errors.As(err, &pe):
					v, _ := refused.LoadOrStore(pe.Code, new(atomic.Int64))
					v.(*atomic.Int64).Add(1)
					select {
					case <-time.After(time.Second):
					case <-attack.Done():
					}
					continue
				case err != nil:
					c.CloseNow()
					c = nil // closed: dial again
					continue
				}
				joins.Add(1)
				if w.BowlerKey != "" {
					keys.Add(1)
				}
				if _, err := c.Leave(attack); err != nil {
					c.CloseNow()
					c = nil
				}
			}
		})
	}
	wg.Go(func() {
		for attack.Err() == nil {
			status, _ := get(t, n.URL+"/healthz")
			healthChecked.Add(1)
			if status != http.StatusOK {
				unhealthy.Add(1)
			}
			select {
			case <-attack.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
	})

	// The played lane goes on meanwhile: 3 pins a ball, a game after
	// another, until the attack ends.
	games := 0
	for frame := 1; attack.Err() == nil; {
		for _, c := range players {
			for ball := 1; ball <= 2; ball++ {
				if _, err := c.Roll(ctx, frame, ball, 3); err != nil {
					t.Fatalf("the played lane's roll (game %d, frame %d, ball %d) during the attack: %v", games+1, frame, ball, err)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		if frame++; frame > 10 {
			games++
			frame = 1
			if _, err := players[0].Rematch(ctx); err != nil {
				t.Fatalf("rematch after game %d: %v", games, err)
			}
			if _, err := players[0].Start(ctx); err != nil {
				t.Fatalf("start game %d: %v", games+1, err)
			}
		}
	}
	wg.Wait()
	after := dirSize(t, dir)
	counts := map[string]int64{}
	refused.Range(func(k, v any) bool { counts[fmt.Sprint(k)] = v.(*atomic.Int64).Load(); return true })
	t.Logf("the attack: %d connections, %d joins with remember (%d keys given), refused %v; the played lane bowled %d games; data directory %d → %d bytes (+%d)",
		redials.Load(), joins.Load(), keys.Load(), counts, games, before, after, after-before)

	// The attack did attack: its joins went in until the address's
	// bound refused them.
	if j := joins.Load(); j < lobby.JoinBurst {
		t.Errorf("the attack joined %d times, want at least the %d an address may at once: it did not attack", j, lobby.JoinBurst)
	}
	if counts[string(protocol.CodeRateLimited)] == 0 {
		t.Errorf("no join of the attack was refused rate_limited (refusals %v): the bound per address did not hold it", counts)
	}
	if games < 1 {
		t.Errorf("the played lane finished %d games during the attack, want at least 1", games)
	}
	if grew := after - before; grew >= 1<<20 {
		t.Errorf("the data directory grew by %d bytes during the attack, want less than 1 MB", grew)
	}
	if u := unhealthy.Load(); u > 0 {
		t.Errorf("/healthz answered other than 200 %d times of %d during the attack", u, healthChecked.Load())
	}

	n.Shutdown()
	again := servertest.Start(t, cfg)
	if status, body := get(t, again.URL+"/healthz"); status != http.StatusOK {
		t.Errorf("/healthz after a restart on the attacked store = %d %q, want 200", status, body)
	}
	playRemembered(t, again)
}
