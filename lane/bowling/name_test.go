package bowling

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseLaneNameAccepts(t *testing.T) {
	// "ą́" is two code points, ą and a combining acute, in normal form C
	// as typed: one character to a reader, two to len([]rune).
	lithuanian := strings.Repeat("ą\u0301", MaxLaneNameLen)
	tests := []struct {
		in, want string
	}{
		{"홍길동", "홍길동"},
		{"Zoë", "Zoë"},
		{"Zoe\u0308", "Zoë"}, // decomposed, as some keyboards send it: normal form C
		{"José", "José"},
		{"Jo", "Jo"},
		{"J", "J"},
		{"Stephanie", "Stephanie"},
		{"O'Neil", "O'Neil"},
		{"O’Neil", "O'Neil"}, // a phone's typographic apostrophe
		{"Anne-Marie", "Anne-Marie"},
		{"Mary Ann", "Mary Ann"},
		{"pjs", "pjs"}, // the case typed, whatever the name
		{"Kim", "Kim"},
		{"PJS", "PJS"},
		{"zoë", "zoë"},
		{"ann", "ann"},
		{"anne", "anne"},
		{"Ёлка", "Ёлка"},
		{"さくら", "さくら"},
		{"D'Arcy-Li", "D'Arcy-Li"},
		{"ABCDEFGHIJKL", "ABCDEFGHIJKL"}, // 12 characters
		{lithuanian, lithuanian},         // 12 characters, 24 code points
		{"홍길동 김철수 이영희", "홍길동 김철수 이영희"}, // 11 characters, 22 columns
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseLaneName(tt.in)
			if err != nil {
				t.Fatalf("ParseLaneName(%q) = %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Errorf("ParseLaneName(%q) = %q, want %q", tt.in, got, tt.want)
			}
			again, err := ParseLaneName(string(got))
			if err != nil || again != got {
				t.Errorf("ParseLaneName(%q) = %q, %v: a parsed name must parse as itself", got, again, err)
			}
		})
	}
	if n := utf8.RuneCountInString(lithuanian); n != 2*MaxLaneNameLen {
		t.Fatalf("the combining-mark name has %d code points, want %d", n, 2*MaxLaneNameLen)
	}
}

func TestParseLaneNameRefuses(t *testing.T) {
	tests := []struct {
		name, in, why string
	}{
		{"empty", "", "empty"},
		{"digits", "Jo3", `has the digit '3'`},
		{"only digits", "123", "digit"},
		{"fullwidth digit", "Jo３", "digit"},
		{"emoji", "Jo😀", "emoji"},
		{"emoji alone", "🎳", "emoji"},
		{"flag", "Jo🇰🇷", "emoji"},
		{"right-to-left override", "Jo\u202Eeb", "U+202E, a bidirectional"},
		{"left-to-right mark", "Jo\u200E", "bidirectional"},
		{"zero-width space", "Jo\u200Bnathan", "U+200B, an invisible character"},
		{"zero-width joiner", "Jo\u200Dn", "invisible"},
		{"variation selector", "Jo\uFE0F", "invisible"},
		{"Hangul filler", "\u3164", "invisible"},
		{"tab", "Jo\tAnn", "control"},
		{"newline", "Jo\n", "control"},
		{"no-break space", "Mary\u00A0Ann", "a space other than a plain one"},
		{"leading space", " Jo", "starts with a space"},
		{"trailing space", "Jo ", "ends with a space"},
		{"leading hyphen", "-Jo", "starts with a hyphen"},
		{"trailing apostrophe", "Jo'", "ends with an apostrophe"},
		{"double space", "Mary  Ann", "a space after a space"},
		{"space and hyphen", "Anne -Marie", "a hyphen after a space"},
		{"double hyphen", "Anne--Marie", "a hyphen after a hyphen"},
		{"only a space", " ", "starts with a space"},
		{"13 characters", "ABCDEFGHIJKLM", "has 13 characters, a name is at most 12"},
		{"13 characters of two code points", strings.Repeat("ą\u0301", MaxLaneNameLen+1), "has 13 characters"},
		{"13 wide characters", "홍길동홍길동홍길동홍길동홍", "has 13 characters"},
		{"a mark alone", "\u0301Jo", "combining mark with no letter"},
		{"Zalgo", "Z" + strings.Repeat("\u0301\u0302", 3) + "o", "combining marks on one letter"},
		{"punctuation", "Jo.", `has '.'`},
		{"at sign", "jo@x", `has '@'`},
		{"not UTF-8", "Jo\xff", "not UTF-8"},
		{"a megabyte", strings.Repeat("a", 1<<20), "too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLaneName(tt.in)
			if !errors.Is(err, ErrInvalidName) {
				t.Fatalf("ParseLaneName(%q) = %q, %v, want ErrInvalidName", tt.in, got, err)
			}
			if !strings.Contains(err.Error(), tt.why) {
				t.Errorf("ParseLaneName(%q) error %q does not say %q", tt.in, err, tt.why)
			}
			if strings.ContainsAny(err.Error(), "\u202E\u200B\u200D\u3164\t\n") {
				t.Errorf("ParseLaneName(%q) error %q carries the invisible character itself", tt.in, err)
			}
		})
	}
}

