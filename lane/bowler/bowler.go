// Package bowler is a bowler remembered across nights: the games they
// bowled, on whatever lane and under whatever name they typed that night,
// and their numbers — average, high game and series, strike and spare
// percentages, first-ball average, clean games, splits and single pins,
// and the leaves they face most — kept as each game ends, never
// recomputed from every game.
//
// A bowler has no account and no password: a phone holds a key, a long
// random secret, and the server keeps only the key's SHA-256 ([KeyHash]).
// A bowler may hold one key per device.
//
// The package is pure, as package bowling is: [Record.Add] decides what a
// game changes, and a [Service] — implemented beside the lanes' journal,
// in lobby/memjournal (memory) and lobby/natsstore (JetStream) — keeps records,
// keys and histories. The rules are those of the rule book,
// lane/bowling/DOMAIN.md ("Bowlers across nights").
package bowler

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
)

// Errors of a [Service].
var (
	// ErrUnknown: no bowler holds that key, or has that id or share: it
	// was never made, was revoked, or the bowler deleted their history.
	ErrUnknown = errors.New("bowler: unknown bowler")
	// ErrCode: a one-time code that is unknown or expired.
	ErrCode = errors.New("bowler: unknown or expired code")
	// ErrCodeUsed: a one-time code that linked a device already: it links
	// one, once.
	ErrCodeUsed = errors.New("bowler: code used already")
	// ErrTooManyCodes: a one-time code asked for while MaxCodes of the
	// bowler's are live.
	ErrTooManyCodes = errors.New("bowler: too many codes")
	// ErrExists: a bowler's id made again with another key.
	ErrExists = errors.New("bowler: that id is another bowler's")
)

// ID names a bowler in the store: random, never shown to anyone, never a
// key.
type ID string

// NewID returns a new bowler's id: 128 random bits.
func NewID() ID { return ID(rand.Text()) }

// NewKey returns a new device key: 130 random bits (rand.Text), which
// only the device keeps.
func NewKey() string { return rand.Text() }

// KeyHash is the SHA-256 of a key, of a one-time code, or of a share: all
// the server keeps of them.
type KeyHash [sha256.Size]byte

// HashKey returns the SHA-256 of a key.
func HashKey(key string) KeyHash { return sha256.Sum256([]byte(key)) }

// String returns the hash in hex, as a store's key.
func (h KeyHash) String() string { return hex.EncodeToString(h[:]) }

