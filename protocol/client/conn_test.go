package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// wait bounds every wait of these tests: a deadline for a failure, never
// a delay.
const wait = 10 * time.Second

// fakeLane serves one WebSocket with serve, the tests' stand-in for a
// lane, and returns the client's end as a Conn. serve runs on the
// server's goroutine and must not call t.Fatal; it reports what went
// wrong by returning an error, which fails the test.
func fakeLane(t *testing.T, serve func(ctx context.Context, ws *websocket.Conn) error) *client.Conn {
	t.Helper()
	c, err := client.Dial(ctxWait(t), fakeServer(t, serve), "fake")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// fakeServer serves fake lanes with serve and returns its URL.
func fakeServer(t *testing.T, serve func(ctx context.Context, ws *websocket.Conn) error) string {
	t.Helper()
	var wg sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			t.Errorf("accept: %v", err)
			return
		}
		wg.Add(1)
		defer wg.Done()
		defer ws.CloseNow()
		if err := serve(r.Context(), ws); err != nil {
			t.Errorf("fake lane: %v", err)
		}
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		wg.Wait()
	})
	return srv.URL
}

// answer reads one client message, which the server's own decoder must
// take, and answers it as a lane that accepts everything would.
func answer(ctx context.Context, ws *websocket.Conn) (raw string, err error) {
	_, data, err := ws.Read(ctx)
	if err != nil {
		return "", err
	}
	r, err := protocol.Decode(data)
	if err != nil {
		return string(data), fmt.Errorf("the server would refuse %s: %v", data, err)
	}
	var m any = protocol.Ack{Type: protocol.TypeAck, Ref: r.ID, Seq: 7}
	if r.Type == protocol.TypeJoin || r.Type == protocol.TypeResume {
		m = protocol.Welcome{Type: protocol.TypeWelcome, Ref: r.ID, Seat: 1, Name: "PJS", Token: "tok"}
	}
	return string(data), send(ctx, ws, m)
}

func send(ctx context.Context, ws *websocket.Conn, v any) error {
	data, ok := v.(string)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		data = string(b)
	}
	return ws.Write(ctx, websocket.MessageText, []byte(data))
}

func board(seq uint64) protocol.Board {
	return protocol.Board{Type: protocol.TypeBoard, Lane: "fake", Name: "Fake", Seq: seq, Phase: protocol.PhaseWaiting, Players: []protocol.Player{}}
}

