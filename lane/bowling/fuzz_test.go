package bowling

import (
	"testing"
)

// FuzzGame feeds arbitrary roll sequences, each byte one roll of -2 to 11
// pins. No sequence may panic; a refused roll must leave the game exactly
// as it was; after every accepted roll the score stays within 300 and the
// cumulative scores never decrease.
func FuzzGame(f *testing.F) {
	f.Add([]byte{12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12}) // perfect game
	f.Add([]byte{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2})
	f.Add([]byte{12, 10, 4, 10, 3, 13, 0, 1, 12})
	f.Fuzz(func(t *testing.T, data []byte) {
		var g Game
		for _, b := range data {
			pins := int(b)%14 - 2
			before := g
			if err := g.Roll(pins); err != nil {
				if g != before {
					t.Fatalf("refused Roll(%d) after %v changed the game", pins, before.Rolls())
				}
				continue
			}
			last := -1
			for _, fr := range g.Frames() {
				s, ok := fr.Score()
				if !ok {
					continue
				}
				if s < last || s > MaxScore {
					t.Fatalf("after %v: frame %d score %d (previous %d)", g.Rolls(), fr.Number, s, last)
				}
				last = s
			}
			if total := g.Total(); total > MaxScore || total < 0 {
				t.Fatalf("after %v: Total() = %d", g.Rolls(), total)
			}
		}
	})
}

// FuzzMatch drives a three-player match with arbitrary commands: each byte
// is a roll by whoever is up, a roll claimed by a given seat, a player
// marked away or back, a correction, or a player leaving. No command may
// panic, a refused command changes nothing, and the player up is always
// one still in the match with balls left, away only if nobody else is
// due.
func FuzzMatch(f *testing.F) {
	f.Add([]byte{10, 10, 10, 7, 3, 200, 5})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte{128, 129, 130, 200, 10})
	f.Add([]byte{10, 7, 151, 3, 152, 180, 190, 9, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := NewMatch("AAA", "BBB", "CCC")
		if err != nil {
			t.Fatal(err)
		}
		names := []Name{"AAA", "BBB", "CCC"}
		for _, b := range data {
			before := m.Players()
			var err error
			switch {
			case b < 100:
				err = m.Roll(int(b)%13 - 1)
			case b < 150:
				err = m.RollAs(names[int(b)%3], int(b)%11)
			case b < 175:
				err = m.SetAway(names[int(b)%3], b%2 == 0)
			case b < 245:
				_, err = m.Correct(names[int(b)%3], int(b)%10+1, int(b)%3+1, int(b)%11)
			default:
				err = m.Remove(names[int(b)%3])
			}
			if err != nil {
				after := m.Players()
				for i := range before {
					if before[i] != after[i] {
						t.Fatalf("refused command %d changed seat %d", b, i)
					}
				}
			}
			seat, _, ok := m.Up()
			if !ok {
				continue
			}
			up := m.At(seat)
			if up.Left || up.Game.Over() {
				t.Fatalf("player up %s has left or finished", up.Name)
			}
			for _, p := range m.Players() {
				if up.Away && !p.Away && !p.Left && !p.Game.Over() {
					t.Fatalf("away player %s is up while %s is due", up.Name, p.Name)
				}
			}
		}
	})
}
