package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// A game against a real server: create a lane, take a seat, start, roll,
// and follow the boards.
func Example() {
	// The server: a lobby, its lanes in memory.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lb := lobby.New(lobby.Config{Lane: lane.Config{Journal: memjournal.New()}})
	go lb.Run(ctx)
	srv := httptest.NewServer(server.API(lb, nil))
	defer srv.Close()

	c := &client.Client{URL: srv.URL}
	l, err := c.CreateLane(ctx, "Friday night")
	if err != nil {
		fmt.Println(err)
		return
	}
	conn, err := c.Dial(ctx, l.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()

	// The lane's creator joins with its host key: the lane waits for
	// them, and they host it.
	w, err := conn.JoinHost(ctx, "PJS", l.HostKey)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("seat", w.Seat, "for", w.Name)
	if _, err := conn.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	ack, err := conn.Roll(ctx, 1, 1, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The boards wait for Next, in order: skip to the first with the roll.
	for {
		m, err := conn.Next(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		if b, ok := m.(*protocol.Board); ok && b.Seq >= ack.Seq {
			fmt.Printf("%s: %s, then frame %d ball %d\n", b.Players[0].Name, b.Players[0].Frames[0].Marks, b.Up.Frame, b.Up.Ball)
			break
		}
	}

	// The same roll again is the ball bowled: acknowledged, it changes
	// nothing. Another count for that ball is refused: a roll names its
	// ball.
	if again, err := conn.Roll(ctx, 1, 1, 10); err == nil && again.Seq == ack.Seq {
		fmt.Println("again: the same ball")
	}
	_, err = conn.Roll(ctx, 1, 1, 9)
	var refused *protocol.Error
	if errors.As(err, &refused) {
		fmt.Println("a 9 for it:", refused.Code)
	}
	// Output:
	// seat 0 for PJS
	// PJS: X, then frame 2 ball 1
	// again: the same ball
	// a 9 for it: stale_roll
}
