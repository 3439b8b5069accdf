package lobby

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby/peers"
	"github.com/tenpin/tenpin/protocol"
)

// Archive keeps the nights of lanes that closed: a lane's sheet — its
// last board, its series, its numbers — outlives the lane and its log,
// read-only, for as long as the archive keeps it (a server's -keep). A
// kept lane costs no goroutine and no memory of the lobby's: it is read
// from the archive when asked for. Implementations are in lobby/memjournal
// (in memory) and lobby/natsstore (a JetStream key-value bucket beside the
// lanes' stream, replicated as it is); they must be safe for concurrent
// use.
type Archive interface {
	// Keep stores the sheet of lane id, replacing any it kept before.
	Keep(ctx context.Context, id string, sheet []byte) error
	// Kept returns the sheet of lane id, or nil and no error if it keeps
	// none (never kept, or expired).
	Kept(ctx context.Context, id string) ([]byte, error)
}

// errNotKept: the archive keeps no lane of that id.
var errNotKept = errors.New("lobby: no such lane kept")

// keepTimeout bounds storing a closing lane's sheet: the lane waits for
// it, with nobody on it, and tries again later if it fails.
const keepTimeout = 10 * time.Second

// keptLane is the sheet of a lane that closed, as an [Archive] keeps it:
// what the lane showed when it closed. It is what the HTTP API shows of a
// closed lane.
type keptLane struct {
	View     peers.LaneView `json:"view"`
	ClosedAt time.Time      `json:"closed_at"`
}

var _ Lane = (*keptLane)(nil)

func (k *keptLane) ID() string            { return k.View.ID() }
func (k *keptLane) Name() string          { return k.View.Name() }
func (k *keptLane) BoardJSON() []byte     { return k.View.Board }
func (k *keptLane) BoardText() string     { return k.View.Text }
func (k *keptLane) Games() protocol.Games { return k.View.Games }
func (k *keptLane) Stats() protocol.Stats { return k.View.Stats }

func (k *keptLane) Game(n int) (protocol.Game, bool) { return gameOf(k.View.Games, n) }

// keptNights keeps the nights of the lobby's lanes that close, in its
// Archive, and reads them back: each address's nights kept a day
// counted by the Admission, the sheets read lately kept decoded, and why
// a lane's night was not kept, for its link to say.
type keptNights struct {
	archive Archive
	admit   *Admission
	owner   func(id string) string // the address that created lane id; "" for none
	perDay  int                    // Config.KeptPerAddr, for the log
	log     *slog.Logger

	sheets sheetCache // kept lanes' sheets read lately, decoded
	unkept unkept     // lanes closed lately whose nights could not be kept
}

// ClosedAt returns when l closed, if it is the kept night of a lane that
// closed, as Lobby.Find returns one: the date its scorecards carry. It is
// false for a lane open.
func ClosedAt(l Lane) (time.Time, bool) {
	k, ok := l.(*keptLane)
	if !ok {
		return time.Time{}, false
	}
	return k.ClosedAt, true
}

// keep stores the night of l, which is closing, in the archive: the
// lane's Config.Keep. It runs on the lane's goroutine.
func (kn *keptNights) keep(ctx context.Context, l *lane.Lane) error {
	owner := kn.owner(l.ID())
	if !kn.admit.mayKeep(owner, time.Now()) {
		// Not an error: the lane closes, its night unkept, rather than
		// stay open to try again.
		kn.log.Warn("a lane's night not kept: its creator's address has had its nights kept today", "lane", l.ID(), "per_day", kn.perDay)
		return nil
	}
	k := keptLane{View: *peers.Describe(l), ClosedAt: time.Now().UTC().Truncate(time.Second)}
	var board protocol.Board
	if err := json.Unmarshal(k.View.Board, &board); err != nil {
		return fmt.Errorf("lobby: keeping lane %s: its board: %w", l.ID(), err)
	}
	// Nobody is up, on, or watching a closed lane.
	board.Up, board.Spectators, board.ClosedAt = nil, 0, &k.ClosedAt
	for i := range board.Players {
		board.Players[i].Connected, board.Players[i].Away = false, false
	}
	k.View.Board, _ = json.Marshal(board) // plain values: cannot fail
	k.View.Summary.Spectators = 0
	sheet, err := encodeSheet(&k)
	if err != nil {
		return fmt.Errorf("lobby: keeping lane %s: %w", l.ID(), err)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keepTimeout)
	defer cancel()
	if err := kn.archive.Keep(ctx, l.ID(), sheet); err != nil {
		kn.admit.unkept(owner) // a night not kept costs its address nothing
		if errors.Is(err, game.ErrStorageFull) {
			// The lane closes unkept (see lane.Config.Keep): its link
			// says why rather than "no such lane".
			pe, _ := lane.ErrorFor(err)
			kn.unkept.add(l.ID(), pe.Message)
		}
		return fmt.Errorf("lobby: keeping lane %s: %w", l.ID(), err)
	}
	kn.log.Info("lane kept", "lane", l.ID(), "games", len(k.View.Games.Games), "bytes", len(sheet))
	return nil
}

