package api

import (
	"errors"
	"net/http"
	"time"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// maxBodySize bounds the body of POST /api/lanes.
const maxBodySize = 4 << 10

// createLane answers POST /api/lanes: a lane created for the client's
// address, within its rate (lobby.CreateRate) and its lanes open at once
// (lobby.LanesPerAddr).
func (a *API) createLane(w http.ResponseWriter, r *http.Request) {
	// A page of another site can POST a form or text/plain to us without
	// asking first (a "simple" cross-origin request); JSON it cannot send
	// without a CORS preflight, which we never answer. So only JSON
	// creates lanes, and the label is checked before the rate is spent.
	if err := CheckJSON(r); err != nil {
		a.failErr(w, err)
		return
	}
	addr := a.admit.ClientAddr(r)
	if ok, wait := a.admit.AllowCreation(addr, time.Now()); !ok {
		a.tooMany(w, wait, lobby.LimitCreations, protocol.RefuseCreationsFast)
		return
	}
	var body protocol.CreateLane
	if !a.readJSON(w, r, maxBodySize, &body, `{"name":"Friday night"}`, false) {
		return
	}
	created, err := a.lanes.CreateFor(r.Context(), body, addr)
	if errors.Is(err, lobby.ErrAddrLimit) {
		// A lane nobody is on closes after the idle timeout: the soonest
		// one of this address's lanes can make room.
		idle := a.idleTimeout
		a.tooMany(w, idle, lobby.LimitLanesPerAddr, protocol.RefuseLanesAddrOpen, a.admit.LanesPerAddr(), idle)
		return
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	w.Header().Set("Location", "/api/lanes/"+created.ID)
	a.writeJSON(w, http.StatusCreated, created)
}

// readJSON reads a request's JSON body into v as ReadJSON does
// (example is a body like the one wanted; an empty body is {} if empty
// is true), or answers why not.
func (a *API) readJSON(w http.ResponseWriter, r *http.Request, limit int64, v any, example string, empty bool) bool {
	if err := ReadJSON(w, r, limit, v, example, empty); err != nil {
		a.failErr(w, err)
		return false
	}
	return true
}
