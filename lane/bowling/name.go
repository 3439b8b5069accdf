package bowling

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mtibben/confusables"
	"github.com/rivo/uniseg"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// NameLen is the length of every name [ParseName] accepts: the seeds' three
// letters.
const NameLen = 3

// Limits of a name on a lane ([ParseLaneName]).
const (
	// MaxLaneNameLen is the most characters a name on a lane has, counted as
	// a reader sees them (grapheme clusters: "é" or "홍" is one, whatever
	// its code points): room for "Stephanie" or "Anne-Marie", and a board
	// that still fits a terminal.
	MaxLaneNameLen = 12

	// maxMarks is the most combining marks one letter may carry: enough for
	// any script's accents, and no "Zalgo" text that overflows its line.
	maxMarks = 4

	// maxNameBytes bounds the input read at all, before normalizing it: 12
	// characters of at most 1+maxMarks code points of at most 4 bytes each.
	maxNameBytes = MaxLaneNameLen * (1 + maxMarks) * utf8.UTFMax
)

// Name is a player's name. [ParseName] makes the seeds' kind, three English
// letters in capitals; [ParseLaneName] the kind a lane seats, up to twelve
// letters of any script. Two names are the same player on a lane when they
// are equal but for case, or look alike ([Name.Same]).
type Name string

// ParseName accepts three English letters in either case and returns them
// upper-cased ("pjs" becomes "PJS"). Anything else is refused with an error
// wrapping [ErrInvalidName] that says why. The console game names its
// players so; a lane takes the wider [ParseLaneName].
func ParseName(s string) (Name, error) {
	if n := len([]rune(s)); n != NameLen {
		unit := "characters"
		if n == 1 {
			unit = "character"
		}
		return "", fmt.Errorf("%w: %q has %d %s, a name is exactly %d English letters", ErrInvalidName, s, n, unit, NameLen)
	}
	for _, r := range s {
		if !isASCIILetter(r) {
			return "", fmt.Errorf("%w: %q has %q, a name is exactly %d English letters", ErrInvalidName, s, r, NameLen)
		}
	}
	return Name(strings.ToUpper(s)), nil
}

func isASCIILetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

// ParseLaneName accepts the name of a player on a lane: 1 to
// [MaxLaneNameLen] letters of any script (Latin with its accents, Hangul,
// kana, Cyrillic, …), counted as a reader sees them, with single spaces,
// hyphens or apostrophes between words ("Mary Ann", "Anne-Marie",
// "O'Neil"). The name is returned in Unicode normal form C, its
// typographic apostrophes (’) written ' as a keyboard types them, in the
// case it was typed: "Kim" stays Kim, "PJS" PJS (names equal but for case
// are one player on a lane all the same: [Name.Same]).
//
// Anything else is refused with an error wrapping [ErrInvalidName] that
// says why: an empty or too long name, digits, emoji and other symbols,
// control, invisible or bidirectional formatting characters (U+200B,
// U+202E), spaces other than a plain one, separators at either end or two
// in a row.
func ParseLaneName(s string) (Name, error) {
	if len(s) > maxNameBytes {
		return "", fmt.Errorf("%w: a name of %d bytes is too long, a name is at most %d characters", ErrInvalidName, len(s), MaxLaneNameLen)
	}
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("%w: %q is not UTF-8 text", ErrInvalidName, s)
	}
	s = norm.NFC.String(strings.ReplaceAll(s, "’", "'"))
	if s == "" {
		return "", fmt.Errorf("%w: the name is empty, a name is 1 to %d letters", ErrInvalidName, MaxLaneNameLen)
	}
	if why := nameFault(s); why != "" {
		return "", fmt.Errorf("%w: %s %s", ErrInvalidName, quote(s), why)
	}
	if n := uniseg.GraphemeClusterCount(s); n > MaxLaneNameLen {
		return "", fmt.Errorf("%w: %q has %d characters, a name is at most %d", ErrInvalidName, s, n, MaxLaneNameLen)
	}
	return Name(s), nil
}

