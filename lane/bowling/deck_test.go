package bowling

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// leave reads a leave as it is spoken, "7-10", for tests; "" is no pin.
func leave(t testing.TB, s string) Deck {
	t.Helper()
	var pins []int
	for f := range strings.SplitSeq(s, "-") {
		if f == "" {
			continue
		}
		p, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("leave %q: %v", s, err)
		}
		pins = append(pins, p)
	}
	d, err := NewDeck(pins...)
	if err != nil {
		t.Fatalf("leave %q: %v", s, err)
	}
	return d
}

func TestNewDeck(t *testing.T) {
	d, err := NewDeck(10, 7)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Pins(); !slices.Equal(got, []int{7, 10}) {
		t.Errorf("Pins() = %v, want [7 10]", got)
	}
	if d.Count() != 2 || !d.Has(7) || !d.Has(10) || d.Has(1) || d.Has(0) || d.Has(11) {
		t.Errorf("deck 7-10: Count() = %d, Has(7, 10, 1, 0, 11) = %v %v %v %v %v", d.Count(), d.Has(7), d.Has(10), d.Has(1), d.Has(0), d.Has(11))
	}
	if d.String() != "7-10" || Deck(0).String() != "none" || Full.String() != "1-2-3-4-5-6-7-8-9-10" {
		t.Errorf("String() = %q, %q, %q", d, Deck(0), Full)
	}
	if Full.Count() != NumPins || !Full.Valid() || Deck(1<<NumPins).Valid() {
		t.Errorf("Full.Count() = %d", Full.Count())
	}
	if empty, err := NewDeck(); err != nil || empty != 0 {
		t.Errorf("NewDeck() = %v, %v, want an empty deck", empty, err)
	}
	for _, bad := range [][]int{{0}, {11}, {-1}, {3, 3}, {1, 2, 1}} {
		if _, err := NewDeck(bad...); !errors.Is(err, ErrInvalidPins) {
			t.Errorf("NewDeck(%v) = %v, want ErrInvalidPins", bad, err)
		}
	}
}

func TestDeckSplit(t *testing.T) {
	tests := []struct {
		leave string
		split bool
	}{
		{"7-10", true},
		{"4-6", true},
		{"7-9", true},
		{"3-10", true},
		{"2-7", true},
		{"5-7", true},
		{"4-7-10", true},
		{"6-7-10", true},
		{"5-6", true},  // the 3 is down ahead of them
		{"8-10", true}, // the 9 between them
		{"2-9", true},  // the 5 between them
		{"4-6-7-10", true},
		{"9-10", true}, // the 6 is down ahead of them, as the 3 of the 5-6
		{"2-3", true},  // the head pin is down ahead of them
		{"4-5-8", true},
		{"10", false},
		{"7", false},
		{"2-4-5-8", false}, // the bucket
		{"1-2-4-7", false}, // the head pin stands
		{"3-6-10", false},
		{"2-8", false}, // a sleeper: the 8 hides behind the 2
		{"3-9", false}, // a sleeper
		{"1-2-10", false},
		{"1-7-10", false},
		{"4-7", false},
		{"", false},
		{"1", false},
	}
	for _, tt := range tests {
		d := leave(t, tt.leave)
		if got := d.Split(); got != tt.split {
			t.Errorf("Deck(%s).Split() = %v, want %v", d, got, tt.split)
		}
	}
	if Full.Split() {
		t.Error("Full.Split() = true")
	}
}

func TestDeckSingle(t *testing.T) {
	tests := []struct {
		leave string
		pin   int
		ok    bool
	}{
		{"10", 10, true},
		{"1", 1, true},
		{"7", 7, true},
		{"7-10", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		pin, ok := leave(t, tt.leave).Single()
		if pin != tt.pin || ok != tt.ok {
			t.Errorf("Deck(%s).Single() = %d, %v, want %d, %v", tt.leave, pin, ok, tt.pin, tt.ok)
		}
	}
}

// Every pin's spot is on the grid: the row's pins two apart, each pin
// midway between the two behind it.
func TestPinSpots(t *testing.T) {
	for p := 1; p <= NumPins; p++ {
		s := spots[p]
		if (s.x+s.row)%2 != 0 || s.x < -s.row || s.x > s.row {
			t.Errorf("pin %d at %+v is off the grid", p, s)
		}
		if pinAt(s) != p {
			t.Errorf("pinAt(%+v) = %d, want %d", s, pinAt(s), p)
		}
	}
}
