package natsstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/lane/league/leaguetest"
	"github.com/tenpin/tenpin/lobby/natsconn"
)

// openBudgets opens a journal on an embedded server in dir with budgets
// b, and its stores of kept nights, bowlers and leagues, all closed when
// the test ends.
func openBudgets(t *testing.T, dir string, b Budgets) (*opened, *Archive, *Bowlers, *Leagues) {
	t.Helper()
	ctx := t.Context()
	j, err := openOn(ctx, natsconn.Config{Dir: dir, Logger: testLogger(t)}, Config{Budgets: b})
	if err != nil {
		t.Fatalf("Open(%s, budgets %+v): %v", dir, b, err)
	}
	t.Cleanup(func() { j.Close() })
	a, err := j.Archive(ctx, 0)
	if err != nil {
		t.Fatalf("Archive: %v", err)
	}
	bw, err := j.Bowlers(ctx)
	if err != nil {
		t.Fatalf("Bowlers: %v", err)
	}
	l, err := j.Leagues(ctx)
	if err != nil {
		t.Fatalf("Leagues: %v", err)
	}
	return j, a, bw, l
}

// The writes of each kind, each a new one every call, returning the
// store's error.
func appendLane(ctx context.Context, j *opened, n int) error {
	lane := fmt.Sprintf("lane%d", n)
	_, err := j.Append(ctx, lane, 0, game.Open(lane, "Lane", 4))
	return err
}

func keepNight(ctx context.Context, a *Archive, n int) error {
	return a.Keep(ctx, fmt.Sprintf("lane%d", n), make([]byte, 200))
}

func createBowler(ctx context.Context, b *Bowlers, n int) error {
	_, err := b.Create(ctx, bowler.NewID(), bowler.HashKey(fmt.Sprint("key", n)), "Kim", time.Now())
	return err
}

func createLeague(ctx context.Context, l *Leagues, n int) error {
	id := fmt.Sprintf("league%d", n)
	return l.Create(ctx, league.Stored{ID: id, Settings: leaguetest.Settings(), Secretary: league.HashKey(id), Created: time.Now()})
}

// fillUp writes until the store refuses, at most limit times, and returns
// the refusal.
func fillUp(t *testing.T, what string, limit int, write func(n int) error) error {
	t.Helper()
	for n := range limit {
		if err := write(n); err != nil {
			if n == 0 {
				t.Fatalf("%s: the first write was refused: %v", what, err)
			}
			return err
		}
	}
	t.Fatalf("%s: %d writes taken, and no refusal: the budget is not set", what, limit)
	return nil
}

// TestBudgetsRefuseOnlyTheirKind fills each budget in turn, and checks
// that a full one refuses its own kind with game.ErrStorageFull, says so
// in Full, and refuses nothing of the other kinds.
func TestBudgetsRefuseOnlyTheirKind(t *testing.T) {
	ctx := t.Context()
	j, a, b, l := openBudgets(t, t.TempDir(), Budgets{Lanes: 8 << 10, Kept: 4 << 10, Bowlers: 4 << 10, Leagues: 8 << 10})
	kinds := []struct {
		kind  string
		write func(n int) error
	}{
		{KindBowlers, func(n int) error { return createBowler(ctx, b, n) }},
		{KindKept, func(n int) error { return keepNight(ctx, a, n) }},
		{KindLeagues, func(n int) error { return createLeague(ctx, l, n) }},
		{KindLanes, func(n int) error { return appendLane(ctx, j, n) }},
	}
	for i, k := range kinds {
		err := fillUp(t, k.kind, 1000, func(n int) error { return k.write(1000*i + n) })
		if !errors.Is(err, game.ErrStorageFull) {
			t.Fatalf("%s at its budget: %v, want an error wrapping game.ErrStorageFull", k.kind, err)
		}
		full := j.Full()
		if !slices.Contains(full, k.kind) {
			t.Errorf("Full() = %q with %s at its budget, want it named", full, k.kind)
		}
		// The kinds not filled yet still take writes.
		for _, other := range kinds[i+1:] {
			if err := other.write(100000 + i); err != nil {
				t.Errorf("%s with %s full: %v, want it stored", other.kind, k.kind, err)
			}
		}
	}
	if err := j.Check(ctx); !errors.Is(err, game.ErrStorageFull) {
		t.Errorf("Check with the lanes' budget full: %v, want an error wrapping game.ErrStorageFull", err)
	}
	want := []string{KindLanes, KindKept, KindBowlers, KindLeagues}
	if got := j.Full(); !slices.Equal(got, want) {
		t.Errorf("Full() = %q, want %q", got, want)
	}
}

