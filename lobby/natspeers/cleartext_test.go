package natspeers_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	natsgo "github.com/nats-io/nats.go"

	"github.com/tenpin/tenpin/lobby/natspeers"
	"github.com/tenpin/tenpin/protocol"
)

// testNoSecretCrossesNodes: a lane's host, connected to a node that does
// not run the lane, joins with the host key, plays, loses the connection
// and resumes the seat through a third node, where a friend joins with
// the lane's invitation and the host draws a new one; a stranger's
// resume with a made-up token is refused. Neither the host key, the
// seat's token nor an invitation is
// in any message published in the cluster meanwhile (the sniffer
// subscribes to every subject of the nodes' account, on a node's own
// connection, which may subscribe to any), while the messages that used
// to carry them (the join and the resume to the lane's node, the welcomes
// back) are there: the relays carry hashes, and put the token back into
// the welcomes they deliver.
func testNoSecretCrossesNodes(t *testing.T, nodes []*node) {
	s := sniff(t, nodes, ">")
	ctx := t.Context()
	owner, first, second := nodes[0], nodes[1], nodes[2]
	created, err := owner.API.CreateLane(ctx, "no cleartext")
	if err != nil {
		t.Fatalf("creating a lane on %s: %v", owner.Name, err)
	}
	id, key := created.ID, created.HostKey

	aaa := dial(t, first, id, "AAA")
	w, err := aaa.conn.JoinHost(ctx, "AAA", key)
	if err != nil {
		t.Fatalf("AAA joins with the host key through %s: %v", first.Name, err)
	}
	token := w.Token
	if w.Name != "AAA" || w.Seat != 0 || token == "" {
		t.Fatalf("AAA's welcome through %s: %+v, want seat 0 with a token", first.Name, w)
	}
	a, err := aaa.conn.Start(ctx)
	if err != nil {
		t.Fatalf("AAA, the host, starts the game through %s: %v", first.Name, err)
	}
	aaa.acked("start", a)
	aaa.roll(1, 1, 3)
	aaa.conn.Close()

	stranger := dial(t, second, id, "a stranger")
	var pe *protocol.Error
	if _, err := stranger.conn.Resume(ctx, strings.Repeat("x", len(token))); !errors.As(err, &pe) || pe.Code != protocol.CodeBadToken {
		t.Errorf("a resume with a made-up token through %s: %v, want %s", second.Name, err, protocol.CodeBadToken)
	}

	aaa.at = second
	aaa.connect()
	w, err = aaa.conn.Resume(ctx, token)
	if err != nil {
		t.Fatalf("AAA resumes through %s: %v", second.Name, err)
	}
	if w.Name != "AAA" || w.Seat != 0 || w.Token != token {
		t.Errorf("AAA's welcome back through %s: %+v, want seat 0 and the token %q", second.Name, w, token)
	}
	// A friend joins with the lane's invitation through the second node,
	// and the host, on it too now, draws a new one.
	bbb := dial(t, second, id, "BBB")
	if _, err := bbb.conn.JoinInvited(ctx, "BBB", created.Invite); err != nil {
		t.Fatalf("BBB joins with the invitation through %s: %v", second.Name, err)
	}
	fresh, err := aaa.conn.NewInvite(ctx)
	if err != nil || !protocol.ValidInvite(fresh) || fresh == created.Invite {
		t.Fatalf("AAA's new invitation through %s: %q, %v", second.Name, fresh, err)
	}

	aaa.board = nil
	aaa.roll(1, 2, 4)
	if b := aaa.waitBoard("AAA's two balls", func(b *protocol.Board) bool {
		return len(b.Players[0].Frames) == 1 && len(b.Players[0].Frames[0].Rolls) == 2
	}); b.Host != "AAA" {
		t.Errorf("the board after the resume shows %q as the host, want AAA", b.Host)
	}

	// What carried the secrets before crossed all the same: the join and
	// the resumes, and the welcomes to both relays' connections.
	reads := func(node *node) string { return "tenpin.own." + id + ".read." + node.Name + "." }
	s.until(t, ">", "the join, the resumes and their welcomes", func(msgs []*natsgo.Msg) bool {
		var joins, resumes, welcomes, invited int
		for _, m := range msgs {
			switch {
			case strings.HasPrefix(m.Subject, reads(first)) && bytes.Contains(m.Data, []byte(`"join"`)):
				joins++
			case strings.HasPrefix(m.Subject, reads(second)) && bytes.Contains(m.Data, []byte(`"resume"`)):
				resumes++
			case strings.HasPrefix(m.Subject, "tenpin.to.") && strings.Contains(m.Subject, "."+id+"."):
				kind, _, _, data, ok := natspeers.Unframe(m.Data)
				if ok && kind == natspeers.KindReply && bytes.Contains(data, []byte(`"welcome"`)) {
					welcomes++
				}
				if ok && kind == natspeers.KindReply && bytes.Contains(data, []byte(`"invite":`)) {
					invited++
				}
			}
		}
		return joins >= 1 && resumes >= 2 && welcomes >= 3 && invited >= 1
	})
	msgs := s.on(">")
	for _, secret := range []struct{ what, text string }{{"the host key", key}, {"the seat's token", token}, {"the invitation", created.Invite}, {"the new invitation", fresh}} {
		for _, m := range msgs {
			if bytes.Contains(m.Data, []byte(secret.text)) || strings.Contains(fmt.Sprint(m.Header), secret.text) {
				t.Errorf("%s crossed on %s: %q", secret.what, m.Subject, m.Data)
			}
		}
	}
}
