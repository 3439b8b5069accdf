package bowling

import (
	"strings"
	"testing"
)

func TestParseTitle(t *testing.T) {
	for _, tt := range []struct {
		in, want string
	}{
		{"  Friday night  ", "Friday night"},
		{"Week 2: Pin Pals v 핀 킹스", "Week 2: Pin Pals v 핀 킹스"},
		{"=Spares <&> Co", "=Spares <&> Co"},
		{"Family 👨\u200d👩\u200d👧 night ❤\ufe0f", "Family 👨\u200d👩\u200d👧 night ❤\ufe0f"},
		{"Jose\u0301", "José"}, // normal form C
		{"7", "7"},
		{strings.Repeat("가", 40), strings.Repeat("가", 40)},
	} {
		got, err := ParseTitle(tt.in, 40)
		if err != nil || got != tt.want {
			t.Errorf("ParseTitle(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		name, in, why string
	}{
		{"empty", "", "a name is needed"},
		{"blank", " \t ", "a name is needed"},
		{"too long", strings.Repeat("가", 41), "41 characters, a name has at most 40"},
		{"not UTF-8", "a\xffb", "not UTF-8 text"},
		{"control", "a\u0007b", "U+0007 at byte 1, a control character"},
		{"right-to-left override", "ab\u202e", "U+202E at byte 2, a bidirectional formatting character"},
		{"zero-width space", "a\u200bb", "U+200B at byte 1, an invisible character"},
		{"variation selector alone", "a\ufe00", "U+FE00 at byte 1, an invisible character"},
		{"noncharacter", "a\uffff", "U+FFFF at byte 1, which is no character"},
		{"no letter or digit", "!! ??", `"!! ??" has no letter or digit`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTitle(tt.in, 40)
			if err == nil || !strings.Contains(err.Error(), tt.why) {
				t.Fatalf("ParseTitle(%q) = %q, %v; want an error saying %q", tt.in, got, err, tt.why)
			}
		})
	}
}
