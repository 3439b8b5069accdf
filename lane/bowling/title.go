package bowling

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// ParseTitle accepts free text that names a lane, a league or a team —
// "Friday night", "Week 2: Pin Pals v 핀 킹스", "=Spares <&> Co" — and
// returns it trimmed, in Unicode normal form C: 1 to max characters (code
// points), at least one a letter or a digit. Unlike a player's name it
// may hold digits, punctuation, symbols and emoji (with their joiner and
// presentation selector); like one, nothing that hides in the text or
// turns it around: control, invisible and bidirectional formatting
// characters, and noncharacters. The error says why, in words its caller
// puts after what was named ("the league's name: …").
func ParseTitle(s string, max int) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("not UTF-8 text")
	}
	s = norm.NFC.String(strings.TrimSpace(s))
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		return "", fmt.Errorf("a name is needed")
	case n > max:
		return "", fmt.Errorf("%d characters, a name has at most %d", n, max)
	}
	for i, r := range s {
		switch {
		case unicode.IsControl(r):
			return "", fmt.Errorf("%U at byte %d, a control character", r, i)
		case unicode.Is(unicode.Bidi_Control, r):
			return "", fmt.Errorf("%U at byte %d, a bidirectional formatting character that could disguise the name", r, i)
		case r == '\u200d' || r == '\ufe0f': // an emoji's joiner and presentation selector
		case hidden(r): // as in a player's name
			return "", fmt.Errorf("%U at byte %d, an invisible character", r, i)
		case r&0xFFFE == 0xFFFE || 0xFDD0 <= r && r <= 0xFDEF:
			return "", fmt.Errorf("%U at byte %d, which is no character", r, i)
		}
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) < 0 {
		return "", fmt.Errorf("%q has no letter or digit", s)
	}
	return s, nil
}
