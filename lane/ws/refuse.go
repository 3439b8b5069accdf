package ws

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/protocol"
)

// RefuseTimeout bounds turning a WebSocket away ([Refuse]): writing the
// error, then the close handshake. A client that reads gets both in a
// round trip; one that does not holds its socket no longer than this.
const RefuseTimeout = time.Second

// Closing is what a connection closed for code is told: the WebSocket
// close status and the close frame's reason, both from protocol's table
// ([Status], [protocol.Code.CloseText]).
func Closing(code protocol.Code) (websocket.StatusCode, string) {
	return Status(code), code.CloseText()
}

// Refuse turns away a WebSocket request that reaches no lane (its
// address holds its limit): it upgrades the request, with opts (the
// origin check of a lane's socket), sends e as the client's one message
// and closes the connection as [Closing] says for e's code — for a
// limit, 1013 try again later, so that a page, which cannot read the
// status of a refused upgrade, knows to come back later, with backoff.
// The whole exchange ends within RefuseTimeout.
//
// It reports false if the request was not upgraded (the handshake's
// answer says why) or the client did not take the error.
func Refuse(w http.ResponseWriter, r *http.Request, opts *websocket.AcceptOptions, e *protocol.Error) bool {
	// The close handshake waits for the client's echo, up to 5 s inside
	// the library, and nothing it offers cuts that short: a client that
	// never answers would hold the socket, and a place among the server's
	// connections, that long. A deadline on the connection itself ends
	// the whole exchange after RefuseTimeout.
	hw := deadlineWriter{w, time.Now().Add(RefuseTimeout)}
	c, err := websocket.Accept(hw, r, opts)
	if err != nil {
		return false // Accept has answered the request
	}
	defer c.CloseNow()
	c.SetReadLimit(protocol.MaxMessageSize)
	ctx, cancel := context.WithTimeout(context.Background(), RefuseTimeout)
	defer cancel()
	data, _ := json.Marshal(e) // plain values: cannot fail
	if err := c.Write(ctx, websocket.MessageText, data); err != nil {
		return false
	}
	c.Close(Closing(e.Code))
	return true
}

// deadlineWriter hands over its connection with a deadline for every
// read and write on it.
type deadlineWriter struct {
	http.ResponseWriter
	deadline time.Time
}

func (w deadlineWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	if err := conn.SetDeadline(w.deadline); err != nil {
		conn.Close()
		return nil, nil, err
	}
	return conn, rw, nil
}
