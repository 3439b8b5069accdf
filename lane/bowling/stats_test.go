package bowling

import (
	"strings"
	"testing"
)

// sheet bowls a game written ball by ball: "F" a foul, a number a count,
// "[7-10]" the pins a ball left standing ("[]" none).
func sheet(t *testing.T, balls string) *Game {
	t.Helper()
	var g Game
	for _, b := range strings.Fields(balls) {
		var err error
		switch {
		case b == "F":
			err = g.RollBall(Ball{Foul: true})
		case strings.HasPrefix(b, "["):
			err = g.RollDeck(leave(t, strings.Trim(b, "[]")))
		default:
			err = g.Roll(int(b[0]-'0') + 9*len(b[1:])) // "10" is ten
		}
		if err != nil {
			t.Fatalf("ball %s after %v: %v", b, g.Balls(), err)
		}
	}
	return &g
}

func TestStats(t *testing.T) {
	tests := []struct {
		name  string
		games []string
		want  Stats
	}{
		{
			name:  "a perfect game: twelve strikes of twelve chances",
			games: []string{strings.Repeat("10 ", 12)},
			want:  Stats{Games: 1, Pins: 300, High: 300, CleanGames: 1, Strikes: 12, StrikeChances: 12, FirstBallPins: 120},
		},
		{
			name:  "nine and a miss every frame",
			games: []string{strings.Repeat("9 0 ", 10)},
			want:  Stats{Games: 1, Pins: 90, High: 90, StrikeChances: 10, SpareChances: 10, Opens: 10, FirstBallPins: 90},
		},
		{
			name:  "all spares: the bonus ball faces a fresh rack",
			games: []string{strings.Repeat("5 5 ", 10) + "5"},
			want:  Stats{Games: 1, Pins: 150, High: 150, CleanGames: 1, StrikeChances: 11, Spares: 10, SpareChances: 10, FirstBallPins: 55},
		},
		{
			name: "splits, single pins and fouls, with decks and without",
			games: []string{
				"[7-10] [] " + // split made
					"[7-10] [7] " + // split missed
					"[10] [] " + // single pin made
					"[10] [10] " + // single pin missed
					"F 10 " + // a foul, then a spare
					"F 0 " + // a foul, then open
					"8 2 " + // a spare by counts: no deck, no split or single pin counted
					"10 " +
					"0 0 " +
					"10 [7-10] []", // the tenth: a strike, then a split made on the fresh rack
			},
			want: Stats{Games: 1, Pins: 115, High: 115, Strikes: 2, StrikeChances: 11, Spares: 5, SpareChances: 9,
				Opens: 4, FirstBallPins: 70, Splits: 3, SplitsMade: 2, SinglePins: 2, SinglePinsMade: 1, Fouls: 2},
		},
		{
			name:  "a strike and an open rack in the tenth is not an open frame",
			games: []string{strings.Repeat("0 0 ", 9) + "10 7 2"},
			want:  Stats{Games: 1, Pins: 19, High: 19, Strikes: 1, StrikeChances: 11, SpareChances: 10, Opens: 9, FirstBallPins: 17},
		},
		{
			name:  "a game in play counts its balls but not as a game",
			games: []string{"10 [7-10]"},
			want:  Stats{Strikes: 1, StrikeChances: 2, FirstBallPins: 18, Splits: 1},
		},
		{
			name:  "a series: games, pins and the best of them",
			games: []string{strings.Repeat("10 ", 12), strings.Repeat("9 0 ", 10), "7"},
			want: Stats{Games: 2, Pins: 390, High: 300, CleanGames: 1, Strikes: 12, StrikeChances: 23, SpareChances: 10,
				Opens: 10, FirstBallPins: 217},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Stats
			for _, g := range tt.games {
				s.Add(sheet(t, g))
			}
			if s != tt.want {
				t.Errorf("stats\n got %+v\nwant %+v", s, tt.want)
			}
		})
	}
}

func TestStatsAverages(t *testing.T) {
	var s Stats
	if _, ok := s.Average(); ok {
		t.Error("Average() of no game is known")
	}
	if _, ok := s.FirstBallAverage(); ok {
		t.Error("FirstBallAverage() of no ball is known")
	}
	s.Add(sheet(t, strings.Repeat("10 ", 12)))
	s.Add(sheet(t, strings.Repeat("9 0 ", 10)))
	s.Add(sheet(t, "7 2"))
	if avg, ok := s.Average(); !ok || avg != 195 {
		t.Errorf("Average() = %v, %v; want 195, true (the game in play not counted)", avg, ok)
	}
	if avg, ok := s.FirstBallAverage(); !ok || avg != 217.0/23 {
		t.Errorf("FirstBallAverage() = %v, %v; want %v, true", avg, ok, 217.0/23)
	}
}

func TestStandingBefore(t *testing.T) {
	g := sheet(t, "[7-10] [] F 10 7 2 "+strings.Repeat("0 0 ", 6)+"10 F 3")
	tests := []struct{ frame, ball, want int }{
		{1, 1, 10}, {1, 2, 2}, // the 7-10 left two
		{2, 1, 10}, {2, 2, 10}, // a foul on the first ball: the pins are set again
		{3, 2, 3},
		{10, 1, 10}, {10, 2, 10}, {10, 3, 10}, // after a strike, and after a foul, ten
	}
	for _, tt := range tests {
		if got, err := g.StandingBefore(tt.frame, tt.ball); err != nil || got != tt.want {
			t.Errorf("StandingBefore(%d, %d) = %d, %v; want %d", tt.frame, tt.ball, got, err, tt.want)
		}
	}
	if _, err := g.StandingBefore(4, 3); err == nil {
		t.Error("StandingBefore(4, 3): a third ball in frame 4 is not refused")
	}
}
