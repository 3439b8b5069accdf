// Command centrifuge serves the bowling lanes of peers/bare on
// github.com/centrifugal/centrifuge, the library behind Centrifugo, set up as
// its examples set it up: a Node with anonymous connections, its WebSocket
// handler and JSON protocol, one channel per lane ("lane:ID").
//
// Lanes are created with POST /api/lanes {"name":…} → {"id":…}, as on tenpin.
// A client connects to /connection/websocket and subscribes to its lane's
// channel; the subscribe reply carries the lane's board. Players call RPCs:
// join {"lane","name"} → {"seat"}; start, roll {"lane","pins"} and rematch
// {"lane"} → {"seq"}, the seq of the board that shows the change. Every change
// is published to the lane's channel with Node.Publish: a board of the shape
// and size of tenpin's mid-game board, encoded once (centrifuge wraps it in
// its push once per broadcast). The lane keeps no score, only bare's turn
// counter (package game): who is up, the frame, the pins standing.
//
//	centrifuge -addr 127.0.0.1:38082
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/centrifugal/centrifuge"

	"github.com/tenpin/tenpin/cmd/fanbench/peers/internal/game"
)

const prefix = "lane:" // a lane's channel is prefix + its id

func main() {
	addr := flag.String("addr", "127.0.0.1:38082", "`host:port` to listen on")
	flag.Parse()
	raiseFileLimit()
	node, err := centrifuge.New(centrifuge.Config{
		LogLevel:   centrifuge.LogLevelError,
		LogHandler: func(e centrifuge.LogEntry) { log.Printf("%s: %v", e.Message, e.Fields) },
	})
	if err != nil {
		log.Fatal(err)
	}
	s := &server{node: node, lanes: make(map[string]*lane)}
	node.OnConnecting(func(context.Context, centrifuge.ConnectEvent) (centrifuge.ConnectReply, error) {
		return centrifuge.ConnectReply{Credentials: &centrifuge.Credentials{}}, nil // anonymous
	})
	node.OnConnect(func(c *centrifuge.Client) {
		c.OnSubscribe(func(e centrifuge.SubscribeEvent, cb centrifuge.SubscribeCallback) {
			id, ok := strings.CutPrefix(e.Channel, prefix)
			l := s.lane(id)
			if !ok || l == nil {
				cb(centrifuge.SubscribeReply{}, centrifuge.ErrorUnknownChannel)
				return
			}
			l.mu.Lock()
			board := game.Board(l.id, l.name, l.seq, l.turn, s.spectators(l))
			l.mu.Unlock()
			cb(centrifuge.SubscribeReply{Options: centrifuge.SubscribeOptions{Data: board}}, nil)
		})
		c.OnRPC(func(e centrifuge.RPCEvent, cb centrifuge.RPCCallback) {
			cb(s.rpc(c, e))
		})
	})
	if err := node.Run(); err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/lanes", s.createLane)
	mux.Handle("/connection/websocket", centrifuge.NewWebsocketHandler(node, centrifuge.WebsocketConfig{}))
	log.Printf("centrifuge serving on http://%s", *addr)
	log.Fatal(http.ListenAndServe(*addr, mux))
}

type server struct {
	node  *centrifuge.Node
	mu    sync.Mutex
	lanes map[string]*lane
}

// lane is one lane's state, guarded by its mutex: a change and its publication
// happen under it, so the channel gets the boards in order.
type lane struct {
	id, name string

	mu    sync.Mutex
	seats []*centrifuge.Client
	seq   uint64
	turn  game.Turn
}

func (s *server) lane(id string) *lane {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lanes[id]
}

func (s *server) createLane(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name string `json:"name"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<10)).Decode(&body); err != nil || body.Name == "" {
		http.Error(w, `{"code":"bad_request","message":"want {\"name\":\"…\"}"}`, http.StatusBadRequest)
		return
	}
	l := &lane{id: rand.Text()[:10], name: body.Name, turn: game.New()}
	s.mu.Lock()
	s.lanes[l.id] = l
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(map[string]string{"id": l.id, "name": l.name})
}

type request struct {
	Lane string `json:"lane"`
	Name string `json:"name"`
	Pins *int   `json:"pins"`
}

// rpc applies one player's RPC: the new board is published to the lane's
// channel, then the RPC is answered.
func (s *server) rpc(c *centrifuge.Client, e centrifuge.RPCEvent) (centrifuge.RPCReply, error) {
	var m request
	if err := json.Unmarshal(e.Data, &m); err != nil {
		return centrifuge.RPCReply{}, centrifuge.ErrorBadRequest
	}
	l := s.lane(m.Lane)
	if l == nil {
		return centrifuge.RPCReply{}, refusal("lane_not_found")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if code := l.apply(c, e.Method, m); code != "" {
		return centrifuge.RPCReply{}, refusal(code)
	}
	l.seq++
	if _, err := s.node.Publish(prefix+l.id, game.Board(l.id, l.name, l.seq, l.turn, s.spectators(l))); err != nil {
		return centrifuge.RPCReply{}, err
	}
	if e.Method == "join" {
		return centrifuge.RPCReply{Data: fmt.Appendf(nil, `{"seat":%d}`, len(l.seats)-1)}, nil
	}
	return centrifuge.RPCReply{Data: fmt.Appendf(nil, `{"seq":%d}`, l.seq)}, nil
}

// spectators is how many of the lane's subscribers hold no seat.
func (s *server) spectators(l *lane) int {
	return s.node.Hub().NumSubscribers(prefix+l.id) - len(l.seats)
}

// refusal is a refused RPC: centrifuge leaves codes 400–1999 to applications.
func refusal(code string) error {
	return &centrifuge.Error{Code: 400, Message: code}
}

// apply makes the change the method asks for, or returns the error code
// refusing it.
func (l *lane) apply(c *centrifuge.Client, method string, m request) string {
	seat := slices.Index(l.seats, c)
	if code := l.turn.Move(method, seat, len(l.seats), m.Pins); code != "" || method != "join" {
		return code
	}
	l.seats = append(l.seats, c)
	return ""
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
