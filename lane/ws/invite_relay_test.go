package ws

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/relay"
	"github.com/tenpin/tenpin/protocol"
)

// TestRelayedInvitations: through a relay, a join without the lane's
// invitation is refused and one with it seats; the host's new_invite is
// acknowledged with a new invitation, which seats, while the old one no
// longer does; and no invitation crosses between the nodes, only their
// hashes.
func TestRelayedInvitations(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const key, invite = "the lane's host key", "the lane's first invitation"
		k := &link{remotes: make(map[uint64]lane.Session)}
		cfg := lane.Config{Logger: testLogger(t), HostKey: game.HashToken(key), Invite: game.HashToken(invite)}
		k.l = lane.New("invited", "invited", cfg)
		k.relay = relay.New(k.l.ID(), k, cfg)
		ctx, cancel := context.WithCancel(t.Context())
		ran := make(chan error, 1)
		go func() { ran <- k.l.Run(ctx) }()
		defer func() { cancel(); <-ran }()
		defer k.relay.Close(protocol.CodeLaneClosed, "the test is over")

		// answers returns what c was sent since the last look, boards
		// aside: each answer's type, ref and code or invitation.
		answers := func(c *Conn) (out []string, newInvite string) {
			for _, m := range c.take(nil) {
				var a struct {
					Type   protocol.Type `json:"type"`
					Ref    string        `json:"ref"`
					Code   protocol.Code `json:"code"`
					Invite string        `json:"invite"`
				}
				if json.Unmarshal(m.data, &a) != nil || a.Type == protocol.TypeBoard {
					continue
				}
				if a.Invite != "" {
					newInvite = a.Invite
				}
				out = append(out, fmt.Sprintf("%s %s %s", a.Type, a.Ref, a.Code))
			}
			return out, newInvite
		}
		send := func(c *Conn, msgs ...string) []string {
			s, _ := k.relay.Attach(t.Context(), c)
			for _, msg := range msgs {
				s.Read(t.Context(), []byte(msg))
			}
			synctest.Wait()
			got, _ := answers(c)
			return got
		}

		stranger, friend := newConn(), newConn()
		if got := send(stranger, `{"type":"join","name":"Bot","id":"none"}`, `{"type":"join","name":"Bot","invite":"a guess","id":"guess"}`); !slices.Equal(got, []string{"error none invitation_required", "error guess invitation_required"}) {
			t.Errorf("joins without the invitation through the relay were answered %q, want invitation_required twice", got)
		}
		if got := send(friend, `{"type":"join","name":"Kim","invite":"`+invite+`","id":"kim"}`); !slices.Equal(got, []string{"welcome kim "}) {
			t.Errorf("a join with the invitation was answered %q, want a welcome", got)
		}

		host := newConn()
		s, _ := k.relay.Attach(t.Context(), host)
		s.Read(t.Context(), []byte(`{"type":"join","name":"Ann","host_key":"`+key+`","id":"ann"}`))
		s.Read(t.Context(), []byte(`{"type":"new_invite","id":"new"}`))
		synctest.Wait()
		got, fresh := answers(host)
		if !slices.Equal(got, []string{"welcome ann ", "ack new "}) || len(fresh) < 20 || fresh == invite {
			t.Fatalf("the host's join and new_invite were answered %q with invitation %q; want a welcome, and an ack with a new invitation", got, fresh)
		}
		if b, err := hex.DecodeString(fresh); err == nil && len(b) == len(game.TokenHash{}) {
			t.Errorf("the ack carries a hash %q, not the invitation", fresh)
		}
		late, later := newConn(), newConn()
		if got := send(late, `{"type":"join","name":"Cy","invite":"`+invite+`","id":"old"}`); !slices.Equal(got, []string{"error old invitation_required"}) {
			t.Errorf("a join with the replaced invitation was answered %q, want invitation_required", got)
		}
		if got := send(later, `{"type":"join","name":"Di","invite":"`+fresh+`","id":"new"}`); !slices.Equal(got, []string{"welcome new "}) {
			t.Errorf("a join with the new invitation was answered %q, want a welcome", got)
		}
		var board protocol.Board
		json.Unmarshal(k.l.BoardJSON(), &board)
		if len(board.Players) != 3 {
			t.Errorf("%d seated, want Kim, Ann and Di: the seated keep their seats", len(board.Players))
		}

		k.checkNoneCrossed(t, key, invite, fresh)
	})
}
