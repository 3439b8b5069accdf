package lobby_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// TestLookAlikeNames: a name that only looks like a seated one is taken,
// and one that looks like a removed player's is refused until the host
// lets that player back: full-width, Cyrillic and bold letters alike.
func TestLookAlikeNames(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "Look-alikes")
	host, jose, other := s.dial(t, id), s.dial(t, id), s.dial(t, id)
	host.join(t, "ABC")
	for i, name := range []string{"ＡＢＣ", "АВС", "𝐀𝐁𝐂", "abc"} {
		ref := string(rune('a' + i))
		other.send(t, `{"type":"join","name":"`+name+`","id":"`+ref+`"}`)
		other.expectError(t, ref, string(protocol.CodeNameTaken))
	}
	jose.join(t, "José")
	host.send(t, `{"type":"remove","name":"José","id":"r"}`)
	host.expectAck(t, "r")
	for i, name := range []string{"Ｊｏｓé", "Jоsé"} {
		ref := string(rune('p' + i))
		other.send(t, `{"type":"join","name":"`+name+`","id":"`+ref+`"}`)
		other.expectError(t, ref, string(protocol.CodeRemoved))
	}
	host.send(t, `{"type":"readmit","name":"Jоsé","id":"back"}`) // named as it looks
	host.expectAck(t, "back")
	other.send(t, `{"type":"join","name":"Jоsé","id":"in"}`)
	other.expectAck(t, "in")
}

// TestLongestJoinIsRead: the longest join a client may send — the longest
// name, every character written as a JSON escape, the host key, a bowler
// key and the longest id, escaped too — is read and answered, not cut off
// at the socket's read limit (it was 512 bytes, and the connection closed
// with nothing said).
func TestLongestJoinIsRead(t *testing.T) {
	s := newServer(t, lobby.Config{})
	created := s.createKeyed(t, "Long names")
	letter := "𝐀\U0001D167\U0001D168\U0001D169\U0001D17B" // a letter and four marks, 4 bytes each
	name := strings.Repeat(letter, bowling.MaxLaneNameLen)
	if _, err := bowling.ParseLaneName(name); err != nil {
		t.Fatalf("the test's name is not one: %v", err)
	}
	id := strings.Repeat("\x01", protocol.MaxIDLength)
	msg := `{"type":"join","name":"` + escapeAll(name) + `","host_key":"` + created.HostKey +
		`","bowler_key":"` + strings.Repeat("K", 26) + `","id":"` + escapeAll(id) + `"}`
	if len(msg) > protocol.MaxMessageSize {
		t.Fatalf("the longest join is %d bytes, over the read limit of %d", len(msg), protocol.MaxMessageSize)
	}
	c := s.dial(t, created.ID)
	c.send(t, msg)
	c.expectError(t, id, string(protocol.CodeUnknownBowler)) // read, and answered: the key is nobody's
}

// escapeAll writes s as a JSON string's content with every character
// escaped (\uXXXX, a surrogate pair past the BMP), as the longest a
// client could send it.
func escapeAll(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > 0xFFFF {
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04X\u%04X`, hi, lo)
			continue
		}
		fmt.Fprintf(&b, `\u%04X`, r)
	}
	return b.String()
}
