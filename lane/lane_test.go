package lane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
)

// These tests drive a lane's handlers directly from the test goroutine,
// standing in for the lane goroutine: deterministic, and free of sockets.

// openLane opens a lane stored in cfg.Journal.
func openLane(t testing.TB, id string, cfg Config) *Lane {
	t.Helper()
	l, err := Open(context.Background(), id, "test", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func attach(l *Lane) *Client {
	c := newClient(l)
	l.handle(context.Background(), request{op: opAttach, c: c})
	return c
}

// send hands the lane a message as a connection's reader does.
func (l *Lane) send(c *Client, raw string) {
	l.handle(context.Background(), request{op: opRead, c: c, data: []byte(raw)})
}

// roll returns a roll message for the ball up (the frame and ball the
// board shows), with extra fields (`,"id":"7"`) added.
func (l *Lane) roll(pins int, extra string) string {
	_, frame, ok := l.state.Match().Up()
	ball := 1
	if ok {
		ball = l.upGame().Ball()
	}
	return fmt.Sprintf(`{"type":"roll","pins":%d,"frame":%d,"ball":%d%s}`, pins, max(frame, 1), ball, extra)
}

// upGame returns the game of the player up.
func (l *Lane) upGame() *bowling.Game {
	seat, _, _ := l.state.Match().Up()
	return &l.state.Match().Players()[seat].Game
}

// replies returns the non-board messages queued for c, and empties its
// queue.
func replies(c *Client) []map[string]any {
	var out []map[string]any
	for _, m := range c.take(nil) {
		if m.board {
			continue
		}
		var v map[string]any
		json.Unmarshal(m.data, &v)
		out = append(out, v)
	}
	return out
}

func currentBoard(t testing.TB, l *Lane) protocol.Board {
	t.Helper()
	var b protocol.Board
	if err := json.Unmarshal(l.BoardJSON(), &b); err != nil {
		t.Fatal(err)
	}
	return b
}

// checkConsistent checks that a board agrees with package bowling replaying
// each player's rolls, and that the event log rebuilds the lane's state.
func checkConsistent(t testing.TB, l *Lane) {
	t.Helper()
	b := currentBoard(t, l)
	for _, p := range b.Players {
		var rolls []int
		for _, f := range p.Frames {
			rolls = append(rolls, f.Rolls...)
		}
		g, err := bowling.Replay(rolls)
		if err != nil {
			t.Fatalf("board of %s has impossible rolls %v: %v", p.Name, rolls, err)
		}
		if g.Total() != p.Total {
			t.Fatalf("board total of %s = %d, replaying %v gives %d", p.Name, p.Total, rolls, g.Total())
		}
		for i, f := range p.Frames {
			want := g.Frames()[i]
			score, ok := want.Score()
			if f.Marks != want.Marks() || (f.Score != nil) != ok || ok && *f.Score != score {
				t.Fatalf("board frame %d of %s = %+v, replay gives %q %d %v", i+1, p.Name, f, want.Marks(), score, ok)
			}
		}
	}
	rebuilt := game.Replay([]game.Event{l.state.Snapshot()})
	if rebuilt.Match().Board() != l.state.Match().Board() || rebuilt.Phase() != l.state.Phase() {
		t.Fatalf("a snapshot rebuilds\n%s%s\nbut the lane holds\n%s%s", rebuilt.Match().Board(), rebuilt.Phase(), l.state.Match().Board(), l.state.Phase())
	}
	if l.stored.journal != nil {
		log, err := l.stored.journal.Read(context.Background(), l.id, 0)
		if err != nil {
			t.Fatal(err)
		}
		replayed := game.Replay(log.Events)
		if replayed.Match().Board() != l.state.Match().Board() || replayed.Phase() != l.state.Phase() || log.Last != l.stored.last {
			t.Fatalf("the journal rebuilds\n%s%s (last %d)\nbut the lane holds\n%s%s (last %d)", replayed.Match().Board(), replayed.Phase(), log.Last, l.state.Match().Board(), l.state.Phase(), l.stored.last)
		}
	}
}

func TestLaneCommands(t *testing.T) {
	l := New("t1", "test", Config{})
	a, b, w := attach(l), attach(l), attach(l)
	l.send(a, `{"type":"join","name":"aaa","id":"1"}`)
	l.send(b, `{"type":"join","name":"BBB","id":"2"}`)
	if r := replies(a); len(r) != 1 || r[0]["type"] != "welcome" || r[0]["name"] != "aaa" || r[0]["seat"] != 0.0 || r[0]["ref"] != "1" {
		t.Fatalf("a's replies = %v", r)
	}
	replies(b)
	l.send(w, l.roll(3, `,"id":"3"`))
	if r := replies(w); len(r) != 1 || r[0]["code"] != "not_seated" || r[0]["ref"] != "3" {
		t.Fatalf("spectator's roll answered %v", r)
	}
	seq := l.shown.seq
	l.send(a, `{"type":"start","id":"4"}`)
	if r := replies(a); len(r) != 1 || r[0]["type"] != "ack" || r[0]["seq"] != float64(seq+1) {
		t.Fatalf("start answered %v, want ack at seq %d", r, seq+1)
	}
	l.send(b, l.roll(3, `,"id":"5"`))
	if r := replies(b); len(r) != 1 || r[0]["code"] != "not_your_turn" || r[0]["message"] != "it is aaa's turn, not BBB's" {
		t.Fatalf("roll out of turn answered %v", r)
	}
	l.send(a, l.roll(7, "")) // no id, no ack
	if r := replies(a); len(r) != 0 {
		t.Fatalf("a roll without an id answered %v", r)
	}
	board := currentBoard(t, l)
	if board.Up == nil || board.Up.Seat != 0 || board.Up.Standing != 3 || board.Spectators != 1 {
		t.Fatalf("board = %+v", board)
	}
	checkConsistent(t, l)

	// Every client got the same bytes for the same board (a's queue was
	// emptied by its last look at its replies).
	for _, c := range []*Client{b, w} {
		var last []byte
		for _, m := range c.take(nil) {
			if m.board {
				last = m.data
			}
		}
		if string(last) != string(l.BoardJSON()) {
			t.Errorf("a client's last board differs from the lane's")
		}
	}
}

// TestLaneGameFromEvents plays a random game, with refused commands mixed
// in, and checks after every command that the board is consistent and
// that the event log rebuilds the state.
func TestLaneGameFromEvents(t *testing.T) {
	l := openLane(t, "t2", Config{Journal: memjournal.New()})
	players := map[string]*Client{}
	for _, n := range []string{"AAA", "BBB", "CCC"} {
		players[n] = attach(l)
		l.send(players[n], fmt.Sprintf(`{"type":"join","name":%q}`, n))
	}
	l.send(players["AAA"], `{"type":"start"}`)
	for step := 0; l.state.Phase() == game.Playing; step++ {
		seat, _, _ := l.state.Match().Up()
		p := l.state.Match().Players()[seat]
		pins := (step * 7) % (p.Game.Standing() + 1)
		l.send(players["AAA"], l.roll(11, "")) // refused, whoever is up
		l.send(players[string(p.Name)], l.roll(pins, ""))
		if step == 30 {
			l.send(players["BBB"], `{"type":"leave"}`)
		}
		checkConsistent(t, l)
	}
	if l.state.Phase() != game.Finished {
		t.Fatalf("phase = %s, want finished", l.state.Phase())
	}
}

func TestLanePanicIsContained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs strings.Builder
		l := New("t3", "test", Config{Logger: slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))})
		other := New("t4", "other", Config{})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- l.Run(ctx) }()
		otherDone := make(chan error, 1)
		go func() { otherDone <- other.Run(ctx) }()
		defer func() { cancel(); <-otherDone }()
		c := attachRunning(t, l)
		// A roll without pins cannot come from the decoder; handed in
		// directly, it panics inside the lane goroutine.
		l.submit(ctx, request{op: opMessage, c: c, msg: &protocol.Request{Type: protocol.TypeJoin, Name: "AAA"}})
		l.submit(ctx, request{op: opMessage, c: c, msg: &protocol.Request{Type: protocol.TypeStart}})
		l.submit(ctx, request{op: opMessage, c: c, msg: &protocol.Request{Type: protocol.TypeRoll}})
		synctest.Wait()
		select {
		case err := <-done:
			if !errors.Is(err, ErrPanic) {
				t.Fatalf("Run = %v, want ErrPanic", err)
			}
		default:
			t.Fatal("lane did not stop after a panic")
		}
		if status, dropped := c.dropStatus(); !dropped {
			t.Fatal("client of a failed lane was not dropped")
		} else if status != protocol.CodeInternal {
			t.Errorf("client closed with %v, want %s", status, protocol.CodeInternal)
		}
		r := replies(c)
		if len(r) == 0 || r[len(r)-1]["code"] != "internal" {
			t.Errorf("client of a failed lane was told %v, want an internal error", r)
		}
		if _, ok := l.Attach(ctx, new(memConn)); ok {
			t.Error("a stopped lane accepted a connection")
		}
		if !strings.Contains(logs.String(), "lane=t3") || !strings.Contains(logs.String(), "lane panicked") {
			t.Errorf("the panic was not logged with the lane's id:\n%s", logs.String())
		}
		// The other lane goes on.
		oc := attachRunning(t, other)
		sendRunning(t, oc, `{"type":"join","name":"BBB","id":"j"}`)
		if r := replies(oc); len(r) != 1 || r[0]["type"] != "welcome" {
			t.Fatalf("the other lane answered a join with %v, want a welcome", r)
		}
	})
}

