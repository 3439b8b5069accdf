package ws

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
)

// TestRelayHandsItsConnectionsToTheLaneTakenOver: the lane's node dies
// with a relayed player's roll stored but not answered, and another roll
// on its way that never reached it. The relay's node takes the lane over
// from the log and the relay hands its connections to it: the player and
// a watcher stay connected, the boards go on with a higher seq, both
// rolls in flight are answered (the stored one as stale, the other
// stored and acknowledged), and the player's seat is theirs: their next
// roll is acknowledged.
func TestRelayHandsItsConnectionsToTheLaneTakenOver(t *testing.T) {
	testTakeOver(t, "handover", func(t *testing.T, k *link, l2 *lane.Lane) bool {
		ok := k.relay.HandOver(t.Context(), l2)
		if n := k.relay.Len(); n != 0 {
			t.Errorf("the relay still serves %d connections after handing them over", n)
		}
		return ok
	})
}

// TestRelayFollowsItsLaneToItsNewNode is
// TestRelayHandsItsConnectionsToTheLaneTakenOver with the lane taken over
// by a third node: the relay attaches its connections there again, and
// each is answered as if the lane had been taken over here.
func TestRelayFollowsItsLaneToItsNewNode(t *testing.T) {
	testTakeOver(t, "follow", func(t *testing.T, k *link, l2 *lane.Lane) bool {
		k.mu.Lock()
		k.l = l2
		k.mu.Unlock()
		k.node.Add(1)
		k.mute.Store(false)
		k.deaf.Store(false)
		return k.relay.Follow(t.Context())
	})
}

// testTakeOver runs a relayed player and watcher through the death of
// their lane's node, and the lane's take-over, which move does: see
// TestRelayHandsItsConnectionsToTheLaneTakenOver.
func testTakeOver(t *testing.T, id string, move func(t *testing.T, k *link, l2 *lane.Lane) bool) {
	ctx := t.Context()
	j := memjournal.New()
	_, other, k := serveRelayedLane(t, id, func(cfg lane.Config) *lane.Lane {
		cfg.Journal, cfg.Node = j, "n1"
		l, err := lane.Open(ctx, id, id, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
	p := &watcher{t: t, name: "AAA through the relay", c: other.dial(t)}
	w := &watcher{t: t, name: "a watcher through the relay", c: other.dial(t)}
	p.send(`{"type":"join","name":"AAA","id":"join"}`)
	p.next("welcome", func(m wireMsg) bool { return m.Type == "welcome" })
	p.send(`{"type":"start","id":"start"}`)
	p.next("the start's ack", func(m wireMsg) bool { return m.Ref == "start" && m.Type == "ack" })
	p.send(`{"type":"roll","pins":3,"frame":1,"ball":1,"id":"r1"}`)
	p.next("r1's ack", func(m wireMsg) bool { return m.Ref == "r1" && m.Type == "ack" })
	_, before := k.l.Board()
	w.next("r1's board", func(m wireMsg) bool { return m.Type == "board" && m.Seq == before })

	// The lane's node dies: r2 reaches it and is stored, but its answer
	// never comes back; r3 does not reach it.
	k.mute.Store(true)
	p.send(`{"type":"roll","pins":4,"frame":1,"ball":2,"id":"r2"}`)
	waitFor(t, "the lane to store r2", func() bool {
		var b protocol.Board
		json.Unmarshal(k.l.BoardJSON(), &b)
		return b.Up != nil && b.Up.Frame == 2
	})
	k.deaf.Store(true)
	p.send(`{"type":"roll","pins":5,"frame":2,"ball":1,"id":"r3"}`)
	waitFor(t, "r3 to cross", func() bool {
		k.mu.Lock()
		defer k.mu.Unlock()
		return len(k.crossed) > 0 && string(k.crossed[len(k.crossed)-1]) == `{"type":"roll","pins":5,"frame":2,"ball":1,"id":"r3"}`
	})

	log, err := j.Read(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := lane.Restore(ctx, log, lane.Config{Journal: j, Node: "n2", Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	var ran sync.WaitGroup
	ran.Go(func() {
		if err := l2.Run(runCtx); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("the lane taken over: Run = %v", err)
		}
	})
	defer func() { stop(); ran.Wait() }()
	if !move(t, k, l2) {
		t.Fatal("the lane's take-over: the relay could not move its connections")
	}

	// The player holds their seat as they did: no welcome tells them so
	// again.
	answer := func(ref string) wireMsg {
		return p.next("the answer to "+ref, func(m wireMsg) bool {
			if m.Type == "welcome" {
				t.Errorf("the player was welcomed again after the take-over: %s", m.raw)
			}
			return m.Ref == ref
		})
	}
	if m := answer("r2"); m.Type != "ack" || m.Seq>>32 <= before>>32 {
		t.Errorf("r2, stored by the dead node, was answered %s; want its ack, of the new epoch", m.raw)
	}
	if m := answer("r3"); m.Type != "ack" {
		t.Errorf("r3, which never reached the dead node, was answered %s; want an ack", m.raw)
	}
	if p.board.Seq>>32 <= before>>32 {
		t.Errorf("the player's newest board is of seq %#x, want one of a later epoch than %#x", p.board.Seq, before)
	}
	p.send(`{"type":"roll","pins":2,"frame":2,"ball":2,"id":"r4"}`)
	if m := answer("r4"); m.Type != "ack" {
		t.Errorf("the player's roll after the handover was answered %s; want an ack", m.raw)
	}
	_, last := l2.Board()
	w.next("the board of r4", func(m wireMsg) bool { return m.Type == "board" && m.Seq == last })
	var b protocol.Board
	json.Unmarshal(l2.BoardJSON(), &b)
	if len(b.Players) != 1 || !b.Players[0].Connected || b.Spectators != 1 {
		t.Errorf("the lane taken over shows %d watchers and players %+v; want AAA connected and 1 watcher", b.Spectators, b.Players)
	}
	for _, c := range []*watcher{p, w} {
		select {
		case <-c.c.done:
			t.Errorf("%s was disconnected: %v", c.name, c.c.err)
		default:
		}
	}
}

// waitFor waits until cond holds, failing the test after wait.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", wait, what)
		}
		time.Sleep(time.Millisecond)
	}
}
