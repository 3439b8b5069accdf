package api

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/lobby/sheet"
	"github.com/tenpin/tenpin/protocol"
)

// TestBuiltCache: a lane's exports are kept for its latest change only;
// one built for a change already past is not kept; past builtCacheBytes,
// the other lanes' go and the lane built for keeps its own.
func TestBuiltCache(t *testing.T) {
	var c builtCache
	builds := 0
	build := func(id string, seq uint64, kind string) []byte {
		d, err := c.build(id, seq, kind, func() ([]byte, error) {
			builds++
			return []byte(id + strconv.FormatUint(seq, 10) + kind), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	build("a", 1, "csv")
	build("a", 1, "csv")
	if builds != 1 {
		t.Errorf("an export asked for twice at one change was built %d times, want 1", builds)
	}
	build("a", 2, "games")
	if _, ok := c.get("a", 1, "csv"); ok || c.bytes != len("a2games") {
		t.Errorf("a's export of change 1 is kept after change 2 (%d bytes kept)", c.bytes)
	}
	c.put("a", 1, "stats", []byte("late"))
	if _, ok := c.get("a", 1, "stats"); ok {
		t.Errorf("an export of a change already past was kept")
	}
	big := make([]byte, builtCacheBytes/4)
	for i := range 4 {
		c.put("b", 1, strconv.Itoa(i), big)
	}
	if _, ok := c.get("a", 2, "games"); ok {
		t.Errorf("past builtCacheBytes, another lane's export is kept")
	}
	if _, ok := c.get("b", 1, "0"); !ok || c.bytes != builtCacheBytes {
		t.Errorf("past builtCacheBytes, the lane built for lost its exports (%d bytes kept)", c.bytes)
	}
}

// TestExportTurns: exportTurns exports are answered at once; the next
// waits, and gives up when its request ends.
func TestExportTurns(t *testing.T) {
	var c builtCache
	var ends []func()
	for range exportTurns {
		end, ok := c.turn(t.Context())
		if !ok {
			t.Fatalf("one of the first %d turns was refused", exportTurns)
		}
		ends = append(ends, end)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, ok := c.turn(ctx); ok {
		t.Errorf("a turn past exportTurns was given at once")
	}
	ends[0]()
	if end, ok := c.turn(t.Context()); !ok {
		t.Errorf("a turn ended, and the next was refused")
	} else {
		end()
	}
}

// TestBuiltParts: a finished game's part of an export is built once and
// kept across the lane's changes, the game in play's every time; a lane
// restored (another *lane.Lane of the id) has its parts built again; and
// the bytes kept are those of the parts.
func TestBuiltParts(t *testing.T) {
	j := memjournal.New()
	series := make([]game.Result, 3)
	for i := range series {
		series[i].Players = []game.Score{{Name: "Ann"}}
	}
	snap := game.Event{Kind: game.Snapshot, Snapshot: &game.LaneSnapshot{ID: "abc", Name: "Three", MaxPlayers: 8, Series: series}}
	if _, err := j.Append(t.Context(), "abc", 0, snap); err != nil {
		t.Fatal(err)
	}
	restore := func() *lane.Lane {
		log, err := j.Read(t.Context(), "abc", 0)
		if err != nil {
			t.Fatal(err)
		}
		l, err := lane.Restore(t.Context(), log, lane.Config{Journal: j})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	var c builtCache
	var built []int
	part := func(g protocol.Game) (gamePart, error) {
		built = append(built, g.Game)
		return gamePart{[]byte("<"), []byte(">")}, nil
	}
	first, again := restore(), restore()
	for _, step := range []struct {
		name  string
		l     *lane.Lane
		built []int
	}{
		{"first asked", first, []int{1, 2, 3}},
		{"asked again", first, nil},
		{"restored", again, []int{1, 2, 3}},
		{"restored, asked again", again, nil},
	} {
		built = nil
		d, err := c.assemble("abc", step.l, "kind", "[", ",", "]", part)
		if err != nil {
			t.Fatal(err)
		}
		if string(d) != "[<1>,<2>,<3>]" || !slices.Equal(built, step.built) || c.bytes != 3*len("<>") {
			t.Errorf("%s: %q, games %v built, %d bytes kept; want [<1>,<2>,<3>], %v, 6", step.name, d, built, c.bytes, step.built)
		}
	}
}

// TestBuiltScorecards: a finished game's scorecard is drawn once for its
// place in the series, language and day.
func TestBuiltScorecards(t *testing.T) {
	l := lane.New("abc", "Cards", lane.Config{})
	var c builtCache
	today := sheet.Card{Lane: "Cards", Date: time.Now(), Lang: "en"}
	if _, err := c.scorecard("abc", l, 1, today); !errors.Is(err, errNoGame) {
		t.Fatalf("the scorecard of no game: %v, want errNoGame", err)
	}
	j := memjournal.New()
	series := []game.Result{{Players: []game.Score{{Name: "Ann"}}}}
	snap := game.Event{Kind: game.Snapshot, Snapshot: &game.LaneSnapshot{ID: "abc", Name: "Cards", MaxPlayers: 8, Series: series}}
	if _, err := j.Append(t.Context(), "abc", 0, snap); err != nil {
		t.Fatal(err)
	}
	log, err := j.Read(t.Context(), "abc", 0)
	if err != nil {
		t.Fatal(err)
	}
	if l, err = lane.Restore(t.Context(), log, lane.Config{Journal: j}); err != nil {
		t.Fatal(err)
	}
	tomorrow, korean := today, today
	tomorrow.Date, korean.Lang = today.Date.AddDate(0, 0, 1), "ko"
	first, _ := c.scorecard("abc", l, 1, today)
	for _, tc := range []struct {
		name string
		card sheet.Card
		kept bool
	}{
		{"asked again", today, true},
		{"in Korean", korean, false},
		{"the next day", tomorrow, false},
	} {
		d, err := c.scorecard("abc", l, 1, tc.card)
		if err != nil {
			t.Fatal(err)
		}
		if kept := &d[0] == &first[0]; kept != tc.kept {
			t.Errorf("%s: the card drawn first kept %v, want %v", tc.name, kept, tc.kept)
		}
	}
}
