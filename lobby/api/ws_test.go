package api

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// TestSocketRefusalsInOrder: the lobby decides a WebSocket in order —
// the connection counted on the server and its address, then the lane
// looked for, then the connection counted on the lane — and the API
// tells each refusal its way: a limit per address after the upgrade, with
// an error and a close (a page cannot read a refused upgrade's status),
// anything else with a plain HTTP answer. An address at its limit asking
// for a lane that does not exist is told its limit: the limits come
// before the looking, which in a cluster costs requests to other nodes.
func TestSocketRefusalsInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lb := newInMemory(lobby.Config{ConnsPerAddr: 2, ConnsPerLaneAddr: 1})
		defer runBubbled(lb)()
		var lanes [2]string
		for i := range lanes {
			l, err := lb.Create(t.Context(), "lane")
			if err != nil {
				t.Fatal(err)
			}
			lanes[i] = l.ID()
		}
		const nowhere = "0000000000000000" // no lane has this id
		dial, stop := servePipes(t, lb)
		defer stop()
		steps := []struct {
			what    string
			lane    string
			status  int           // of a refusal told before the upgrade; 0: upgraded
			code    protocol.Code // of a refusal, either way; "": served
			message string        // in the refusal
			conns   int           // the server's connections after it
		}{
			{"the first lane", lanes[0], 0, "", "", 1},
			{"the first lane again", lanes[0], 0, protocol.CodeRateLimited, "on this lane", 1},
			{"no such lane", nowhere, http.StatusNotFound, protocol.CodeLaneNotFound, nowhere, 1},
			{"the second lane", lanes[1], 0, "", "", 2},
			{"no such lane, the address at its limit", nowhere, 0, protocol.CodeRateLimited, "WebSocket connections open", 2},
		}
		for _, st := range steps {
			c, res, err := dial(st.lane)
			switch {
			case st.status != 0:
				var e protocol.Error
				if err == nil || res == nil || res.StatusCode != st.status {
					t.Fatalf("%s: %v (%v), want a plain %d", st.what, res, err, st.status)
				}
				body, _ := io.ReadAll(res.Body)
				if json.Unmarshal(body, &e) != nil || e.Code != st.code || !strings.Contains(e.Message, st.message) {
					t.Errorf("%s: told %s, want %s, %q in it", st.what, body, st.code, st.message)
				}
			case err != nil:
				t.Fatalf("%s: not upgraded: %v", st.what, err)
			case st.code == "":
				defer c.CloseNow()
				if _, data, err := c.Read(t.Context()); err != nil || !strings.Contains(string(data), `"type":"board"`) {
					t.Fatalf("%s: sent %s (%v), want the board", st.what, data, err)
				}
			default:
				var m struct{ Type, Code, Message string }
				_, data, err := c.Read(t.Context())
				if err != nil || json.Unmarshal(data, &m) != nil || m.Type != "error" || m.Code != string(st.code) || !strings.Contains(m.Message, st.message) {
					t.Errorf("%s: sent %s (%v), want the error %s, %q in it", st.what, data, err, st.code, st.message)
				}
				if _, _, err := c.Read(t.Context()); websocket.CloseStatus(err) != websocket.StatusTryAgainLater {
					t.Errorf("%s: then closed with %v, want %v", st.what, err, websocket.StatusTryAgainLater)
				}
				c.CloseNow()
			}
			synctest.Wait() // the server is done with what it refused
			if n := lb.Admission().Connections(); n != st.conns {
				t.Errorf("%s: the server holds %d connections, want %d", st.what, n, st.conns)
			}
		}
		want := map[string]int64{lobby.LimitConnsPerAddr: 1, lobby.LimitLaneConns: 1}
		for limit, n := range want {
			if got := lb.Admission().RateLimited()[limit]; got != n {
				t.Errorf("RateLimited()[%s] = %d, want %d", limit, got, n)
			}
		}
	})
}
