package natsstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/bowler"
)

// uniqueName returns a name no test data holds by chance: prefix and ten
// random letters (names are letters only).
func uniqueName(prefix string) string {
	b := []byte(prefix)
	for range 10 {
		b = append(b, byte('a'+rand.IntN(26)))
	}
	return string(b)
}

// filesHolding returns the files under dir that hold b.
func filesHolding(t *testing.T, dir string, b []byte) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(data, b) {
			rel, _ := filepath.Rel(dir, path)
			found = append(found, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the store's files: %v", err)
	}
	return found
}

// TestDeleteLeavesNoTrace: once Delete returns and the server has
// stopped (its files flushed), no file of the store holds the bowler's
// name, which every game rewrote the record with, nor its data key. The
// same search finds a sheet kept plain in the archive, and the data key
// of a bowler not deleted: it reads every file.
func TestDeleteLeavesNoTrace(t *testing.T) {
	dir := t.TempDir()
	name, other, kept := uniqueName("Zyxwvutsq"), uniqueName("Wvutsrqpo"), uniqueName("Qrstuvwxy")
	at := time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC)

	j, b := openBowlers(t, dir)
	ctx := t.Context()
	a, err := j.Archive(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Keep(ctx, "lane1", []byte(`{"players":["`+kept+`"]}`)); err != nil {
		t.Fatal(err)
	}
	r := bowlerWithGames(t, b, "phone", name, 12, at)
	o := bowlerWithGames(t, b, "other", other, 2, at)
	if err := b.AddKey(ctx, r.ID, bowler.HashKey("tablet")); err != nil {
		t.Fatal(err)
	}
	if err := b.AddCode(ctx, r.ID, bowler.HashKey("code"), bowler.HashKey("phone"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := b.Share(ctx, r.ID, bowler.HashKey("share")); err != nil {
		t.Fatal(err)
	}
	key, err := b.readKey(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := b.readKey(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	check := func(when string, want map[string]bool) {
		t.Helper()
		for what, b := range map[string][]byte{
			"the kept sheet's name " + kept:    []byte(kept),
			"the bowler's name " + name:        []byte(name),
			"the other bowler's name " + other: []byte(other),
			"the bowler's data key":            key,
			"the other bowler's data key":      otherKey,
		} {
			if files := filesHolding(t, dir, b); (len(files) > 0) != want[what] {
				t.Errorf("%s: %s in the files %v; want it there: %v", when, what, files, want[what])
			}
		}
	}
	// Sealed: the names were never written plain.
	check("before Delete", map[string]bool{
		"the kept sheet's name " + kept: true,
		"the bowler's data key":         true,
		"the other bowler's data key":   true,
	})

	// Again, the keys read from the store rather than cached.
	j, b = openBowlers(t, dir)
	if got, err := b.Get(ctx, o.ID); err != nil || got.Name != other {
		t.Fatalf("the other bowler after a restart: %+v, %v; want %s", got, err, other)
	}
	if err := b.Delete(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	check("after Delete", map[string]bool{
		"the kept sheet's name " + kept: true,
		"the other bowler's data key":   true,
	})
}

// openBowlers opens a journal on an embedded server in dir, and its
// bowlers.
func openBowlers(t *testing.T, dir string) (*opened, *Bowlers) {
	t.Helper()
	j := open(t, dir)
	b, err := j.Bowlers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return j, b
}

// bowlerWithGames makes a bowler holding key, named name, who bowled n
// games under that name: n rewrites of its record.
func bowlerWithGames(t *testing.T, b *Bowlers, key, name string, n int, at time.Time) *bowler.Record {
	t.Helper()
	r, err := b.Create(t.Context(), bowler.NewID(), bowler.HashKey(key), name, at)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		g := bowler.Game{Lane: "lane1", LaneName: "Friday", Game: i, At: at.Add(time.Duration(i) * time.Minute), Name: name, Score: 100 + i, Marks: []string{"X"}}
		if _, _, err := b.Add(t.Context(), r.ID, g); err != nil {
			t.Fatalf("Add(game %d): %v", i, err)
		}
	}
	return r
}

// TestPlainRecordsAreSealedWhenWritten: a bowler stored before values
// were sealed (plain JSON, no data key) reads as it is, and its record
// and next game are sealed when written, under a data key made then; its
// old game stays plain, and reads.
func TestPlainRecordsAreSealedWhenWritten(t *testing.T) {
	_, b := openBowlers(t, t.TempDir())
	ctx := t.Context()
	at := time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC)
	key := bowler.HashKey("phone")
	r := bowler.New(bowler.NewID(), "Kim", key, at)
	g := bowler.Game{Lane: "lane1", LaneName: "Friday", Game: 1, At: at, Name: "Kim", Score: 120, Marks: []string{"X"}}
	r.Add(g)
	for k, v := range map[string]any{recordKey(r.ID): r, gameKey(r.ID, 1): g, keyKey(key): nil} {
		data, err := json.Marshal(v)
		if v == nil {
			data = []byte(r.ID)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.kv.Create(ctx, k, data); err != nil {
			t.Fatal(err)
		}
	}

	if got, err := b.Find(ctx, key); err != nil || got.Name != "Kim" || got.Stats.Games != 1 {
		t.Fatalf("Find(a plain bowler's key) = %+v, %v; want Kim, with 1 game", got, err)
	}
	if _, err := b.readKey(ctx, r.ID); !errors.Is(err, errNoKey) {
		t.Fatalf("a plain bowler's data key, read: %v; want none (errNoKey) before anything is written", err)
	}
	g2 := g
	g2.Game, g2.Score = 2, 150
	if _, _, err := b.Add(ctx, r.ID, g2); err != nil {
		t.Fatalf("Add to a plain bowler: %v", err)
	}
	for k, sealed := range map[string]bool{recordKey(r.ID): true, gameKey(r.ID, 2): true, gameKey(r.ID, 1): false} {
		e, err := b.kv.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Value()[0] == sealV1; got != sealed {
			t.Errorf("%s starts with %q after the add: sealed %v, want %v", k, e.Value()[0], got, sealed)
		}
	}
	games, err := b.Games(ctx, r.ID, 0, 10)
	if err != nil || len(games) != 2 || games[0].Score != 150 || games[1].Score != 120 {
		t.Errorf("Games after the add = %+v, %v; want 150 then 120", games, err)
	}
	if err := b.Delete(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
}

// TestSealedValuesStayInPlace: a sealed value opens only under the entry
// it was written to — a game moved to another game's place, a record to
// another bowler's — and a sealed value whose data key is gone reads as
// a bowler deleted meanwhile.
func TestSealedValuesStayInPlace(t *testing.T) {
	_, b := openBowlers(t, t.TempDir())
	ctx := t.Context()
	at := time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC)
	r := bowlerWithGames(t, b, "phone", "Kim", 2, at)
	o := bowlerWithGames(t, b, "other", "Lee", 0, at)
	move := func(from, to string) {
		t.Helper()
		e, err := b.kv.Get(ctx, from)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.kv.Put(ctx, to, e.Value()); err != nil {
			t.Fatal(err)
		}
	}
	move(gameKey(r.ID, 1), gameKey(r.ID, 2))
	if games, err := b.Games(ctx, r.ID, 0, 10); err == nil || errors.Is(err, bowler.ErrUnknown) || !strings.Contains(err.Error(), "does not open") {
		t.Errorf("Games with game 1's value moved to game 2's place = %+v, %v; want an error that says it does not open", games, err)
	}
	b.forget(o.ID) // read o's record from the store, not as this node wrote it
	move(recordKey(r.ID), recordKey(o.ID))
	if got, err := b.Get(ctx, o.ID); err == nil || errors.Is(err, bowler.ErrUnknown) || !strings.Contains(err.Error(), "does not open") {
		t.Errorf("Get with another bowler's record in its place = %+v, %v; want an error that says it does not open", got, err)
	}

	if err := b.eraseKey(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Get(ctx, r.ID); !errors.Is(err, bowler.ErrUnknown) {
		t.Errorf("Get of a bowler whose data key is erased = %+v, %v; want ErrUnknown", got, err)
	}
}

// TestDeleteLeavesNoEntry: after Delete no entry of the bucket names the
// bowler or holds its id — not its keys', share's or codes', an expired
// code's among them — and no data key is left for it.
func TestDeleteLeavesNoEntry(t *testing.T) {
	_, b := openBowlers(t, t.TempDir())
	ctx := t.Context()
	at := time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC)
	r := bowlerWithGames(t, b, "phone", "Kim", 3, at)
	bowlerWithGames(t, b, "other", "Lee", 1, at)
	if err := b.AddKey(ctx, r.ID, bowler.HashKey("tablet")); err != nil {
		t.Fatal(err)
	}
	// One code expired when added: the record drops it as the next is
	// added, and its entry stays until its own time to live, naming the
	// bowler. The others expire an hour from now, by the store's clock.
	if err := b.AddCode(ctx, r.ID, bowler.HashKey("code0"), bowler.HashKey("phone"), time.Now().Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"code1", "code2"} {
		if err := b.AddCode(ctx, r.ID, bowler.HashKey(c), bowler.HashKey("phone"), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Share(ctx, r.ID, bowler.HashKey("share")); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	keys, err := b.kv.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for k := range keys.Keys() {
		n++
		e, err := b.kv.Get(ctx, k)
		if err != nil {
			t.Fatalf("Get(%s): %v", k, err)
		}
		if strings.Contains(k, string(r.ID)) || bytes.Contains(e.Value(), []byte(r.ID)) {
			t.Errorf("after Delete, entry %s (%q) names the deleted bowler %s", k, e.Value(), r.ID)
		}
	}
	if n == 0 {
		t.Error("no entry left in the bucket: the other bowler's are gone too")
	}
	if _, err := b.readKey(ctx, r.ID); !errors.Is(err, errNoKey) {
		t.Errorf("the deleted bowler's data key: %v, want errNoKey", err)
	}
}

// TestDataKeysAreCached: a record read opens it under the data key this
// store read or made before, without reading the key again: with the
// keys' stream gone, the bowler still reads here, and reads as unknown
// to a store that never read its key.
func TestDataKeysAreCached(t *testing.T) {
	j, b := openBowlers(t, t.TempDir())
	ctx := t.Context()
	r := bowlerWithGames(t, b, "phone", "Kim", 1, time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC))
	fresh, err := j.Bowlers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.js.DeleteStream(ctx, BowlerKeysStream); err != nil {
		t.Fatal(err)
	}
	b.forget(r.ID) // read the record from the bucket
	if got, err := b.Get(ctx, r.ID); err != nil || got.Name != "Kim" {
		t.Errorf("Get with the keys' stream gone, its key read before = %+v, %v; want Kim", got, err)
	}
	if games, err := b.Games(ctx, r.ID, 0, 10); err != nil || len(games) != 1 {
		t.Errorf("Games with the keys' stream gone, its key read before = %+v, %v; want 1 game", games, err)
	}
	if got, err := fresh.Get(ctx, r.ID); err == nil {
		t.Errorf("Get from a store that never read the key, with the keys' stream gone = %+v; want an error", got)
	}
}

// TestNoKeyMadeAfterDelete: a game that ends on one node while another
// deletes the bowler is refused as the bowler's unknown, and makes no
// new data key, which would leave that game readable in the bucket. The
// node has forgotten the key (its cache was full) and remembers the
// record it wrote.
func TestNoKeyMadeAfterDelete(t *testing.T) {
	j, b := openBowlers(t, t.TempDir())
	ctx := t.Context()
	at := time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC)
	r := bowlerWithGames(t, b, "phone", "Kim", 1, at)
	other, err := j.Bowlers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Delete(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	b.forgetKey(r.ID)
	g := bowler.Game{Lane: "lane1", LaneName: "Friday", Game: 2, At: at.Add(time.Hour), Name: "Kim", Score: 200, Marks: []string{"X"}}
	if got, _, err := b.Add(ctx, r.ID, g); !errors.Is(err, bowler.ErrUnknown) {
		t.Errorf("Add to a bowler deleted on another node = %+v, %v; want ErrUnknown", got, err)
	}
	if _, err := b.readKey(ctx, r.ID); !errors.Is(err, errNoKey) {
		t.Errorf("the deleted bowler's data key after the add: %v; want none (errNoKey)", err)
	}
}