func TestNameSame(t *testing.T) {
	tests := []struct {
		a, b Name
		want bool
	}{
		{"PJS", "PJS", true},
		{"Stephanie", "STEPHANIE", true},
		{"Zoë", "ZOË", true},
		{"Strauß", "STRAUSS", true},
		{"Ёлка", "ёлка", true},
		{"홍길동", "홍길동", true},
		{"Zoë", "Zoe", false},
		{"Anne-Marie", "Anne Marie", false},
		{"PJS", "PJ", false},
	}
	for _, tt := range tests {
		if got := tt.a.Same(tt.b); got != tt.want {
			t.Errorf("Name(%q).Same(%q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestNameWidth(t *testing.T) {
	tests := []struct {
		name Name
		want int
	}{
		{"PJS", 3},
		{"Stephanie", 9},
		{"Zoë", 3},
		{"홍길동", 6},
		{"さくら", 6},
		{Name(strings.Repeat("ą\u0301", 3)), 3},
	}
	for _, tt := range tests {
		if got := tt.name.Width(); got != tt.want {
			t.Errorf("Name(%q).Width() = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestMatchNamesAreUniqueButForCase(t *testing.T) {
	var m Match
	for _, s := range []string{"Zoë", "Stephanie", "PJS"} {
		n, err := ParseLaneName(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.AddName(n); err != nil {
			t.Fatalf("AddName(%q) = %v", n, err)
		}
	}
	for _, taken := range []Name{"ZOË", "stephanie", "pjs"} {
		if err := m.AddName(taken); !errors.Is(err, ErrNameTaken) {
			t.Errorf("AddName(%q) = %v, want ErrNameTaken", taken, err)
		}
	}
	if err := m.AddName(""); !errors.Is(err, ErrInvalidName) {
		t.Errorf(`AddName("") = %v, want ErrInvalidName`, err)
	}
	if p, ok := m.Player("STEPHANIE"); !ok || p.Name != "Stephanie" {
		t.Errorf(`Player("STEPHANIE") = %q, %v, want Stephanie's seat`, p.Name, ok)
	}
	if err := m.RollAs("zoë", 7); err != nil {
		t.Errorf(`RollAs("zoë", 7) = %v`, err)
	}
	if _, err := m.Add("Jo"); !errors.Is(err, ErrInvalidName) {
		t.Errorf(`Add("Jo") = %v: Add keeps the seeds' three letters`, err)
	}
}

// TestSameLooksAlike: names that look alike are one name on a lane: by
// their confusable skeletons (UTS #39), after width folding, but for case.
func TestSameLooksAlike(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"ABC", "abc", true},
		{"ABC", "ＡＢＣ", true},   // full-width
		{"ABC", "АВС", true},   // Cyrillic
		{"ABC", "𝐀𝐁𝐂", true},   // mathematical bold
		{"ＡＢＣ", "АВС", true},   // neither is Latin's own
		{"José", "Ｊｏｓé", true}, // full-width, the accent as typed
		{"José", "Jоsé", true}, // a Cyrillic о
		{"José", "JOSÉ", true},
		{"Kim", "Kirn", true}, // rn looks like m
		{"Zoë", "ZOË", true},
		{"Kim", "Kin", false},
		{"José", "Jose", false}, // the accent shows
		{"홍길동", "홍길순", false},
		{"Ann", "Anna", false},
		{"аbc", "ABC", true}, // a Cyrillic а, folded
		{"Ia", "La", false},  // I looks like l, not like L
	} {
		a, err := ParseLaneName(tc.a)
		if err != nil {
			t.Fatalf("ParseLaneName(%q): %v", tc.a, err)
		}
		b, err := ParseLaneName(tc.b)
		if err != nil {
			t.Fatalf("ParseLaneName(%q): %v", tc.b, err)
		}
		if got := a.Same(b); got != tc.same {
			t.Errorf("Name(%q).Same(%q) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
		if got := b.Same(a); got != tc.same {
			t.Errorf("Name(%q).Same(%q) = %v, want %v", tc.b, tc.a, got, tc.same)
		}
	}
}
