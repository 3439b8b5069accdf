package ws_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// A lane served over HTTP: the handler upgrades the request and hands the
// connection to the lane, which sends the newcomer the board at once.
func ExampleAccept() {
	l := lane.New("demo", "Friday night", lane.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go l.Run(ctx)

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := ws.Accept(w, r, nil)
		if err != nil {
			return // Accept has answered the request
		}
		// The connection outlives the handler; the lane ends it.
		go ws.Serve(context.WithoutCancel(r.Context()), conn, l, ws.Config{})
	}))
	defer srv.Close()

	conn, err := client.Dial(ctx, srv.URL, l.ID())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.CloseNow()
	m, err := conn.Next(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	b := m.(*protocol.Board)
	fmt.Printf("%s of %q: %s, %d watching\n", b.Type, b.Name, b.Phase, b.Spectators)
	// Output: board of "Friday night": waiting, 1 watching
}
