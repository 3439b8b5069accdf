package web_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// localGame is a game played through the Go scorer, for the page's
// local model (static/js/local.js) to play again: its players, who is
// away from the start, who is up first, its balls as the page rolls
// them, and the board's frames, totals, phase and up after each.
type localGame struct {
	Names []string     `json:"names"`
	Away  []bool       `json:"away"`
	Up    protocol.Up  `json:"up"`
	Rolls []localRoll  `json:"rolls"`
	Want  []localState `json:"-"`
}

type localRoll struct {
	Name  string `json:"name"`
	Frame int    `json:"frame"`
	Ball  int    `json:"ball"`
	Pins  *int   `json:"pins,omitempty"`
	Deck  *[]int `json:"deck,omitempty"`
	Foul  bool   `json:"foul,omitempty"`
}

type localState struct {
	Phase   string        `json:"phase"`
	Up      *protocol.Up  `json:"up"`
	Players []localPlayer `json:"players"`
}

type localPlayer struct {
	Frames []protocol.Frame `json:"frames"`
	Total  int              `json:"total"`
}

// upOf is the ball up in m as a board says it, or nil.
func upOf(m *bowling.Match) *protocol.Up {
	seat, frame, ok := m.Up()
	if !ok {
		return nil
	}
	g := m.At(seat).Game
	up := &protocol.Up{Seat: seat, Frame: frame, Ball: g.Ball(), Standing: g.Standing()}
	if d, ok := g.Rack(); ok {
		up.Deck = d.Pins()
	}
	return up
}

// stateOf is what the board of m shows: as the lane writes it (lane's
// frameView), from the Go scorer's frames.
func stateOf(m *bowling.Match) localState {
	s := localState{Phase: "playing", Up: upOf(m)}
	if m.Over() {
		s.Phase = "finished"
	}
	for _, p := range m.Players() {
		lp := localPlayer{Frames: []protocol.Frame{}, Total: p.Game.Total()}
		for _, f := range p.Game.Frames() {
			if len(f.Rolls) == 0 {
				break
			}
			pf := protocol.Frame{Marks: f.Marks(), Rolls: f.Rolls, Split: f.Split()}
			if sc, ok := f.Score(); ok {
				pf.Score = &sc
			}
			for ball := 1; ball <= len(f.Rolls); ball++ {
				if f.Foul(ball) {
					pf.Fouls = append(pf.Fouls, ball)
				}
				if d, ok := f.Deck(ball); ok {
					if pf.Decks == nil {
						pf.Decks = make([]*[]int, len(f.Rolls))
					}
					pins := d.Pins()
					pf.Decks[ball-1] = &pins
				}
			}
			lp.Frames = append(lp.Frames, pf)
		}
		s.Players = append(s.Players, lp)
	}
	return s
}

// randomGame plays a game of one to four players, one of them maybe away
// from the start, with balls of every kind: counts, decks (a random leave
// of the pins standing, when they are known), fouls, and many strikes
// and spares.
func randomGame(t *testing.T, r *rand.Rand) localGame {
	names := []string{"AAA", "BBB", "CCC", "DDD"}[:1+r.IntN(4)]
	m, err := bowling.NewMatch(names...)
	if err != nil {
		t.Fatal(err)
	}
	lg := localGame{Names: names, Away: make([]bool, len(names))}
	if len(names) > 1 && r.IntN(3) == 0 {
		i := r.IntN(len(names))
		lg.Away[i] = true
		if err := m.SetAway(bowling.Name(names[i]), true); err != nil {
			t.Fatal(err)
		}
	}
	lg.Up = *upOf(m)
	for !m.Over() {
		seat, frame, _ := m.Up()
		g := m.At(seat).Game
		roll := localRoll{Name: names[seat], Frame: frame, Ball: g.Ball()}
		b := bowling.Ball{}
		rack, known := g.Rack()
		switch k := r.IntN(20); {
		case k == 0:
			roll.Foul, b.Foul = true, true
		case k < 4:
			b.Pins = g.Standing() // a strike or a spare
			roll.Pins = &b.Pins
		case k < 12 && known:
			var left []int
			for _, p := range rack.Pins() {
				if r.IntN(3) == 0 {
					left = append(left, p)
				}
			}
			d, err := bowling.NewDeck(left...)
			if err != nil {
				t.Fatal(err)
			}
			b.Pins, b.Deck, b.HasDeck = g.Standing()-len(left), d, true
			roll.Deck = &left
			if left == nil {
				*roll.Deck = []int{}
			}
		default:
			b.Pins = r.IntN(g.Standing() + 1)
			roll.Pins = &b.Pins
		}
		if err := m.RollBall(b); err != nil {
			t.Fatalf("rolling %+v: %v", b, err)
		}
		lg.Rolls = append(lg.Rolls, roll)
		lg.Want = append(lg.Want, stateOf(m))
	}
	return lg
}

