// Package leaguetest holds the tests every league.Store must pass: run
// them from the implementation's own tests with [Run].
package leaguetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/league"
)

// Run runs the contract's tests on the stores open makes, a new empty one
// for each test.
func Run(t *testing.T, open func(t *testing.T) league.Store) {
	tests := []struct {
		name string
		test func(t *testing.T, s league.Store)
	}{
		{"CreateLoad", testCreateLoad},
		{"CreateTwice", testCreateTwice},
		{"CreateRefusesAnIDNoKeyCanHold", testBadID},
		{"RecordsComeBackAsAppended", testRecords},
		{"AppendIsACompareAndSet", testCompareAndSet},
		{"AppendToNoLeague", testAppendUnknown},
		{"LeaguesKeepApart", testApart},
		{"LoadedIsACopy", testCopy},
		{"OneOfConcurrentAppendsWins", testRace},
		{"ConcurrentWritersAllLand", testWriters},
		{"ReplaysToTheSameStandings", testReplay},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.test(t, open(t)) })
	}
}

var at = time.Date(2026, 11, 26, 19, 30, 0, 0, time.UTC)

// Settings are a small league's: two teams of two, one bowler without an
// entering average, a substitute's room, handicap and points set.
func Settings() league.Settings {
	return league.Settings{
		Name:          "Thursday Mixed",
		GamesPerNight: 2,
		Handicap:      league.Handicap{Basis: 220, Percent: 90},
		Points:        league.Points{PerGame: 2, PerSeries: 2},
		AbsentMinus:   10,
		VacancyScore:  120,
		Teams: []league.Team{
			{Name: "Pin Pals", Bowlers: []league.Bowler{{Name: "Kim", Average: 150}, {Name: "Lee"}}},
			{Name: "Strikers", Bowlers: []league.Bowler{{Name: "Park", Average: 170}, {Name: "Choi", Average: 120}}},
		},
		Weeks: 2,
	}
}

func stored(id string) league.Stored {
	return league.Stored{ID: id, Settings: Settings(), Secretary: league.HashKey("secret-" + id), Created: at}
}

func create(t *testing.T, s league.Store, id string) {
	t.Helper()
	if err := s.Create(t.Context(), stored(id)); err != nil {
		t.Fatalf("Create(%s): %v", id, err)
	}
}

func load(t *testing.T, s league.Store, id string) league.Stored {
	t.Helper()
	got, err := s.Load(t.Context(), id)
	if err != nil {
		t.Fatalf("Load(%s): %v", id, err)
	}
	return got
}

// night is a record of each kind, as a night makes them.
func night() []league.Record {
	return []league.Record{
		{Event: league.Event{Kind: league.Opened, Week: 1, Absent: []league.Absence{{Bowler: "Lee", Sub: league.Substitute{Name: "Jung", Average: 140}}}},
			At: at, By: "secretary", Lanes: []string{"k3x9abcdef"}},
		{Event: league.Event{Kind: league.Scored, Week: 1, Bowler: "Kim", Game: 1, Pins: 0}, At: at.Add(time.Minute), By: "lane k3x9abcdef"},
		{Event: league.Event{Kind: league.Scored, Week: 1, Bowler: "Jung", Game: 1, Pins: 300}, At: at.Add(2 * time.Minute), By: "lane k3x9abcdef"},
		{Event: league.Event{Kind: league.Corrected, Week: 1, Bowler: "Kim", Game: 1, Pins: 151, Was: 0}, At: at.Add(3 * time.Minute), By: "secretary"},
		{Event: league.Event{Kind: league.Corrected, Week: 1, Bowler: "Jung", Game: 1, Pins: 290, Was: 300, Frame: 10, Ball: 3, BallWas: 10, BallPins: 0}, At: at.Add(4 * time.Minute), By: "secretary"},
		{Event: league.Event{Kind: league.Closed, Week: 1}, At: at.Add(time.Hour), By: "secretary"},
	}
}

func appendAll(t *testing.T, s league.Store, id string, from int, recs []league.Record) {
	t.Helper()
	for i, r := range recs {
		if err := s.Append(t.Context(), id, from+i, r); err != nil {
			t.Fatalf("Append(%s, %d, %s): %v", id, from+i, r.Event.Kind, err)
		}
	}
}

