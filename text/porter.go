package text

import (
	"strings"
	"unicode"
)

// PorterStem returns the stem of word by the Porter stemming algorithm
// (Porter, "An algorithm for suffix stripping", Program 14.3, 1980) as
// NLTK's PorterStemmer computes it in its default mode, NLTK_EXTENSIONS:
// the paper's five steps with Martin Porter's later changes and NLTK's
// own:
//
//   - a table of irregular forms, looked up with the word as given
//     ("skies" → sky, "dying" → die, "news" → news, "innings" → inning);
//   - words of one or two characters are only lowercased;
//   - step 1a: "ies" → "ie" in a four-letter word ("dies" → die, "flies" →
//     fli);
//   - step 1b: "ied" → "ie" in a four-letter word, else "i" ("died" → die,
//     "spied" → spi);
//   - step 1c: y → i only after a consonant that is not the first letter
//     ("happy" → happi, "enjoy" → enjoy, "sky" is irregular, "spy" → spi);
//   - step 2: "alli" → "al" first and step 2 again; "bli" → "ble" (not
//     "abli"); "fulli" → "ful"; "logi" → "log" when the stem with its "l"
//     has a positive measure;
//   - the *o condition also holds for a two-letter vowel-consonant stem.
//
// The word is lowercased as Python's str.lower does (PyLower), and letters
// are counted in code points: a letter outside a-z is a consonant. A rule
// whose suffix matches but whose condition fails ends its step, as in
// NLTK. TestPorterStemMatchesNLTK checks PorterStem against NLTK 3.8 on the
// word list in testdata.
func PorterStem(word string) string {
	lower := PyLower(word)
	if s, ok := porterIrregular[word]; ok {
		return s
	}
	if len([]rune(word)) <= 2 {
		return lower
	}
	w := []rune(lower)
	w = step1a(w)
	w = step1b(w)
	w = step1c(w)
	w = step2(w)
	w = step3(w)
	w = step4(w)
	w = step5a(w)
	w = step5b(w)
	return string(w)
}

// porterIrregular is NLTK's table of irregular forms (NLTK_EXTENSIONS),
// form → stem.
var porterIrregular = map[string]string{
	"sky": "sky", "skies": "sky",
	"dying": "die", "lying": "lie", "tying": "tie",
	"news":    "news",
	"innings": "inning", "inning": "inning",
	"outings": "outing", "outing": "outing",
	"cannings": "canning", "canning": "canning",
	"howe": "howe", "proceed": "proceed", "exceed": "exceed", "succeed": "succeed",
}

// PyLower lowercases s as Python 3's str.lower does: each code point by
// its Unicode lowercase mapping, with the two differences from Go's
// strings.ToLower that Python's full case mapping makes: U+0130 (İ)
// becomes "i̇" (i and U+0307), and a capital sigma at the end of a word
// (after a cased letter, not before one, case-ignorable code points
// skipped) becomes the final form ς. (The Unicode versions may differ:
// Python 3.11 has Unicode 14, Go 1.26 Unicode 15.)
func PyLower(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == 0x130:
			b.WriteString("i\u0307")
		case r == 0x3A3 && finalSigma(rs, i):
			b.WriteRune(0x3C2)
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// finalSigma is Unicode's Final_Sigma condition at rs[i]: a cased letter
// before it and none after it, case-ignorable code points skipped.
func finalSigma(rs []rune, i int) bool {
	before := false
	for j := i - 1; j >= 0; j-- {
		if caseIgnorable(rs[j]) {
			continue
		}
		before = cased(rs[j])
		break
	}
	if !before {
		return false
	}
	for j := i + 1; j < len(rs); j++ {
		if caseIgnorable(rs[j]) {
			continue
		}
		return !cased(rs[j])
	}
	return true
}

func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '^', '`', 0xB7, 0x2018, 0x2019, 0x2024, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// consonant reports whether w[i] is a consonant: not a, e, i, o, u, and
// not a y after a consonant.
func consonant(w []rune, i int) bool {
	switch w[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !consonant(w, i-1)
	}
	return true
}

// measure is m of [C](VC){m}[V]: the number of vowel-consonant
// transitions.
func measure(w []rune) int {
	m := 0
	for i := 1; i < len(w); i++ {
		if !consonant(w, i-1) && consonant(w, i) {
			m++
		}
	}
	return m
}

func containsVowel(w []rune) bool {
	for i := range w {
		if !consonant(w, i) {
			return true
		}
	}
	return false
}

// endsDouble is *d: the word ends with a double consonant.
func endsDouble(w []rune) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && consonant(w, n-1)
}

// endsCVC is *o: consonant-vowel-consonant with the last not w, x or y;
// NLTK also counts a two-letter vowel-consonant word.
func endsCVC(w []rune) bool {
	n := len(w)
	if n >= 3 && consonant(w, n-3) && !consonant(w, n-2) && consonant(w, n-1) {
		switch w[n-1] {
		case 'w', 'x', 'y':
		default:
			return true
		}
	}
	return n == 2 && !consonant(w, 0) && consonant(w, 1)
}

func hasSuffix(w []rune, suffix string) bool {
	s := []rune(suffix)
	if len(s) > len(w) {
		return false
	}
	for i := range s {
		if w[len(w)-len(s)+i] != s[i] {
			return false
		}
	}
	return true
}

// cut returns w without its last n runes, as a new slice.
func cut(w []rune, n int) []rune {
	return append([]rune(nil), w[:len(w)-n]...)
}

