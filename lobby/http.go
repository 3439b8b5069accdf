package lobby

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/relay"
	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/protocol"
)

// Handler returns the routes that lobby/api does not serve itself yet: a
// lane's WebSocket endpoint (/ws/lanes/{id}), the leagues' API
// (/api/leagues/…) but for their recaps, and 404 for any other /api/
// path; serve lobby/api's New, which answers the others and passes these
// here. What each answers — fields, statuses, paging, headers — is
// documented once, in package protocol (go doc ./protocol, "HTTP").
// Every response carries the headers of [SetHeaders].
func (lb *Lobby) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ws/lanes/{id}", lb.serveWS)
	lb.leagueRoutes(mux)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		lb.fail(w, refuseNoAPI, r.Method, r.URL.Path)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetHeaders(w.Header())
		mux.ServeHTTP(w, r)
	})
}

// SetHeaders sets the headers every response of the server carries,
// whatever answers it: X-Content-Type-Options: nosniff, so that no
// browser takes an answer for another type than it says (JSON for a page
// or a script), and Referrer-Policy: no-referrer, so that no lane's URL —
// its invitation — leaks to another site.
func SetHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}

// fail answers a request with an API error, the refusal r with its
// arguments (a protocol.Error, with its code's HTTP status), and counts
// it by its code.
func (lb *Lobby) fail(w http.ResponseWriter, r Refusal, args ...any) {
	e := r.Error(args...)
	count(&lb.counters.refused, string(e.Code))
	WriteError(w, e)
}

// failErr answers a request with the refusal err carries (see
// lane.ErrorFor); an error of the server's own is logged, and the client
// is told only that the server failed.
func (lb *Lobby) failErr(w http.ResponseWriter, err error) {
	pe, known := lane.ErrorFor(err)
	if !known {
		lb.log.Error("request failed", "err", err)
	}
	count(&lb.counters.refused, string(pe.Code))
	WriteError(w, pe)
}

// WriteError answers a request with e, with its code's HTTP status.
func WriteError(w http.ResponseWriter, e *protocol.Error) {
	writeJSON(w, e.Code.Status(), e)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, refuseEncoding.Error().Message, http.StatusInternalServerError)
		return
	}
	writeJSONBytes(w, status, data)
}

func writeJSONBytes(w http.ResponseWriter, status int, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(data)
	w.Write([]byte{'\n'})
}

// Healthy returns nil while the store takes writes (Config.Health, asked
// for at most healthTimeout), else an error carrying what a client is
// told (see lane.ErrorFor).
func (lb *Lobby) Healthy(ctx context.Context) error {
	if lb.cfg.Health == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	if err := lb.cfg.Health(ctx); err != nil {
		return fmt.Errorf("%w: %w", refuseStoreDown.Error(), err)
	}
	return nil
}

// CreateFor creates the lane body asks for, for the client address addr,
// which may hold Config.LanesPerAddr lanes open at once (past it, the
// error wraps [ErrAddrLimit]; the soonest one of them can close is
// [Lobby.IdleTimeout] away). The lane's host key comes with it, unless
// the lane is given away: then it waits for nobody.
func (lb *Lobby) CreateFor(ctx context.Context, body protocol.CreateLane, addr string) (protocol.CreatedLane, error) {
	key, hash := rand.Text(), game.TokenHash{}
	if body.GiveAway {
		key = ""
	} else {
		hash = game.HashToken(key)
	}
	l, err := lb.create(ctx, body.Name, addr, body.Private, hash, nil)
	if err != nil {
		return protocol.CreatedLane{}, err
	}
	return protocol.CreatedLane{LaneSummary: l.Summary(), HostKey: key}, nil
}

// AllowCreation spends one of the lane creations the client address addr
// may make (Config.CreateRate, Config.CreateBurst) if it has one left;
// otherwise it says how long until it will.
func (lb *Lobby) AllowCreation(addr string, now time.Time) (bool, time.Duration) {
	return lb.admit.creations.Allow(addr, now)
}