// kept returns the kept sheet of lane id, or errNotKept. A sheet read is
// kept decoded for a while: a closed lane's page asks for its board, its
// games, its numbers and every game's scorecard at once.
func (kn *keptNights) kept(ctx context.Context, id string) (*keptLane, error) {
	if kn == nil {
		return nil, errNotKept
	}
	if _, ok := idOrder(id); !ok {
		return nil, errNotKept // no lane ever had that id
	}
	if k := kn.sheets.get(id, time.Now()); k != nil {
		return k, nil
	}
	data, err := kn.archive.Kept(ctx, id)
	switch {
	case err != nil:
		return nil, err
	case data == nil:
		return nil, errNotKept
	}
	k, err := decodeSheet(data)
	if err == nil {
		kn.sheets.put(id, k, time.Now())
	}
	return k, err
}

// Kept sheets decoded: at most sheetCacheSize, each for sheetCacheTTL,
// the moments a page takes to ask for all it shows (a sheet never
// changes, but its keep time ends).
const (
	sheetCacheSize = 64
	sheetCacheTTL  = 5 * time.Second
)

// sheetCache holds the sheets read lately, decoded.
type sheetCache struct {
	mu     sync.Mutex
	sheets map[string]cachedSheet
}

type cachedSheet struct {
	k  *keptLane
	at time.Time
}

func (c *sheetCache) get(id string, now time.Time) *keptLane {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sheets[id]
	if !ok || now.Sub(s.at) > sheetCacheTTL {
		return nil
	}
	return s.k
}

func (c *sheetCache) put(id string, k *keptLane, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sheets == nil || len(c.sheets) >= sheetCacheSize {
		c.sheets = make(map[string]cachedSheet) // simply start again: a cache of moments
	}
	c.sheets[id] = cachedSheet{k, now}
}

// A sheet is stored as gzipped JSON: a night of 100 games of 8 bowlers
// is over a megabyte of JSON, more than a NATS message takes by default,
// and a tenth of it gzipped.
func encodeSheet(k *keptLane) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(k); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// maxSheet bounds a kept sheet once unzipped: a stored sheet can never
// grow past what encodeSheet makes of a lane at its limits, but a
// corrupted one must not take the server's memory.
const maxSheet = 16 << 20

func decodeSheet(data []byte) (*keptLane, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("lobby: a kept sheet: %w", err)
	}
	var k keptLane
	if err := json.NewDecoder(io.LimitReader(zr, maxSheet)).Decode(&k); err != nil {
		return nil, fmt.Errorf("lobby: a kept sheet: %w", err)
	}
	return &k, nil
}

// maxUnkept bounds the lanes whose nights could not be kept that the
// lobby remembers, in memory only, at some 200 bytes each: the links of
// those that closed lately say why they show nothing, and older ones
// answer lane_not_found again.
const maxUnkept = 1024

// unkept remembers the lanes that closed while the kept nights' budget
// was full, and why, the oldest forgotten first.
type unkept struct {
	mu      sync.Mutex
	reasons map[string]string
	order   []string
}

func (u *unkept) add(id, why string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.reasons == nil {
		u.reasons = make(map[string]string)
	}
	if _, ok := u.reasons[id]; !ok {
		if len(u.order) == maxUnkept {
			delete(u.reasons, u.order[0])
			u.order = u.order[1:]
		}
		u.order = append(u.order, id)
	}
	u.reasons[id] = why
}

// why returns why lane id's night was not kept, "" if it is not known to
// have been refused (or the lobby keeps no nights).
func (kn *keptNights) why(id string) string {
	if kn == nil {
		return ""
	}
	return kn.unkept.why(id)
}

// why returns why lane id's night was not kept, "" if it is not known to
// have been refused.
func (u *unkept) why(id string) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.reasons[id]
}
