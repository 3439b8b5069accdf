// Command bare is the physical-limit reference for tenpin's fan-out: the
// plainest lane server a Go engineer would write in an afternoon on
// github.com/coder/websocket, after its chat example — a writer goroutine per
// connection fed by a buffered channel, a deadline on every write, a client
// whose buffer is full closed as too slow.
//
// It speaks the part of tenpin's protocol that fanbench drives (POST
// /api/lanes; join, start, roll and rematch on /ws/lanes/{id}) and keeps no
// score: a lane knows its seq, who is up (the turn passes after a strike or two
// balls; after ten frames the game is finished, with no bonus balls) and how
// many pins stand, and refuses a roll out of turn or of more pins than stand.
// Every change is one board of the shape and size of tenpin's mid-game board
// (package game, shared with peers/centrifuge), encoded once, and the same
// bytes are queued for every client of the lane.
//
//	bare -addr 127.0.0.1:38081
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/cmd/fanbench/peers/internal/game"
)

const (
	msgBuffer    = 64 // messages queued for a client before it is closed as too slow
	writeTimeout = 5 * time.Second
)

func main() {
	addr := flag.String("addr", "127.0.0.1:38081", "`host:port` to listen on")
	flag.Parse()
	raiseFileLimit()
	s := &server{lanes: make(map[string]*lane)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/lanes", s.createLane)
	mux.HandleFunc("GET /ws/lanes/{id}", s.serveWS)
	log.Printf("bare serving on http://%s", *addr)
	log.Fatal(http.ListenAndServe(*addr, mux))
}

type server struct {
	mu    sync.Mutex
	lanes map[string]*lane
}

// lane is one lane's state and clients, guarded by its mutex: a change and
// its broadcast happen under it, so every client gets the boards in order.
type lane struct {
	id, name string

	mu    sync.Mutex
	subs  map[*subscriber]struct{}
	seats []*subscriber
	seq   uint64
	turn  game.Turn
}

// subscriber is one connection: its writer drains msgs.
type subscriber struct {
	msgs      chan []byte
	closeSlow func()
	seat      int // -1 for a spectator; guarded by the lane's mutex
}

func (s *server) createLane(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name string `json:"name"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<10)).Decode(&body); err != nil || body.Name == "" {
		http.Error(w, `{"code":"bad_request","message":"want {\"name\":\"…\"}"}`, http.StatusBadRequest)
		return
	}
	l := &lane{id: rand.Text()[:10], name: body.Name, turn: game.New(), subs: make(map[*subscriber]struct{})}
	s.mu.Lock()
	s.lanes[l.id] = l
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(map[string]string{"id": l.id, "name": l.name})
}

// serveWS runs one connection: a reader goroutine hands its messages to the
// lane, and this goroutine writes what the lane queues for it.
func (s *server) serveWS(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	l := s.lanes[r.PathValue("id")]
	s.mu.Unlock()
	if l == nil {
		http.Error(w, `{"code":"lane_not_found"}`, http.StatusNotFound)
		return
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	sub := &subscriber{
		msgs:      make(chan []byte, msgBuffer),
		seat:      -1,
		closeSlow: func() { c.Close(websocket.StatusPolicyViolation, "too slow to keep up") },
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	l.attach(sub)
	defer l.detach(sub)
	go func() {
		defer cancel()
		for {
			_, data, err := c.Read(ctx)
			if err != nil {
				return
			}
			l.handle(sub, data)
		}
	}()
	for {
		select {
		case msg := <-sub.msgs:
			if err := write(ctx, c, msg); err != nil {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

func write(ctx context.Context, c *websocket.Conn, msg []byte) error {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, msg)
}

// attach and detach change the spectator count: everyone gets the board, as
// on tenpin.
func (l *lane) attach(s *subscriber) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.subs[s] = struct{}{}
	l.broadcast()
}

func (l *lane) detach(s *subscriber) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.subs, s)
	l.broadcast()
}

type request struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Name string `json:"name"`
	Pins *int   `json:"pins"`
}

// handle applies one client message: the board goes to everyone, then the
// sender gets its welcome or ack, or an error if the message is refused.
func (l *lane) handle(s *subscriber, data []byte) {
	var m request
	err := json.Unmarshal(data, &m)
	l.mu.Lock()
	defer l.mu.Unlock()
	code := "bad_message"
	if err == nil {
		code = l.apply(s, m)
	}
	switch {
	case code != "":
		l.send(s, encode(map[string]string{"type": "error", "code": code, "message": code, "ref": m.ID}))
		return
	case m.Type == "join":
		l.broadcast()
		l.send(s, encode(map[string]any{"type": "welcome", "ref": m.ID, "seat": s.seat, "name": m.Name, "token": rand.Text()}))
	default:
		l.broadcast()
		if m.ID != "" {
			l.send(s, encode(map[string]any{"type": "ack", "ref": m.ID, "seq": l.seq}))
		}
	}
}

// apply makes the change m asks for, or returns the error code refusing it.
func (l *lane) apply(s *subscriber, m request) string {
	if code := l.turn.Move(m.Type, s.seat, len(l.seats), m.Pins); code != "" || m.Type != "join" {
		return code
	}
	s.seat = len(l.seats)
	l.seats = append(l.seats, s)
	return ""
}

// broadcast marks a change: the next seq, one board encoded once, and the
// same bytes queued for every client.
func (l *lane) broadcast() {
	l.seq++
	b := game.Board(l.id, l.name, l.seq, l.turn, len(l.subs)-len(l.seats))
	for s := range l.subs {
		l.send(s, b)
	}
}

// send queues msg for s without ever waiting: a client whose buffer is full
// is closed.
func (l *lane) send(s *subscriber, msg []byte) {
	select {
	case s.msgs <- msg:
	default:
		go s.closeSlow()
	}
}

func encode(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain values only
	}
	return data
}

// raiseFileLimit lifts the soft limit on open files to the hard one: every
// connection is a file.
func raiseFileLimit() {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur < lim.Max {
		lim.Cur = lim.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
}
