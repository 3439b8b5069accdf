// Package bowlertest holds the tests every bowler.Service must pass: run
// them from the implementation's own tests with [Run].
package bowlertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/bowler"
)

// Run runs the contract's tests on the services open makes, a new empty
// one for each test.
func Run(t *testing.T, open func(t *testing.T) bowler.Service) {
	tests := []struct {
		name string
		test func(t *testing.T, s bowler.Service)
	}{
		{"CreateFindGet", testCreateFindGet},
		{"CreateAgainIsTheSameBowler", testCreateAgain},
		{"AddKeepsTheNumbers", testAdd},
		{"AGameCountsOnce", testOnce},
		{"ACorrectionReplacesTheGame", testCorrection},
		{"GamesPageNewestFirst", testGames},
		{"KeysAndRevoke", testKeys},
		{"CodesWorkOnceBeforeTheyExpire", testCodes},
		{"KeysAndCodesBounded", testBounds},
		{"Shares", testShares},
		{"DeleteErasesEverything", testDelete},
		{"ConcurrentGamesAllCount", testConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.test(t, open(t)) })
	}
}

var at = time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)

// game is a finished game of score on lane, number n.
func game(lane string, n, score int) bowler.Game {
	return bowler.Game{Lane: lane, LaneName: "Lane " + lane, Game: n, At: at.Add(time.Duration(n) * time.Minute), Name: "Kim", Score: score, Marks: []string{"X"}}
}

func create(t *testing.T, s bowler.Service, key string) *bowler.Record {
	t.Helper()
	r, err := s.Create(t.Context(), bowler.NewID(), bowler.HashKey(key), "Kim", at)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return r
}

func add(t *testing.T, s bowler.Service, id bowler.ID, g bowler.Game) bowler.News {
	t.Helper()
	r, news, err := s.Add(t.Context(), id, g)
	if err == nil && (r == nil || r.ID != id) {
		t.Fatalf("Add(%s game %d) returned the record %+v, want bowler %s's", g.Lane, g.Game, r, id)
	}
	if err != nil {
		t.Fatalf("Add(%s game %d): %v", g.Lane, g.Game, err)
	}
	return news
}

func testCreateFindGet(t *testing.T, s bowler.Service) {
	r := create(t, s, "key-1")
	if r.ID == "" || r.Name != "Kim" || len(r.Keys) != 1 {
		t.Fatalf("Create = %+v, want a bowler named Kim with one key", r)
	}
	got, err := s.Find(t.Context(), bowler.HashKey("key-1"))
	if err != nil || got.ID != r.ID {
		t.Errorf("Find(its key) = %v, %v; want bowler %s", got, err, r.ID)
	}
	if got, err = s.Get(t.Context(), r.ID); err != nil || got.Name != "Kim" || !got.Created.Equal(at) {
		t.Errorf("Get = %+v, %v; want Kim, created %v", got, err, at)
	}
	if _, err := s.Find(t.Context(), bowler.HashKey("key-2")); !errors.Is(err, bowler.ErrUnknown) {
		t.Errorf("Find(another key) = %v, want ErrUnknown", err)
	}
	if _, err := s.Get(t.Context(), "nobody"); !errors.Is(err, bowler.ErrUnknown) {
		t.Errorf("Get(nobody) = %v, want ErrUnknown", err)
	}
}

// testCreateAgain: a lane whose first try to make a bowler lost its
// answer tries again with the same id and key, and gets the bowler as
// it is; the id with another key is refused.
func testCreateAgain(t *testing.T, s bowler.Service) {
	id := bowler.NewID()
	r, err := s.Create(t.Context(), id, bowler.HashKey("k"), "Kim", at)
	if err != nil || r.ID != id {
		t.Fatalf("Create(%s) = %+v, %v; want bowler %s", id, r, err, id)
	}
	add(t, s, id, game("a", 1, 150))
	again, err := s.Create(t.Context(), id, bowler.HashKey("k"), "Kim", at.Add(time.Minute))
	if err != nil || again.ID != id || again.Stats.Games != 1 || !again.Created.Equal(at) {
		t.Errorf("Create again, same key = %+v, %v; want bowler %s as it is, 1 game, created %v", again, err, id, at)
	}
	if _, err := s.Create(t.Context(), id, bowler.HashKey("another"), "Kim", at); !errors.Is(err, bowler.ErrExists) {
		t.Errorf("Create of its id with another key = %v, want ErrExists", err)
	}
	if err := s.Room(t.Context()); err != nil {
		t.Errorf("Room of a store with one bowler = %v, want nil", err)
	}
}