// syncWriter serializes writes to w, for a logger shared with a goroutine.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// FuzzLane feeds a lane arbitrary commands from three connections. No
// command may panic; after each, the board agrees with package bowling and
// the events rebuild the state; a refused command changes nothing.
func FuzzLane(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 10, 10, 10, 4, 5})
	f.Add([]byte{0, 1, 3, 10, 7, 3, 8, 2, 6, 9})
	f.Add([]byte{0, 3, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		l := openLane(t, "fz", Config{MaxPlayers: 2, Journal: memjournal.New()})
		clients := []*Client{attach(l), attach(l), attach(l)}
		names := []string{"AAA", "BBB", "ccc"}
		tokens := map[string]string{} // each seat's token, from its welcome
		for i, b := range data {
			c := clients[i%3]
			var msg string
			switch b % 16 {
			case 0, 1, 2:
				msg = fmt.Sprintf(`{"type":"join","name":%q,"id":"f"}`, names[b%3])
			case 3:
				msg = `{"type":"start","id":"f"}`
			case 4:
				msg = `{"type":"leave","id":"f"}`
			case 5:
				msg = `{"type":"rematch","id":"f"}`
			case 6:
				msg = fmt.Sprintf(`{"type":"resume","token":%q,"id":"f"}`, tokens[strings.ToUpper(names[b/16%3])])
			default:
				msg = l.roll(int(b/16)-2, `,"id":"f"`)
			}
			seq, board := l.shown.seq, string(l.BoardJSON())
			l.send(c, msg)
			refused := false
			for _, r := range replies(c) {
				refused = refused || r["type"] == "error" && r["ref"] == "f" // not a notice meant for another message
				if r["type"] == "welcome" {
					tokens[r["name"].(string)] = r["token"].(string)
				}
			}
			if refused && (l.shown.seq != seq || string(l.BoardJSON()) != board) {
				t.Fatalf("refused %s changed the lane", msg)
			}
			checkConsistent(t, l)
		}
	})
}

