package lobby

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/protocol"
)

// Handler returns the lobby's HTTP API and WebSocket endpoint:
//
//	GET  /api/lanes                  the open lanes
//	POST /api/lanes                  create a lane: {"name":"Friday night"} → 201 and its summary (Content-Type: application/json, else 415)
//	GET  /api/lanes/{id}             the lane's board, as the "board" message
//	GET  /api/lanes/{id}/board.txt   the lane's text scoreboard
//	GET  /api/lanes/{id}/games       the games of the lane's series
//	GET  /ws/lanes/{id}              the lane's WebSocket (see package protocol)
//	GET  /healthz                    200 while the server runs
//
// Errors are JSON: {"code":"not_found","message":"…"}.
func (lb *Lobby) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/lanes", lb.listLanes)
	mux.HandleFunc("POST /api/lanes", lb.createLane)
	mux.HandleFunc("GET /api/lanes/{id}", lb.getBoard)
	mux.HandleFunc("GET /api/lanes/{id}/board.txt", lb.getBoardText)
	mux.HandleFunc("GET /api/lanes/{id}/games", lb.getGames)
	mux.HandleFunc("GET /ws/lanes/{id}", lb.serveWS)
	mux.HandleFunc("GET /healthz", lb.health)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		httpError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no API at %s %s", r.Method, r.URL.Path))
	})
	return mux
}

// apiError is the body of every API error.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func httpError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, apiError{Code: code, Message: message})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
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

// health answers ok while the server runs and its store takes writes.
func (lb *Lobby) health(w http.ResponseWriter, r *http.Request) {
	if lb.cfg.Health != nil {
		ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
		defer cancel()
		if err := lb.cfg.Health(ctx); err != nil {
			httpError(w, http.StatusServiceUnavailable, "unavailable", "the store does not answer: "+err.Error())
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
}

func (lb *Lobby) listLanes(w http.ResponseWriter, r *http.Request) {
	plain, gz := lb.encodedList(time.Now())
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Add("Vary", "Accept-Encoding")
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		w.Write(gz)
		return
	}
	w.Write(plain)
}

// listMaxAge is how long the encoded lobby list is served again before
// it is built anew. At 10,000 lanes the list is megabytes and every
// visitor's page polls it: built once a second, not once a request, at
// the cost of a lane's players and phase showing up to a second late in
// the lobby (lanes created or closed show at once).
const listMaxAge = time.Second

// listCache is the lobby's list as last encoded, plain and gzipped.
type listCache struct {
	mu        sync.Mutex
	built     time.Time
	plain, gz []byte
}

// encodedList returns the lobby's list, built at most listMaxAge ago. The
// first request after that builds it while the others wait for it.
func (lb *Lobby) encodedList(now time.Time) (plain, gz []byte) {
	c := &lb.list
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.plain == nil || now.Sub(c.built) > listMaxAge {
		data, err := json.Marshal(protocol.Lanes{Lanes: lb.List()})
		if err != nil {
			panic(fmt.Sprintf("lobby: encoding the list: %v", err)) // plain values only: cannot fail
		}
		data = append(data, '\n')
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write(data)
		zw.Close()
		c.plain, c.gz, c.built = data, buf.Bytes(), now
	}
	return c.plain, c.gz
}

// forgetList makes the next request build the list anew: a lane was
// created or closed.
func (lb *Lobby) forgetList() {
	lb.list.mu.Lock()
	lb.list.plain = nil
	lb.list.mu.Unlock()
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip.
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			q := strings.ReplaceAll(params, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}

func (lb *Lobby) createLane(w http.ResponseWriter, r *http.Request) {
	// A page of another site can POST a form or text/plain to us without
	// asking first (a "simple" cross-origin request); JSON it cannot send
	// without a CORS preflight, which we never answer. So only JSON
	// creates lanes.
	if !isJSON(r.Header.Get("Content-Type")) {
		httpError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "send the body as JSON, with Content-Type: application/json")
		return
	}
	addr, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		addr = r.RemoteAddr
	}
	if ok, wait := lb.creations.allow(addr, time.Now()); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)+1))
		httpError(w, http.StatusTooManyRequests, "rate_limited", fmt.Sprintf("this address has created lanes too fast; try again in %d s", int(wait/time.Second)+1))
		return
	}
	var body protocol.CreateLane
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBodySize))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the body is over %d bytes", maxBodySize))
			return
		}
		httpError(w, http.StatusBadRequest, "bad_request", `the body must be a JSON object like {"name":"Friday night"}: `+err.Error())
		return
	}
	if _, err := dec.Token(); err != io.EOF {
		httpError(w, http.StatusBadRequest, "bad_request", "the body must be one JSON object, with nothing after it")
		return
	}
	l, err := lb.Create(r.Context(), body.Name)
	switch {
	case errors.Is(err, ErrLaneName):
		httpError(w, http.StatusBadRequest, "invalid_lane_name", err.Error())
		return
	case errors.Is(err, ErrFull):
		httpError(w, http.StatusServiceUnavailable, "too_many_lanes", err.Error())
		return
	case err != nil:
		httpError(w, http.StatusServiceUnavailable, "unavailable", err.Error())
		return
	}
	w.Header().Set("Location", "/api/lanes/"+l.ID())
	writeJSON(w, http.StatusCreated, l.Summary())
}

