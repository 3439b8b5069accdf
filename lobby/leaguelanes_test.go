package lobby

import (
	"strings"
	"testing"

	"github.com/rivo/uniseg"

	"github.com/tenpin/tenpin/lane/league"
)

// TestLeagueLaneName: a match's lane name is one a lane takes, however
// its teams are named — emoji of several code points each, accents typed
// as combining marks — and is cut between characters as a reader sees
// them, never inside one.
func TestLeagueLaneName(t *testing.T) {
	family := "👨\u200d👩\u200d👧" // one character to a reader, five code points
	for _, tt := range []struct{ home, away string }{
		{"Pin Pals", "Strikers"},
		{strings.Repeat(family, 8), "Strikers"},
		{"Les E\u0301toiles de Sainte-Genevie\u0300ve", "핀 킹스 " + strings.Repeat("❤\ufe0f", 10)},
	} {
		ll := leagueLane{Week: 12, Home: league.TeamSheet{Team: tt.home}, Away: league.TeamSheet{Team: tt.away}}
		n := ll.name()
		if _, err := cleanName(n); err != nil {
			t.Errorf("%q v %q: the lane's name %q is refused: %v", tt.home, tt.away, n, err)
		}
		full := "Week 12: " + tt.home + " v " + tt.away
		if cut, ok := strings.CutSuffix(n, "…"); ok {
			// What is kept is whole characters of the full name.
			if !strings.HasPrefix(full, cut) || uniseg.GraphemeClusterCount(cut)+uniseg.GraphemeClusterCount(full[len(cut):]) != uniseg.GraphemeClusterCount(full) {
				t.Errorf("%q cuts a character of %q", n, full)
			}
		} else if n != full {
			t.Errorf("name %q, want %q uncut", n, full)
		}
	}
}
