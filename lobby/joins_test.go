package lobby_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
)

// TestJoinsPerAddr: the joins one address makes on lanes' sockets are
// bounded, on every connection it opens: past the burst a join is refused
// rate_limited and the connection stays, watching. A join the lane
// refuses stored nothing and costs nothing.
func TestJoinsPerAddr(t *testing.T) {
	const burst = 5
	s := newServer(t, lobby.Config{JoinsPerAddr: burst})
	id := s.createLane(t, "Friday night")
	c := s.dial(t, id)
	for i := range 2 * burst {
		ref := fmt.Sprint("bad", i)
		c.send(t, map[string]any{"type": "join", "name": "R2D2", "id": ref})
		c.expectError(t, ref, string(protocol.CodeInvalidName))
	}
	for i := range burst {
		c.send(t, map[string]any{"type": "join", "name": "Mina", "id": fmt.Sprint("j", i)})
		c.expectAck(t, fmt.Sprint("j", i))
		c.send(t, map[string]any{"type": "leave", "id": fmt.Sprint("l", i)})
		c.expectAck(t, fmt.Sprint("l", i))
	}
	c.send(t, map[string]any{"type": "join", "name": "Mina", "id": "over"})
	c.expectError(t, "over", string(protocol.CodeRateLimited))

	other := s.dial(t, id)
	other.send(t, map[string]any{"type": "join", "name": "Jun", "id": "other"})
	other.expectError(t, "other", string(protocol.CodeRateLimited))
	if got := s.lobby.Admission().RateLimited()[lobby.LimitJoins]; got != 2 {
		t.Errorf("joins refused for the limit, counted: %d, want 2", got)
	}
}

// TestNewBowlersPerAddr: the joins asking to be remembered of one address
// are bounded a day: past it such a join is refused rate_limited, saying
// to join without "remember me", which still seats. A join refused, or
// seated as a guest, costs nothing.
func TestNewBowlersPerAddr(t *testing.T) {
	const perDay = 2
	s := newServer(t, lobby.Config{BowlersPerAddr: perDay, Lane: lane.Config{Bowlers: memjournal.NewBowlers()}})
	id := s.createLane(t, "Friday night")
	c := s.dial(t, id)
	for i := range 2 * perDay {
		ref := fmt.Sprint("bad", i)
		c.send(t, map[string]any{"type": "join", "name": "R2D2", "remember": true, "id": ref})
		c.expectError(t, ref, string(protocol.CodeInvalidName))
	}
	for i := range perDay {
		ref := fmt.Sprint("r", i)
		c.send(t, map[string]any{"type": "join", "name": "Mina", "remember": true, "id": ref})
		if c.expectAck(t, ref).BowlerKey == "" {
			t.Fatalf("remembered join %d: no bowler key", i)
		}
		c.send(t, map[string]any{"type": "leave", "id": fmt.Sprint("l", i)})
		c.expectAck(t, fmt.Sprint("l", i))
	}
	c.send(t, map[string]any{"type": "join", "name": "Mina", "remember": true, "id": "over"})
	m := c.expectError(t, "over", string(protocol.CodeRateLimited))
	if want := fmt.Sprintf("asked to be remembered %d times today", perDay); !strings.Contains(m.Message, want) {
		t.Errorf("the refusal says %q, want it to say %q", m.Message, want)
	}
	c.send(t, map[string]any{"type": "join", "name": "Mina", "id": "guest"})
	if w := c.expectAck(t, "guest"); w.BowlerKey != "" {
		t.Errorf("a guest's join past the limit got a bowler key")
	}
}
