package ws

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/protocol"
)

// Serve attaches an accepted connection to to, a lane or a relay of one,
// and runs it with cfg's settings until either side ends it or ctx ends. It reads the
// client's messages on the caller's goroutine and hands them over; writes
// happen on writer goroutines that exist only while something is queued
// (see [Conn.writeOut]), and pings on a timer. Serve closes the
// connection.
func Serve(ctx context.Context, conn *Conn, to lane.Endpoint, cfg Config) error {
	cfg, log := cfg.withDefaults(), to.Logger()
	ws := conn.ws
	ws.SetReadLimit(protocol.MaxMessageSize)
	conn.bc.setTimeout(cfg.WriteTimeout)
	conn.pingInterval, conn.pongTimeout = cfg.PingInterval, cfg.PongTimeout
	conn.limit.setRate(cfg.MessageRate, cfg.MessageBurst, time.Now())
	session, ok := to.Attach(ctx, conn)
	if !ok {
		ws.Close(websocket.StatusGoingAway, "lane closed")
		return errDropped
	}
	log.Debug("connection opened")
	conn.mu.Lock()
	conn.pinger = time.AfterFunc(conn.pingInterval, conn.ping)
	conn.mu.Unlock()

	err := readLoop(ctx, conn, session, log, cfg.MessageRate)
	if err == nil {
		// The reader dropped the client: let the writer write what is
		// queued and close the connection, saying why.
		conn.wg.Wait()
		err = errDropped
	}
	conn.end()
	ws.CloseNow()
	conn.wg.Wait()
	if f := conn.failure(); f != nil && errors.Is(err, net.ErrClosed) {
		err = f // the writer closed the connection, and knows why
	}
	session.Detach()
	log.Debug("connection closed", "status", websocket.CloseStatus(err), "skipped", conn.skippedCount())
	return err
}

// readLoop reads client messages and hands them to the session, refusing
// those over the rate limit and binary ones on the way. It returns nil when
// it dropped the client.
//
// The lane goroutine decodes what it is handed: JSON decoding runs deep,
// and a reader that never does keeps a small stack, for as long as its
// connection lasts.
func readLoop(ctx context.Context, conn *Conn, s lane.Session, log *slog.Logger, rate float64) error {
	for {
		typ, data, err := conn.ws.Read(ctx)
		if conn.limit.flooded() {
			// With pings or pongs, while Read waited for a message: it
			// dropped the client (see Accept).
			log.Info("connection dropped for flooding")
			return nil
		}
		if err != nil {
			return err
		}
		var refusal error
		switch {
		case !conn.limit.allow(time.Now()):
			if conn.limit.flooded() {
				log.Info("connection dropped for flooding")
				return nil
			}
			refusal = protocol.Errorf(protocol.CodeRateLimited, "more than %g messages a second; slow down", rate)
		case typ != websocket.MessageText:
			data = nil
			refusal = protocol.Errorf(protocol.CodeBadMessage, "binary frames are not tenpin messages; send JSON text")
		}
		var ok bool
		if refusal != nil {
			ok = s.Refuse(ctx, data, refusal)
		} else {
			ok = s.Read(ctx, data)
		}
		if !ok {
			return errDropped
		}
	}
}
