package game

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/golden"
)

func deck(t *testing.T, pins ...int) bowling.Deck {
	t.Helper()
	d, err := bowling.NewDeck(pins...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestEncodingPinsGolden pins the stored form of the balls that name
// their deck or are fouls. A ball without them is stored as version 1
// wrote it (events.golden).
func TestEncodingPinsGolden(t *testing.T) {
	at := time.Date(2026, 11, 22, 20, 15, 7, 0, time.UTC)
	events := []Event{
		{Kind: Rolled, Player: "PJS", Frame: 1, Ball: 1, Pins: 8, Deck: deck(t, 7, 10), HasDeck: true},
		{Kind: Rolled, Player: "PJS", Frame: 1, Ball: 2, Pins: 2, HasDeck: true}, // every pin down: "standing":[]
		{Kind: Rolled, Player: "Zoë", Frame: 2, Ball: 1, Foul: true, By: "Anne-Marie"},
		{Kind: Corrected, Player: "홍길동", Frame: 1, Ball: 1, Pins: 9, Deck: deck(t, 10), HasDeck: true, Was: 8, At: at},
		{Kind: Corrected, Player: "PJS", Frame: 2, Ball: 1, Foul: true, Was: 3, At: at},
		{Kind: Snapshot, Snapshot: &LaneSnapshot{ID: "l", Name: "n", MaxPlayers: 2, Series: []Result{},
			Game: []Event{{Kind: Rolled, Player: "PJS", Frame: 1, Ball: 1, Pins: 8, Deck: deck(t, 7, 10), HasDeck: true}}}},
	}
	var out []byte
	for _, e := range events {
		data, err := Marshal(e)
		if err != nil {
			t.Fatalf("Marshal(%v): %v", e.Kind, err)
		}
		got, err := Unmarshal(data)
		if err != nil {
			t.Fatalf("Unmarshal(%s): %v", data, err)
		}
		if !reflect.DeepEqual(got, e) {
			t.Errorf("round trip of %s:\n got %+v\nwant %+v", data, got, e)
		}
		out = append(append(out, data...), '\n')
	}
	golden.Check(t, "events-pins.golden", out)
}

func TestUnmarshalRefusesDecks(t *testing.T) {
	tests := []struct {
		in, why string
	}{
		{`{"v":1,"kind":"rolled","player":"PJS","frame":1,"ball":1,"pins":1,"standing":[11]}`, `"standing": bowling: invalid pins: there is no pin 11`},
		{`{"v":1,"kind":"rolled","player":"PJS","frame":1,"ball":1,"pins":1,"standing":[3,3]}`, "pin 3 is named twice"},
		{`{"v":1,"kind":"rolled","player":"PJS","frame":1,"ball":1,"pins":1,"standing":"7-10"}`, "cannot unmarshal string"},
		{`{"v":1,"kind":"rolled","player":"PJS","frame":1,"ball":1,"pins":1,"foul":1}`, "cannot unmarshal number"},
	}
	for _, tt := range tests {
		_, err := Unmarshal([]byte(tt.in))
		if !errors.Is(err, ErrEncoding) || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("Unmarshal(%s) = %v, want ErrEncoding saying %q", tt.in, err, tt.why)
		}
	}
}

// TestRollsWithDecksAndFouls: a throw may name the pins it left standing,
// checked against those standing before it, or be a foul; the events
// carry them and the log, encoded and decoded, rebuilds the lane.
func TestRollsWithDecksAndFouls(t *testing.T) {
	s := run(t, []step{
		{"join PJS", join("PJS", tokenA), nil, Waiting},
		{"join Zoë", join("Zoë", tokenB), nil, Waiting},
		{"start", start("PJS"), nil, Playing},
		{"a deck that disagrees with its count", throw(Throw{By: "PJS", Frame: 1, Ball: 1, Pins: 7, Deck: deck(t, 7, 10), HasDeck: true}), bowling.ErrInvalidPins, Playing},
		{"PJS leaves the 7-10", throw(Throw{By: "PJS", Frame: 1, Ball: 1, Pins: 8, Deck: deck(t, 7, 10), HasDeck: true}), nil, Playing},
		{"a pin that was down", throw(Throw{By: "PJS", Frame: 1, Ball: 2, Pins: 1, Deck: deck(t, 9), HasDeck: true}), bowling.ErrInvalidPins, Playing},
		{"a foul of pins", throw(Throw{By: "PJS", Frame: 1, Ball: 2, Pins: 1, Foul: true}), bowling.ErrInvalidPins, Playing},
		{"a foul with a deck", throw(Throw{By: "PJS", Frame: 1, Ball: 2, Foul: true, Deck: deck(t, 7, 10), HasDeck: true}), bowling.ErrInvalidPins, Playing},
		{"PJS makes the 10", throw(Throw{By: "PJS", Frame: 1, Ball: 2, Pins: 1, Deck: deck(t, 7), HasDeck: true}), nil, Playing},
		{"Zoë fouls", throw(Throw{By: "Zoë", Frame: 1, Ball: 1, Foul: true}), nil, Playing},
		{"Zoë faces ten and spares", throw(Throw{By: "Zoë", Frame: 1, Ball: 2, Pins: 10, Deck: 0, HasDeck: true}), nil, Playing},
		{"PJS fouls", throw(Throw{By: "PJS", Frame: 2, Ball: 1, Foul: true}), nil, Playing},
		{"PJS fouls again", throw(Throw{By: "PJS", Frame: 2, Ball: 2, Foul: true}), nil, Playing},
		{"Zoë: the foul was 9 leaving the 10", correct(Correction{By: "Zoë", Frame: 1, Ball: 1, Pins: 9, Deck: deck(t, 10), HasDeck: true, At: time.Unix(1, 0)}), nil, Playing},
		{"PJS: the 7-10 was a foul", correct(Correction{By: "PJS", Frame: 1, Ball: 1, Foul: true, At: time.Unix(2, 0)}), nil, Playing},
	})
	want := "" +
		"| NAME |  01  |  02  |  03  |  04  |  05  |  06  |  07  |  08  |  09  |  10  |\n" +
		"|  PJS |  F|9 |  F|F |      |      |      |      |      |      |      |      |\n" +
		"|      |  9   |  9   |      |      |      |      |      |      |      |      |\n" +
		"|  Zoë |  9|/ |      |      |      |      |      |      |      |      |      |\n" +
		"|      |      |      |      |      |      |      |      |      |      |      |\n"
	if got := s.Match().Board(); got != want {
		t.Errorf("board:\n%s\nwant:\n%s", got, want)
	}
	// The 7-10 corrected to a foul: the next ball, which left the 7, now
	// faces ten and knocks down nine.
	p, _ := s.Match().Player("PJS")
	if d, ok := p.Game.Frame(1).Deck(2); !ok || d != deck(t, 7) || !p.Game.Frame(1).Foul(1) {
		t.Errorf("PJS's frame 1: Deck(2) = %s, %v, Foul(1) = %v", d, ok, p.Game.Frame(1).Foul(1))
	}
	var kinds []string
	for _, e := range s.Corrections() {
		kinds = append(kinds, string(e.Player)+" "+e.bowled().String())
	}
	if got := strings.Join(kinds, ", "); got != "Zoë 9 (deck 10), PJS a foul" {
		t.Errorf("corrections: %s", got)
	}
}
