package lobby_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lobby"
)

// playGame plays a whole game on the lane: whoever is up (in the local
// model, which follows the server's turn order) rolls random legal pins and
// waits for the ack. It returns the local model of the match.
func playGame(t *testing.T, r *rand.Rand, names []string, players map[string]*client) *bowling.Match {
	t.Helper()
	model := new(bowling.Match)
	for _, name := range names {
		n, err := bowling.ParseLaneName(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := model.AddName(n); err != nil {
			t.Fatal(err)
		}
	}
	playRolls(t, r, model, players, -1)
	return model
}

// playRolls rolls n balls (n < 0: until the game is over) as playGame does,
// following model.
func playRolls(t *testing.T, r *rand.Rand, model *bowling.Match, players map[string]*client, n int) {
	t.Helper()
	for i := 0; !model.Over() && i != n; i++ {
		seat, frame, _ := model.Up()
		p := model.Players()[seat]
		standing := p.Game.Standing()
		pins := r.IntN(standing + 1)
		if r.IntN(3) == 0 {
			pins = standing // strikes and spares, often
		}
		ref := fmt.Sprintf("roll-%d", r.Uint64())
		players[string(p.Name)].send(t, map[string]any{"type": "roll", "pins": pins, "frame": frame, "ball": p.Game.Ball(), "id": ref})
		players[string(p.Name)].expectAck(t, ref)
		if err := model.Roll(pins); err != nil {
			t.Fatal(err)
		}
	}
}

// checkBoard compares a board message's players with the model's games.
func checkBoard(t *testing.T, who string, board msg, model *bowling.Match) {
	t.Helper()
	want := model.Players()
	if len(board.Players) != len(want) {
		t.Fatalf("%s: board has %d players, want %d", who, len(board.Players), len(want))
	}
	for i, p := range board.Players {
		g := want[i].Game
		if p.Name != string(want[i].Name) || p.Total != g.Total() {
			t.Errorf("%s: seat %d = %s %d, want %s %d", who, i, p.Name, p.Total, want[i].Name, g.Total())
		}
		for j, f := range g.Frames() {
			if len(f.Rolls) == 0 {
				if j < len(p.Frames) {
					t.Errorf("%s: %s frame %d on the board was never bowled", who, p.Name, j+1)
				}
				continue
			}
			got := p.Frames[j]
			score, ok := f.Score()
			if got.Marks != f.Marks() || !slices.Equal(got.Rolls, f.Rolls) || (got.Score != nil) != ok || ok && *got.Score != score {
				t.Errorf("%s: %s frame %d = %+v, want marks %q rolls %v score %d (%v)", who, p.Name, j+1, got, f.Marks(), f.Rolls, score, ok)
			}
		}
	}
}

func TestThreePlayersTwoSpectatorsPlayAGame(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "Friday night")
	names := []string{"AAA", "BBB", "CCC"}
	players := map[string]*client{}
	var all []*client
	for _, n := range names {
		players[n] = s.dial(t, id)
		all = append(all, players[n])
	}
	spectators := []*client{s.dial(t, id), s.dial(t, id)}
	all = append(all, spectators...)

	for i, n := range names {
		if w := players[n].join(t, n); w.Seat != i || w.Name != n || w.Token == "" {
			t.Fatalf("welcome for %s = %+v", n, w)
		}
	}
	players["AAA"].send(t, map[string]any{"type": "start", "id": "start"})
	players["AAA"].expectAck(t, "start")

	model := playGame(t, rand.New(rand.NewPCG(7, 3)), names, players)

	var final []string
	for i, c := range all {
		who := fmt.Sprintf("client %d", i)
		b := c.boardWith(t, "phase finished", func(m msg) bool { return m.Phase == "finished" })
		checkBoard(t, who, b, model)
		if b.Up != nil || b.Spectators != 2 {
			t.Errorf("%s: final board has up %+v and %d spectators, want null and 2", who, b.Up, b.Spectators)
		}
		final = append(final, b.raw)
		// A client that keeps up sees every seq, one after another.
		seqs := c.seqList()
		for j := 1; j < len(seqs); j++ {
			if seqs[j] != seqs[j-1]+1 {
				t.Errorf("%s: seq went from %d to %d", who, seqs[j-1], seqs[j])
				break
			}
		}
	}
	for i := range final {
		if final[i] != final[0] {
			t.Errorf("client %d's final board differs from client 0's:\n%s\n%s", i, final[i], final[0])
		}
	}

	// The HTTP API shows the same board, and the text board of DOMAIN.md.
	var apiBoard msg
	getJSON(t, s.srv.URL+"/api/lanes/"+id, &apiBoard)
	checkBoard(t, "GET board", apiBoard, model)
	if got, want := getText(t, s.srv.URL+"/api/lanes/"+id+"/board.txt"), model.Board(); got != want {
		t.Errorf("board.txt =\n%s\nwant\n%s", got, want)
	}

	// The host's rematch ends the game into the series and seats the same
	// players for the next, which waits for the host's start; no one
	// else's does.
	players["BBB"].send(t, map[string]any{"type": "rematch", "id": "not-host"})
	players["BBB"].expectError(t, "not-host", "not_host")
	players["AAA"].send(t, map[string]any{"type": "rematch", "id": "again"})
	players["AAA"].expectAck(t, "again")
	b := spectators[0].boardWith(t, "the next game", func(m msg) bool { return m.Phase == "waiting" })
	if b.Up != nil || len(b.Players) != 3 || len(b.Players[0].Frames) != 0 {
		t.Errorf("board after rematch = %s", b.raw)
	}
	players["AAA"].send(t, map[string]any{"type": "start", "id": "go"})
	players["AAA"].expectAck(t, "go")
	b = spectators[0].boardWith(t, "a new game", func(m msg) bool { return m.Phase == "playing" })
	if b.Up == nil || b.Up.Seat != 0 || b.Up.Frame != 1 {
		t.Errorf("board after the second start = %s", b.raw)
	}
}

func TestBoardJSONShape(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "shape")
	c := s.dial(t, id)
	c.join(t, "PJS")
	c.send(t, map[string]any{"type": "start"})
	for i, r := range []struct{ pins, frame, ball int }{{10, 1, 1}, {8, 2, 1}, {2, 2, 2}, {8, 3, 1}} {
		ref := fmt.Sprint(i)
		c.send(t, map[string]any{"type": "roll", "pins": r.pins, "frame": r.frame, "ball": r.ball, "id": ref})
		c.expectAck(t, ref)
	}
	var board map[string]any
	getJSON(t, s.srv.URL+"/api/lanes/"+id, &board)
	got, _ := json.Marshal(board["players"])
	want := `[{"connected":true,"frames":[{"marks":"X","rolls":[10],"score":20},{"marks":"8|/","rolls":[8,2],"score":38},{"marks":"8","rolls":[8],"score":null}],"name":"PJS","total":38}]`
	if string(got) != want {
		t.Errorf("players =\n%s\nwant\n%s", got, want)
	}
	up, _ := json.Marshal(board["up"])
	if string(up) != `{"ball":2,"frame":3,"seat":0,"standing":2}` {
		t.Errorf("up = %s", up)
	}
	if board["type"] != "board" || board["lane"] != id || board["name"] != "shape" || board["phase"] != "playing" || board["host"] != "PJS" {
		t.Errorf("board = %v", board)
	}
}

func newRand() *rand.Rand { return rand.New(rand.NewPCG(11, 5)) }
