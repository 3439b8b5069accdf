package api

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"sync"
	"time"
	"weak"

	"golang.org/x/sync/singleflight"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lobby/sheet"
	"github.com/tenpin/tenpin/protocol"
)

// builtCache keeps the exports built lately: each lane's (and league's),
// of its latest change (seq) only, since a change makes every one stale.
// At most builtCacheBytes in all; past it, the other lanes' go, the lane
// being built for keeps its own. It is the API's own: the lobby knows
// nothing of exports.
type builtCache struct {
	mu    sync.Mutex
	lanes map[string]*builtLane
	bytes int // of the exports kept, in all lanes
	// building holds the exports being built: the requests of one that
	// come meanwhile wait for it rather than build it again (right after
	// a ball, every page of a lane may ask for the same one).
	building singleflight.Group
	once     sync.Once
	turns    chan struct{} // a token for each export being answered
}

// Exports are answered — built, if need be, and written — a few at a
// time, however many are asked for: a lane of a hundred games' games are
// 440 kB of JSON, and fifty of them at once, from fifty addresses each
// within its rate, kept the lanes' goroutines waiting for a core (other
// lanes' rolls' p99 from 1.2 to 11 ms; 3 to 7 ms with turns: see
// cmd/tenpin/PERFORMANCE.md, "Exports beside the lanes"). The others wait
// their turn, up to exportTurnWait (then 503 unavailable); a turn's
// writes must be done within exportWriteTimeout, so that a client that
// reads slowly does not hold it.
const (
	exportTurnWait     = 10 * time.Second
	exportWriteTimeout = 10 * time.Second
)

// exportTurns is how many exports are answered at once: half the cores,
// so that the lanes always have the others.
var exportTurns = max(1, runtime.GOMAXPROCS(0)/2)

// turn waits for a turn to answer an export, and returns the function
// that ends it; false if none came within exportTurnWait or ctx ended.
func (c *builtCache) turn(ctx context.Context) (func(), bool) {
	c.once.Do(func() { c.turns = make(chan struct{}, exportTurns) })
	t := time.NewTimer(exportTurnWait)
	defer t.Stop()
	select {
	case c.turns <- struct{}{}:
		return func() { <-c.turns }, true
	case <-t.C:
	case <-ctx.Done():
	}
	return nil, false
}

// builtLane is one lane's exports of its change seq, by kind, and the
// parts of them its finished games make, which outlive a change.
type builtLane struct {
	seq  uint64
	data map[string][]byte
	// parts are what its finished games make of its exports, by kind and
	// the game's lane.Series.Number, built once, as a finished game never
	// changes, from the series of the lane of. A lane restored or taken
	// over since is another *lane.Lane: its parts are built again.
	of    weak.Pointer[lane.Lane]
	parts map[partKey]keptPart
	first int // the Number of the first game of the series, as last kept
}

type partKey struct {
	kind   string
	number int
}

// keptPart is a finished game's part of an export, and what else it was
// built for, if anything: a scorecard's place in the series and day.
type keptPart struct {
	gamePart
	as string
}

// gamePart is a game's part of an export but for its number in the
// series, which changes once the series moves past its longest (see
// lane.Series.Number): the number goes between its pieces.
type gamePart [][]byte

// appendTo appends the part as of game n of the series.
func (p gamePart) appendTo(b []byte, n int) []byte {
	for i, piece := range p {
		if i > 0 {
			b = strconv.AppendInt(b, int64(n), 10)
		}
		b = append(b, piece...)
	}
	return b
}

// size is how many bytes the part's pieces take, the number left out.
func (p gamePart) size() int {
	n := 0
	for _, piece := range p {
		n += len(piece)
	}
	return n
}

// assemble returns export kind of l, lane id, as it stands: head, each
// game's part as part writes it, sep between, then tail. The parts of its
// finished games are built once, and kept with the lane's exports; only
// the game in play's is built each time.
func (c *builtCache) assemble(id string, l *lane.Lane, kind, head, sep, tail string, part func(protocol.Game) (gamePart, error)) ([]byte, error) {
	s, of := l.Series(), weak.Make(l)
	parts := make([]gamePart, s.Finished(), s.Finished()+1)
	c.takeParts(id, of, kind, s, parts)
	var fresh map[partKey]keptPart
	for i := range parts {
		if parts[i] != nil {
			continue
		}
		g, _ := s.Game(i + 1)
		p, err := part(g)
		if err != nil {
			return nil, err
		}
		parts[i] = p
		if fresh == nil {
			fresh = make(map[partKey]keptPart)
		}
		fresh[partKey{kind, s.Number(i + 1)}] = keptPart{gamePart: p}
	}
	if fresh != nil {
		c.keepParts(id, of, s.Number(1), fresh)
	}
	if g, ok := s.Game(s.Finished() + 1); ok {
		p, err := part(g)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	size := len(head) + len(sep)*max(len(parts)-1, 0) + len(tail)
	for i, p := range parts {
		size += p.size() + (len(p)-1)*len(strconv.Itoa(i+1))
	}
	b := append(make([]byte, 0, size), head...)
	for i, p := range parts {
		if i > 0 {
			b = append(b, sep...)
		}
		b = p.appendTo(b, i+1)
	}
	return append(b, tail...), nil
}

// scorecard returns game n of l's series, lane id, drawn as card says. A
// finished game's card is drawn once for its place in the series and its
// day, and kept with the lane's exports.
func (c *builtCache) scorecard(id string, l *lane.Lane, n int, card sheet.Card) ([]byte, error) {
	s, of := l.Series(), weak.Make(l)
	k, as := partKey{"svg-" + card.Lang, s.Number(n)}, strconv.Itoa(n)+" "+card.Date.Format(time.DateOnly)
	finished := n >= 1 && n <= s.Finished()
	if finished {
		if p, ok := c.takePart(id, of, k, as); ok {
			return p[0], nil
		}
	}
	g, ok := s.Game(n)
	if !ok {
		return nil, errNoGame
	}
	var buf bytes.Buffer
	if err := sheet.SVG(&buf, g, card); err != nil {
		return nil, err
	}
	if finished {
		c.keepParts(id, of, s.Number(1), map[partKey]keptPart{k: {gamePart{buf.Bytes()}, as}})
	}
	return buf.Bytes(), nil
}

// takeParts fills parts — game n's at n-1 — with the parts kept of
// export kind of series s of lane id.
func (c *builtCache) takeParts(id string, of weak.Pointer[lane.Lane], kind string, s lane.Series, parts []gamePart) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.lanes[id]
	if l == nil || l.of != of {
		return
	}
	for i := range parts {
		if p, ok := l.parts[partKey{kind, s.Number(i + 1)}]; ok {
			parts[i] = p.gamePart
		}
	}
}