// orderedConn is a memConn that also writes into a log shared by several
// connections what each was queued, in the order the lane queued it.
type orderedConn struct {
	memConn
	name string
	log  *[]string
}

func (o *orderedConn) Board(b []byte, seq uint64) int {
	*o.log = append(*o.log, o.name+" board")
	return o.memConn.Board(b, seq)
}

func (o *orderedConn) Reply(b []byte, seq uint64) {
	*o.log = append(*o.log, o.name+" reply")
	o.memConn.Reply(b, seq)
}

// TestBowlerIsAckedBeforeWatchersAreQueued: the bowler's ack follows
// their own board at once, ahead of every watcher's: on a crowded lane
// it does not wait for thousands of boards to be queued.
func TestBowlerIsAckedBeforeWatchersAreQueued(t *testing.T) {
	l := New("crowd", "crowd", Config{MaxSpectators: 100})
	var log []string
	attachAs := func(name string) *Client {
		c := &Client{l: l, conn: &orderedConn{name: name, log: &log}}
		l.handle(t.Context(), request{op: opAttach, c: c})
		return c
	}
	aaa := attachAs("AAA")
	l.send(aaa, `{"type":"join","name":"AAA","id":"j"}`)
	l.send(aaa, `{"type":"start","id":"s"}`)
	for i := range 100 {
		attachAs(fmt.Sprint("watcher ", i))
	}
	log = log[:0]
	l.send(aaa, l.roll(7, `,"id":"r"`))
	if len(log) != 102 || log[0] != "AAA board" || log[1] != "AAA reply" {
		t.Errorf("a roll queued, in order: %q (%d), want AAA's board, its ack, then 100 watchers' boards", log[:min(len(log), 4)], len(log))
	}
}

