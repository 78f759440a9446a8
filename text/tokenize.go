package text

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

type class int

const (
	classOther class = iota
	classWord
	classCJK
	classApos
	classIgnore // default-ignorable: as if absent
)

// zeroWidthSpace is the one default-ignorable code point that separates
// words (Unicode's word segmentation, UAX #29, treats it as a break, and
// every other one as transparent).
const zeroWidthSpace = 0x200B

// defaultIgnorable is Unicode's Default_Ignorable_Code_Point property,
// derived as DerivedCoreProperties.txt defines it from the tables Go has:
//
//	Other_Default_Ignorable_Code_Point + Cf + Variation_Selector
//	- White_Space - U+FFF9..U+FFFB (interlinear annotation)
//	- U+13430..U+13440 (Egyptian hieroglyph format controls)
//	- Prepended_Concatenation_Mark
//
// 4,174 code points in Unicode 15.0: soft hyphen, zero-width and bidi
// controls, variation selectors (U+FE0F of emoji, U+E0100.. of
// ideographs), tag characters, Hangul fillers, the byte-order mark.
var defaultIgnorable = buildDefaultIgnorable()

// ignorableBMP is defaultIgnorable below U+10000 as a bitmap (8 KB), so
// that the common case costs one bit test instead of a table search.
var ignorableBMP = func() (bm [0x10000 / 64]uint64) {
	for _, r := range defaultIgnorable.R16 {
		for c := r.Lo; c <= r.Hi; c++ {
			bm[c/64] |= 1 << (c % 64)
			if c == r.Hi {
				break
			}
		}
	}
	return bm
}()

func buildDefaultIgnorable() *unicode.RangeTable {
	in := map[rune]bool{}
	for _, t := range []*unicode.RangeTable{unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector} {
		for _, r := range t.R16 {
			for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
				in[c] = true
			}
		}
		for _, r := range t.R32 {
			for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
				in[c] = true
			}
		}
	}
	var rs []rune
	for c := range in {
		if unicode.Is(unicode.White_Space, c) || (c >= 0xFFF9 && c <= 0xFFFB) || (c >= 0x13430 && c <= 0x13440) ||
			unicode.Is(unicode.Prepended_Concatenation_Mark, c) {
			continue
		}
		rs = append(rs, c)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
	t := &unicode.RangeTable{}
	for _, c := range rs {
		if c <= 0xFFFF {
			if n := len(t.R16); n > 0 && rune(t.R16[n-1].Hi)+1 == c {
				t.R16[n-1].Hi = uint16(c)
			} else {
				t.R16 = append(t.R16, unicode.Range16{Lo: uint16(c), Hi: uint16(c), Stride: 1})
			}
			if c <= unicode.MaxLatin1 {
				t.LatinOffset = len(t.R16)
			}
			continue
		}
		if n := len(t.R32); n > 0 && rune(t.R32[n-1].Hi)+1 == c {
			t.R32[n-1].Hi = uint32(c)
		} else {
			t.R32 = append(t.R32, unicode.Range32{Lo: uint32(c), Hi: uint32(c), Stride: 1})
		}
	}
	return t
}

// IsDefaultIgnorable reports whether r has Unicode's
// Default_Ignorable_Code_Point property (see the package doc): Tokens
// treats such a code point as absent, except U+200B ZERO WIDTH SPACE,
// which separates words.
func IsDefaultIgnorable(r rune) bool {
	switch {
	case r < 0:
		return false
	case r <= 0xFFFF:
		return ignorableBMP[r/64]&(1<<(r%64)) != 0
	}
	return unicode.Is(defaultIgnorable, r)
}

// fold maps a fullwidth ASCII form (U+FF01..U+FF5E) to its ASCII rune and
// the ideographic space to a space; other runes are returned unchanged.
func fold(r rune) rune {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		return r - 0xFEE0
	case r == 0x3000:
		return ' '
	}
	return r
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r == 0x30FC // Katakana-Hiragana prolonged sound mark (script Common)
}

func classify(r rune) class {
	if r < 0x80 { // ASCII fast path: most text, and no range-table lookups
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
			return classWord
		case r == '\'':
			return classApos
		}
		return classOther
	}
	switch {
	case r == zeroWidthSpace:
		return classOther
	case IsDefaultIgnorable(r):
		return classIgnore
	case isCJK(r):
		return classCJK
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
		return classWord
	case r == '\'' || r == '\u2019':
		return classApos
	}
	return classOther
}

