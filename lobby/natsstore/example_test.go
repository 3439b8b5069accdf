package natsstore_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/lobby/natsstore"
)

func Example() {
	dir, err := os.MkdirTemp("", "tenpin")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	// The connection embeds a NATS server that stores in dir; the journal
	// keeps the lanes in its JetStream, and is closed before it.
	conn, err := natsconn.Open(ctx, natsconn.Config{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	j, err := natsstore.Open(ctx, conn, natsstore.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer j.Close()

	// Each append says where the lane ends: 0 for a new lane.
	last, _ := j.Append(ctx, "lane-1", 0, game.Open("lane-1", "Friday league", 4))
	last, _ = j.Append(ctx, "lane-1", last, game.Event{Kind: game.Claimed, Epoch: 1, Node: "a"})

	// A second server that still believes the lane ends at 0 is refused.
	_, err = j.Append(ctx, "lane-1", 0, game.Open("lane-1", "Saturday league", 4))
	fmt.Println("stale append refused:", errors.Is(err, game.ErrConflict))

	lane, _ := j.Read(ctx, "lane-1", 0)
	for _, e := range lane.Events {
		fmt.Println(e.Kind)
	}
	fmt.Println("ends where the last append did:", lane.Last == last)
	// Output:
	// stale append refused: true
	// opened
	// claimed
	// ends where the last append did: true
}