// nameFault says what is wrong with a name in normal form C, or "" if
// nothing is. It reads the name one code point at a time: letters, each
// followed by a few combining marks, and single separators between them.
func nameFault(s string) string {
	var prev rune // the code point before, 0 at the start
	marks := 0    // combining marks on the letter before
	for i, r := range s {
		switch {
		case isSeparator(r):
			switch {
			case i == 0:
				return "starts with " + separatorName(r) + ", a name starts with a letter"
			case isSeparator(prev):
				return fmt.Sprintf("has %s after %s, words are separated by one space, hyphen or apostrophe", separatorName(r), separatorName(prev))
			case i+utf8.RuneLen(r) == len(s):
				return "ends with " + separatorName(r) + ", a name ends with a letter"
			}
			marks = 0
		case unicode.Is(unicode.Bidi_Control, r):
			return fmt.Sprintf("has %U, a bidirectional formatting character that could disguise the name", r)
		case hidden(r):
			return fmt.Sprintf("has %U, an invisible character", r)
		case unicode.In(r, unicode.Mn, unicode.Mc):
			if prev == 0 || isSeparator(prev) {
				return fmt.Sprintf("has %U, a combining mark with no letter to carry it", r)
			}
			if marks++; marks > maxMarks {
				return fmt.Sprintf("has more than %d combining marks on one letter", maxMarks)
			}
		case unicode.IsLetter(r):
			marks = 0
		case unicode.IsNumber(r):
			return fmt.Sprintf("has the digit %q, a name is letters", r)
		case unicode.IsControl(r), unicode.In(r, unicode.Zl, unicode.Zp):
			return fmt.Sprintf("has %U, a control character", r)
		case unicode.IsSpace(r), unicode.Is(unicode.Zs, r):
			return fmt.Sprintf("has %U, a space other than a plain one", r)
		case unicode.In(r, unicode.So, unicode.Sk, unicode.Regional_Indicator), r >= 0x1F000 && unicode.IsSymbol(r):
			return fmt.Sprintf("has %q, an emoji or a symbol, a name is letters", r)
		case unicode.IsPrint(r):
			return fmt.Sprintf("has %q, a name is letters with single spaces, hyphens or apostrophes between words", r)
		default:
			return fmt.Sprintf("has %U, which is not a letter", r)
		}
		prev = r
	}
	return ""
}

// hidden reports whether r shows nothing, or changes how the text around
// it shows.
func hidden(r rune) bool {
	return unicode.In(r, unicode.Bidi_Control, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// quote is %q for a refused name, that also writes as escapes the
// characters [strconv.Quote] shows as they are but a reader cannot see
// (U+3164, the Hangul filler, is a letter).
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if hidden(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		q := strconv.Quote(string(r))
		b.WriteString(q[1 : len(q)-1])
	}
	b.WriteByte('"')
	return b.String()
}

func isSeparator(r rune) bool { return r == ' ' || r == '-' || r == '\'' }

func separatorName(r rune) string {
	switch r {
	case ' ':
		return "a space"
	case '-':
		return "a hyphen"
	}
	return "an apostrophe"
}

// Same reports whether n and m name the same player on a lane: they are
// equal once their case is folded ("Zoë" and "ZOË", "Strauß" and
// "STRAUSS"), or they look alike ([Name.Keys]): "ABC", full-width "ＡＢＣ",
// Cyrillic "АВС" and bold "𝐀𝐁𝐂"; "José" and "Jоsé" with a Cyrillic о.
// Names are in normal form C, as the parsers return them.
func (n Name) Same(m Name) bool {
	if n == m {
		return true
	}
	if isASCII(string(n)) && isASCII(string(m)) && strings.EqualFold(string(n), string(m)) {
		return true
	}
	fold := cases.Fold() // a Caser is not safe to share between goroutines
	if fold.String(string(n)) == fold.String(string(m)) {
		return true
	}
	nl, nf := n.Keys()
	ml, mf := m.Keys()
	return nl == ml || nf == mf
}

// Keys returns what a name looks like, for telling names apart by eye:
// the name's full- and half-width forms folded to the usual ones, then
// its confusable skeleton (Unicode's UTS #39: each character mapped to the
// one it is mistaken for, "о" of Cyrillic to "o", "rn" to "m") as it is
// (looks), and of the name with its case folded first (folded). Names
// that share either key are one name on a lane ([Name.Same]), so that
// nobody sits beside a player under a name that only looks like theirs,
// nor comes back as a removed player under one. Two keys, not one
// skeleton with its case folded after: that would make "Ia" and "La" one
// (the skeleton of I is l), and folding first alone would miss Cyrillic
// capitals ("АВС" is "ABC" only before folding).
func (n Name) Keys() (looks, folded string) {
	w := width.Fold.String(string(n))
	return confusables.Skeleton(w), confusables.Skeleton(cases.Fold().String(w))
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Width returns how many columns the name takes in a monospace font: a
// Latin letter one, a Hangul syllable or a kanji two.
func (n Name) Width() int {
	if isASCII(string(n)) {
		return len(n)
	}
	return uniseg.StringWidth(string(n))
}
