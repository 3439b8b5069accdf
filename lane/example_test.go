package lane_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/protocol"
)

// A lane served over HTTP: the handler upgrades the request and hands the
// connection to the lane, which sends the newcomer the board at once.
func ExampleAccept() {
	l := lane.New("demo", "Friday night", lane.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go l.Run(ctx)

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := lane.Accept(w, r, nil)
		if err != nil {
			return // Accept has answered the request
		}
		// The connection outlives the handler; the lane ends it.
		go l.Serve(context.WithoutCancel(r.Context()), conn)
	}))
	defer srv.Close()

	ws, _, err := websocket.Dial(ctx, srv.URL, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.CloseNow()
	_, data, err := ws.Read(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	var b protocol.Board
	json.Unmarshal(data, &b)
	fmt.Printf("%s of %q: %s, %d watching\n", b.Type, b.Name, b.Phase, b.Spectators)
	// Output: board of "Friday night": waiting, 1 watching
}