// LanesPerAddr is how many lanes a client address may hold open at once
// (Config.LanesPerAddr; below 1, no limit).
func (lb *Lobby) LanesPerAddr() int { return lb.cfg.LanesPerAddr }

// tooMany answers 429 rate_limited, the refusal why with its arguments
// and the seconds to wait, with a Retry-After of wait (at least a
// second).
func (lb *Lobby) tooMany(w http.ResponseWriter, wait time.Duration, why Refusal, args ...any) {
	secs := int(wait/time.Second) + 1
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	lb.fail(w, why, append(args, secs)...)
}

// IdleTimeout is how long a lane with nobody connected stays open.
func (lb *Lobby) IdleTimeout() time.Duration {
	return cmp.Or(lb.cfg.Lane.IdleTimeout, lane.IdleTimeout)
}

// readJSON reads a request's JSON body as ReadJSON does, or answers why
// not.
func (lb *Lobby) readJSON(w http.ResponseWriter, r *http.Request, limit int64, v any, example string, empty bool) bool {
	if err := ReadJSON(w, r, limit, v, example, empty); err != nil {
		lb.failErr(w, err)
		return false
	}
	return true
}

// ReadJSON reads a request's JSON body, up to limit bytes, strictly into
// v — as strictly as a lane's messages: exact names, each once — or
// returns the refusal a client is told (see lane.ErrorFor): 413
// too_large, 415 for a body not labelled JSON (see CheckJSON), 400
// bad_request saying what is wrong after the example of a body. An empty
// body, whatever its label, is {} if empty is true.
func ReadJSON(w http.ResponseWriter, r *http.Request, limit int64, v any, example string, empty bool) error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
		return refuseTooLarge.Error(limit)
	}
	if err == nil && empty && len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if err := CheckJSON(r); err != nil {
		return err
	}
	if err == nil {
		err = protocol.Unmarshal(data, v)
	}
	if err != nil {
		return refuseBadBody.Error(example, strings.TrimPrefix(err.Error(), protocol.ErrUndecodable.Error()+": "))
	}
	return nil
}

// CheckJSON returns nil if the request's Content-Type header says
// application/json (with parameters, such as charset, or without), else
// the refusal a client is told: 415 unsupported_media_type.
func CheckJSON(r *http.Request) error {
	if !isJSON(r.Header.Get("Content-Type")) {
		return refuseNotJSON.Error()
	}
	return nil
}

// isJSON reports whether a Content-Type header says application/json
// (with parameters, such as charset, or without).
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// laneOf returns lane id, wherever in the cluster it runs, or its kept
// night if it closed; ErrNoLane if there is neither (see failFind).
func (lb *Lobby) laneOf(ctx context.Context, id string) (Lane, error) {
	var remote *LaneView
	l, err := lb.find(ctx, id, func(ctx context.Context, id string) (err error) {
		remote, err = lb.cfg.Cluster.Lane(ctx, id)
		return err
	})
	switch {
	case l != nil && l.Stopped():
		// Closed a moment ago, and not yet out of the lobby: its kept
		// night, if it has one, is what is true now.
		if k, kerr := lb.kept(ctx, id); kerr == nil {
			return k, nil
		}
		return l, nil
	case l != nil:
		return l, nil
	case err == nil:
		return remoteLane{remote}, nil
	case errors.Is(err, ErrNoLane):
		// Closed, perhaps: its night may be kept.
		k, kerr := lb.kept(ctx, id)
		if kerr == nil {
			return k, nil
		}
		if !errors.Is(kerr, errNotKept) {
			err = fmt.Errorf("%w: %w", ErrUnavailable, kerr)
		}
	}
	return nil, err
}

// Find returns lane id as the API shows it, wherever in the cluster it
// runs, or its kept night if it closed. What its error tells the client
// comes with it (see lane.ErrorFor): for an error wrapping [ErrNoLane],
// that there is neither; for any other, that the lane cannot be reached
// now.
func (lb *Lobby) Find(ctx context.Context, id string) (Lane, error) {
	l, err := lb.laneOf(ctx, id)
	switch {
	case err == nil:
		return l, nil
	case errors.Is(err, ErrNoLane):
		return nil, fmt.Errorf("%w: %w", ErrNoLane, refuseLaneNotFound.Error(id))
	}
	return nil, fmt.Errorf("%w: %w", refuseLaneUnreached.Error(id), err)
}