func testAdd(t *testing.T, s bowler.Service) {
	r := create(t, s, "k")
	for i, score := range []int{150, 151, 153} {
		add(t, s, r.ID, game("a", i+1, score))
	}
	got, err := s.Get(t.Context(), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if avg, ok := got.Average(); !ok || avg != 151 || got.Stats.Games != 3 || got.Stats.Pins != 454 || got.Stats.High != 153 || got.HighSeries != 454 {
		t.Errorf("after 150, 151, 153: average %d (%v), games %d, pins %d, high %d, series %d; want 151 (454/3, fractions dropped), 3, 454, 153, 454",
			avg, ok, got.Stats.Games, got.Stats.Pins, got.Stats.High, got.HighSeries)
	}
	if news := add(t, s, r.ID, game("a", 4, 200)); news.HighGame != 200 || news.HighSeries != 504 {
		t.Errorf("a 200 after 153 as the fourth game in a row = %+v, want a new high game 200 and series 504", news)
	}
	// Another lane: no series across nights.
	if news := add(t, s, r.ID, game("b", 1, 210)); news.HighGame != 210 || news.HighSeries != 0 {
		t.Errorf("a 210 on another lane = %+v, want a high game and no series", news)
	}
	if got, _ = s.Get(t.Context(), r.ID); got.HighSeries != 504 {
		t.Errorf("high series = %d, want 504", got.HighSeries)
	}
}

func testOnce(t *testing.T, s bowler.Service) {
	r := create(t, s, "k")
	add(t, s, r.ID, game("a", 1, 100))
	add(t, s, r.ID, game("a", 1, 100))
	got, _ := s.Get(t.Context(), r.ID)
	games, err := s.Games(t.Context(), r.ID, 0, 10)
	if err != nil || got.Stats.Games != 1 || len(games) != 1 {
		t.Errorf("a game added twice: record games %d, history %d, %v; want 1 and 1", got.Stats.Games, len(games), err)
	}
}

// testCorrection: a later version of a game (more corrections) takes the
// earlier one's place in the history, and the numbers follow it — the
// high game and series it set fall back to the next best; an earlier
// version added late, or the same again, changes nothing.
func testCorrection(t *testing.T, s bowler.Service) {
	r := create(t, s, "k")
	add(t, s, r.ID, game("a", 1, 100))
	add(t, s, r.ID, game("a", 2, 250))
	add(t, s, r.ID, game("a", 3, 100))
	add(t, s, r.ID, game("b", 1, 200))
	fixed := game("a", 2, 150)
	fixed.Fix = 1
	fixed.At = fixed.At.Add(48 * time.Hour) // corrected two days later
	add(t, s, r.ID, fixed)
	check := func(when string, score, pins, high, series int) {
		t.Helper()
		got, err := s.Get(t.Context(), r.ID)
		if err != nil {
			t.Fatal(err)
		}
		history, err := s.Games(t.Context(), r.ID, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(history) != 4 || history[2].Lane != "a" || history[2].Game != 2 || history[2].Score != score {
			t.Errorf("%s: history %v, want 4 games, lane a's game 2 third from the newest, scoring %d", when, history, score)
		} else if bowled := game("a", 2, 0).At; !history[2].At.Equal(bowled) {
			t.Errorf("%s: lane a's game 2 is dated %v, want %v, when it was bowled", when, history[2].At, bowled)
		}
		if got.Stats.Games != 4 || got.Stats.Pins != pins || got.Stats.High != high || got.HighSeries != series {
			t.Errorf("%s: games %d, pins %d, high %d, series %d; want 4, %d, %d, %d",
				when, got.Stats.Games, got.Stats.Pins, got.Stats.High, got.HighSeries, pins, high, series)
		}
	}
	check("250 corrected to 150", 150, 550, 200, 350)
	add(t, s, r.ID, game("a", 2, 250)) // the first version, retried late
	add(t, s, r.ID, fixed)
	check("the first version again, and the correction again", 150, 550, 200, 350)
	fixed.Fix, fixed.Score = 2, 300
	if news := add(t, s, r.ID, fixed); news.HighGame != 300 || news.HighSeries != 500 {
		t.Errorf("corrected again to 300 = %+v, want a new high game 300 and series 500", news)
	}
	check("corrected again to 300", 300, 700, 300, 500)
}

func testGames(t *testing.T, s bowler.Service) {
	r := create(t, s, "k")
	for n := 1; n <= 7; n++ {
		add(t, s, r.ID, game("a", n, 100+n))
	}
	for _, tt := range []struct{ before, limit, first, n int }{
		{0, 3, 7, 3}, {5, 3, 4, 3}, {2, 3, 1, 1}, {1, 3, 0, 0}, {0, 50, 7, 7}, {99, 2, 7, 2},
	} {
		games, err := s.Games(t.Context(), r.ID, tt.before, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(games) != tt.n || tt.n > 0 && games[0].Game != tt.first {
			t.Errorf("Games(before %d, limit %d) = %d games from %v; want %d from game %d", tt.before, tt.limit, len(games), first(games), tt.n, tt.first)
			continue
		}
		for i := 1; i < len(games); i++ {
			if games[i].Game != games[i-1].Game-1 {
				t.Errorf("Games(before %d): game %d after %d, want newest first", tt.before, games[i].Game, games[i-1].Game)
			}
		}
	}
	if games, _ := s.Games(t.Context(), r.ID, 0, 1); len(games) != 1 || games[0].Score != 107 || games[0].LaneName != "Lane a" || !games[0].At.Equal(at.Add(7*time.Minute)) || games[0].Name != "Kim" {
		t.Errorf("the newest game = %+v, want game 7 as added", games)
	}
	if _, err := s.Games(t.Context(), "nobody", 0, 10); !errors.Is(err, bowler.ErrUnknown) {
		t.Errorf("Games(nobody) = %v, want ErrUnknown", err)
	}
}

func first(games []bowler.Game) any {
	if len(games) == 0 {
		return "none"
	}
	return games[0].Game
}

func testKeys(t *testing.T, s bowler.Service) {
	r := create(t, s, "phone")
	if err := s.AddKey(t.Context(), r.ID, bowler.HashKey("tablet")); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Find(t.Context(), bowler.HashKey("tablet")); err != nil || got.ID != r.ID || len(got.Keys) != 2 {
		t.Errorf("Find(the second key) = %+v, %v; want the bowler, with 2 keys", got, err)
	}
	if err := s.Revoke(t.Context(), bowler.HashKey("phone")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Find(t.Context(), bowler.HashKey("phone")); !errors.Is(err, bowler.ErrUnknown) {
		t.Errorf("Find(a revoked key) = %v, want ErrUnknown", err)
	}
	if got, err := s.Find(t.Context(), bowler.HashKey("tablet")); err != nil || len(got.Keys) != 1 {
		t.Errorf("Find(the other key) = %+v, %v; want the bowler with one key", got, err)
	}
	if err := s.Revoke(t.Context(), bowler.HashKey("phone")); !errors.Is(err, bowler.ErrUnknown) {
		t.Errorf("Revoke again = %v, want ErrUnknown", err)
	}
}

func testCodes(t *testing.T, s bowler.Service) {
	r := create(t, s, "phone")
	code := bowler.HashKey("123456")
	if err := s.AddCode(t.Context(), r.ID, code, bowler.HashKey("phone"), at.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Redeem(t.Context(), code, bowler.HashKey("tablet"), at.Add(10*time.Minute)); !errors.Is(err, bowler.ErrCode) {
		t.Errorf("Redeem at its expiry = %v, want ErrCode", err)
	}
	if err := s.AddCode(t.Context(), r.ID, code, bowler.HashKey("phone"), at.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	got, err := s.Redeem(t.Context(), code, bowler.HashKey("tablet"), at.Add(time.Minute))
	if err != nil || got.ID != r.ID {
		t.Fatalf("Redeem = %v, %v; want the bowler", got, err)
	}
	if _, err := s.Find(t.Context(), bowler.HashKey("tablet")); err != nil {
		t.Errorf("Find(the redeemed key) = %v", err)
	}
	if _, err := s.Redeem(t.Context(), code, bowler.HashKey("laptop"), at.Add(time.Minute)); !errors.Is(err, bowler.ErrCodeUsed) {
		t.Errorf("Redeem twice = %v, want ErrCodeUsed", err)
	}
	if _, err := s.Redeem(t.Context(), bowler.HashKey("654321"), bowler.HashKey("laptop"), at.Add(time.Minute)); !errors.Is(err, bowler.ErrCode) {
		t.Errorf("Redeem of a code never made = %v, want ErrCode", err)
	}
	if _, err := s.Find(t.Context(), bowler.HashKey("laptop")); !errors.Is(err, bowler.ErrUnknown) {
		t.Errorf("a code used twice gave a key: %v", err)
	}
}

// testBounds: a bowler holds at most MaxKeys keys (the oldest go, but the
// key of the device that linked the new one) and MaxCodes live codes, and
// a code dies with the key of the device that made it.
func testBounds(t *testing.T, s bowler.Service) {
	ctx := t.Context()
	r := create(t, s, "phone")
	for i := range bowler.MaxKeys - 1 {
		if err := s.AddKey(ctx, r.ID, bowler.HashKey(fmt.Sprint("key ", i))); err != nil {
			t.Fatal(err)
		}
	}
	now, soon := time.Now(), time.Now().Add(10*time.Minute)
	code := bowler.HashKey("a code the phone made")
	if err := s.AddCode(ctx, r.ID, code, bowler.HashKey("phone"), soon); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Redeem(ctx, code, bowler.HashKey("laptop"), now); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, r.ID)
	if err != nil || len(got.Keys) != bowler.MaxKeys {
		t.Fatalf("a bowler given %d keys holds %d, %v; want %d", bowler.MaxKeys+1, len(got.Keys), err, bowler.MaxKeys)
	}
	for key, want := range map[string]error{"phone": nil, "laptop": nil, "key 0": bowler.ErrUnknown, "key 1": nil} {
		if _, err := s.Find(ctx, bowler.HashKey(key)); !errors.Is(err, want) && (want != nil || err != nil) {
			t.Errorf("Find(%s) = %v, want %v: the oldest key goes, the phone that made the code stays", key, err, want)
		}
	}

	for i := range bowler.MaxCodes {
		if err := s.AddCode(ctx, r.ID, bowler.HashKey(fmt.Sprint("code ", i)), bowler.HashKey("laptop"), soon); err != nil {
			t.Fatalf("code %d: %v", i+1, err)
		}
	}
	if err := s.AddCode(ctx, r.ID, bowler.HashKey("one too many"), bowler.HashKey("phone"), soon); !errors.Is(err, bowler.ErrTooManyCodes) {
		t.Errorf("a code past %d live ones = %v, want ErrTooManyCodes", bowler.MaxCodes, err)
	}
	if err := s.Revoke(ctx, bowler.HashKey("laptop")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Redeem(ctx, bowler.HashKey("code 0"), bowler.HashKey("a stolen phone"), now); !errors.Is(err, bowler.ErrCode) {
		t.Errorf("a code its device's key was forgotten since = %v, want ErrCode", err)
	}
	if err := s.AddCode(ctx, r.ID, bowler.HashKey("now there is room"), bowler.HashKey("phone"), soon); err != nil {
		t.Errorf("a code once the forgotten device's went: %v", err)
	}
}

func testShares(t *testing.T, s bowler.Service) {
	r := create(t, s, "phone")
	if err := s.Share(t.Context(), r.ID, bowler.HashKey("share-1")); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Shared(t.Context(), bowler.HashKey("share-1")); err != nil || got.ID != r.ID {
		t.Errorf("Shared = %v, %v; want the bowler", got, err)
	}
	if err := s.Share(t.Context(), r.ID, bowler.HashKey("share-2")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Shared(t.Context(), bowler.HashKey("share-1")); !errors.Is(err, bowler.ErrUnknown) {
		t.Errorf("the replaced share = %v, want ErrUnknown", err)
	}
	if err := s.Share(t.Context(), r.ID, bowler.KeyHash{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Shared(t.Context(), bowler.HashKey("share-2")); !errors.Is(err, bowler.ErrUnknown) {
		t.Errorf("the revoked share = %v, want ErrUnknown", err)
	}
}

func testDelete(t *testing.T, s bowler.Service) {
	r := create(t, s, "phone")
	other := create(t, s, "other")
	add(t, s, r.ID, game("a", 1, 100))
	add(t, s, other.ID, game("a", 1, 120))
	s.AddKey(t.Context(), r.ID, bowler.HashKey("tablet"))
	s.Share(t.Context(), r.ID, bowler.HashKey("share"))
	s.AddCode(t.Context(), r.ID, bowler.HashKey("code"), bowler.HashKey("phone"), at.Add(time.Hour))
	if err := s.Delete(t.Context(), r.ID); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for what, err := range map[string]error{
		"Get":          second(s.Get(ctx, r.ID)),
		"Find(phone)":  second(s.Find(ctx, bowler.HashKey("phone"))),
		"Find(tablet)": second(s.Find(ctx, bowler.HashKey("tablet"))),
		"Shared":       second(s.Shared(ctx, bowler.HashKey("share"))),
		"Games":        second(s.Games(ctx, r.ID, 0, 10)),
	} {
		if !errors.Is(err, bowler.ErrUnknown) {
			t.Errorf("%s after Delete = %v, want ErrUnknown", what, err)
		}
	}
	if _, err := s.Redeem(ctx, bowler.HashKey("code"), bowler.HashKey("laptop"), at); err == nil {
		t.Error("a code of a deleted bowler still links a device")
	}
	if games, err := s.Games(ctx, other.ID, 0, 10); err != nil || len(games) != 1 {
		t.Errorf("the other bowler's history after a Delete: %d games, %v; want 1", len(games), err)
	}
	// The lane of a seat linked to the bowler, restored, tries to make
	// them again: a deleted bowler stays deleted.
	if _, err := s.Create(ctx, r.ID, bowler.HashKey("phone"), "Kim", at); !errors.Is(err, bowler.ErrUnknown) {
		t.Errorf("Create of a deleted bowler's id = %v, want ErrUnknown", err)
	}
}

func second[T any](_ T, err error) error { return err }

func testConcurrent(t *testing.T, s bowler.Service) {
	r := create(t, s, "k")
	const lanes, games = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, lanes*games)
	for l := range lanes {
		wg.Go(func() {
			for n := 1; n <= games; n++ {
				if _, _, err := s.Add(context.WithoutCancel(t.Context()), r.ID, game(fmt.Sprint("lane", l), n, 100)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, _ := s.Get(t.Context(), r.ID)
	history, _ := s.Games(t.Context(), r.ID, 0, 100)
	if got.Stats.Games != lanes*games || len(history) != lanes*games {
		t.Errorf("games ending on %d lanes at once: record %d, history %d; want %d each", lanes, got.Stats.Games, len(history), lanes*games)
	}
}
