package server_test

import (
	"fmt"
	"testing"

	"github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/lobby/server/servertest"
	"github.com/tenpin/tenpin/protocol"
)

// TestRelayedJoinsSpendTheirLimit: a join on another node's lane, through
// this node's relay, spends the address's joins as on its own lane, and a
// message sent after it under its id cannot give them back: a relay
// answers a message it refuses at once, and that answer, carrying the
// join's id, read as the join's refusal. Before, each join and its twin
// cost nothing, and the joins per address did not hold on a relay.
func TestRelayedJoinsSpendTheirLimit(t *testing.T) {
	const burst = 3
	var cfg server.Config
	cfg.Lobby.JoinsPerAddr = burst
	nodes := servertest.StartCluster(t, 2, cfg)
	ctx := t.Context()
	l, err := nodes[0].API.Create(ctx, protocol.CreateLane{Name: "Friday", Open: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := nodes[1].API.Dial(ctx, l.ID) // relayed to nodes[0]
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	var welcomed, limited int
	for i := range 2 * burst {
		id := fmt.Sprint("j", i)
		join := fmt.Sprintf(`{"type":"join","name":"Mina","id":%q}`, id)
		twin := fmt.Sprintf(`{"type":"zz","id":%q}`, id)
		if err := c.Send(ctx, []byte(join)); err != nil {
			t.Fatal(err)
		}
		if err := c.Send(ctx, []byte(twin)); err != nil {
			t.Fatal(err)
		}
		// The join's answer, and the twin's, in either order.
		seated := false
		for got := 0; got < 2; {
			m, err := c.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			switch m := m.(type) {
			case *protocol.Welcome:
				welcomed++
				seated = true
				got++
			case *protocol.Error:
				if m.Code == protocol.CodeRateLimited && m.Ref == id {
					limited++
				}
				got++
			}
		}
		if seated {
			if _, err := c.Leave(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if welcomed != burst || limited != burst {
		t.Errorf("%d joins on a relayed lane, each with a twin under its id: %d welcomed, %d refused rate_limited; want %d and %d", 2*burst, welcomed, limited, burst, burst)
	}
}
