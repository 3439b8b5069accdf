package lobby_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lobby"
)

func rollCount(b msg, name string) int {
	n := 0
	for _, p := range b.Players {
		if p.Name == name {
			for _, f := range p.Frames {
				n += len(f.Rolls)
			}
		}
	}
	return n
}

// TestKilledConnectionsLoseNoRolls plays a three-player game while
// connections are killed at random — between rolls, and right after a roll
// was sent, before its answer — and the players reconnect with their
// tokens. Every roll the server took is in the final board, once.
func TestKilledConnectionsLoseNoRolls(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "chaos")
	names := []string{"AAA", "BBB", "CCC"}
	conns := map[string]*client{}
	tokens := map[string]string{}
	for _, n := range names {
		conns[n] = s.dial(t, id)
		tokens[n] = conns[n].join(t, n).Token
	}
	watcher := s.dial(t, id)
	conns["AAA"].send(t, `{"type":"start","id":"s"}`)
	conns["AAA"].expectAck(t, "s")

	// kill drops a player's connection without a close frame, waits until
	// the lane has seen it go (so anything it sent has been handled), and
	// returns the latest board a new connection sees after resuming.
	connected := func(name string, want bool) func(msg) bool {
		return func(m msg) bool {
			for _, p := range m.Players {
				if p.Name == name {
					return p.Connected == want
				}
			}
			return false
		}
	}
	kill := func(name string) msg {
		conns[name].ws.CloseNow()
		watcher.boardWith(t, name+" offline", connected(name, false))
		c := s.dial(t, id)
		ref := "resume-" + name
		c.send(t, map[string]any{"type": "resume", "token": tokens[name], "id": ref})
		if w := c.waitFor(t, "welcome", func(m msg) bool { return m.Ref == ref }); w.Type != "welcome" || w.Name != name {
			t.Fatalf("resume for %s answered %s", name, w.raw)
		}
		conns[name] = c
		// Past this board, an offline board can only come from a new kill.
		watcher.boardWith(t, name+" online again", connected(name, true))
		return c.boardWith(t, name+" online", connected(name, true))
	}

	r := rand.New(rand.NewPCG(2026, 6))
	model, _ := bowling.NewMatch(names...)
	kills, lost := 0, 0
	for n := 0; !model.Over(); n++ {
		seat, frame, _ := model.Up()
		p := model.Players()[seat]
		name := string(p.Name)
		ball := p.Game.Ball()
		pins := r.IntN(p.Game.Standing() + 1)
		if r.IntN(6) == 0 {
			kill(name)
			kills++
		}
		ref := fmt.Sprintf("roll-%d", n)
		conns[name].send(t, map[string]any{"type": "roll", "pins": pins, "frame": frame, "ball": ball, "id": ref})
		if r.IntN(4) == 0 {
			b := kill(name) // before reading the answer: did the roll land?
			kills++
			switch rollCount(b, name) - p.Game.NumRolls() {
			case 1: // it did: the server took it
			case 0: // it was lost with the connection: bowl it again
				lost++
				conns[name].send(t, map[string]any{"type": "roll", "pins": pins, "frame": frame, "ball": ball, "id": ref + "-again"})
				conns[name].expectAck(t, ref+"-again")
			default:
				t.Fatalf("after a killed roll the board shows %d rolls for %s, the game had %d", rollCount(b, name), name, p.Game.NumRolls())
			}
		} else {
			conns[name].expectAck(t, ref)
		}
		if err := model.Roll(pins); err != nil {
			t.Fatal(err)
		}
	}
	b := watcher.boardWith(t, "the end", func(m msg) bool { return m.Phase == "finished" })
	checkBoard(t, "final board", b, model)
	for _, p := range b.Players {
		if !p.Connected {
			t.Errorf("%s is not connected at the end", p.Name)
		}
	}
	t.Logf("%d connections killed, %d rolls lost with them and bowled again", kills, lost)
	if kills == 0 {
		t.Error("no connection was killed: the test tested nothing")
	}
}
