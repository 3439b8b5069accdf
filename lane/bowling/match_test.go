package bowling

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// upString describes who is up, for table tests: "BBB@3" or "-".
func upString(m *Match) string {
	seat, frame, ok := m.Up()
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%s@%d", m.Players()[seat].Name, frame)
}

func TestMatchTurnOrder(t *testing.T) {
	m, err := NewMatch("aaa", "BBB")
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		pins   int
		wantUp string // who is up after the roll
	}{
		{3, "AAA@1"},  // AAA's frame 1 goes on
		{4, "BBB@1"},  // AAA done: BBB bowls the same frame
		{10, "AAA@2"}, // BBB strikes: frame 2 starts with AAA again
		{10, "BBB@2"},
		{5, "BBB@2"},
		{5, "AAA@3"},
	}
	if got := upString(m); got != "AAA@1" {
		t.Fatalf("up before any roll = %s, want AAA@1", got)
	}
	for i, s := range steps {
		if err := m.Roll(s.pins); err != nil {
			t.Fatalf("step %d: Roll(%d): %v", i, s.pins, err)
		}
		if got := upString(m); got != s.wantUp {
			t.Fatalf("step %d: up after Roll(%d) = %s, want %s", i, s.pins, got, s.wantUp)
		}
	}
}

func TestMatchTenthFrameAndEnd(t *testing.T) {
	m, _ := NewMatch("AAA", "BBB")
	for range 9 { // nine frames of gutters for both
		for range 4 {
			if err := m.Roll(0); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, roll := range []struct {
		pins int
		up   string
	}{
		{10, "AAA@10"}, {10, "AAA@10"}, {10, "BBB@10"}, // AAA: X|X|X
		{7, "BBB@10"}, {2, "-"}, // BBB: 7|2, and the match is over
	} {
		if err := m.Roll(roll.pins); err != nil {
			t.Fatal(err)
		}
		if got := upString(m); got != roll.up {
			t.Fatalf("up after Roll(%d) = %s, want %s", roll.pins, got, roll.up)
		}
	}
	if !m.Over() {
		t.Fatal("Over() = false after both tenth frames, want true")
	}
	if err := m.Roll(1); !errors.Is(err, ErrGameOver) {
		t.Errorf("Roll after the match = %v, want ErrGameOver", err)
	}
	totals := []int{}
	for _, p := range m.Players() {
		totals = append(totals, p.Game.Total())
	}
	if fmt.Sprint(totals) != "[30 9]" {
		t.Errorf("totals = %v, want [30 9]", totals)
	}
}

func TestMatchRollAs(t *testing.T) {
	m, _ := NewMatch("AAA", "BBB")
	if err := m.RollAs("BBB", 3); !errors.Is(err, ErrNotYourTurn) || err.Error() != "bowling: not your turn: it is AAA's turn, not BBB's" {
		t.Errorf("RollAs(BBB) while AAA is up = %v, want ErrNotYourTurn", err)
	}
	if m.Started() {
		t.Error("a refused roll started the match")
	}
	if err := m.RollAs("ZZZ", 3); !errors.Is(err, ErrUnknownPlayer) {
		t.Errorf("RollAs(ZZZ) = %v, want ErrUnknownPlayer", err)
	}
	if err := m.RollAs("AAA", 3); err != nil {
		t.Errorf("RollAs(AAA) while AAA is up = %v", err)
	}
	if err := m.RollAs("AAA", 8); !errors.Is(err, ErrTooManyPins) {
		t.Errorf("RollAs(AAA, 8) with 7 standing = %v, want ErrTooManyPins", err)
	}
}

func TestMatchAdd(t *testing.T) {
	m, _ := NewMatch("AAA")
	if _, err := m.Add("aaa"); !errors.Is(err, ErrNameTaken) {
		t.Errorf("Add(aaa) beside AAA = %v, want ErrNameTaken", err)
	}
	if _, err := m.Add("a1"); !errors.Is(err, ErrInvalidName) {
		t.Errorf("Add(a1) = %v, want ErrInvalidName", err)
	}
	if _, err := NewMatch("AAA", "bad name"); !errors.Is(err, ErrInvalidName) {
		t.Errorf("NewMatch with a bad name = %v, want ErrInvalidName", err)
	}
	if err := m.Roll(5); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Add("BBB"); !errors.Is(err, ErrStarted) {
		t.Errorf("Add(BBB) after the first roll = %v, want ErrStarted", err)
	}
	if m.Len() != 1 {
		t.Errorf("Len() = %d after refused adds, want 1", m.Len())
	}
}

func TestMatchNoPlayers(t *testing.T) {
	var m Match
	if err := m.Roll(3); !errors.Is(err, ErrNoPlayers) {
		t.Errorf("Roll on an empty match = %v, want ErrNoPlayers", err)
	}
	if m.Over() {
		t.Error("an empty match is over")
	}
}

func TestMatchRemove(t *testing.T) {
	t.Run("before the first roll the seat is given up", func(t *testing.T) {
		m, _ := NewMatch("AAA", "BBB", "CCC")
		if err := m.Remove("AAA"); err != nil {
			t.Fatal(err)
		}
		if m.Len() != 2 || upString(m) != "BBB@1" {
			t.Errorf("after AAA left: %d seats, up %s; want 2 seats, BBB@1", m.Len(), upString(m))
		}
		if err := m.Remove("AAA"); !errors.Is(err, ErrUnknownPlayer) {
			t.Errorf("second Remove(AAA) = %v, want ErrUnknownPlayer", err)
		}
	})
	t.Run("a player who bowled nothing gives the seat up mid-match", func(t *testing.T) {
		m, _ := NewMatch("AAA", "BBB", "CCC")
		for _, p := range []int{1, 1, 2} { // AAA bowls frame 1; BBB starts it
			if err := m.Roll(p); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.AddLate("DDD"); err != nil {
			t.Fatal(err)
		}
		if err := m.Remove("CCC"); err != nil {
			t.Fatal(err)
		}
		if err := m.Remove("DDD"); err != nil {
			t.Fatal(err)
		}
		if m.Len() != 2 || upString(m) != "BBB@1" {
			t.Errorf("after CCC and DDD left having bowled nothing: %d seats, up %s; want 2 seats, BBB@1 (mid-frame)", m.Len(), upString(m))
		}
	})
	t.Run("the player up leaves mid-frame", func(t *testing.T) {
		m, _ := NewMatch("AAA", "BBB", "CCC")
		for _, p := range []int{1, 1, 2} { // AAA bowls frame 1; BBB starts it
			if err := m.Roll(p); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.Remove("BBB"); err != nil {
			t.Fatal(err)
		}
		if got := upString(m); got != "CCC@1" {
			t.Fatalf("up after BBB left = %s, want CCC@1", got)
		}
		if err := m.RollAs("BBB", 1); !errors.Is(err, ErrUnknownPlayer) {
			t.Errorf("RollAs(BBB) after leaving = %v, want ErrUnknownPlayer", err)
		}
		for _, p := range []int{10, 10} { // CCC strikes; AAA strikes frame 2
			if err := m.Roll(p); err != nil {
				t.Fatal(err)
			}
		}
		if got := upString(m); got != "CCC@2" {
			t.Errorf("up = %s, want CCC@2 (BBB skipped)", got)
		}
		if p, _ := m.Player("BBB"); !p.Left || len(p.Game.Rolls()) != 1 {
			t.Errorf("BBB after leaving = %+v, want Left with its one roll kept", p)
		}
	})
	t.Run("the last player leaving ends nobody's turn", func(t *testing.T) {
		m, _ := NewMatch("AAA")
		_ = m.Roll(4)
		if err := m.Remove("AAA"); err != nil {
			t.Fatal(err)
		}
		if _, _, ok := m.Up(); ok {
			t.Error("somebody is up after every player left")
		}
		if err := m.Roll(1); !errors.Is(err, ErrGameOver) && !errors.Is(err, ErrNoPlayers) {
			t.Errorf("Roll after everyone left = %v", err)
		}
	})
	t.Run("leaving after finishing ends the match for the rest", func(t *testing.T) {
		m, _ := NewMatch("AAA", "BBB")
		for range 19 * 2 {
			_ = m.Roll(0)
		}
		// AAA has finished the tenth frame with 0 0; BBB is up in the tenth.
		if got := upString(m); got != "BBB@10" {
			t.Fatalf("up = %s, want BBB@10", got)
		}
		if err := m.Remove("BBB"); err != nil {
			t.Fatal(err)
		}
		if !m.Over() {
			t.Error("Over() = false once the only player still bowling left")
		}
	})
}

// TestMatchIsRebuiltFromItsEvents checks that the same players and the same
// rolls, in order, always give the same match.
func TestMatchIsRebuiltFromItsEvents(t *testing.T) {
	rolls := []int{10, 3, 4, 9, 1, 10, 0, 0, 5, 5, 5}
	a, _ := NewMatch("AAA", "BBB", "CCC")
	b, _ := NewMatch("AAA", "BBB", "CCC")
	for _, p := range rolls {
		if err := a.Roll(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range rolls {
		_ = b.Roll(p)
	}
	if a.Board() != b.Board() || upString(a) != upString(b) {
		t.Errorf("replayed match differs:\n%s%s\n%s%s", a.Board(), upString(a), b.Board(), upString(b))
	}
}

func TestMatchAtDoesNotAllocate(t *testing.T) {
	m, _ := NewMatch("AAA", "BBB")
	m.Roll(3)
	if p := m.At(0); p.Name != "AAA" || p.Game.NumRolls() != 1 {
		t.Errorf("At(0) = %+v", p)
	}
	if n := testing.AllocsPerRun(100, func() { _ = m.At(1) }); n != 0 {
		t.Errorf("At allocates %v times", n)
	}
}

// TestMatchAwayTurnRule walks a three-player match through skips and
// returns: an away player is passed by, a frame in play is bowled to its
// end, and a player back from away catches up frame by frame, since the
// player up is the one with the fewest completed frames.
func TestMatchAwayTurnRule(t *testing.T) {
	m, _ := NewMatch("AAA", "BBB", "CCC")
	steps := []struct {
		do     string // "roll N", "away NAME", "back NAME", "correct NAME F B N"
		wantUp string
	}{
		{"roll 3", "AAA@1"},
		{"roll 4", "BBB@1"},
		{"away BBB", "CCC@1"}, // BBB is passed by
		{"roll 10", "AAA@2"},  // CCC's strike ends frame 1 for those present
		{"roll 10", "CCC@2"},
		{"roll 5", "CCC@2"},
		{"back BBB", "CCC@2"}, // CCC's frame is in play: it is bowled to its end
		{"roll 5", "BBB@1"},   // BBB has the fewest completed frames
		{"roll 1", "BBB@1"},
		{"roll 1", "BBB@2"}, // still the fewest (1 against 2)
		{"roll 0", "BBB@2"},
		{"roll 0", "AAA@3"}, // caught up: seat order again
		{"away AAA", "BBB@3"},
		{"away BBB", "CCC@3"},
		{"away CCC", "AAA@3"}, // only away players have balls left: they are up all the same
		{"back CCC", "CCC@3"},
	}
	for i, s := range steps {
		var err error
		var n int
		var name string
		if _, e := fmt.Sscanf(s.do, "roll %d", &n); e == nil {
			err = m.Roll(n)
		} else if _, e := fmt.Sscanf(s.do, "away %s", &name); e == nil {
			err = m.SetAway(Name(name), true)
		} else if _, e := fmt.Sscanf(s.do, "back %s", &name); e == nil {
			err = m.SetAway(Name(name), false)
		} else {
			t.Fatalf("step %d: bad step %q", i, s.do)
		}
		if err != nil {
			t.Fatalf("step %d: %s: %v", i, s.do, err)
		}
		if got := upString(m); got != s.wantUp {
			t.Fatalf("step %d: up after %s = %s, want %s\n%s", i, s.do, got, s.wantUp, m.Board())
		}
	}
}

// TestMatchCorrectMovesTheTurn: correcting the last ball can end a frame
// (a 7 that was a strike) or reopen it (a strike that was a 7); the turn
// follows.
func TestMatchCorrectMovesTheTurn(t *testing.T) {
	m, _ := NewMatch("AAA", "BBB")
	if err := m.Roll(7); err != nil {
		t.Fatal(err)
	}
	if was, err := m.Correct("AAA", 1, 1, 10); err != nil || was != 7 {
		t.Fatalf("Correct(AAA 1/1 → 10) = %d, %v; want 7, nil", was, err)
	}
	if got := upString(m); got != "BBB@1" {
		t.Fatalf("after AAA's 7 became a strike, up = %s, want BBB@1", got)
	}
	if _, err := m.Correct("AAA", 1, 1, 8); err != nil {
		t.Fatalf("a strike back to 8 with nothing bowled after it: %v", err)
	}
	if got := upString(m); got != "AAA@1" {
		t.Fatalf("after AAA's strike became an 8, up = %s, want AAA@1 (ball 2)", got)
	}
	if _, err := m.Correct("CCC", 1, 1, 8); !errors.Is(err, ErrUnknownPlayer) {
		t.Fatalf("correcting a player not on the lane: %v, want ErrUnknownPlayer", err)
	}
}

func TestAddLateBowlsTheMissedFramesFirst(t *testing.T) {
	m, err := NewMatch("ANN", "BOB")
	if err != nil {
		t.Fatal(err)
	}
	for range 4 { // two frames each: ANN 1, BOB 1, ANN 2, BOB 2
		if err := m.Roll(4); err != nil {
			t.Fatal(err)
		}
		if err := m.Roll(3); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Roll(10); err != nil { // ANN's third frame
		t.Fatal(err)
	}
	if err := m.AddLate("CY"); err != nil {
		t.Fatalf("AddLate(CY) during the third frame = %v", err)
	}
	if p := m.At(2); !p.Late || p.Name != "CY" {
		t.Fatalf("seat 2 = %+v, want CY, late", p)
	}
	// BOB's third frame is not in play yet: CY catches up first, frame by
	// frame, until she has as many frames as the fewest of the others.
	var order []string
	for range 3 {
		seat, frame, _ := m.Up()
		order = append(order, fmt.Sprintf("%s%d", m.At(seat).Name, frame))
		if err := m.Roll(10); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := strings.Join(order, " "), "CY1 CY2 BOB3"; got != want {
		t.Errorf("turns after CY joined = %s, want %s", got, want)
	}
	if err := m.AddLate("cy"); !errors.Is(err, ErrNameTaken) {
		t.Errorf("AddLate(cy) = %v, want ErrNameTaken", err)
	}
}

func TestMatchFree(t *testing.T) {
	m, _ := NewMatch("AAA", "BBB", "CCC")
	for _, p := range []int{1, 1, 2, 2, 10} { // frame 1 for all three
		if err := m.Roll(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Free("BBB"); !errors.Is(err, ErrNameTaken) {
		t.Errorf("Free of a player still in = %v, want ErrNameTaken", err)
	}
	if err := m.Remove("BBB"); err != nil {
		t.Fatal(err)
	}
	if err := m.Roll(3); err != nil { // AAA, frame 2
		t.Fatal(err)
	}
	if err := m.Free("BBB"); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Player("BBB"); ok || m.Len() != 2 {
		t.Errorf("after Free(BBB): %d seats, BBB still there %v; want 2, gone", m.Len(), ok)
	}
	if got := upString(m); got != "AAA@2" {
		t.Errorf("up after a seat freed = %s, want AAA@2 (mid-frame, kept)", got)
	}
	if err := m.Free("BBB"); !errors.Is(err, ErrUnknownPlayer) {
		t.Errorf("second Free(BBB) = %v, want ErrUnknownPlayer", err)
	}
}
