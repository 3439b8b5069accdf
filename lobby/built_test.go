package lobby

import (
	"context"
	"strconv"
	"testing"
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