// TestJoinStoredAlreadyTakesItsSeat: a join sent again with the token of
// one the lane stored (its answer lost with the node that stored it) is
// welcomed to that seat, not refused as a name taken; a join with a new
// token under that name still is.
func TestJoinStoredAlreadyTakesItsSeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New("again", "again", Config{})
		go l.Run(t.Context())
		join := protocol.Request{Type: protocol.TypeJoin, ID: "j1", Name: "Ann"}
		k := &Secrets{Token: game.HashToken("drawn-once"), Welcome: "hash-of-drawn-once"}

		first := attachRunning(t, l)
		first.ReadRequest(t.Context(), join, k, nil)
		synctest.Wait()
		first.Detach() // the answer never reached the client
		synctest.Wait()

		again := attachRunning(t, l)
		again.take(nil)
		again.ReadRequest(t.Context(), join, k, nil)
		synctest.Wait()
		got := replies(again)
		if len(got) != 1 || got[0]["type"] != "welcome" || got[0]["name"] != "Ann" || got[0]["token"] != "hash-of-drawn-once" || got[0]["ref"] != "j1" {
			t.Fatalf("the join sent again was answered %v; want Ann's welcome, with its token", got)
		}
		if n := len(currentBoard(t, l).Players); n != 1 {
			t.Errorf("%d players after the join sent again; want 1", n)
		}

		other := attachRunning(t, l)
		other.take(nil)
		other.ReadRequest(t.Context(), join, &Secrets{Token: game.HashToken("another"), Welcome: "another"}, nil)
		synctest.Wait()
		if got := replies(other); len(got) != 1 || got[0]["type"] != "error" {
			t.Errorf("a new join under Ann's name was answered %v; want a refusal", got)
		}
	})
}

// TestNewInviteIsValid: every invitation the server draws has the shape
// protocol.ValidInvite takes, and no two are alike.
func TestNewInviteIsValid(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		s := NewInvite()
		if !protocol.ValidInvite(s) || seen[s] {
			t.Fatalf("NewInvite() = %q: valid %t, seen before %t", s, protocol.ValidInvite(s), seen[s])
		}
		seen[s] = true
	}
}

// TestANewInvitationRidesOnItsOwnAck: the invitation a host's new_invite
// drew goes on that message's ack alone, not on another ack sent to the
// host first (a roll sent again, acknowledged at once while the
// new_invite's ack waits for its board).
func TestANewInvitationRidesOnItsOwnAck(t *testing.T) {
	l := New("invite", "invite", Config{})
	c := &Client{l: l, conn: new(memConn)}
	l.seats.invited, l.seats.invitedRef, l.seats.invite = c, "new", "THEINVITATION"
	if a := l.ackOf(c, "a roll again"); a.Invite != "" {
		t.Errorf("another ack carries the invitation: %+v", a)
	}
	if a := l.ackOf(c, "new"); a.Invite != "THEINVITATION" {
		t.Errorf("the new_invite's ack = %+v, want the invitation", a)
	}
	if a := l.ackOf(c, "new"); a.Invite != "" {
		t.Errorf("an ack after the new_invite's carries the invitation again: %+v", a)
	}
}