func testCreateLoad(t *testing.T, s league.Store) {
	create(t, s, "thursday01")
	got := load(t, s, "thursday01")
	want := stored("thursday01")
	if got.ID != want.ID || !reflect.DeepEqual(got.Settings, want.Settings) || got.Secretary != want.Secretary || !got.Created.Equal(at) || len(got.Records) != 0 {
		t.Errorf("Load after Create = %+v, want %+v", got, want)
	}
	if _, err := s.Load(t.Context(), "nosuchleague"); !errors.Is(err, league.ErrNotFound) {
		t.Errorf("Load(an unknown id) = %v, want ErrNotFound", err)
	}
	for _, id := range []string{"", "a.b", "a*", "a>", "a b", "../x"} {
		if _, err := s.Load(t.Context(), id); !errors.Is(err, league.ErrNotFound) {
			t.Errorf("Load(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

func testCreateTwice(t *testing.T, s league.Store) {
	create(t, s, "thursday01")
	appendAll(t, s, "thursday01", 0, night()[:1])
	other := stored("thursday01")
	other.Settings.Name = "Another"
	if err := s.Create(t.Context(), other); !errors.Is(err, league.ErrExists) {
		t.Errorf("Create under a taken id = %v, want ErrExists", err)
	}
	if got := load(t, s, "thursday01"); got.Settings.Name != "Thursday Mixed" || len(got.Records) != 1 {
		t.Errorf("after a refused Create: %q with %d records, want the first league as it was", got.Settings.Name, len(got.Records))
	}
}

// testBadID: an id is letters and digits, as the lobby draws them; any
// other is refused, and nothing is stored.
func testBadID(t *testing.T, s league.Store) {
	for _, id := range []string{"", "a.b", "a*", "a>", "a b", "../x", "ö"} {
		if err := s.Create(t.Context(), stored(id)); err == nil {
			t.Errorf("Create(%q) = nil, want an error", id)
		}
		if _, err := s.Load(t.Context(), id); !errors.Is(err, league.ErrNotFound) {
			t.Errorf("Load(%q) after its Create = %v, want ErrNotFound", id, err)
		}
	}
}

func testRecords(t *testing.T, s league.Store) {
	create(t, s, "thursday01")
	want := night()
	appendAll(t, s, "thursday01", 0, want)
	got := load(t, s, "thursday01").Records
	if len(got) != len(want) {
		t.Fatalf("Load: %d records, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if !g.At.Equal(w.At) || g.By != w.By || !reflect.DeepEqual(g.Event, w.Event) || !reflect.DeepEqual(g.Lanes, w.Lanes) {
			t.Errorf("record %d = %+v, want %+v", i+1, g, w)
		}
	}
}

func testCompareAndSet(t *testing.T, s league.Store) {
	create(t, s, "thursday01")
	recs := night()
	appendAll(t, s, "thursday01", 0, recs[:2])
	for _, n := range []int{0, 1, 3, 7, -1} {
		if err := s.Append(t.Context(), "thursday01", n, recs[2]); !errors.Is(err, league.ErrConflict) {
			t.Errorf("Append after %d records to a league of 2 = %v, want ErrConflict", n, err)
		}
	}
	if got := load(t, s, "thursday01").Records; len(got) != 2 {
		t.Errorf("refused appends changed the league: %d records, want 2", len(got))
	}
	appendAll(t, s, "thursday01", 2, recs[2:3])
	if got := load(t, s, "thursday01").Records; len(got) != 3 || got[2].Event.Bowler != "Jung" {
		t.Errorf("after refusals, an append at 2: %d records, want 3 ending with Jung's", len(got))
	}
}

func testAppendUnknown(t *testing.T, s league.Store) {
	if err := s.Append(t.Context(), "nosuchleague", 0, night()[0]); !errors.Is(err, league.ErrNotFound) {
		t.Errorf("Append to no league = %v, want ErrNotFound", err)
	}
	if _, err := s.Load(t.Context(), "nosuchleague"); !errors.Is(err, league.ErrNotFound) {
		t.Errorf("an append to no league made one: Load = %v", err)
	}
}

// testApart: leagues whose ids begin alike keep their own records.
func testApart(t *testing.T, s league.Store) {
	create(t, s, "abc")
	create(t, s, "abcd")
	appendAll(t, s, "abc", 0, night()[:3])
	appendAll(t, s, "abcd", 0, night()[:1])
	if a, b := load(t, s, "abc"), load(t, s, "abcd"); len(a.Records) != 3 || len(b.Records) != 1 || a.Secretary == b.Secretary {
		t.Errorf("leagues abc and abcd: %d and %d records, want 3 and 1, each its own key", len(a.Records), len(b.Records))
	}
}

// testCopy: what Load returns is the caller's: changing it changes
// nothing stored.
func testCopy(t *testing.T, s league.Store) {
	create(t, s, "thursday01")
	appendAll(t, s, "thursday01", 0, night()[:1])
	got := load(t, s, "thursday01")
	got.Settings.Teams[0].Bowlers[0].Name = "Changed"
	got.Records[0].Event.Absent[0].Bowler = "Changed"
	got.Records[0].Lanes[0] = "changed"
	again := load(t, s, "thursday01")
	if again.Settings.Teams[0].Bowlers[0].Name != "Kim" || again.Records[0].Event.Absent[0].Bowler != "Lee" || again.Records[0].Lanes[0] != "k3x9abcdef" {
		t.Errorf("a change to a loaded league reached the store: %+v", again)
	}
}

// testRace: appends after the same records, at once: one lands, the
// others are refused ErrConflict.
func testRace(t *testing.T, s league.Store) {
	create(t, s, "thursday01")
	const writers = 8
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			r := league.Record{Event: league.Event{Kind: league.Opened, Week: 1}, At: at, By: fmt.Sprint("writer ", i)}
			errs[i] = s.Append(context.WithoutCancel(t.Context()), "thursday01", 0, r)
		})
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, league.ErrConflict):
			t.Errorf("writer %d: %v, want nil or ErrConflict", i, err)
		}
	}
	if got := load(t, s, "thursday01").Records; won != 1 || len(got) != 1 {
		t.Errorf("%d appends at once after the same records: %d landed, %d stored; want 1 and 1", writers, won, len(got))
	}
}