// The page's local model of the game in play agrees with the Go scorer:
// many random games, played ball by ball through lane/bowling and
// through static/js/local.js in the browser from an empty board, give
// the same frames (marks, splits, rolls, decks, fouls, running scores),
// totals, phase and ball up after every ball. And the model refuses
// what the lane would: a ball for another player or another ball than
// the one up, more pins than stand, a pin that was down.
func TestLocalBoardAgreesWithTheScorer(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 2026))
	var games []localGame
	for range 300 {
		games = append(games, randomGame(t, r))
	}
	in, err := json.Marshal(games)
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, lobby.Config{})
	p := browser(t)()
	do(t, p, "open the page", chromedp.Navigate(s.url+"/"))
	out := eval[string](t, p, `import("/static/js/local.js").then(({ applyBall }) => JSON.stringify(`+string(in)+`.map((g) => {
		let b = { phase: "playing", up: g.up, players: g.names.map((name, i) => ({ name, connected: true, away: g.away[i] || undefined, frames: [], total: 0 })) };
		return g.rolls.map((roll) => {
			b = applyBall(b, roll);
			return b ? { phase: b.phase, up: b.up, players: b.players.map((p) => ({ frames: p.frames, total: p.total })) } : null;
		});
	})))`, chromedp.EvalAwaitPromise)
	var got [][]*localState
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	balls := 0
	for i, g := range games {
		for j, want := range g.Want {
			balls++
			w, _ := json.Marshal(want)
			var gj []byte
			if got[i][j] != nil {
				gj, _ = json.Marshal(got[i][j])
			}
			if string(gj) != string(w) {
				rolls, _ := json.Marshal(g.Rolls[:j+1])
				t.Fatalf("game %d (%v, away %v), after the balls %s:\nlocal.js %s\nscorer   %s", i, g.Names, g.Away, rolls, gj, w)
			}
		}
	}
	t.Logf("%d games, %d balls agree", len(games), balls)

	// What the lane refuses, the model does not apply.
	refused := eval[string](t, p, `import("/static/js/local.js").then(({ applyBall }) => {
		const b = { phase: "playing", up: { seat: 0, frame: 1, ball: 2, standing: 3, deck: [7, 8, 10] },
			players: [{ name: "AAA", frames: [{ marks: "7", rolls: [7], score: null, decks: [[7, 8, 10]] }], total: 0 }, { name: "BBB", frames: [], total: 0 }] };
		const tries = {
			other: { name: "BBB", frame: 1, ball: 1, pins: 3 },
			ahead: { name: "AAA", frame: 1, ball: 3, pins: 1 },
			behind: { name: "AAA", frame: 1, ball: 1, pins: 1 },
			tooMany: { name: "AAA", frame: 1, ball: 2, pins: 4 },
			pinDown: { name: "AAA", frame: 1, ball: 2, deck: [1] },
			disagree: { name: "AAA", frame: 1, ball: 2, pins: 1, deck: [7] },
			foulPins: { name: "AAA", frame: 1, ball: 2, foul: true, pins: 2 },
		};
		return Object.entries(tries).filter(([, r]) => applyBall(b, r) !== null).map(([k]) => k).join(" ") + "|" + applyBall(b, { name: "AAA", frame: 1, ball: 2, deck: [7] }).players[0].frames[0].marks;
	})`, chromedp.EvalAwaitPromise)
	if refused != "|(7)|2" {
		t.Errorf("applied what the lane refuses, and the (7)|2 after a split: %s", fmt.Sprint(refused))
	}
}