func ctxWait(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

// TestCommandsEncode checks what every command sends, that the server's
// decoder takes it, and that its answer comes back typed. (What the lane
// does with the fair-play commands is the lane's tests'.)
func TestCommandsEncode(t *testing.T) {
	tests := []struct {
		name string
		call func(ctx context.Context, c *client.Conn) (protocol.Message, error)
		want string // the message sent, its id being the call's number
	}{
		{"join", func(ctx context.Context, c *client.Conn) (protocol.Message, error) { return c.Join(ctx, "pjs") },
			`{"type":"join","id":"1","name":"pjs"}`},
		{"resume", func(ctx context.Context, c *client.Conn) (protocol.Message, error) { return c.Resume(ctx, "9b2c-0e8a") },
			`{"type":"resume","id":"2","token":"9b2c-0e8a"}`},
		{"start", func(ctx context.Context, c *client.Conn) (protocol.Message, error) { return c.Start(ctx) },
			`{"type":"start","id":"3"}`},
		{"roll", func(ctx context.Context, c *client.Conn) (protocol.Message, error) { return c.Roll(ctx, 3, 2, 0) },
			`{"type":"roll","id":"4","pins":0,"frame":3,"ball":2}`},
		{"roll for", func(ctx context.Context, c *client.Conn) (protocol.Message, error) {
			return c.RollFor(ctx, "BOB", 10, 3, 10)
		},
			`{"type":"roll","id":"5","name":"BOB","pins":10,"frame":10,"ball":3}`},
		{"leave", func(ctx context.Context, c *client.Conn) (protocol.Message, error) { return c.Leave(ctx) },
			`{"type":"leave","id":"6"}`},
		{"rematch", func(ctx context.Context, c *client.Conn) (protocol.Message, error) { return c.Rematch(ctx) },
			`{"type":"rematch","id":"7"}`},
		{"correct", func(ctx context.Context, c *client.Conn) (protocol.Message, error) {
			return c.Correct(ctx, "", 2, 1, 7)
		},
			`{"type":"correct","id":"8","pins":7,"frame":2,"ball":1}`},
		{"correct for", func(ctx context.Context, c *client.Conn) (protocol.Message, error) {
			return c.Correct(ctx, "BOB", 2, 1, 7)
		},
			`{"type":"correct","id":"9","name":"BOB","pins":7,"frame":2,"ball":1}`},
		{"skip", func(ctx context.Context, c *client.Conn) (protocol.Message, error) { return c.Skip(ctx) },
			`{"type":"skip","id":"10"}`},
		{"remove", func(ctx context.Context, c *client.Conn) (protocol.Message, error) { return c.Remove(ctx, "BOB") },
			`{"type":"remove","id":"11","name":"BOB"}`},
		{"do", func(ctx context.Context, c *client.Conn) (protocol.Message, error) {
			return c.Do(ctx, protocol.Request{Type: protocol.TypeStart, ID: "mine"})
		}, `{"type":"start","id":"12"}`},
	}
	got := make(chan string, len(tests))
	c := fakeLane(t, func(ctx context.Context, ws *websocket.Conn) error {
		for range tests {
			raw, err := answer(ctx, ws)
			if err != nil {
				return err
			}
			got <- raw
		}
		return nil
	})
	ctx := ctxWait(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := tt.call(ctx, c)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if sent := <-got; sent != tt.want {
				t.Errorf("%s sent %s, want %s", tt.name, sent, tt.want)
			}
			switch m := m.(type) {
			case *protocol.Welcome:
				if m.Token != "tok" || !strings.HasPrefix(tt.want, `{"type":"join"`) && !strings.HasPrefix(tt.want, `{"type":"resume"`) {
					t.Errorf("%s answered %+v", tt.name, m)
				}
			case *protocol.Ack:
				if m.Seq != 7 {
					t.Errorf("%s answered %+v", tt.name, m)
				}
			default:
				t.Errorf("%s answered %T", tt.name, m)
			}
		})
	}
}

// TestRefusal: a refused command returns the server's *protocol.Error,
// and the wrong kind of answer is an error too.
func TestRefusal(t *testing.T) {
	c := fakeLane(t, func(ctx context.Context, ws *websocket.Conn) error {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return err
		}
		r, _ := protocol.Decode(data)
		if err := send(ctx, ws, protocol.Error{Type: protocol.TypeError, Code: protocol.CodeStaleRoll, Message: "frame 1 ball 1 is not PJS's next ball", Ref: r.ID}); err != nil {
			return err
		}
		_, data, err = ws.Read(ctx)
		if err != nil {
			return err
		}
		r, _ = protocol.Decode(data)
		return send(ctx, ws, protocol.Ack{Type: protocol.TypeAck, Ref: r.ID, Seq: 3})
	})
	ctx := ctxWait(t)
	_, err := c.Roll(ctx, 1, 1, 10)
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeStaleRoll {
		t.Errorf("refused roll: error %v, want a *protocol.Error with code stale_roll", err)
	}
	if w, err := c.Join(ctx, "PJS"); err == nil || w != nil || errors.As(err, &pe) {
		t.Errorf("join answered with an ack: %+v, %v; want an error that is no *protocol.Error", w, err)
	}
}

