package game

import (
	"testing"
	"time"
	"unsafe"
)

// TestPlayedKeepsEveryEvent: the game's log gives back every event as it
// was applied, whether it keeps it by its fields (a roll) or whole.
func TestPlayedKeepsEveryEvent(t *testing.T) {
	tests := []struct {
		name    string
		e       Event
		byValue bool // kept in its fields, not behind a pointer
	}{
		{"a roll", Event{Kind: Rolled, Player: "ANA", Frame: 3, Ball: 2, Pins: 7}, true},
		{"a roll by deck, entered by another", Event{Kind: Rolled, Player: "ANA", By: "BOB", Frame: 10, Ball: 3, Pins: 6, Deck: 0b1111, HasDeck: true}, true},
		{"a foul", Event{Kind: Rolled, Player: "민준", Frame: 1, Ball: 1, Foul: true}, true},
		{"pins past what a byte holds", Event{Kind: Rolled, Player: "ANA", Frame: 1, Ball: 1, Pins: 300}, false},
		{"a roll with a field rolls do not have", Event{Kind: Rolled, Player: "ANA", Frame: 1, Ball: 1, Pins: 3, Reason: "?"}, false},
		{"a seat", Event{Kind: SeatTaken, Player: "ANA", Token: HashToken("t"), Host: true}, false},
		{"a correction", Event{Kind: Corrected, Player: "ANA", By: "BOB", Frame: 2, Ball: 1, Pins: 9, Was: 8, At: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}, false},
		{"the start", Event{Kind: GameStarted}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := keep(tt.e)
			if got := p.event(); got != tt.e {
				t.Errorf("kept %+v, gave back %+v", tt.e, got)
			}
			if byValue := p.other == nil; byValue != tt.byValue {
				t.Errorf("kept by its fields: %t, want %t", byValue, tt.byValue)
			}
		})
	}
}

// TestPlayedIsSmall: a lane keeps a game's worth of rolls all the time;
// a roll kept as an Event would cost 280 bytes.
func TestPlayedIsSmall(t *testing.T) {
	if n, e := unsafe.Sizeof(played{}), unsafe.Sizeof(Event{}); n > 48 || n*5 > e {
		t.Errorf("a kept roll takes %d bytes, an event %d: want at most 48 and a fifth", n, e)
	}
}
