package natsstore

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tenpin/tenpin/lane/game"
)

// TestCompactReopen checks what the suite cannot: that the stream keeps
// its last sequence through a purge of every message and a restart of the
// embedded server, even one that has lost its index of the stream, so
// that positions never go back.
func TestCompactReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	j := open(t, dir)
	last := map[string]uint64{}
	add := func(j *opened, lane string, e game.Event) uint64 {
		t.Helper()
		pos, err := j.Append(ctx, lane, last[lane], e)
		if err != nil {
			t.Fatalf("Append(%s, after %d): %v", lane, last[lane], err)
		}
		last[lane] = pos
		return pos
	}
	wantLast := func(j *opened, want uint64) {
		t.Helper()
		if got, err := j.Last(ctx); got != want || err != nil {
			t.Fatalf("Last = %d, %v; want %d", got, err, want)
		}
	}
	compact := func(j *opened, before uint64) {
		t.Helper()
		if err := j.Compact(ctx, before); err != nil {
			t.Fatalf("Compact(%d): %v", before, err)
		}
	}
	lanes := func(j *opened) []game.Log {
		t.Helper()
		logs, err := j.Lanes(ctx)
		if err != nil {
			t.Fatalf("Lanes: %v", err)
		}
		return logs
	}
	reopen := func(j *opened) *opened {
		t.Helper()
		if err := j.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		return open(t, dir)
	}

	opened := game.Open("lane-0", "Lane", 2)
	add(j, "lane-0", opened)
	add(j, "lane-1", game.Open("lane-1", "Lane", 2))
	add(j, "lane-0", game.Event{Kind: game.Claimed, Epoch: 1, Node: "a"})
	end := add(j, "lane-1", game.Event{Kind: game.Claimed, Epoch: 1, Node: "a"})

	// Everything but the last event: lane-0 is gone.
	compact(j, end)
	wantLast(j, end)
	j = reopen(j)
	wantLast(j, end)
	want := []game.Log{{Lane: "lane-1", Events: []game.Event{{Kind: game.Claimed, Epoch: 1, Node: "a"}}, First: end, Last: end}}
	if got := lanes(j); !reflect.DeepEqual(got, want) {
		t.Fatalf("Lanes after Compact(%d) and reopening = %+v, want %+v", end, got, want)
	}

	// Everything, and more than everything: no message is left, and the
	// last sequence stays where it was (a purge beyond it would move it).
	compact(j, end+1)
	wantLast(j, end)
	compact(j, end+100)
	wantLast(j, end)
	if got := lanes(j); len(got) != 0 {
		t.Fatalf("Lanes after Compact(%d) = %+v, want none", end+1, got)
	}
	j = reopen(j)
	wantLast(j, end)
	if got := lanes(j); len(got) != 0 {
		t.Fatalf("Lanes after Compact(%d) and reopening = %+v, want none", end+1, got)
	}

	// Without the stream's index (as after a crash that lost it) the
	// server finds its last sequence in the tombstone the purge left.
	if err := j.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	index := filepath.Join(dir, "nats", "jetstream", "$G", "streams", StreamName, "msgs", "index.db")
	if err := os.Remove(index); err != nil {
		t.Fatalf("remove the stream's index: %v", err)
	}
	j = open(t, dir)
	wantLast(j, end)

	// lane-0, whose events were all dropped, starts again from 0, and
	// positions go on from where they were.
	last["lane-0"] = 0
	p := add(j, "lane-0", opened)
	if p != end+1 {
		t.Errorf("Append(lane-0, after 0) after every event was dropped = %d, want %d", p, end+1)
	}
	wantLast(j, p)
	// lane-1's last event was dropped: appending after it conflicts.
	if _, err := j.Append(ctx, "lane-1", end, game.Event{Kind: game.Claimed, Epoch: 2, Node: "b"}); !errors.Is(err, game.ErrConflict) {
		t.Errorf("Append(lane-1, after %d, dropped) = %v, want an error wrapping game.ErrConflict", end, err)
	}
}

// TestAppendAgainAfterCompact appends an event to a lane, drops the
// lane's events, and appends the same event after the same position
// again, on a server that remembers the first append's id: the second is
// stored, and a retry of it is found in rather than refused.
func TestAppendAgainAfterCompact(t *testing.T) {
	j := open(t, t.TempDir())
	ctx := t.Context()
	e := game.Open("again", "Again", 2)
	first, err := j.Append(ctx, "again", 0, e)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Compact(ctx, first+1); err != nil {
		t.Fatal(err)
	}
	second, err := j.Append(ctx, "again", 0, e)
	if err != nil || second <= first {
		t.Fatalf("Append(again, after 0) after the lane was dropped = %d, %v; want a position above %d", second, err, first)
	}
	for range 2 {
		if got, err := j.Append(ctx, "again", 0, e); got != second || err != nil {
			t.Errorf("the same append again = %d, %v; want %d, nil (it is in)", got, err, second)
		}
	}
	other := game.Open("again", "Other", 2)
	if got, err := j.Append(ctx, "again", 0, other); !errors.Is(err, game.ErrConflict) {
		t.Errorf("another event after 0 = %d, %v; want an error wrapping game.ErrConflict", got, err)
	}
	// Dropped again, and once more the same.
	if err := j.Compact(ctx, second+1); err != nil {
		t.Fatal(err)
	}
	third, err := j.Append(ctx, "again", 0, e)
	if err != nil || third <= second {
		t.Fatalf("Append(again, after 0) after the lane was dropped twice = %d, %v; want a position above %d", third, err, second)
	}
	log, err := j.Read(ctx, "again", 0)
	if err != nil || len(log.Events) != 1 || log.Last != third {
		t.Errorf("Read(again) = %d events, last %d, %v; want 1, last %d", len(log.Events), log.Last, err, third)
	}
}

// TestStreamUpdate opens the journal on a stream whose settings differ
// from those Open sets, rollups allowed or not: Open brings them up to
// date either way, so that a version that changes them can be rolled out
// or back.
func TestStreamUpdate(t *testing.T) {
	dir := t.TempDir()
	for _, allow := range []bool{false, true, false} {
		j := open(t, dir)
		cfg := j.stream.CachedInfo().Config
		cfg.AllowRollup = allow
		cfg.Duplicates = 0 // the server's default
		if _, err := j.js.UpdateStream(t.Context(), cfg); err != nil {
			t.Fatalf("UpdateStream(AllowRollup %t): %v", allow, err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		j = open(t, dir)
		if got := j.stream.CachedInfo().Config; !got.AllowRollup || got.Duplicates != duplicateWindow {
			t.Errorf("Open on a stream with AllowRollup %t: AllowRollup %t, Duplicates %v; want true, %v", allow, got.AllowRollup, got.Duplicates, duplicateWindow)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