// TestBudgetLoweredOnReopen reopens a store with budgets below what it
// holds: it opens and serves what it keeps, names the full budgets at
// once, and refuses new writes of those kinds alone, dropping nothing.
func TestBudgetLoweredOnReopen(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	j, _, b, _ := openBudgets(t, dir, Budgets{})
	for n := range 20 {
		if err := appendLane(ctx, j, n); err != nil {
			t.Fatalf("append: %v", err)
		}
		if err := createBowler(ctx, b, n); err != nil {
			t.Fatalf("create a bowler: %v", err)
		}
	}
	j.Close()

	j, a, b, l := openBudgets(t, dir, Budgets{Lanes: 1 << 10, Bowlers: 1 << 10})
	if got, want := j.Full(), []string{KindLanes, KindBowlers}; !slices.Equal(got, want) {
		t.Errorf("Full() reopened over budgets = %q, want %q", got, want)
	}
	lanes, err := j.LaneIDs(ctx)
	if err != nil || len(lanes) != 20 {
		t.Errorf("LaneIDs reopened over budget = %d lanes, %v; want the 20 stored", len(lanes), err)
	}
	if r, err := b.Find(ctx, bowler.HashKey("key3")); err != nil || r.Name != "Kim" {
		t.Errorf("Find reopened over budget = %v, %v; want the bowler stored", r, err)
	}
	if err := appendLane(ctx, j, 99); !errors.Is(err, game.ErrStorageFull) {
		t.Errorf("append over the lowered budget: %v, want game.ErrStorageFull", err)
	}
	if err := createBowler(ctx, b, 99); !errors.Is(err, game.ErrStorageFull) {
		t.Errorf("create a bowler over the lowered budget: %v, want game.ErrStorageFull", err)
	}
	if err := keepNight(ctx, a, 99); err != nil {
		t.Errorf("keep a night, its budget unbounded: %v", err)
	}
	if err := createLeague(ctx, l, 99); err != nil {
		t.Errorf("create a league, its budget unbounded: %v", err)
	}
	j.Close()

	// Raised again, the same store takes writes again.
	j, _, b, _ = openBudgets(t, dir, Budgets{})
	if got := j.Full(); len(got) != 0 {
		t.Errorf("Full() unbounded = %q, want none", got)
	}
	if err := appendLane(ctx, j, 99); err != nil {
		t.Errorf("append unbounded: %v", err)
	}
	if err := createBowler(ctx, b, 99); err != nil {
		t.Errorf("create a bowler unbounded: %v", err)
	}
}

func TestBudgetNegative(t *testing.T) {
	_, err := openOn(t.Context(), natsconn.Config{Dir: t.TempDir(), Logger: testLogger(t)}, Config{Budgets: Budgets{Kept: -1}})
	if err == nil {
		t.Fatal("Open with a negative budget: no error")
	}
}

// TestLanesBudgetSplitOverShards: each stream of lanes gets its share of
// the lanes' budget, and refuses new events past it rather than drop old
// ones.
func TestLanesBudgetSplitOverShards(t *testing.T) {
	j, err := openOn(t.Context(), natsconn.Config{Dir: t.TempDir(), Logger: testLogger(t)}, Config{Shards: 3, Budgets: Budgets{Lanes: 3 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, s := range j.shards {
		info, err := s.stream.Info(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if c := info.Config; c.MaxBytes != 1<<20 || c.Discard != jetstream.DiscardNew {
			t.Errorf("stream %s: MaxBytes %d, discard %v; want %d, new", s.name, c.MaxBytes, c.Discard, 1<<20)
		}
	}
}