// TestAnswersByID: answers reach the commands they answer, whatever their
// order, and boards sent while a command waits wait for Next, in order.
func TestAnswersByID(t *testing.T) {
	const n = 5
	c := fakeLane(t, func(ctx context.Context, ws *websocket.Conn) error {
		var ids []string
		for range n {
			_, data, err := ws.Read(ctx)
			if err != nil {
				return err
			}
			r, err := protocol.Decode(data)
			if err != nil {
				return err
			}
			ids = append(ids, r.ID)
		}
		for i := len(ids) - 1; i >= 0; i-- { // the last first, each after a board
			if err := send(ctx, ws, board(uint64(n-i))); err != nil {
				return err
			}
			if err := send(ctx, ws, protocol.Ack{Type: protocol.TypeAck, Ref: ids[i], Seq: uint64(100 + i)}); err != nil {
				return err
			}
		}
		return nil
	})
	ctx := ctxWait(t)
	var wg sync.WaitGroup
	acks := make([]*protocol.Ack, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { acks[i], errs[i] = c.Roll(ctx, 1, 1, i) })
	}
	wg.Wait()
	refs := map[string]bool{}
	for i := range n {
		if errs[i] != nil || acks[i] == nil {
			t.Fatalf("roll %d: %+v, %v", i, acks[i], errs[i])
		}
		refs[acks[i].Ref] = true
	}
	if len(refs) != n {
		t.Errorf("the rolls got the acks %v, want %d different ones", refs, n)
	}
	for want := uint64(1); want <= n; want++ {
		m, err := c.Next(ctx)
		if b, ok := m.(*protocol.Board); err != nil || !ok || b.Seq != want {
			t.Fatalf("Next = %+v, %v; want board %d", m, err, want)
		}
	}
}

// TestQueueKeepsNewest: a reader that falls behind loses the oldest
// boards, never a notice or an answer.
func TestQueueKeepsNewest(t *testing.T) {
	const boards = client.MaxQueued + 10
	c := fakeLane(t, func(ctx context.Context, ws *websocket.Conn) error {
		if err := send(ctx, ws, protocol.Error{Type: protocol.TypeError, Code: protocol.CodeSeatTakenOver, Message: "taken"}); err != nil {
			return err
		}
		for seq := uint64(1); seq <= boards; seq++ {
			if err := send(ctx, ws, board(seq)); err != nil {
				return err
			}
			if seq == 20 { // an answer to a message sent with Send
				if err := send(ctx, ws, protocol.Ack{Type: protocol.TypeAck, Ref: "mine", Seq: 20}); err != nil {
					return err
				}
			}
		}
		if _, err := answer(ctx, ws); err != nil { // everything before is read once this is answered
			return err
		}
		ws.Read(ctx) // until the client closes
		return nil
	})
	ctx := ctxWait(t)
	if _, err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := c.Next(ctx)
	if e, ok := m.(*protocol.Error); err != nil || !ok || e.Code != protocol.CodeSeatTakenOver {
		t.Fatalf("first Next = %+v, %v; want the notice", m, err)
	}
	var seqs []uint64
	var acked bool
	for range client.MaxQueued - 1 {
		m, err := c.Next(ctx)
		switch m := m.(type) {
		case *protocol.Board:
			seqs = append(seqs, m.Seq)
		case *protocol.Ack:
			acked = m.Ref == "mine"
		default:
			t.Fatalf("Next = %+v, %v", m, err)
		}
	}
	if !acked || len(seqs) != client.MaxQueued-2 || seqs[0] != boards-uint64(len(seqs))+1 || seqs[len(seqs)-1] != boards {
		t.Errorf("after a notice, Next returned the ack: %v, and the boards %v; want the ack and the newest %d boards", acked, seqs, client.MaxQueued-2)
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if m, err := c.Next(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Next of an empty queue = %+v, %v; want the context's error", m, err)
	}
}

// TestNextAfterTheEnd: Next returns what came before the connection
// ended, then the end, with the server's close status; so do commands.
func TestNextAfterTheEnd(t *testing.T) {
	c := fakeLane(t, func(ctx context.Context, ws *websocket.Conn) error {
		for _, m := range []any{board(1), `{"type":"board","seq":"two"}`, board(3)} {
			if err := send(ctx, ws, m); err != nil {
				return err
			}
		}
		return ws.Close(websocket.StatusGoingAway, "restarting")
	})
	ctx := ctxWait(t)
	raw, err := c.NextRaw(ctx)
	if want, _ := json.Marshal(board(1)); err != nil || string(raw) != string(want) {
		t.Errorf("NextRaw = %s, %v; want %s", raw, err, want)
	}
	if m, err := c.Next(ctx); !errors.Is(err, protocol.ErrUndecodable) {
		t.Errorf("Next of a board that does not decode = %+v, %v; want an error wrapping protocol.ErrUndecodable", m, err)
	}
	if m, err := c.Next(ctx); err != nil || m.(*protocol.Board).Seq != 3 {
		t.Errorf("Next after an undecodable message = %+v, %v; want board 3", m, err)
	}
	m, err := c.Next(ctx)
	if !errors.Is(err, client.ErrClosed) || websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("Next at the end = %+v, %v; want ErrClosed with status going away", m, err)
	}
	if _, err := c.Start(ctx); !errors.Is(err, client.ErrClosed) {
		t.Errorf("Start after the end: %v, want ErrClosed", err)
	}
	select {
	case <-c.Done():
	case <-time.After(wait):
		t.Error("Done not closed")
	}
}