func plus(stem []rune, s string) []rune { return append(stem, []rune(s)...) }

// rule is one suffix rule: suffix → repl when cond holds for the stem
// (nil: always).
type rule struct {
	suffix, repl string
	cond         func(stem []rune) bool
}

// applyRules applies the first rule whose suffix w has: its replacement
// when the condition holds, else w unchanged (no later rule is tried).
func applyRules(w []rune, rules []rule) []rune {
	for _, r := range rules {
		if !hasSuffix(w, r.suffix) {
			continue
		}
		stem := cut(w, len([]rune(r.suffix)))
		if r.cond == nil || r.cond(stem) {
			return plus(stem, r.repl)
		}
		return w
	}
	return w
}

func positive(stem []rune) bool { return measure(stem) > 0 }
func above1(stem []rune) bool   { return measure(stem) > 1 }

func step1a(w []rune) []rune {
	if hasSuffix(w, "ies") && len(w) == 4 {
		return plus(cut(w, 3), "ie")
	}
	return applyRules(w, []rule{{"sses", "ss", nil}, {"ies", "i", nil}, {"ss", "ss", nil}, {"s", "", nil}})
}

func step1b(w []rune) []rune {
	if hasSuffix(w, "ied") {
		if len(w) == 4 {
			return plus(cut(w, 3), "ie")
		}
		return plus(cut(w, 3), "i")
	}
	if hasSuffix(w, "eed") {
		if stem := cut(w, 3); measure(stem) > 0 {
			return plus(stem, "ee")
		}
		return w
	}
	var stem []rune
	ok := false
	for _, s := range []string{"ed", "ing"} {
		if hasSuffix(w, s) {
			if stem = cut(w, len(s)); containsVowel(stem) {
				ok = true
				break
			}
		}
	}
	if !ok {
		return w
	}
	switch {
	case hasSuffix(stem, "at"):
		return plus(stem, "e")
	case hasSuffix(stem, "bl"):
		return plus(stem, "e")
	case hasSuffix(stem, "iz"):
		return plus(stem, "e")
	case endsDouble(stem):
		last := stem[len(stem)-1]
		if last != 'l' && last != 's' && last != 'z' {
			return cut(stem, 1)
		}
		return stem
	case measure(stem) == 1 && endsCVC(stem):
		return plus(stem, "e")
	}
	return stem
}

func step1c(w []rune) []rune {
	if hasSuffix(w, "y") {
		stem := cut(w, 1)
		if len(stem) > 1 && consonant(stem, len(stem)-1) {
			return plus(stem, "i")
		}
	}
	return w
}

// step2Rules are step 2's rules in NLTK's order (its "logi" rule is in
// step2, as its condition needs the word).
var step2Rules = []rule{
	{"ational", "ate", positive}, {"tional", "tion", positive}, {"enci", "ence", positive},
	{"anci", "ance", positive}, {"izer", "ize", positive}, {"bli", "ble", positive},
	{"alli", "al", positive}, {"entli", "ent", positive}, {"eli", "e", positive},
	{"ousli", "ous", positive}, {"ization", "ize", positive}, {"ation", "ate", positive},
	{"ator", "ate", positive}, {"alism", "al", positive}, {"iveness", "ive", positive},
	{"fulness", "ful", positive}, {"ousness", "ous", positive}, {"aliti", "al", positive},
	{"iviti", "ive", positive}, {"biliti", "ble", positive}, {"fulli", "ful", positive},
}

func step2(w []rune) []rune {
	if hasSuffix(w, "alli") && positive(cut(w, 4)) {
		return step2(plus(cut(w, 4), "al"))
	}
	for _, r := range step2Rules {
		if hasSuffix(w, r.suffix) {
			return applyRules(w, []rule{r})
		}
	}
	if hasSuffix(w, "logi") {
		// The "l" stays with the stem for the condition.
		if positive(cut(w, 3)) {
			return plus(cut(w, 4), "log")
		}
	}
	return w
}

var step3Rules = []rule{
	{"icate", "ic", positive}, {"ative", "", positive}, {"alize", "al", positive},
	{"iciti", "ic", positive}, {"ical", "ic", positive}, {"ful", "", positive}, {"ness", "", positive},
}

func step3(w []rune) []rune { return applyRules(w, step3Rules) }

var step4Rules = []rule{
	{"al", "", above1}, {"ance", "", above1}, {"ence", "", above1}, {"er", "", above1},
	{"ic", "", above1}, {"able", "", above1}, {"ible", "", above1}, {"ant", "", above1},
	{"ement", "", above1}, {"ment", "", above1}, {"ent", "", above1},
	{"ion", "", func(stem []rune) bool {
		return measure(stem) > 1 && (stem[len(stem)-1] == 's' || stem[len(stem)-1] == 't')
	}},
	{"ou", "", above1}, {"ism", "", above1}, {"ate", "", above1}, {"iti", "", above1},
	{"ous", "", above1}, {"ive", "", above1}, {"ize", "", above1},
}

func step4(w []rune) []rune { return applyRules(w, step4Rules) }

func step5a(w []rune) []rune {
	if hasSuffix(w, "e") {
		stem := cut(w, 1)
		if m := measure(stem); m > 1 || (m == 1 && !endsCVC(stem)) {
			return stem
		}
	}
	return w
}

func step5b(w []rune) []rune {
	if hasSuffix(w, "ll") && measure(cut(w, 1)) > 1 {
		return cut(w, 1)
	}
	return w
}