// takePart returns part k of lane id if it is kept, built for as.
func (c *builtCache) takePart(id string, of weak.Pointer[lane.Lane], k partKey, as string) (gamePart, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.lanes[id]
	if l == nil || l.of != of {
		return nil, false
	}
	p, ok := l.parts[k]
	return p.gamePart, ok && p.as == as
}

// keepParts keeps parts of lane id, whose series now starts with game
// number first, in place of any kept by their keys, and forgets those of
// the games before first, which the series no longer holds.
func (c *builtCache) keepParts(id string, of weak.Pointer[lane.Lane], first int, parts map[partKey]keptPart) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.lane(id)
	if l.of != of {
		c.bytes -= l.dropParts(func(partKey) bool { return true })
		l.of, l.first = of, 0
	}
	if first > l.first {
		c.bytes -= l.dropParts(func(k partKey) bool { return k.number < first })
		l.first = first
	}
	if l.parts == nil {
		l.parts = make(map[partKey]keptPart)
	}
	added := 0
	for k, p := range parts {
		added += p.size() - l.parts[k].size()
		l.parts[k] = p
	}
	c.fit(id, added)
}

// dropParts forgets the parts whose keys drop says, and returns how many
// bytes they took.
func (l *builtLane) dropParts(drop func(partKey) bool) int {
	n := 0
	for k, p := range l.parts {
		if drop(k) {
			n += p.size()
			delete(l.parts, k)
		}
	}
	return n
}

// builtCacheBytes bounds the exports kept, and their parts: a lane of a
// hundred games of four bowlers has 440 kB of games, 42 kB of CSV and 12
// kB a scorecard (two languages of each game: 2.4 MB), the same again in
// parts, so a few such lanes at once. A scorecard kept both ways is
// counted twice: the bound errs on the side of less.
const builtCacheBytes = 16 << 20

// build returns the export kind of lane id at its change seq, built by
// build if it is not kept.
func (c *builtCache) build(id string, seq uint64, kind string, build func() ([]byte, error)) ([]byte, error) {
	if d, ok := c.get(id, seq, kind); ok {
		return d, nil
	}
	v, err, _ := c.building.Do(id+" "+strconv.FormatUint(seq, 10)+" "+kind, func() (any, error) {
		if d, ok := c.get(id, seq, kind); ok {
			return d, nil // built while this request waited for the lock
		}
		d, err := build()
		if err == nil {
			c.put(id, seq, kind, d)
		}
		return d, err
	})
	d, _ := v.([]byte)
	return d, err
}

func (c *builtCache) get(id string, seq uint64, kind string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.lanes[id]
	if l == nil || l.seq != seq {
		return nil, false
	}
	d, ok := l.data[kind]
	return d, ok
}

func (c *builtCache) put(id string, seq uint64, kind string, d []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.lane(id)
	switch {
	case seq < l.seq:
		return // built of a change already past
	case seq > l.seq || l.data == nil:
		for _, d := range l.data {
			c.bytes -= len(d)
		}
		l.seq, l.data = seq, make(map[string][]byte)
	}
	c.bytes -= len(l.data[kind])
	l.data[kind] = d
	c.fit(id, len(d))
}

// lane returns the exports kept of lane id, added if there are none.
func (c *builtCache) lane(id string) *builtLane {
	l := c.lanes[id]
	if l == nil {
		if c.lanes == nil {
			c.lanes = make(map[string]*builtLane)
		}
		l = new(builtLane)
		c.lanes[id] = l
	}
	return l
}

// fit counts added bytes more kept for lane id and, past
// builtCacheBytes, forgets the other lanes' exports: first those of
// their latest change, which their parts build again at little cost,
// then their parts.
func (c *builtCache) fit(id string, added int) {
	c.bytes += added
	for other, l := range c.lanes {
		if c.bytes <= builtCacheBytes {
			return
		}
		if other != id {
			for _, d := range l.data {
				c.bytes -= len(d)
			}
			l.data = nil
		}
	}
	for other, l := range c.lanes {
		if c.bytes <= builtCacheBytes {
			return
		}
		if other != id {
			c.bytes -= l.dropParts(func(partKey) bool { return true })
			delete(c.lanes, other)
		}
	}
}
