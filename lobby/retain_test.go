package lobby_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby"
)

// trackedCtx is a request's context whose collection a test can see.
type trackedCtx struct{ context.Context }

func TestAConnectionKeepsNothingOfItsRequest(t *testing.T) {
	// A connection outlives the request that opened it, by hours: it must
	// not keep the request's context, nor what net/http hangs on it.
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "Friday night")
	freed := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := &trackedCtx{r.Context()}
		runtime.AddCleanup(ctx, func(ch chan struct{}) { close(ch) }, freed)
		s.api.ServeHTTP(w, r.WithContext(ctx))
	}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/ws/lanes/"+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if _, _, err := ws.Read(ctx); err != nil { // the board: the handler has returned
		t.Fatal(err)
	}
	// A cleanup runs on a goroutine of its own some time after the
	// collection that finds the context unreachable: collect until it has.
	polltest.Until(t, wait, "the request's context to be collected while its connection is open", func() (any, bool) {
		runtime.GC()
		select {
		case <-freed:
			return nil, true
		default:
			return "the open connection keeps it", false
		}
	})
}
