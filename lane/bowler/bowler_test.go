package bowler_test

import (
	"slices"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/bowling"
)

// deck returns the deck of the pins standing.
func deck(t *testing.T, pins ...int) bowling.Deck {
	t.Helper()
	d, err := bowling.NewDeck(pins...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFromGame: a game's leaves are its fresh racks' first balls that
// left pins with a known deck, made when the next ball cleared them —
// the tenth's racks after a strike too; counts without decks leave none.
func TestFromGame(t *testing.T) {
	var g bowling.Game
	// Frame 1: the 10 pin left, made. Frame 2: the 7-10 left, missed.
	// Frame 3: 9 as a count (no deck), spared. Frames 4–9: strikes.
	// Frame 10: strike, then the 4-7 left and made.
	steps := []func() error{
		func() error { return g.RollDeck(deck(t, 10)) },
		func() error { return g.RollDeck(deck(t)) },
		func() error { return g.RollDeck(deck(t, 7, 10)) },
		func() error { return g.RollDeck(deck(t, 7)) },
		func() error { return g.Roll(9) },
		func() error { return g.Roll(1) },
	}
	for range 6 {
		steps = append(steps, func() error { return g.Roll(10) })
	}
	steps = append(steps,
		func() error { return g.Roll(10) },
		func() error { return g.RollDeck(deck(t, 4, 7)) },
		func() error { return g.RollDeck(deck(t)) },
	)
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("ball %d: %v", i+1, err)
		}
	}
	at := time.Date(2026, 11, 27, 21, 3, 4, 5, time.FixedZone("KST", 9*3600))
	got := bowler.FromGame("k3x9", "Friday", 2, at, "홍길동", &g)
	want := []bowler.Leave{{Deck: deck(t, 10), Made: true}, {Deck: deck(t, 7, 10)}, {Deck: deck(t, 4, 7), Made: true}}
	if !slices.Equal(got.Leaves, want) {
		t.Errorf("leaves = %v, want %v", got.Leaves, want)
	}
	if got.Score != g.Total() || got.Name != "홍길동" || got.Game != 2 || !got.At.Equal(at.Truncate(time.Second)) || got.At.Location() != time.UTC {
		t.Errorf("game = %+v, want score %d, 홍길동, game 2, at %v in UTC", got, g.Total(), at)
	}
	if len(got.Marks) != 10 || got.Marks[0] != "9|/" || got.Marks[9] != "X|8|/" {
		t.Errorf("marks = %q, want the board's", got.Marks)
	}
	if got.Stats.Games != 1 || got.Stats.SinglePins != 1 || got.Stats.SinglePinsMade != 1 || got.Stats.Splits != 1 {
		t.Errorf("stats = %+v, want one game, the 10 pin made, the 7-10 split", got.Stats)
	}
}

// TestRecord: a record's numbers after a run of games: average with
// fractions dropped, the high game and series and what was news, the
// series only of games in a row on one lane, the leaves faced most.
func TestRecord(t *testing.T) {
	r := bowler.New(bowler.NewID(), "Kim", bowler.HashKey("k"), time.Now())
	if _, ok := r.Average(); ok {
		t.Error("a bowler with no game has an average")
	}
	ten, sevenTen := deck(t, 10), deck(t, 7, 10)
	g := func(lane string, n, score int, leaves ...bowler.Leave) bowler.Game {
		return bowler.Game{Lane: lane, Game: n, Score: score, Name: "Kim", Leaves: leaves}
	}
	steps := []struct {
		game    bowler.Game
		news    bowler.News
		average int
		series  int
	}{
		{g("a", 1, 150, bowler.Leave{ten, true}), bowler.News{}, 150, 0}, // the first game is no news
		{g("a", 2, 149, bowler.Leave{ten, false}), bowler.News{}, 149, 0},
		{g("a", 3, 160, bowler.Leave{sevenTen, false}), bowler.News{HighGame: 160}, 153, 459}, // 459/3; the first series is no news
		{g("a", 4, 170), bowler.News{HighGame: 170, HighSeries: 479}, 157, 479},               // 629/4 = 157.25
		{g("b", 1, 100), bowler.News{}, 145, 479},                                             // another lane: a new night
		{g("b", 2, 100), bowler.News{}, 138, 479},
		{g("b", 4, 300), bowler.News{HighGame: 300}, 161, 479}, // game 3 missed: no series of 2, 4 and before
	}
	for i, s := range steps {
		news, added := r.Add(s.game)
		avg, _ := r.Average()
		if !added || news != s.news || avg != s.average || r.HighSeries != s.series {
			t.Errorf("game %d (%s %d: %d): news %+v, added %v, average %d, series %d; want %+v, true, %d, %d",
				i+1, s.game.Lane, s.game.Game, s.game.Score, news, added, avg, r.HighSeries, s.news, s.average, s.series)
		}
	}
	if _, added := r.Add(steps[0].game); added {
		t.Error("a game added again counted twice")
	}
	top := r.TopLeaves(10)
	if len(top) != 2 || !slices.Equal(top[0].Pins, []int{10}) || top[0].Tries != 2 || top[0].Made != 1 || top[1].Tries != 1 {
		t.Errorf("top leaves = %+v, want the 10 pin (2 tries, 1 made), then the 7-10", top)
	}
	if r.Stats.High != 300 || r.Stats.Games != 7 {
		t.Errorf("high %d of %d games, want 300 of 7", r.Stats.High, r.Stats.Games)
	}
}

