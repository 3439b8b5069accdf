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
	Seq   uint64
	Phase protocol.Phase
	Up    *protocol.Up
	Host  bowling.Name
	Deck  bowling.Deck // the up's deck, if Up.Deck is set
	// CreatorAway: the lane awaits its creator (game.State.AwaitsCreator).
	CreatorAway bool
}

// boardCache is what a lane's board encoding reuses from the last board.
type boardCache struct {
	frames map[bowling.Name]*framesJSON // each seated player's frames as the last board encoded them
	quoted []byte                       // the board's JSON up to its seq: its type, the lane's id and name
	night  nightStats                   // the night's numbers as the last board showed them: see stats.go
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

// encodeBoard writes the board of head, players, series and the night's
// numbers, stats (encoded already; nil for none).
func (l *Lane) encodeBoard(head boardHead, players []bowling.Player, marks map[bowling.Name]uint16, series []protocol.SeriesPlayer, stats []byte) []byte {
	if l.enc.quoted == nil {
		l.enc.quoted = fmt.Appendf(nil, `{"type":"board","lane":%s,"name":%s,"seq":`, quote(l.id), quote(l.name))
	}
	size := 1024
	if v := l.view.Load(); v != nil {
		size = len(v.board) + 256 // the last board's, and room to grow
	}
	b := append(make([]byte, 0, size), l.enc.quoted...)
	b = strconv.AppendUint(b, head.Seq, 10)
	b = append(b, `,"phase":`...)
	b = strconv.AppendQuote(b, string(head.Phase)) // waiting, playing, finished
	b = append(b, `,"up":`...)
	if up := head.Up; up == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"seat":`...)
		b = strconv.AppendInt(b, int64(up.Seat), 10)
		b = append(b, `,"frame":`...)
		b = strconv.AppendInt(b, int64(up.Frame), 10)
		b = append(b, `,"ball":`...)
		b = strconv.AppendInt(b, int64(up.Ball), 10)
		b = append(b, `,"standing":`...)
		b = strconv.AppendInt(b, int64(up.Standing), 10)
		if up.Deck != nil && head.Deck != 0 { // encoding/json omits an empty deck
			b = append(b, `,"deck":`...)
			b = append(b, deckText[head.Deck&bowling.Full]...)
		}
		if up.SkipIn != nil {
			b = append(b, `,"skip_in":`...)
			b = strconv.AppendInt(b, int64(*up.SkipIn), 10)
		}
		b = append(b, '}')
	}
	if head.Host != "" {
		b = append(b, `,"host":`...)
		b = append(b, quote(string(head.Host))...)
	}
	b = appendFlag(b, `,"creator_away":true`, head.CreatorAway)
	b = append(b, `,"players":[`...)
	for i, p := range players {
		if i > 0 {
			b = append(b, ',')
		}
		f := l.framesOf(p, marks[p.Name])
		b = append(b, `{"name":`...)
		b = append(b, f.name...)
		b = append(b, `,"connected":`...)
		b = strconv.AppendBool(b, l.seats.holders[p.Name] != nil)
		b = appendFlag(b, `,"left":true`, p.Left)
		b = appendFlag(b, `,"away":true`, p.Away)
		b = appendFlag(b, `,"removed":true`, p.Left && l.state.Removed(p.Name))
		b = appendFlag(b, `,"late":true`, p.Late)
		b = append(b, `,"frames":`...)
		b = append(b, f.frames...)
		b = append(b, `,"total":`...)
		b = strconv.AppendInt(b, int64(p.Game.Total()), 10)
		if avg, ok := l.average(p.Name); ok {
			b = append(b, `,"average":`...)
			b = strconv.AppendInt(b, int64(avg), 10)
		}
		if t, ok := l.teamOf(p.Name); ok {
			b = append(b, `,"team":`...)
			b = append(b, quote(l.state.League().Teams[t])...)
			if hc, ok := l.handicap(p.Name); ok {
				b = append(b, `,"handicap":`...)
				b = strconv.AppendInt(b, int64(hc), 10)
			}
		}
		b = append(b, '}')
	}
	b = append(b, `],"spectators":`...)
	b = strconv.AppendInt(b, int64(l.spectators()), 10)
	if len(series) > 0 {
		s, err := json.Marshal(series)
		if err != nil {
			panic(fmt.Sprintf("lane: encoding a board: %v", err)) // only plain values: cannot fail
		}
		b = append(b, `,"series":`...)
		b = append(b, s...)
	}
	if removed := l.state.RemovedPlayers(); len(removed) > 0 {
		b = append(b, `,"removed":[`...)
		for i, n := range removed {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, quote(string(n))...)
		}
		b = append(b, ']')
	}
	if len(l.bw.highs) > 0 {
		h, err := json.Marshal(l.bw.highs)
		if err != nil {
			panic(fmt.Sprintf("lane: encoding a board: %v", err)) // only plain values: cannot fail
		}
		b = append(b, `,"highs":`...)
		b = append(b, h...)
	}
	if stats != nil {
		b = append(b, `,"stats":`...)
		b = append(b, stats...)
	}
	if teams := l.leagueTeams(players); teams != nil {
		t, err := json.Marshal(teams)
		if err != nil {
			panic(fmt.Sprintf("lane: encoding a board: %v", err)) // only plain values: cannot fail
		}
		b = append(b, `,"teams":`...)
		b = append(b, t...)
	}
	return append(b, '}')
}

// quote returns s as encoding/json writes a string.
func quote(s string) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("lane: encoding a string: %v", err)) // a string always encodes
	}
	return b
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
	f := l.enc.frames[p.Name]
	if f != nil && f.game == p.Game && f.corrected == corrected {
		return f
	}
	var reuse []byte
	if f != nil {
		reuse = f.frames[:0] // copied into each board: no board holds it
	}
	frames := appendFrames(reuse, &p.Game, corrected)
	if f == nil {
		f = &framesJSON{name: quote(string(p.Name))}
		if l.enc.frames == nil {
			l.enc.frames = make(map[bowling.Name]*framesJSON)
		}
		l.enc.frames[p.Name] = f
	}
	f.game, f.corrected, f.frames = p.Game, corrected, frames
	return f
}

// appendFrames appends the bowled frames of g as a board's JSON array of
// [protocol.Frame], as frameView makes them and encoding/json writes them.
func appendFrames(b []byte, g *bowling.Game, corrected uint16) []byte {
	b = append(b, '[')
	var rolls [bowling.MaxRolls]int
	for i, f := range g.FramesIn(&rolls) {
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
	var decks [3]bowling.Deck
	var known [3]bool
	any := false
	for i := range min(len(f.Rolls), len(decks)) {
		decks[i], known[i] = f.Deck(i + 1)
		any = any || known[i]
	}
	if !any {
		return b
	}
	b = append(b, `,"decks":[`...)
	for i := range min(len(f.Rolls), len(decks)) {
		if i > 0 {
			b = append(b, ',')
		}
		if !known[i] {
			b = append(b, "null"...)
			continue
		}
		b = append(b, deckText[decks[i]&bowling.Full]...)
	}
	return append(b, ']')
}

// deckText holds every deck as a board writes it: "[7,10]".
var deckText = func() (t [bowling.Full + 1]string) {
	for d := range bowling.Full + 1 {
		t[d] = string(appendInts(nil, d.Pins()))
	}
	return t
}()

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
	if len(l.enc.frames) <= len(players) {
		return
	}
	for name := range l.enc.frames {
		seated := false
		for _, p := range players {
			seated = seated || p.Name == name
		}
		if !seated {
			delete(l.enc.frames, name)
		}
	}
}
