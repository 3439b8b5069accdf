package lobby

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/relay/relaytest"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
)

// The lobby's timers, in a synctest bubble: time is fake and only moves
// when every goroutine of the test waits, so a minute passes at once and
// synctest.Wait says when the lobby and its lanes have done what that
// time made them do. No network inside: the lobby's Go API, and players
// attached as a cluster's other nodes attach theirs, through relays
// handing what they forward straight to the lane (lane/relay/relaytest).
// The WebSocket endpoint's timers are lobby/api's tests.

// runBubbled runs lb until the returned function is called, which waits
// for it and its lanes to stop: a bubble ends only once its goroutines
// have.
func runBubbled(lb *Lobby) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		lb.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// TestIdleLaneLeavesTheLobby: a lane nobody is on closes once its idle
// timeout has passed since the last thing that happened on it (its
// abandon timeout, with a ball bowled), to the nanosecond, and leaves the
// lobby: not found, not listed, its place in the list remembered for
// clients paging past it.
func TestIdleLaneLeavesTheLobby(t *testing.T) {
	const idle, abandon = 5 * time.Minute, time.Hour
	tests := []struct {
		name   string
		play   []string // messages a player sends before going
		stays  bool     // the player stays connected
		closes time.Duration
	}{
		{name: "nobody came", closes: idle},
		{name: "a player came and went", play: []string{`{"type":"join","name":"AAA","id":"j"}`}, closes: idle},
		{name: "started, no ball bowled", play: []string{`{"type":"join","name":"AAA","id":"j"}`, `{"type":"start","id":"s"}`}, closes: idle},
		{name: "a ball bowled", play: []string{`{"type":"join","name":"AAA","id":"j"}`, `{"type":"start","id":"s"}`, `{"type":"roll","pins":3,"frame":1,"ball":1,"id":"r"}`}, closes: abandon},
		{name: "a player stays", play: []string{`{"type":"join","name":"AAA","id":"j"}`}, stays: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lb := newInMemory(Config{Lane: lane.Config{IdleTimeout: idle, AbandonTimeout: abandon}})
				defer runBubbled(lb)()
				l, err := lb.Create(t.Context(), "idle")
				if err != nil {
					t.Fatal(err)
				}
				id := l.ID()
				if tt.play != nil {
					r, send := relaytest.Player(t, l)
					for _, m := range tt.play {
						send(m)
					}
					if !tt.stays {
						r.Detach()
					}
				}
				synctest.Wait()
				open := func() bool {
					select {
					case <-l.Done():
						return false
					default:
						return true
					}
				}
				if tt.stays {
					time.Sleep(2 * abandon)
					synctest.Wait()
					if !open() || lb.Len() != 1 {
						t.Fatalf("a lane with a player on it closed after %v", 2*abandon)
					}
					return
				}

				time.Sleep(tt.closes - time.Nanosecond)
				synctest.Wait()
				if !open() {
					t.Fatalf("lane closed before %v", tt.closes)
				}
				if _, ok := lb.Get(id); !ok {
					t.Fatalf("lane left the lobby before %v", tt.closes)
				}
				time.Sleep(time.Nanosecond)
				synctest.Wait()
				if open() {
					t.Fatalf("lane still open after %v", tt.closes)
				}
				if _, ok := lb.Get(id); ok || lb.Len() != 0 {
					t.Errorf("after it closed: Get(%s) = _, %v, Len() = %d; want gone", id, ok, lb.Len())
				}
				if _, err := lb.Find(t.Context(), id); !errors.Is(err, ErrNoLane) {
					t.Errorf("Find(%s) of a closed lane: %v, want ErrNoLane (404 lane_not_found)", id, err)
				} else if pe, _ := lane.ErrorFor(err); pe.Code != protocol.CodeLaneNotFound {
					t.Errorf("Find(%s) of a closed lane tells the client %s, want %s", id, pe.Code, protocol.CodeLaneNotFound)
				}
				// A client paging with the closed lane as its cursor goes on
				// (lobby/api's GET /api/lanes?after=).
				if _, ok := lb.Position(id); !ok {
					t.Errorf("Position(%s) of a lane closed lately: none, want its place in the list", id)
				}
			})
		})
	}
}

// compactions is an in-memory journal that counts its compactions.
type compactions struct {
	*memjournal.Journal
	n atomic.Int64
}

func (c *compactions) Compact(ctx context.Context, before uint64) error {
	c.n.Add(1)
	return c.Journal.Compact(ctx, before)
}

// TestCompactionRunsEveryInterval: every CompactEvery, each open lane
// stores a snapshot, and what the round before replaced is dropped; a
// journal nobody wrote to since the last round is left alone.
func TestCompactionRunsEveryInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const every = time.Minute
		j := &compactions{Journal: memjournal.New()}
		lb := New(Config{Lane: lane.Config{Journal: j, IdleTimeout: time.Hour}, CompactEvery: every})
		defer runBubbled(lb)()
		time.Sleep(every / 2) // between two rounds: nothing happens at once with one
		l, err := lb.Create(t.Context(), "kept")
		if err != nil {
			t.Fatal(err)
		}
		_, send := relaytest.Player(t, l)
		appends := func() int64 { return lb.Metrics().Appends.Load() }
		events := func() string {
			log, err := j.Read(t.Context(), l.ID(), 0)
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, e := range log.Events {
				kinds = append(kinds, string(e.Kind))
			}
			return strings.Join(kinds, " ")
		}
		steps := []struct {
			what      string
			do        func()
			snapshots int64  // stored by the round
			compacted int64  // rounds that dropped something, so far
			log       string // the lane's events in the journal after it
		}{
			// The first round drops nothing: dropping is one round behind.
			{"the first round", nil, 1, 0, "opened snapshot"},
			{"a quiet round", nil, 0, 0, "opened snapshot"},
			{"a round after a join", func() { send(`{"type":"join","name":"AAA","id":"j"}`) }, 1, 1, "snapshot seat_taken snapshot"},
			{"another quiet round", nil, 0, 1, "snapshot seat_taken snapshot"},
			{"a round after a start", func() { send(`{"type":"start","id":"s"}`) }, 1, 2, "snapshot game_started snapshot"},
		}
		for _, st := range steps {
			if st.do != nil {
				st.do()
			}
			synctest.Wait()
			before := appends()
			time.Sleep(every)
			synctest.Wait()
			if got := appends() - before; got != st.snapshots {
				t.Errorf("%s: %d appends, want %d snapshots", st.what, got, st.snapshots)
			}
			if got := j.n.Load(); got != st.compacted {
				t.Errorf("%s: %d compactions so far, want %d", st.what, got, st.compacted)
			}
			if got := events(); got != st.log {
				t.Errorf("%s: the lane's log holds %s, want %s", st.what, got, st.log)
			}
		}
	})
}
