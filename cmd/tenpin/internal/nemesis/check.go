package nemesis

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/tenpin/tenpin/protocol"
)

// Outcome is what a client learnt of a roll it sent.
type Outcome int

const (
	// Acked: the lane answered with an ack. The roll must be stored,
	// once, where it was sent.
	Acked Outcome = iota
	// Unknown: no answer (the connection closed, the answer did not come
	// in time) or unavailable (the store did not take it in time, and may
	// have all the same). The roll may be stored or not.
	Unknown
	// Refused: any other refusal (stale_roll, not_your_turn, …): the lane
	// did not take it.
	Refused
)

func (o Outcome) String() string {
	switch o {
	case Acked:
		return "acked"
	case Unknown:
		return "unknown"
	case Refused:
		return "refused"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Ball is where a roll goes: a lane, the game of the lane's series (1 for
// its first, as GET /api/lanes/{id}/games numbers them), a player, and
// the frame and ball in that game. The lane takes one roll for each.
type Ball struct {
	Lane   string `json:"lane"`
	Game   int    `json:"game"`
	Player string `json:"player"`
	Frame  int    `json:"frame"`
	Ball   int    `json:"ball"`
}

func (b Ball) String() string {
	return fmt.Sprintf("lane %s game %d %s frame %d ball %d", b.Lane, b.Game, b.Player, b.Frame, b.Ball)
}

// before is the ball the same player bowled before b in the same game,
// if b alone tells: the ball before it in its frame. (Before a frame's
// first ball is the last of the frame before, one ball or two.)
func (b Ball) before() (Ball, bool) {
	if b.Ball == 1 {
		return b, false
	}
	b.Ball--
	return b, true
}

// Roll is one roll a client sent, and what became of it.
type Roll struct {
	Ball
	Pins    int       `json:"pins"`
	Outcome Outcome   `json:"outcome"`
	Seq     uint64    `json:"seq,omitempty"` // the ack's: the first board with the roll
	Node    string    `json:"node"`          // the node the client sent it through
	At      time.Time `json:"at"`            // when it was sent
	Err     string    `json:"err,omitempty"` // why it was not acked
}

func (r Roll) String() string {
	s := fmt.Sprintf("%v: %d pins via %s at %s, %v", r.Ball, r.Pins, r.Node, r.At.UTC().Format("15:04:05.000"), r.Outcome)
	if r.Outcome == Acked {
		s += fmt.Sprintf(" (seq %s)", FormatSeq(r.Seq))
	}
	if r.Err != "" {
		s += ": " + r.Err
	}
	return s
}

// FormatSeq writes a board's seq as its epoch (the high 32 bits, which
// grow when a node takes a lane over) and its count in that epoch.
func FormatSeq(seq uint64) string { return fmt.Sprintf("%d:%d", seq>>32, seq&(1<<32-1)) }

// SeqBack is a board seq that went backwards for one client: within one
// connection (every board must have a greater seq than the one before), or
// across a client's reconnects to the same lane (the first board of the
// new connection must not be older than the last board of the old one:
// equal is the same board again).
type SeqBack struct {
	Client    string    `json:"client"` // "lane 3 AAA", "lane 3 spectator 1"
	Lane      string    `json:"lane"`
	Conn      int       `json:"conn"` // the client's connection, from 1
	Node      string    `json:"node"` // the node of that connection
	Reconnect bool      `json:"reconnect"`
	Last      uint64    `json:"last"` // the seq before
	LastNode  string    `json:"last_node"`
	Seq       uint64    `json:"seq"`
	At        time.Time `json:"at"`
}

func (s SeqBack) String() string {
	where := "within connection"
	if s.Reconnect {
		where = "across a reconnect, first board of connection"
	}
	return fmt.Sprintf("%s (lane %s): seq %s from %s after %s from %s, %s %d, at %s",
		s.Client, s.Lane, FormatSeq(s.Seq), s.Node, FormatSeq(s.Last), s.LastNode, where, s.Conn, s.At.UTC().Format("15:04:05.000"))
}

// Stored is what the store holds of the lanes: every ball's pins, as
// GET /api/lanes/{id}/games shows them.
type Stored map[Ball]int

// AddGames adds a lane's series to s.
func (s Stored) AddGames(lane string, games *protocol.Games) {
	for _, g := range games.Games {
		for _, p := range g.Players {
			for i, f := range p.Frames {
				for j, pins := range f.Rolls {
					s[Ball{Lane: lane, Game: g.Game, Player: p.Name, Frame: i + 1, Ball: j + 1}] = pins
				}
			}
		}
	}
}

// Violation is one thing the store or a client saw that must not be.
type Violation struct {
	Kind   string `json:"kind"` // lost, overwritten, acked twice, duplicated, invented, refused but stored, seq backwards, ack before its board, history missing, doubled, wrong or invented
	Detail string `json:"detail"`
}

func (v Violation) String() string { return v.Kind + ": " + v.Detail }

// Check compares what the clients sent and saw with what is stored:
//   - lost: an acked roll that is not stored;
//   - overwritten: an acked roll whose ball holds other pins;
//   - acked twice: two rolls acked for one ball (the lane took a ball
//     twice: one of them is lost or the game shifted);
//   - duplicated: a stored ball nobody sent those pins for, holding the
//     pins of the ball before it (a roll stored twice);
//   - invented: any other stored ball nobody sent those pins for;
//   - refused but stored: a stored ball only a refused roll sent those
//     pins for;
//   - seq backwards: every SeqBack.
//
// Rolls of lanes missing from stored are not checked: the caller reports
// a lane it could not read.
func Check(rolls []Roll, stored Stored, seqs []SeqBack) []Violation {
	var out []Violation
	byBall := map[Ball][]Roll{}
	for _, r := range rolls {
		byBall[r.Ball] = append(byBall[r.Ball], r)
	}
	balls := make([]Ball, 0, len(byBall))
	for b := range byBall {
		balls = append(balls, b)
	}
	slices.SortFunc(balls, compareBalls)
	for _, b := range balls {
		var acked []Roll
		for _, r := range byBall[b] {
			if r.Outcome == Acked {
				acked = append(acked, r)
			}
		}
		if len(acked) > 1 {
			out = append(out, Violation{"acked twice", fmt.Sprintf("%v: %v", b, acked)})
		}
		pins, ok := stored[b]
		for _, r := range acked {
			switch {
			case !ok:
				out = append(out, Violation{"lost", fmt.Sprintf("%v; the store has no such ball", r)})
			case pins != r.Pins:
				out = append(out, Violation{"overwritten", fmt.Sprintf("%v; the store has %d pins there (every roll sent for it: %v)", r, pins, byBall[b])})
			}
		}
	}

	storedBalls := make([]Ball, 0, len(stored))
	for b := range stored {
		storedBalls = append(storedBalls, b)
	}
	slices.SortFunc(storedBalls, compareBalls)
	for _, b := range storedBalls {
		pins := stored[b]
		sent, refused := false, false
		for _, r := range byBall[b] {
			if r.Pins == pins {
				if r.Outcome == Refused {
					refused = true
				} else {
					sent = true
				}
			}
		}
		switch {
		case sent:
		case refused:
			out = append(out, Violation{"refused but stored", fmt.Sprintf("%v holds %d pins, sent only by refused rolls: %v", b, pins, byBall[b])})
		default:
			kind := "invented"
			if prev, ok := b.before(); ok && stored[prev] == pins && slices.ContainsFunc(byBall[prev], func(r Roll) bool { return r.Pins == pins }) {
				kind = "duplicated"
			}
			out = append(out, Violation{kind, fmt.Sprintf("%v holds %d pins, which no client sent for it (rolls sent for it: %v)", b, pins, byBall[b])})
		}
	}
	for _, s := range seqs {
		out = append(out, Violation{"seq backwards", s.String()})
	}
	return out
}

func compareBalls(a, b Ball) int {
	return cmp.Or(cmp.Compare(a.Lane, b.Lane), cmp.Compare(a.Game, b.Game), cmp.Compare(a.Player, b.Player),
		cmp.Compare(a.Frame, b.Frame), cmp.Compare(a.Ball, b.Ball))
}

// Remembered is a player who joined asking to be remembered, and the
// bowler's key its welcome carried: a new bowler for each lane's player,
// whose history is that lane's games.
type Remembered struct {
	Lane   string `json:"lane"`
	Player string `json:"player"`
	Key    string `json:"-"`
}

// History is a remembered player's history as GET /api/bowlers/me/games
// shows it, every page.
type History struct {
	Remembered
	Games []protocol.BowlerGame
}

// CheckHistories compares each remembered player's history with the
// sheet of their lane (sheets, by lane id), where every game the player
// bowled to the end, once the game is over, is the history's, once:
//   - history missing: a game of the sheet that the history lacks;
//   - history doubled: a game the history holds more than once;
//   - history wrong: a game whose score is not the sheet's;
//   - history invented: a game the history holds that the sheet does not
//     show the player finishing, in a game over.
//
// Players of lanes missing from sheets are not checked: the caller
// reports a lane it could not read.
func CheckHistories(sheets map[string]*protocol.Games, histories []History) []Violation {
	var out []Violation
	for _, h := range histories {
		sheet, ok := sheets[h.Lane]
		if !ok {
			continue
		}
		want := finishedGames(sheet, h.Player)
		got := map[int][]int{} // the history's scores, by the lane's game
		for _, g := range h.Games {
			if g.Lane != h.Lane {
				out = append(out, Violation{"history invented", fmt.Sprintf("%s of lane %s: game %d of lane %s (%d), a lane the player never bowled on", h.Player, h.Lane, g.Game, g.Lane, g.Score)})
				continue
			}
			got[g.Game] = append(got[g.Game], g.Score)
		}
		numbers := make([]int, 0, len(want)+len(got))
		for n := range want {
			numbers = append(numbers, n)
		}
		for n := range got {
			if _, ok := want[n]; !ok {
				numbers = append(numbers, n)
			}
		}
		slices.Sort(numbers)
		for _, n := range numbers {
			score, finished := want[n]
			scores := got[n]
			what := fmt.Sprintf("%s of lane %s, game %d", h.Player, h.Lane, n)
			switch {
			case !finished:
				out = append(out, Violation{"history invented", fmt.Sprintf("%s: the history holds %v, the sheet shows no game over finished by the player", what, scores)})
			case len(scores) == 0:
				out = append(out, Violation{"history missing", fmt.Sprintf("%s: the sheet's %d is not in the history", what, score)})
			case len(scores) > 1:
				out = append(out, Violation{"history doubled", fmt.Sprintf("%s: the history holds it %d times (%v), the sheet %d", what, len(scores), scores, score)})
			case scores[0] != score:
				out = append(out, Violation{"history wrong", fmt.Sprintf("%s: the history holds %d, the sheet %d", what, scores[0], score)})
			}
		}
	}
	return out
}

// finishedGames returns the games of a lane's series that player bowled
// to the end and that are over, by number: their scores. The game in
// play is over once every player still in it has bowled ten frames.
func finishedGames(sheet *protocol.Games, player string) map[int]int {
	out := map[int]int{}
	for _, g := range sheet.Games {
		over := g.Finished || !slices.ContainsFunc(g.Players, func(p protocol.GamePlayer) bool { return !p.Left && !bowledOut(p) })
		if !over {
			continue
		}
		for _, p := range g.Players {
			if p.Name == player && bowledOut(p) {
				out[g.Game] = p.Total
			}
		}
	}
	return out
}

// bowledOut reports whether p bowled all ten frames: the tenth has three
// balls, or two that left pins standing.
func bowledOut(p protocol.GamePlayer) bool {
	if len(p.Frames) != 10 {
		return false
	}
	r := p.Frames[9].Rolls
	return len(r) == 3 || len(r) == 2 && r[0]+r[1] < 10
}
