package lane

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tenpin/tenpin/protocol"
)

// TestBoardJSON: the board as the lane encodes it (boardJSON, its frames
// encoded once for each change of a player's game) is a protocol.Board,
// byte for byte, whatever the board holds: balls by count, by deck and
// fouls, corrections, a player who left, up.deck, a series.
func TestBoardJSON(t *testing.T) {
	l, players := benchLaneOn(nil, New("bench", `Jo's "lane" <&> 레인`, Config{MaxSpectators: 3}), 2)
	pins := 0
	check := func(what string) {
		t.Helper()
		got := l.BoardJSON()
		var b protocol.Board
		if err := json.Unmarshal(got, &b); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: the lane's board\n%s\nis not the protocol.Board\n%s", what, got, want)
		}
	}
	for i := range 90 { // a game and most of a rematch, by count and by deck
		rollBy(l, players, &pins, i%3 != 0)
		check("a roll")
	}
	l.send(players[1], `{"type":"correct","frame":1,"ball":1,"foul":true}`)
	check("a correction")
	l.send(players[3], `{"type":"leave"}`)
	check("a player left")
	l.send(players[0], `{"type":"remove","name":"PCC"}`)
	check("a player removed")
	seat, _, _ := l.state.Match().Up()
	l.handle(t.Context(), request{op: opDetach, c: players[seat]})
	l.changed() // presence alone waits for presenceEvery
	check("the player up offline")
	b := l.BoardJSON()
	for _, want := range []string{`"decks":[`, `null`, `"split":true`, `"fouls":[1]`, `"corrected":true`, `"left":true`, `"series":[`, `"deck":[`, `"skip_in":`, `"removed":["PCC"]`, `"stats":[{"name":`, `"first_ball_avg":`, `\u003c\u0026\u003e`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the board has no %s: %s", want, b)
		}
	}
}

// TestBoardFramesFollowTheGame: a player's frames, encoded once and kept,
// change on the board as soon as their game does — a roll, a correction,
// a new game — and not otherwise.
func TestBoardFramesFollowTheGame(t *testing.T) {
	l, players := benchLane(nil, 0)
	frames := func(seat int) string {
		var b protocol.Board
		if err := json.Unmarshal(l.BoardJSON(), &b); err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(b.Players[seat].Frames)
		return string(out)
	}
	l.send(players[0], `{"type":"roll","pins":7,"frame":1,"ball":1}`)
	first := frames(0)
	l.send(players[0], `{"type":"roll","pins":2,"frame":1,"ball":2}`)
	if got := frames(0); got == first {
		t.Fatalf("after a second ball the frames are still %s", got)
	}
	second := frames(0)
	l.send(players[0], `{"type":"correct","frame":1,"ball":2,"pins":3}`)
	if got := frames(0); got == second {
		t.Fatalf("after a correction the frames are still %s", got)
	}
	if got := frames(1); got != "[]" {
		t.Fatalf("a player who has not bowled has frames %s", got)
	}
}