// TestSend: a message sent as it is gets its answer from Next, refusal
// included.
func TestSend(t *testing.T) {
	c := fakeLane(t, func(ctx context.Context, ws *websocket.Conn) error {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return err
		}
		r, err := protocol.Decode(data)
		var pe *protocol.Error
		if !errors.As(err, &pe) {
			return fmt.Errorf("decoded %s: %+v, %v; want a refusal", data, r, err)
		}
		pe.Ref = r.ID
		return send(ctx, ws, pe)
	})
	ctx := ctxWait(t)
	if err := c.Send(ctx, []byte(`{"type":"roll","pins":-0,"frame":1,"ball":1,"id":"z"}`)); err != nil {
		t.Fatal(err)
	}
	m, err := c.Next(ctx)
	if e, ok := m.(*protocol.Error); err != nil || !ok || e.Code != protocol.CodeBadMessage || e.Ref != "z" {
		t.Errorf("Next = %+v, %v; want the refusal of z", m, err)
	}
}

// TestDialFunc: a Conn with a func hands it every message that answers no
// command, in order, on its reading goroutine, while commands get their
// answers; Next only waits for the end.
func TestDialFunc(t *testing.T) {
	url := fakeServer(t, func(ctx context.Context, ws *websocket.Conn) error {
		for _, m := range []any{board(1), protocol.Error{Type: protocol.TypeError, Code: protocol.CodeRemoved, Message: "removed"}} {
			if err := send(ctx, ws, m); err != nil {
				return err
			}
		}
		_, data, err := ws.Read(ctx)
		if err != nil {
			return err
		}
		r, _ := protocol.Decode(data)
		for _, m := range []any{board(2), protocol.Ack{Type: protocol.TypeAck, Ref: r.ID, Seq: 2}, board(3)} {
			if err := send(ctx, ws, m); err != nil {
				return err
			}
		}
		return ws.Close(websocket.StatusNormalClosure, "")
	})
	ctx := ctxWait(t)
	got := make(chan string, 10)
	c, err := (&client.Client{URL: url}).DialFunc(ctx, "fake", func(data []byte) {
		got <- string(data) // a copy: data is the Conn's again after
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if a, err := c.Start(ctx); err != nil || a.Seq != 2 {
		t.Fatalf("Start = %+v, %v", a, err)
	}
	if _, err := c.Next(ctx); !errors.Is(err, client.ErrClosed) {
		t.Errorf("Next = %v, want ErrClosed at the end", err)
	}
	close(got)
	var seqs []string
	for data := range got {
		m, err := protocol.DecodeMessage([]byte(data))
		switch m := m.(type) {
		case *protocol.Board:
			seqs = append(seqs, fmt.Sprint(m.Seq))
		case *protocol.Error:
			seqs = append(seqs, string(m.Code))
		default:
			t.Errorf("the func got %s (%v)", data, err)
		}
	}
	if s := strings.Join(seqs, " "); s != "1 removed 2 3" {
		t.Errorf("the func got %s, want boards 1, 2 and 3 and the notice, in order", s)
	}
}
