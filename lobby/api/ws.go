package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// badHandshake counts, among the refusals, the WebSocket requests whose
// upgrade failed (ws.Accept has answered them itself): never sent.
const badHandshake protocol.Code = "bad_handshake"

// serveWS answers GET /ws/lanes/{id}: a WebSocket connection to the lane,
// wherever in the cluster it runs, if the lobby admits it (see
// lobby.Lobby.Admit, which decides; this only upgrades and tells).
func (a *API) serveWS(w http.ResponseWriter, r *http.Request) {
	id, addr := r.PathValue("id"), a.admit.ClientAddr(r)
	to, release, err := a.lanes.Admit(r.Context(), id, addr)
	if err != nil {
		a.refuseWS(w, r, err, release)
		return
	}
	conn, err := ws.Accept(w, r, a.acceptOptions())
	if err != nil {
		release()
		a.admit.CountRefusal(badHandshake, "")
		a.log.Debug("websocket refused", "lane", id, "err", err)
		return // Accept has answered the request
	}
	// The connection outlives this handler: returning frees the handler's
	// stack and net/http's buffers for the request, which a connection held
	// for hours would otherwise keep, and no goroutine waits for its end.
	// Lanes end their connections when they stop, so the request's
	// cancellation is not needed, nor its context at all: kept, it would
	// keep net/http's contexts for the connection and the addresses on
	// them (half a KiB a connection), for values nothing reads.
	ctx, remote := context.Background(), r.RemoteAddr
	a.log.Debug("connection opened", "lane", id, "remote", remote)
	ws.Start(ctx, conn, to, a.admit.Socket(addr), func(err error) {
		release()
		a.log.Debug("connection closed", "lane", id, "remote", remote, "status", websocket.CloseStatus(err))
	})
}

// refuseWS answers a WebSocket request the lobby did not admit, with
// err, Admit's error, and release, the function Admit returned with it.
func (a *API) refuseWS(w http.ResponseWriter, r *http.Request, err error, release func()) {
	var refused *lobby.AdmitError
	if !errors.As(err, &refused) { // the lane not found, or not reached
		a.failLane(w, r.PathValue("id"), err)
		return
	}
	e, known := lane.ErrorFor(refused)
	if !known {
		a.log.Error("request failed", "err", err)
	}
	a.admit.CountRefusal(e.Code, refused.Limit)
	if refused.Upgraded {
		defer release() // the refused socket counts until it is let go
		if ws.Refuse(w, r, a.acceptOptions(), e) {
			a.log.Debug("websocket turned away", "lane", r.PathValue("id"), "remote", r.RemoteAddr, "reason", e.Message)
		}
		return
	}
	if refused.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(refused.RetryAfter))
	}
	WriteError(w, e)
}

// acceptOptions are the options every WebSocket of the API is accepted,
// or refused, with.
func (a *API) acceptOptions() *websocket.AcceptOptions {
	return &websocket.AcceptOptions{OriginPatterns: a.originPatterns}
}
