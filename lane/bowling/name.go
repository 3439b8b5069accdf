package bowling

import (
	"fmt"
	"strings"
)

// NameLen is the length of every player name.
const NameLen = 3

// Name is a player's name: exactly three English letters, upper case. Make
// one with [ParseName]; the scoreboard has room for no other kind.
type Name string

// ParseName accepts three English letters in either case and returns them
// upper-cased ("pjs" becomes "PJS"). Anything else is refused with an error
// wrapping [ErrInvalidName] that says why.
func ParseName(s string) (Name, error) {
	if n := len([]rune(s)); n != NameLen {
		unit := "characters"
		if n == 1 {
			unit = "character"
		}
		return "", fmt.Errorf("%w: %q has %d %s, a name is exactly %d English letters", ErrInvalidName, s, n, unit, NameLen)
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return "", fmt.Errorf("%w: %q has %q, a name is exactly %d English letters", ErrInvalidName, s, r, NameLen)
		}
	}
	return Name(strings.ToUpper(s)), nil
}
