package natsstore

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/game"
)

// TestStoreHealsAfterFullDisk: on a data directory whose disk fills up,
// appends fail and Check says so; once space is back, the journal takes
// appends again within 30 s, with no restart. It mounts a small tmpfs,
// so it needs root (as CI runs).
func TestStoreHealsAfterFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the store to heal")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=8m"); err != nil {
		t.Skipf("mounting a small disk needs root: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })

	j := open(t, filepath.Join(dir, "data"))
	ctx := t.Context()
	pos, err := j.Append(ctx, "full", 0, game.Open("full", "a full disk", 0))
	if err != nil {
		t.Fatal(err)
	}

	// Fill the disk, then append until the store notices.
	filler := filepath.Join(dir, "filler")
	fill(t, filler)
	roll := game.Event{Kind: game.SeatTaken, Player: "PJS", Token: game.HashToken("t")}
	failed := false
	for i := range 200 {
		p, err := j.Append(ctx, "full", pos, roll)
		if err != nil {
			t.Logf("append %d on a full disk: %v", i, err)
			failed = true
			break
		}
		pos = p
		time.Sleep(20 * time.Millisecond) // lets the store flush to disk; bounded by the loop
	}
	if !failed {
		t.Fatal("200 appends on a full disk all succeeded")
	}
	if err := j.Check(ctx); err == nil {
		t.Fatal("Check says the store is healthy on a full disk after a failed append")
	}

	// Space comes back: the journal serves again, by itself.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	freed := time.Now()
	for {
		err := j.Check(ctx)
		if err == nil {
			break
		}
		if time.Since(freed) > 30*time.Second {
			t.Fatalf("30 s after space came back the store still fails: %v", err)
		}
		time.Sleep(200 * time.Millisecond) // between checks; bounded by the deadline
	}
	t.Logf("the store took writes again %v after space came back", time.Since(freed).Round(100*time.Millisecond))
	log, err := j.Read(ctx, "full", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(ctx, "full", log.Last, roll); err != nil && !errors.Is(err, game.ErrConflict) {
		t.Fatalf("an append after healing: %v", err)
	}
	// A new lane, too.
	if _, err := j.Append(ctx, "new", 0, game.Open("new", "after the disk was full", 0)); err != nil {
		t.Fatalf("a new lane after healing: %v", err)
	}
}

// fill writes to file until its disk is full.
func fill(t *testing.T, file string) {
	t.Helper()
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			return
		}
	}
}
