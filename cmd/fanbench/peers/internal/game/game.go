// Package game is the lane that peers/bare and peers/centrifuge serve, the
// same in both: a turn counter that keeps no score, and a board of the shape
// and size of tenpin's mid-game board.
//
// The turn passes after a strike or two balls, and after the tenth frame the
// game is finished, with no bonus balls. A server keeps a Turn beside its
// seats and seq, under its lane's lock, and hands it each player's move
// (Move), which refuses what tenpin refuses (a roll out of turn, or of more
// pins than stand) and makes the rest.
package game

import "encoding/json"

const (
	// MaxPlayers is the seats of a lane, as on tenpin.
	MaxPlayers = 8
	// Frames is the frames of a game.
	Frames = 10
)

// Turn is where a game stands: its phase ("waiting", "playing",
// "finished"), the seat up, the frame and ball (0 or 1), and the pins
// standing. Its zero value is not a lane's first state: New is.
type Turn struct {
	Phase                     string
	Up, Frame, Ball, Standing int
}

// New returns the turn of a lane waiting for its players.
func New() Turn { return Turn{Phase: "waiting"} }

// Start starts a game: the first seat is up, with ten pins.
func (t *Turn) Start() {
	t.Phase, t.Up, t.Frame, t.Ball, t.Standing = "playing", 0, 1, 0, 10
}

// Roll knocks pins down in a game of players seats: the caller has checked
// that 0 ≤ pins ≤ t.Standing and that the game is playing.
func (t *Turn) Roll(pins, players int) {
	t.Standing -= pins
	t.Ball++
	if t.Standing > 0 && t.Ball < 2 {
		return
	}
	t.Ball, t.Standing = 0, 10
	if t.Up++; t.Up == players {
		t.Up = 0
		if t.Frame++; t.Frame > Frames {
			t.Phase = "finished"
		}
	}
}

// Move checks a player's move against the turn and, but for a join, makes
// it: move is "join", "start", "rematch" or "roll", seat the player's seat
// (-1 for none) of seats taken, pins a roll's. It returns tenpin's error code
// refusing the move, or "" when it is allowed: a join then takes seat number
// seats, which the caller gives.
func (t *Turn) Move(move string, seat, seats int, pins *int) string {
	if move == "join" {
		switch {
		case seat >= 0:
			return "already_seated"
		case t.Phase != "waiting":
			return "game_started"
		case seats == MaxPlayers:
			return "lane_full"
		}
		return ""
	}
	if seat < 0 {
		return "not_seated"
	}
	switch move {
	case "start":
		if t.Phase != "waiting" {
			return "game_started"
		}
		t.Start()
	case "rematch":
		if t.Phase != "finished" {
			return "not_finished"
		}
		t.Start()
	case "roll":
		switch {
		case t.Phase != "playing":
			return "not_playing"
		case seat != t.Up:
			return "not_your_turn"
		case pins == nil || *pins < 0 || *pins > t.Standing:
			return "invalid_pins"
		}
		t.Roll(*pins, seats)
	default:
		return "unknown_type"
	}
	return ""
}

type up struct {
	Seat     int `json:"seat"`
	Frame    int `json:"frame"`
	Standing int `json:"standing"`
}

type board struct {
	Type       string          `json:"type"`
	Lane       string          `json:"lane"`
	Name       string          `json:"name"`
	Seq        uint64          `json:"seq"`
	Phase      string          `json:"phase"`
	Up         *up             `json:"up"`
	Players    json.RawMessage `json:"players"`
	Spectators int             `json:"spectators"`
}

// Board encodes the board of lane id, named name, at seq: tenpin's board
// message, the turn's head and the pre-built players (see players).
func Board(id, name string, seq uint64, t Turn, spectators int) []byte {
	b := board{Type: "board", Lane: id, Name: name, Seq: seq, Phase: t.Phase, Players: players, Spectators: spectators}
	if t.Phase == "playing" {
		b.Up = &up{Seat: t.Up, Frame: t.Frame, Standing: t.Standing}
	}
	data, err := json.Marshal(b)
	if err != nil {
		panic(err) // plain values only
	}
	return data
}
