package ws

import (
	"testing"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/protocol"
)

// TestStatus: the WebSocket close status of each reason a lane closes a
// connection for. A full lane says to try again later, a failed one that
// the server erred; the others that the lane went away, to reconnect.
func TestStatus(t *testing.T) {
	for _, tt := range []struct {
		code protocol.Code
		want websocket.StatusCode
	}{
		{protocol.CodeInternal, websocket.StatusInternalError},
		{protocol.CodeSpectatorsFull, websocket.StatusTryAgainLater},
		{protocol.CodeLaneFull, websocket.StatusTryAgainLater},
		{protocol.CodeTooManyConnections, websocket.StatusTryAgainLater},
		{protocol.CodeRateLimited, websocket.StatusTryAgainLater},
		{protocol.CodeServerRestarting, websocket.StatusGoingAway},
		{protocol.CodeLaneClosed, websocket.StatusGoingAway},
		{protocol.CodeLaneIdle, websocket.StatusGoingAway},
		{protocol.CodeRemoved, websocket.StatusGoingAway},
		{"", websocket.StatusGoingAway},
	} {
		if got := Status(tt.code); got != tt.want {
			t.Errorf("Status(%q) = %v, want %v", tt.code, got, tt.want)
		}
	}
}
