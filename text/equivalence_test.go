package text

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// tokensReference is the first, rune-slice implementation of Tokens, kept
// to check that the byte-scanning one returns exactly the same tokens. It
// deletes default-ignorable code points first (U+200B becomes a space),
// which the byte scanner does on the fly.
func tokensReference(s string) []string {
	var rs []rune
	for _, r := range s {
		switch {
		case r == 0x200B:
			rs = append(rs, ' ')
		case !IsDefaultIgnorable(r):
			rs = append(rs, fold(r))
		}
	}
	var out []string
	for i := 0; i < len(rs); {
		switch classifyReference(rs[i]) {
		case classCJK:
			j := i
			for j < len(rs) && classifyReference(rs[j]) == classCJK {
				j++
			}
			out = appendBigrams(out, rs[i:j])
			i = j
		case classWord:
			var b strings.Builder
			j := i
			for j < len(rs) {
				c := classifyReference(rs[j])
				if c == classWord {
					b.WriteRune(unicode.ToLower(rs[j]))
					j++
					continue
				}
				// An apostrophe joins two word runes: don't, o'clock, rock'n'roll.
				if c == classApos && j+1 < len(rs) && classifyReference(rs[j+1]) == classWord {
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
func classifyReference(r rune) class {
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

func TestTokensMatchesReference(t *testing.T) {
	alphabet := []rune("aZ9 '\u2019-.,!?\n\t\u00e9\u00c9\u00df\u0301\u6211\u559c\u6b22\u3042\u30a2\u30fc\ud55c\uff21\uff07\u3000\u0416\u0436\ufffd\u00ad\u200b\u200c\u200d\u2060\ufe0f\ufeff\u3164\U000e0100\U000e0067\U0001f600")
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for l := rng.IntN(24); l > 0; l-- {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		if rng.IntN(10) == 0 {
			b.WriteByte(0xff) // invalid UTF-8
		}
		s := b.String()
		if got, want := Tokens(s), tokensReference(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("Tokens(%q) = %q, reference gives %q", s, got, want)
		}
	}
}