// testWriters: writers that load again on a conflict and try again all
// land, each once, in some order.
func testWriters(t *testing.T, s league.Store) {
	create(t, s, "thursday01")
	const writers, each = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			ctx := context.WithoutCancel(t.Context())
			for k := range each {
				r := league.Record{Event: league.Event{Kind: league.Scored, Week: 1, Bowler: "Kim", Game: 1, Pins: 100*w + k}, At: at, By: fmt.Sprint("writer ", w)}
				for {
					got, err := s.Load(ctx, "thursday01")
					if err == nil {
						err = s.Append(ctx, "thursday01", len(got.Records), r)
					}
					if err == nil {
						break
					}
					if !errors.Is(err, league.ErrConflict) {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	seen := map[int]bool{}
	for _, r := range load(t, s, "thursday01").Records {
		if seen[r.Event.Pins] {
			t.Errorf("record of %d pins stored twice", r.Event.Pins)
		}
		seen[r.Event.Pins] = true
	}
	if len(seen) != writers*each {
		t.Errorf("%d writers of %d records: %d stored, want %d", writers, each, len(seen), writers*each)
	}
}

// testReplay: a league decided, stored and loaded again replays to the
// standings it had.
func testReplay(t *testing.T, s league.Store) {
	l, err := league.New(Settings())
	if err != nil {
		t.Fatal(err)
	}
	create(t, s, "thursday01")
	n := 0
	do := func(e league.Event, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Append(t.Context(), "thursday01", n, league.Record{Event: e, At: at, By: "secretary"}); err != nil {
			t.Fatal(err)
		}
		n++
		l.Apply(e)
	}
	do(l.Open(1, []league.Absence{{Bowler: "Choi"}}))
	for k, name := range []string{"Kim", "Lee", "Park"} {
		for g := 1; g <= 2; g++ {
			do(l.Score(league.GameScore{Week: 1, Bowler: name, Game: g, Pins: 130 + 10*k + g}))
		}
	}
	do(l.Score(league.GameScore{Week: 1, Bowler: "Kim", Game: 1, Pins: 200})) // a correction
	do(l.Close(1))
	got := load(t, s, "thursday01")
	events := make([]league.Event, len(got.Records))
	for i, r := range got.Records {
		events[i] = r.Event
	}
	again, err := league.Replay(got.Settings, events)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := again.Standings(), l.Standings(); !reflect.DeepEqual(a, b) {
		t.Errorf("replayed from the store: %+v\nwant %+v", a, b)
	}
}