// isJSON reports whether a Content-Type header says application/json
// (with parameters, such as charset, or without).
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

func (lb *Lobby) lane(w http.ResponseWriter, r *http.Request) (*lane.Lane, bool) {
	id := r.PathValue("id")
	l, ok := lb.Get(id)
	if !ok {
		httpError(w, http.StatusNotFound, "lane_not_found", fmt.Sprintf("no lane %q: it may have closed", id))
		return nil, false
	}
	return l, true
}

func (lb *Lobby) getBoard(w http.ResponseWriter, r *http.Request) {
	if l, ok := lb.lane(w, r); ok {
		writeJSONBytes(w, http.StatusOK, l.BoardJSON())
	}
}

func (lb *Lobby) getBoardText(w http.ResponseWriter, r *http.Request) {
	if l, ok := lb.lane(w, r); ok {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		io.WriteString(w, l.BoardText())
	}
}

func (lb *Lobby) getGames(w http.ResponseWriter, r *http.Request) {
	if l, ok := lb.lane(w, r); ok {
		writeJSON(w, http.StatusOK, l.Games())
	}
}

func (lb *Lobby) serveWS(w http.ResponseWriter, r *http.Request) {
	l, ok := lb.lane(w, r)
	if !ok {
		return
	}
	if err := lb.connOpened(); err != nil {
		code := "too_many_connections"
		if errors.Is(err, ErrClosed) {
			code = "shutting_down"
		}
		w.Header().Set("Retry-After", "5")
		httpError(w, http.StatusServiceUnavailable, code, err.Error())
		return
	}
	conn, err := lane.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: lb.cfg.OriginPatterns})
	if err != nil {
		lb.connClosed()
		lb.log.Info("websocket refused", "lane", r.PathValue("id"), "err", err)
		return // Accept has answered the request
	}
	// The connection outlives this handler: returning frees the handler's
	// stack and net/http's buffers for the request, which a connection held
	// for hours would otherwise keep. Lanes end their connections when they
	// stop, so the request's cancellation is not needed.
	ctx, remote := context.WithoutCancel(r.Context()), r.RemoteAddr
	lb.log.Info("connection opened", "lane", l.ID(), "remote", remote)
	go func() {
		defer lb.connClosed()
		err := l.Serve(ctx, conn)
		lb.log.Info("connection closed", "lane", l.ID(), "remote", remote, "status", websocket.CloseStatus(err))
	}()
}
