package natspeers

import (
	"testing"

	"github.com/tenpin/tenpin/protocol"
)

// TestCloseFrame: a lane's reason to close a connection of another node
// crosses as its code and words, and comes out as they went in; a frame
// of a node of the version before, which sent a WebSocket status in the
// seq's place and the reason alone, closes the connection to reconnect.
func TestCloseFrame(t *testing.T) {
	for _, tt := range []struct {
		code   protocol.Code
		reason string
	}{
		{protocol.CodeServerRestarting, "the lane stopped here: reconnect, your seat is kept"},
		{protocol.CodeSpectatorsFull, "lane full"},
		{protocol.CodeInternal, "the lane failed\nand was closed"},
		{protocol.CodeLaneIdle, ""},
	} {
		kind, _, _, data, ok := unframe(frame(nil, kindClose, 7, 0, closing(tt.code, tt.reason)))
		if !ok || kind != kindClose {
			t.Fatalf("unframe: kind %c, %t", kind, ok)
		}
		if code, reason := closed(data); code != tt.code || reason != tt.reason {
			t.Errorf("closed(closing(%s, %q)) = %s, %q", tt.code, tt.reason, code, reason)
		}
	}
	if code, reason := closed([]byte("lane closed")); code != protocol.CodeServerRestarting || reason != "lane closed" {
		t.Errorf("an older node's close frame: %s, %q; want %s and its reason", code, reason, protocol.CodeServerRestarting)
	}
}