// CountRefusal counts a request the API refused, by its code, and by the
// limit per client address that refused it if one did (limit is not
// ""): see [Lobby.Refused] and [Lobby.RateLimited].
func (lb *Lobby) CountRefusal(code protocol.Code, limit string) {
	count(&lb.counters.refused, string(code))
	if limit != "" {
		lb.rateLimited(limit)
	}
}

// failFind answers a request for lane id that could not be found.
func (lb *Lobby) failFind(w http.ResponseWriter, id string, err error) {
	if errors.Is(err, ErrNoLane) {
		lb.fail(w, refuseLaneNotFound, id)
		return
	}
	lb.log.Warn("lane not reached", "lane", id, "err", err)
	w.Header().Set("Retry-After", "1")
	lb.fail(w, refuseLaneUnreached, id)
}

func (lb *Lobby) serveWS(w http.ResponseWriter, r *http.Request) {
	addr := lb.ClientAddr(r)
	done, err := lb.admit.connOpened(addr)
	switch {
	case errors.Is(err, errRefusing):
		lb.rateLimited(LimitConnsPerAddr)
		lb.tooMany(w, ws.RefuseTimeout, refuseRefusalsInFlight)
		return
	case errors.Is(err, ErrAddrLimit):
		// Refused after the upgrade: a page cannot read the status of a
		// refused upgrade, only a close.
		defer done()
		lb.rateLimited(LimitConnsPerAddr)
		pe, _ := lane.ErrorFor(err)
		lb.refuseSocket(w, r, pe)
		return
	case err != nil:
		w.Header().Set("Retry-After", "5")
		lb.failErr(w, err)
		return
	}
	// The lane is looked for once the connection is counted: in a
	// cluster, looking may cost requests to other nodes, and the limits
	// come first.
	id := r.PathValue("id")
	var rl *relay.Relay
	l, err := lb.find(r.Context(), id, func(ctx context.Context, id string) (err error) {
		rl, err = lb.cfg.Cluster.Relay(ctx, id)
		return err
	})
	if err != nil {
		done()
		lb.failFind(w, id, err)
		return
	}
	var to lane.Endpoint = l
	if l == nil {
		to = rl
	}
	left, room := lb.admit.laneConnOpened(id, addr)
	if !room {
		defer done()
		lb.rateLimited(LimitLaneConns)
		pe := refuseConnsLaneAddr.Error(lb.cfg.ConnsPerLaneAddr)
		lb.refuseSocket(w, r, pe)
		return
	}
	served := done
	done = func() {
		served()
		left()
	}
	conn, err := ws.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: lb.cfg.OriginPatterns})
	if err != nil {
		done()
		count(&lb.counters.refused, "bad_handshake")
		lb.log.Debug("websocket refused", "lane", r.PathValue("id"), "err", err)
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
	lb.log.Debug("connection opened", "lane", id, "remote", remote)
	ws.Start(ctx, conn, to, lb.cfg.Socket, func(err error) {
		done()
		lb.log.Debug("connection closed", "lane", id, "remote", remote, "status", websocket.CloseStatus(err))
	})
}

// refuseSocket turns the WebSocket request away with e (see ws.Refuse)
// and counts it by its code.
func (lb *Lobby) refuseSocket(w http.ResponseWriter, r *http.Request, e *protocol.Error) {
	count(&lb.counters.refused, string(e.Code))
	if ws.Refuse(w, r, &websocket.AcceptOptions{OriginPatterns: lb.cfg.OriginPatterns}, e) {
		lb.log.Debug("websocket turned away", "lane", r.PathValue("id"), "remote", r.RemoteAddr, "reason", e.Message)
	}
}
