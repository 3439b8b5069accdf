package bowling

import "testing"

// benchRolls is a full game with strikes, spares, gutters and a
// three-roll tenth frame.
var benchRolls = []int{10, 7, 3, 9, 0, 10, 0, 8, 8, 2, 0, 6, 10, 10, 10, 8, 1}

func BenchmarkGameRolls(b *testing.B) {
	for b.Loop() {
		var g Game
		for _, p := range benchRolls {
			if err := g.Roll(p); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkGameFrames(b *testing.B) {
	g, _ := Replay(benchRolls)
	for b.Loop() {
		_ = g.Frames()
	}
}

func BenchmarkBoard(b *testing.B) {
	m, _ := NewMatch("AAA", "BBB", "CCC", "DDD")
	for range 40 {
		_ = m.Roll(4)
	}
	players := m.Players()
	buf := make([]byte, 0, 4096)
	for b.Loop() {
		buf = AppendBoard(buf[:0], players...)
	}
}

func BenchmarkMatchFullGame(b *testing.B) {
	for b.Loop() {
		m, _ := NewMatch("AAA", "BBB", "CCC", "DDD")
		for !m.Over() {
			for _, p := range benchRolls {
				_ = m.Roll(p)
			}
		}
	}
}