// TestCorrect: a later version of a game (more corrections) replaces the
// earlier one at its place in the history, and the numbers are counted
// again — leaves, highs and the series with it; the same version, an
// earlier one, a game the record does not count, a history that does not
// hold the game at its place, and a record written before places were
// kept, replace nothing.
func TestCorrect(t *testing.T) {
	ten := deck(t, 10)
	g := func(n, score, fix int, leaves ...bowler.Leave) bowler.Game {
		return bowler.Game{Lane: "a", Game: n, Score: score, Name: "Kim", Fix: fix, Leaves: leaves}
	}
	r := bowler.New(bowler.NewID(), "Kim", bowler.HashKey("k"), time.Now())
	history := []bowler.Game{g(1, 200, 0), g(2, 250, 0, bowler.Leave{ten, false}), g(3, 150, 0)}
	for _, h := range history {
		r.Add(h)
	}
	keys := r.Keys
	for _, tt := range []struct {
		name string
		game bowler.Game
	}{
		{"the same version", g(2, 180, 0)},
		{"a game not counted", g(4, 180, 1)},
	} {
		if place, ok := r.Replaces(tt.game); ok {
			t.Errorf("Replaces(%s) = %d, true; want false", tt.name, place)
		}
		if _, ok := r.Correct(slices.Clone(history), tt.game); ok {
			t.Errorf("Correct(%s) = true, want false", tt.name)
		}
	}
	if _, ok := r.Correct(history[:1], g(2, 180, 1)); ok {
		t.Error("Correct with a history short of the game's place = true, want false")
	}
	if place, ok := r.Replaces(g(2, 180, 1)); !ok || place != 2 {
		t.Fatalf("Replaces(a later version of game 2) = %d, %v; want 2, true", place, ok)
	}
	news, ok := r.Correct(history, g(2, 180, 1))
	if !ok || news != (bowler.News{}) || history[1].Score != 180 {
		t.Fatalf("Correct(250 to 180) = %+v, %v, history's game 2 %d; want no news, true, 180", news, ok, history[1].Score)
	}
	if r.Stats.Games != 3 || r.Stats.Pins != 530 || r.Stats.High != 200 || r.HighSeries != 530 || len(r.Leaves) != 0 || !slices.Equal(r.Keys, keys) {
		t.Errorf("after the correction: games %d, pins %d, high %d, series %d, leaves %v, keys %d; want 3, 530, 200, 530, none, the same",
			r.Stats.Games, r.Stats.Pins, r.Stats.High, r.HighSeries, r.Leaves, len(r.Keys))
	}
	if _, ok := r.Replaces(g(2, 250, 0)); ok {
		t.Error("the first version after the correction replaces it")
	}
	if !r.Has(g(2, 250, 0)) || !r.Has(g(2, 180, 1)) || r.Has(g(2, 300, 2)) || r.Has(g(4, 100, 0)) {
		t.Error("Has: want the record to have game 2's first version and its correction, not a later one, nor game 4")
	}
	if news, _ := r.Correct(history, g(2, 300, 2)); news.HighGame != 300 || news.HighSeries != 650 {
		t.Errorf("Correct(180 to 300) news = %+v, want a high game 300 and series 650", news)
	}

	old := bowler.Record{Stats: bowling.Stats{Games: 1, Pins: 100}, Recent: []bowler.GameRef{{Lane: "a", Game: 1}}}
	if _, ok := old.Replaces(g(1, 120, 1)); ok {
		t.Error("a record written before places were kept replaces its game")
	}
}
