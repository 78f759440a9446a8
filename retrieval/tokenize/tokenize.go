package tokenize

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
)

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
				if classify(r) != classCJK {
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
				if c == classApos {
					// An apostrophe joins two word runes: don't, o'clock, rock'n'roll.
					if i+n >= len(s) {
						break
					}
					if r2, _ := next(s, i+n); classify(r2) != classWord {
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
