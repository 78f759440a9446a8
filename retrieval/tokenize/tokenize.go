package tokenize

import (
	"sort"
	"strings"
	"unicode"
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
	rs := []rune(s)
	for i, r := range rs {
		rs[i] = fold(r)
	}
	var out []string
	for i := 0; i < len(rs); {
		switch classify(rs[i]) {
		case classCJK:
			j := i
			for j < len(rs) && classify(rs[j]) == classCJK {
				j++
			}
			out = appendBigrams(out, rs[i:j])
			i = j
		case classWord:
			var b strings.Builder
			j := i
			for j < len(rs) {
				c := classify(rs[j])
				if c == classWord {
					b.WriteRune(unicode.ToLower(rs[j]))
					j++
					continue
				}
				// An apostrophe joins two word runes: don't, o'clock, rock'n'roll.
				if c == classApos && j+1 < len(rs) && classify(rs[j+1]) == classWord {
					b.WriteByte('\'')
					j++
					continue
				}
				break
			}
			out = append(out, b.String())
			i = j
		default:
			i++
		}
	}
	return out
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
