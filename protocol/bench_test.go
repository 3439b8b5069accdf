package protocol

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// BenchmarkDecode measures Decode on what a lane reads most: rolls, and
// the occasional join, resume and refusal. Every lane decodes every
// message its clients send.
func BenchmarkDecode(b *testing.B) {
	for _, bm := range []struct{ name, in string }{
		{"roll", `{"type":"roll","pins":7,"frame":3,"ball":2,"id":"roll-12"}`},
		{"gutter", `{"type":"roll","pins":0,"frame":3,"ball":2,"id":"roll-12"}`},
		{"join", `{"type":"join","name":"PJS","id":"join"}`},
		{"resume", `{"type":"resume","token":"9b2c0e8a-0f4d-4c1e-9a57-0e6f3c2d1b4a","id":"resume"}`},
		{"refused", `{"type":"roll","pins":"7","frame":3,"ball":2,"id":"roll-12"}`},
	} {
		data := []byte(bm.in)
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Decode(data)
			}
		})
	}
}

// BenchmarkBoard measures the ways to read a mid-game board of four
// players: the whole of it, strictly (DecodeMessage) or as encoding/json
// does, and the partial decodings a client that follows the game uses.
func BenchmarkBoard(b *testing.B) {
	data, err := os.ReadFile("testdata/board-playing.golden")
	if err != nil {
		b.Fatal(err)
	}
	data = bytes.TrimSpace(data)
	b.Run("DecodeMessage", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeMessage(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m Board
			if err := json.Unmarshal(data, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DecodeBoardHead", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			var h BoardHead
			if !DecodeBoardHead(data, &buf, &h) {
				b.Fatal("not a board")
			}
		}
	})
	b.Run("BoardSeq", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := BoardSeq(data); !ok {
				b.Fatal("not a board")
			}
		}
	})
	b.Run("DecodeBoardPlayer", func(b *testing.B) {
		b.ReportAllocs()
		var p Player
		for b.Loop() {
			if err := DecodeBoardPlayer(data, 2, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
	// What the load tool did before DecodeBoardPlayer: the board with its
	// players undecoded, then the one player.
	b.Run("encoding-json-player", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m struct {
				Players []json.RawMessage `json:"players"`
			}
			var p Player
			if err := json.Unmarshal(data, &m); err != nil {
				b.Fatal(err)
			}
			if err := json.Unmarshal(m.Players[2], &p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
