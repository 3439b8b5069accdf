package lane

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/protocol"
)

// The lane writes a board's JSON itself, as encoding/json would write the
// [protocol.Board], with each player's frames encoded once for each
// change of their game: a roll changes one player's frames, and encoding
// every player's again, with their decks, was most of the time a board
// took (a json.RawMessage would be scanned again whole on every board).
// TestBoardJSON checks the bytes against encoding/json's.

// boardHead is the fields of a [protocol.Board] before its players.
type boardHead struct {
	Type  protocol.Type  `json:"type"`
	Lane  string         `json:"lane"`
	Name  string         `json:"name"`
	Seq   uint64         `json:"seq"`
	Phase protocol.Phase `json:"phase"`
	Up    *protocol.Up   `json:"up"`
	Host  string         `json:"host,omitempty"`
}

// framesJSON is a player's name and frames as last encoded, and what the
// frames were encoded from: the game, every ball of it (a Game is a value
// that compares whole), and the frames marked corrected.
type framesJSON struct {
	name      []byte // quoted
	game      bowling.Game
	corrected uint16
	frames    []byte
}

// encodeBoard writes the board of head, players and series.
func (l *Lane) encodeBoard(head boardHead, players []bowling.Player, marks map[bowling.Name]uint16, series []protocol.SeriesPlayer) []byte {
	h, err := json.Marshal(head)
	if err != nil {
		panic(fmt.Sprintf("lane: encoding a board: %v", err)) // only plain values: cannot fail
	}
	size := 1024
	if v := l.view.Load(); v != nil {
		size = len(v.board) + 256 // the last board's, and room to grow
	}
	b := make([]byte, 0, size)
	b = append(b, h[:len(h)-1]...)
	b = append(b, `,"players":[`...)
	for i, p := range players {
		if i > 0 {
			b = append(b, ',')
		}
		f := l.framesOf(p, marks[p.Name])
		b = append(b, `{"name":`...)
		b = append(b, f.name...)
		b = append(b, `,"connected":`...)
		b = strconv.AppendBool(b, l.holders[p.Name] != nil)
		b = appendFlag(b, `,"left":true`, p.Left)
		b = appendFlag(b, `,"away":true`, p.Away)
		b = appendFlag(b, `,"removed":true`, p.Left && l.state.Removed(p.Name))
		b = appendFlag(b, `,"late":true`, p.Late)
		b = append(b, `,"frames":`...)
		b = append(b, f.frames...)
		b = append(b, `,"total":`...)
		b = strconv.AppendInt(b, int64(p.Game.Total()), 10)
		b = append(b, '}')
	}
	b = append(b, `],"spectators":`...)
	b = strconv.AppendInt(b, int64(l.spectators()), 10)
	if len(series) > 0 {
		s, err := json.Marshal(series)
		if err != nil {
			panic(fmt.Sprintf("lane: encoding a board: %v", err))
		}
		b = append(b, `,"series":`...)
		b = append(b, s...)
	}
	return append(b, '}')
}

func appendFlag(b []byte, field string, set bool) []byte {
	if set {
		b = append(b, field...)
	}
	return b
}

// framesOf returns p's name and frames encoded, again only if p's game or
// its corrections changed since the last board.
func (l *Lane) framesOf(p bowling.Player, corrected uint16) *framesJSON {
	f := l.frames[p.Name]
	if f != nil && f.game == p.Game && f.corrected == corrected {
		return f
	}
	frames := appendFrames(nil, &p.Game, corrected)
	if f == nil {
		name, err := json.Marshal(string(p.Name))
		if err != nil {
			panic(fmt.Sprintf("lane: encoding a name: %v", err))
		}
		f = &framesJSON{name: name}
		if l.frames == nil {
			l.frames = make(map[bowling.Name]*framesJSON)
		}
		l.frames[p.Name] = f
	}
	f.game, f.corrected, f.frames = p.Game, corrected, frames
	return f
}

// appendFrames appends the bowled frames of g as a board's JSON array of
// [protocol.Frame], as frameView makes them and encoding/json writes them.
func appendFrames(b []byte, g *bowling.Game, corrected uint16) []byte {
	b = append(b, '[')
	for i, f := range g.Frames() {
		if len(f.Rolls) == 0 {
			break
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"marks":"`...)
		b = f.AppendMarks(b) // X, /, -, F, |, ( ) and digits: nothing to escape
		b = append(b, `","rolls":`...)
		b = appendInts(b, f.Rolls)
		b = append(b, `,"score":`...)
		if s, ok := f.Score(); ok {
			b = strconv.AppendInt(b, int64(s), 10)
		} else {
			b = append(b, "null"...)
		}
		b = appendFlag(b, `,"corrected":true`, corrected&(1<<f.Number) != 0)
		b = appendFlag(b, `,"split":true`, f.Split())
		b = appendDecks(b, f)
		fouls := false
		for ball := 1; ball <= len(f.Rolls); ball++ {
			if !f.Foul(ball) {
				continue
			}
			if fouls {
				b = append(b, ',')
			} else {
				b = append(b, `,"fouls":[`...)
				fouls = true
			}
			b = strconv.AppendInt(b, int64(ball), 10)
		}
		if fouls {
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendDecks appends a frame's "decks", if any of its balls named one.
func appendDecks(b []byte, f bowling.Frame) []byte {
	known := false
	for ball := 1; ball <= len(f.Rolls); ball++ {
		_, ok := f.Deck(ball)
		known = known || ok
	}
	if !known {
		return b
	}
	b = append(b, `,"decks":[`...)
	for ball := 1; ball <= len(f.Rolls); ball++ {
		if ball > 1 {
			b = append(b, ',')
		}
		d, ok := f.Deck(ball)
		if !ok {
			b = append(b, "null"...)
			continue
		}
		b = append(b, '[')
		first := true
		for pin := 1; pin <= bowling.NumPins; pin++ {
			if !d.Has(pin) {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = strconv.AppendInt(b, int64(pin), 10)
		}
		b = append(b, ']')
	}
	return append(b, ']')
}

func appendInts(b []byte, v []int) []byte {
	b = append(b, '[')
	for i, n := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, ']')
}

// forgetFrames drops the encoded frames of players no longer seated.
func (l *Lane) forgetFrames(players []bowling.Player) {
	if len(l.frames) <= len(players) {
		return
	}
	for name := range l.frames {
		seated := false
		for _, p := range players {
			seated = seated || p.Name == name
		}
		if !seated {
			delete(l.frames, name)
		}
	}
}