// Tokens returns the lowercased word tokens of s, with CJK runs as
// overlapping character bigrams (see the package doc). It returns nil for a
// string without any word.
func Tokens(s string) []string {
	var out []string
	var run []rune // a CJK run
	var buf []byte // a word that differs from its source bytes
	for i := 0; i < len(s); {
		r, n := next(s, i)
		switch classify(r) {
		case classCJK:
			run = run[:0]
			for i < len(s) {
				r, n = next(s, i)
				c := classify(r)
				if c == classIgnore {
					i += n
					continue
				}
				if c != classCJK {
					break
				}
				run = append(run, r)
				i += n
			}
			out = appendBigrams(out, run)
		case classWord:
			// plain stays true while the word's bytes are already its token
			// (lowercase ASCII, digits, ASCII apostrophes): then the token is
			// a substring of s and costs no allocation.
			start, plain := i, true
			buf = buf[:0]
			for i < len(s) {
				r, n = next(s, i)
				c := classify(r)
				if c == classIgnore {
					plain = false
					i += n
					continue
				}
				if c == classApos {
					// An apostrophe joins two word runes: don't, o'clock,
					// rock'n'roll (default-ignorables between them do not
					// count).
					if classify(nextVisible(s, i+n)) != classWord {
						break
					}
					plain = plain && n == 1 && s[i] == '\''
					buf = append(buf, '\'')
					i += n
					continue
				}
				if c != classWord {
					break
				}
				lr := lower(r)
				plain = plain && n == 1 && lr == rune(s[i])
				buf = utf8.AppendRune(buf, lr)
				i += n
			}
			if plain {
				out = append(out, s[start:i])
			} else {
				out = append(out, string(buf))
			}
		default:
			i += n
		}
	}
	return out
}

// nextVisible returns the first rune at or after byte offset i of s that is
// not default-ignorable (folded, see fold), or -1 at the end of s.
func nextVisible(s string, i int) rune {
	for i < len(s) {
		r, n := next(s, i)
		if classify(r) != classIgnore {
			return r
		}
		i += n
	}
	return -1
}

// next decodes the rune at byte offset i of s, folded (see fold), and its
// size in bytes. Invalid UTF-8 gives utf8.RuneError of size 1.
func next(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return fold(r), n
}

func lower(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(r)
}

func appendBigrams(out []string, run []rune) []string {
	if len(run) == 1 {
		return append(out, string(run))
	}
	for i := 0; i+1 < len(run); i++ {
		out = append(out, string(run[i:i+2]))
	}
	return out
}

// stopwords is a small English list: articles, pronouns, auxiliaries,
// prepositions, conjunctions and a few frequent adverbs, including the
// common contractions in the apostrophe form that Tokens produces.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
a an the and or but nor so if then than that this these those there here
i me my mine myself we us our ours ourselves you your yours yourself yourselves
he him his himself she her hers herself it its itself they them their theirs themselves
what which who whom whose when where why how
am is are was were be been being have has had having do does did doing done
will would shall should can could may might must
of at by for with about against between into through during before after above below
to from up down in out on off over under again further once
all any both each few more most other some such no not only own same too very just
as until while also s t
i'm i've i'll i'd you're you've you'll you'd he's she's it's we're we've we'll we'd
they're they've they'll they'd that's there's what's who's let's
isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't
won't wouldn't shan't shouldn't can't cannot couldn't mustn't
`) {
		stopwords[w] = true
	}
}

// Stopwords returns the English stopword list that ContentTokens removes,
// sorted. The list is a copy; changing it has no effect.
func Stopwords() []string {
	out := make([]string, 0, len(stopwords))
	for w := range stopwords {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// IsStopword reports whether the token (as produced by Tokens) is on the
// stopword list.
func IsStopword(tok string) bool { return stopwords[tok] }

// ContentTokens returns Tokens(s) without stopwords, with a trailing
// possessive 's removed from the others ("anna's" → "anna"). Order and
// repeats are kept.
func ContentTokens(s string) []string {
	toks := Tokens(s)
	out := toks[:0]
	for _, t := range toks {
		if stopwords[t] {
			continue
		}
		if strings.HasSuffix(t, "'s") && len(t) > 2 {
			t = t[:len(t)-2]
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