// MarshalText writes the hash in hex.
func (h KeyHash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText reads a hash in hex.
func (h *KeyHash) UnmarshalText(text []byte) error {
	if len(text) != 2*len(h) {
		return fmt.Errorf("bowler: a key hash is %d hex digits, not %d", 2*len(h), len(text))
	}
	_, err := hex.Decode(h[:], text)
	return err
}

// IsZero reports whether h is the zero hash: no key.
func (h KeyHash) IsZero() bool { return h == KeyHash{} }

// Game is one finished game of a bowler's history.
type Game struct {
	Lane     string    `json:"lane"`      // the lane's id
	LaneName string    `json:"lane_name"` // as its creator named it
	Game     int       `json:"game"`      // its number in the lane's series, from 1
	At       time.Time `json:"at"`        // when it ended, to the second, UTC
	Name     string    `json:"name"`      // the name the bowler typed that night
	Score    int       `json:"score"`
	Marks    []string  `json:"marks"` // each frame as the board marks it
	// Stats are the game's own numbers, as bowling.Stats counts them.
	Stats bowling.Stats `json:"stats"`
	// Leaves are the racks the game's first balls left standing, where
	// their decks are known, and whether the next ball cleared them.
	Leaves []Leave `json:"leaves,omitempty"`
	// Fix is how many corrections the game had when it was recorded: a
	// game is recorded the moment it is over, and again after each
	// correction while its lane still takes them, each version with
	// more than the one before it replaces (see [Record.Replaces]).
	Fix int `json:"fix,omitempty"`
}

// Leave is a rack a first ball left standing: the pins, and whether the
// next ball took them all.
type Leave struct {
	Deck bowling.Deck `json:"deck"`
	Made bool         `json:"made,omitempty"`
}

// FromGame returns g, a finished game of the bowler's, as their history
// keeps it: the lane's id and name, the game's number in its series, when
// it ended and the name bowled under.
func FromGame(lane, laneName string, number int, at time.Time, name bowling.Name, g *bowling.Game) Game {
	out := Game{Lane: lane, LaneName: laneName, Game: number, At: at.UTC().Truncate(time.Second), Name: string(name), Score: g.Total()}
	out.Stats.Add(g)
	for _, f := range g.Frames() {
		out.Marks = append(out.Marks, f.Marks())
		out.Leaves = appendLeaves(out.Leaves, f)
	}
	return out
}

// appendLeaves appends the racks the frame's first balls left, where
// known: a rack is fresh for a frame's first ball, and again in the tenth
// after a strike or a spare, as bowling.Stats counts racks.
func appendLeaves(dst []Leave, f bowling.Frame) []Leave {
	fresh, first := true, 0
	var leave *Leave
	for i, pins := range f.Rolls {
		if fresh {
			if pins == bowling.NumPins {
				continue
			}
			fresh, first, leave = false, pins, nil
			if d, ok := f.Deck(i + 1); ok {
				dst = append(dst, Leave{Deck: d})
				leave = &dst[len(dst)-1]
			}
			continue
		}
		fresh = true
		if leave != nil && first+pins == bowling.NumPins {
			leave.Made = true
		}
	}
	return dst
}

// SeriesGames is how many games in a row of one night make a series, as
// leagues bowl them.
const SeriesGames = 3

// recentGames is how many games a record remembers it has added, so that
// a game added again (a lane retrying after a failure, a moment later, or
// the lane's next server offering it again) counts once, and a corrected
// version of it takes its place. Every game's end rewrites the record: it
// is kept short. A lane takes corrections of its game in play alone, so a
// corrected game is always among a bowler's last few.
const recentGames = 16

// Record is a bowler's numbers across every night, kept as each game ends.
type Record struct {
	ID      ID        `json:"id"`
	Name    string    `json:"name"` // the name of their last game, or of the night they were made
	Created time.Time `json:"created"`
	// Stats are every finished game's numbers: Games, Pins, High, clean
	// games, strikes, spares, splits, single pins and fouls.
	Stats      bowling.Stats `json:"stats"`
	HighSeries int           `json:"high_series"`
	// Leaves counts each leave faced and made, by its deck.
	Leaves map[bowling.Deck]*LeaveCount `json:"leaves,omitempty"`
	// Night is the last night's run of games: its lane, and the last
	// games' numbers and scores in a row, for the next series.
	Night Night `json:"night"`
	// Recent are the games added last (lane and number), newest last.
	Recent []GameRef `json:"recent,omitempty"`
	// Keys are the hashes of the bowler's device keys: one per device.
	Keys []KeyHash `json:"keys"`
	// Share is the hash of the bowler's read-only link; zero for none.
	Share KeyHash `json:"share"`
	// Codes are the bowler's one-time codes not used yet, some perhaps
	// expired: at most MaxCodes live at once.
	Codes []Code `json:"codes,omitempty"`
}

// What one bowler may hold, so that nobody who holds a key can make a
// record grow without end: a device key each for a family's phones,
// tablets and laptops, and a few codes in flight to link them.
const (
	MaxKeys  = 10
	MaxCodes = 5
)

// Code is a one-time code a bowler's device made to link another: its
// hash, the key of the device that made it (the code dies with that key:
// see RemoveKey), and when it expires.
type Code struct {
	Hash    KeyHash   `json:"hash"`
	By      KeyHash   `json:"by"`
	Expires time.Time `json:"expires"`
}

// LeaveCount is a leave's tries and conversions.
type LeaveCount struct {
	Tries int `json:"tries"`
	Made  int `json:"made"`
}

// Night is a bowler's games in a row on one lane, the latest last.
type Night struct {
	Lane   string `json:"lane,omitempty"`
	Games  []int  `json:"games,omitempty"`  // their numbers in the lane's series
	Scores []int  `json:"scores,omitempty"` // and their scores
}

// GameRef names a game of a lane's series, as a record added it.
type GameRef struct {
	Lane string `json:"lane"`
	Game int    `json:"game"`
	Fix  int    `json:"fix,omitempty"` // the version added: the game's Fix
	// Place is the game's place in the history, from 1; 0 in a record
	// written before places were kept, whose game no correction replaces.
	Place int `json:"place,omitempty"`
}

// New returns the record of a new bowler with one key.
func New(id ID, name string, key KeyHash, at time.Time) *Record {
	return &Record{ID: id, Name: name, Created: at.UTC().Truncate(time.Second), Keys: []KeyHash{key}}
}

// News is what a game changed of a record worth saying on the lane: a new
// high game or series.
type News struct {
	HighGame   int // the new high game, 0 if it is not one
	HighSeries int // the new high series, 0 if it is not one
}

// Has reports whether a game to record the bowler's previous best: the
// first game ever is not news.
func (n News) Has() bool { return n.HighGame > 0 || n.HighSeries > 0 }

// Add adds a finished game to the record and reports what was new, and
// false if the record has it already, in any version (it changes nothing
// then: a later version replaces an earlier one through [Record.Correct]).
func (r *Record) Add(g Game) (News, bool) {
	if r.recent(g) >= 0 {
		return News{}, false
	}
	return r.count(g), true
}

// recent returns the index in Recent of game g (its lane and number, in
// any version), or -1.
func (r *Record) recent(g Game) int {
	return slices.IndexFunc(r.Recent, func(ref GameRef) bool { return ref.Lane == g.Lane && ref.Game == g.Game })
}

// Has reports whether the record counts g, in its version or a later
// one: adding g again would change nothing.
func (r *Record) Has(g Game) bool {
	i := r.recent(g)
	return i >= 0 && r.Recent[i].Fix >= g.Fix
}

// Replaces returns the place in the history of an earlier version of g
// that the record counts (the same game of the same lane, with fewer
// corrections), and false if it counts none: it counts g or a later
// version already, or g is new to it (see Add).
func (r *Record) Replaces(g Game) (int, bool) {
	i := r.recent(g)
	if i < 0 {
		return 0, false
	}
	ref := r.Recent[i]
	return ref.Place, ref.Place > 0 && ref.Fix < g.Fix
}

// Correct puts g, a later version of a game the record counts, in that
// game's place in history (the bowler's whole history, oldest first, as
// the record counts it: place n is history[n-1]), and counts the record's
// numbers again from it: a high game or series the earlier version set
// may stand no more, and only the history knows the next best. The game
// keeps the day it was bowled, the earlier version's: a correction changes
// its balls, not when it was bowled. Keys, share, id and the day the
// bowler was made stay. It reports what was
// new, and false (changing nothing) if the record counts no earlier
// version of g at a place of history.
func (r *Record) Correct(history []Game, g Game) (News, bool) {
	place, ok := r.Replaces(g)
	if !ok || place > len(history) || history[place-1].Lane != g.Lane || history[place-1].Game != g.Game {
		return News{}, false
	}
	high, series := r.Stats.High, r.HighSeries
	g.At = history[place-1].At
	history[place-1] = g
	*r = Record{ID: r.ID, Name: r.Name, Created: r.Created, Keys: r.Keys, Share: r.Share}
	for _, h := range history {
		r.count(h)
	}
	var news News
	if r.Stats.High > high && high > 0 {
		news.HighGame = r.Stats.High
	}
	if r.HighSeries > series && series > 0 {
		news.HighSeries = r.HighSeries
	}
	return news, true
}

// count adds game g to the record, the next of its history, and reports
// what was new.
func (r *Record) count(g Game) News {
	r.Recent = append(r.Recent, GameRef{Lane: g.Lane, Game: g.Game, Fix: g.Fix, Place: r.Stats.Games + 1})
	if n := len(r.Recent) - recentGames; n > 0 {
		r.Recent = slices.Delete(r.Recent, 0, n)
	}
	var news News
	first := r.Stats.Games == 0
	if g.Score > r.Stats.High && !first {
		news.HighGame = g.Score
	}
	st := &r.Stats
	st.Games++
	st.Pins += g.Score
	st.High = max(st.High, g.Score)
	st.CleanGames += g.Stats.CleanGames
	st.Strikes += g.Stats.Strikes
	st.StrikeChances += g.Stats.StrikeChances
	st.Spares += g.Stats.Spares
	st.SpareChances += g.Stats.SpareChances
	st.Opens += g.Stats.Opens
	st.FirstBallPins += g.Stats.FirstBallPins
	st.Splits += g.Stats.Splits
	st.SplitsMade += g.Stats.SplitsMade
	st.SinglePins += g.Stats.SinglePins
	st.SinglePinsMade += g.Stats.SinglePinsMade
	st.Fouls += g.Stats.Fouls
	if g.Name != "" {
		r.Name = g.Name
	}
	for _, l := range g.Leaves {
		if r.Leaves == nil {
			r.Leaves = make(map[bowling.Deck]*LeaveCount)
		}
		c := r.Leaves[l.Deck]
		if c == nil {
			c = new(LeaveCount)
			r.Leaves[l.Deck] = c
		}
		c.Tries++
		if l.Made {
			c.Made++
		}
	}
	// The series: this game and the ones before it on the same lane, if
	// they follow one another in its series.
	n := &r.Night
	if n.Lane != g.Lane || len(n.Games) == 0 || n.Games[len(n.Games)-1] != g.Game-1 {
		*n = Night{Lane: g.Lane}
	}
	n.Games = append(n.Games, g.Game)
	n.Scores = append(n.Scores, g.Score)
	if k := len(n.Games) - SeriesGames; k > 0 {
		n.Games, n.Scores = slices.Delete(n.Games, 0, k), slices.Delete(n.Scores, 0, k)
	}
	if len(n.Scores) == SeriesGames {
		series := 0
		for _, s := range n.Scores {
			series += s
		}
		if series > r.HighSeries {
			if r.HighSeries > 0 {
				news.HighSeries = series
			}
			r.HighSeries = series
		}
	}
	return news
}

// Average returns the bowler's average as USBC computes it: total pins
// divided by games, fractions dropped; false before their first game.
func (r *Record) Average() (int, bool) {
	if r.Stats.Games == 0 {
		return 0, false
	}
	return r.Stats.Pins / r.Stats.Games, true
}

// TopLeave is a leave among those a bowler faces most.
type TopLeave struct {
	Pins  []int
	Tries int
	Made  int
}

// TopLeaves returns the n leaves the bowler faced most, most tries first
// (then most made, then the fewer pins, then the lower pins).
func (r *Record) TopLeaves(n int) []TopLeave {
	out := make([]TopLeave, 0, len(r.Leaves))
	for d, c := range r.Leaves {
		out = append(out, TopLeave{Pins: d.Pins(), Tries: c.Tries, Made: c.Made})
	}
	slices.SortFunc(out, func(a, b TopLeave) int {
		switch {
		case a.Tries != b.Tries:
			return b.Tries - a.Tries
		case a.Made != b.Made:
			return b.Made - a.Made
		case len(a.Pins) != len(b.Pins):
			return len(a.Pins) - len(b.Pins)
		}
		return slices.Compare(a.Pins, b.Pins)
	})
	return out[:min(n, len(out))]
}

// HasKey reports whether the record holds key h.
func (r *Record) HasKey(h KeyHash) bool { return slices.Contains(r.Keys, h) }

// AddKey gives the record key, a new device's. Past MaxKeys, the oldest
// keys go, but keep (the key of the device that linked this one, which is
// in use: zero for none) and key itself; the keys that went are returned,
// with the codes their devices made (see RemoveKey), for the caller to
// forget too.
func (r *Record) AddKey(key, keep KeyHash) (revoked, codes []KeyHash) {
	if !r.HasKey(key) {
		r.Keys = append(r.Keys, key)
	}
	for i := 0; len(r.Keys) > MaxKeys && i < len(r.Keys); {
		if k := r.Keys[i]; k != keep && k != key {
			revoked = append(revoked, k)
			codes = append(codes, r.RemoveKey(k)...)
			continue // RemoveKey took it out: i is the next one
		}
		i++
	}
	return revoked, codes
}

// RemoveKey takes key from the record, and the codes its device made,
// which are returned: a device that is forgotten links no other.
func (r *Record) RemoveKey(key KeyHash) (codes []KeyHash) {
	r.Keys = slices.DeleteFunc(r.Keys, func(k KeyHash) bool { return k == key })
	r.Codes = slices.DeleteFunc(r.Codes, func(c Code) bool {
		if c.By == key {
			codes = append(codes, c.Hash)
			return true
		}
		return false
	})
	return codes
}

// AddCode records c, a code made by a device of the bowler, unless
// MaxCodes of theirs are live at now (ErrTooManyCodes). Expired codes go
// first; they are returned, for the caller to forget too.
func (r *Record) AddCode(c Code, now time.Time) (expired []KeyHash, err error) {
	r.Codes = slices.DeleteFunc(r.Codes, func(c Code) bool {
		if !now.Before(c.Expires) {
			expired = append(expired, c.Hash)
			return true
		}
		return false
	})
	if len(r.Codes) >= MaxCodes {
		return expired, fmt.Errorf("%w: %d codes made in the last minutes are not used yet; use one, or wait until they expire", ErrTooManyCodes, len(r.Codes))
	}
	r.Codes = append(r.Codes, c)
	return expired, nil
}

// UseCode takes the code of hash h from the record and returns it, if
// the record holds it.
func (r *Record) UseCode(h KeyHash) (Code, bool) {
	i := slices.IndexFunc(r.Codes, func(c Code) bool { return c.Hash == h })
	if i < 0 {
		return Code{}, false
	}
	c := r.Codes[i]
	r.Codes = slices.Delete(r.Codes, i, i+1)
	return c, true
}

// Service keeps bowlers: their records, device keys, histories, one-time
// codes and shares. Implementations are in lobby/memjournal and lobby/natsstore;
// bowlertest holds the tests every one must pass. They must be safe for
// concurrent use: games of one bowler may end on two lanes at once.
type Service interface {
	// Create makes bowler id, named name, holding one key: the id is
	// drawn (NewID) by the lane whose seat asked to be remembered, when
	// the seat is taken, and the bowler made when its first ball is
	// bowled. Creating the same id with the same key again returns the
	// bowler as it is (a try whose answer was lost); with another key it
	// is ErrExists.
	Create(ctx context.Context, id ID, key KeyHash, name string, at time.Time) (*Record, error)
	// Room returns an error wrapping game.ErrStorageFull if the store has
	// no room for another bowler, nil if it has or cannot tell: a join
	// asking to be remembered is seated as a guest then, told why.
	Room(ctx context.Context) error
	// Find returns the bowler holding key, or ErrUnknown.
	Find(ctx context.Context, key KeyHash) (*Record, error)
	// Get returns the bowler of id, or ErrUnknown.
	Get(ctx context.Context, id ID) (*Record, error)
	// Add adds a finished game to bowler id's history and record, once:
	// a game already added (its lane and number) in the same version or
	// a later one changes nothing, and a later version of it (a greater
	// Fix) takes its place ([Record.Correct]): the game counts once, in
	// its last version. It returns the record as it is now, and what was
	// new.
	Add(ctx context.Context, id ID, g Game) (*Record, News, error)
	// Games returns bowler id's games numbered below before (their place
	// in the history, from 1; 0 or past the last: from the newest),
	// newest first, at most limit of them.
	Games(ctx context.Context, id ID, before, limit int) ([]Game, error)
	// AddKey gives bowler id another device's key; past MaxKeys the
	// oldest go ([Record.AddKey]).
	AddKey(ctx context.Context, id ID, key KeyHash) error
	// Revoke takes a device's key from its bowler, and the codes that
	// device made: it finds nobody then.
	Revoke(ctx context.Context, key KeyHash) error
	// Delete erases bowler id: record, history, keys, codes and share.
	Delete(ctx context.Context, id ID) error
	// AddCode stores a one-time code (its hash), made by the device of
	// key by, that links a device to bowler id until expires; with
	// MaxCodes live already, it fails with ErrTooManyCodes.
	AddCode(ctx context.Context, id ID, code, by KeyHash, expires time.Time) error
	// Redeem uses a code once, before it expires and while the key of
	// the device that made it is the bowler's: it gives its bowler key
	// (keeping the maker's, past MaxKeys) and returns them, or fails
	// with ErrCodeUsed for a code used already (asked again while it
	// would have lived), else with ErrCode.
	Redeem(ctx context.Context, code, key KeyHash, now time.Time) (*Record, error)
	// Share makes share (its hash) a read-only link to bowler id's
	// page, replacing any share before; a zero share revokes it.
	Share(ctx context.Context, id ID, share KeyHash) error
	// Shared returns the bowler a share links to, or ErrUnknown.
	Shared(ctx context.Context, share KeyHash) (*Record, error)
}
