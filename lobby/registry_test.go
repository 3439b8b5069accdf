package lobby

import (
	"slices"
	"testing"

	"github.com/tenpin/tenpin/lane"
)

// TestRegistry: the registry's lanes, step by step: places held for the
// lanes being created count against its limit, an id drawn twice is
// refused, a lane that closed keeps its place in the list, private
// lanes are not listed, and restoring records what failed and what Run
// is to start.
func TestRegistry(t *testing.T) {
	var cfg lane.Config
	newLane := func(id string, private bool) *lane.Lane {
		c := cfg
		c.Private = private
		return lane.New(id, id, c)
	}
	a, b, c, p := newLane("aaaa", false), newLane("bbbb", false), newLane("cccc", false), newLane("pppp", true)
	r := newRegistry(3)
	type state struct {
		len      int
		listed   []string // ids, in creation order
		failed   []string
		toStart  int
		position map[string]uint64 // 0: none
	}
	for i, st := range []struct {
		what string
		step func() bool // reports whether it was allowed
		ok   bool
		want state
	}{
		{"a place for a", r.reserve, true, state{}},
		{"a opens", func() bool { return r.open(a, "A", nil) == nil }, true, state{len: 1, listed: []string{"aaaa"}, position: map[string]uint64{"aaaa": 1}}},
		{"a place for b", r.reserve, true, state{len: 1, listed: []string{"aaaa"}}},
		{"a place for c", r.reserve, true, state{len: 1, listed: []string{"aaaa"}}},
		{"a fourth place, past the limit", r.reserve, false, state{len: 1, listed: []string{"aaaa"}}},
		{"b's place given back", func() bool { r.unreserve(); return true }, true, state{len: 1, listed: []string{"aaaa"}}},
		{"a drawn twice", func() bool { return r.open(a, "", nil) == nil }, false, state{len: 1, listed: []string{"aaaa"}}},
		{"a place for p", r.reserve, true, state{len: 1, listed: []string{"aaaa"}}},
		{"p opens, private", func() bool { return r.open(p, "", nil) == nil }, true, state{len: 2, listed: []string{"aaaa"}, position: map[string]uint64{"pppp": 2}}},
		{"a closes", func() bool { owner, ok := r.remove("aaaa"); return ok && owner == "A" }, true, state{len: 1, position: map[string]uint64{"aaaa": 1}}},
		{"a closes again", func() bool { _, ok := r.remove("aaaa"); return ok }, false, state{len: 1}},
		{"b restored", func() bool { r.restored("bbbb", b, false); return true }, true, state{len: 2, listed: []string{"bbbb"}, toStart: 1, position: map[string]uint64{"bbbb": 3}}},
		{"c failed to restore", func() bool { r.restored("cccc", nil, true); return true }, true, state{len: 2, listed: []string{"bbbb"}, failed: []string{"cccc"}, toStart: 1}},
		{"c restored at last", func() bool { r.restored("cccc", c, false); return r.start("cccc") == c }, true, state{len: 3, listed: []string{"bbbb", "cccc"}, toStart: 1}},
		{"Run starts b", func() bool { return slices.Equal(r.startAll(), []*lane.Lane{b}) }, true, state{len: 3, listed: []string{"bbbb", "cccc"}}},
	} {
		if got := st.step(); got != st.ok {
			t.Fatalf("step %d, %s: %v, want %v", i, st.what, got, st.ok)
		}
		var listed []string
		es := r.listed()
		slices.SortFunc(es, func(x, y *entry) int { return int(x.n) - int(y.n) })
		for _, e := range es {
			listed = append(listed, e.lane.ID())
		}
		got := state{len: r.len(), listed: listed, failed: r.failed(), toStart: len(r.toStart)}
		if got.len != st.want.len || !slices.Equal(got.listed, st.want.listed) || !slices.Equal(got.failed, st.want.failed) || got.toStart != st.want.toStart {
			t.Fatalf("step %d, %s: %+v, want %+v", i, st.what, got, st.want)
		}
		for id, want := range st.want.position {
			if n, _ := r.position(id); n != want {
				t.Errorf("step %d, %s: position(%s) = %d, want %d", i, st.what, id, n, want)
			}
		}
	}
}
