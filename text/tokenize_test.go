package text

import (
	"reflect"
	"testing"
	"unicode"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		desc string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"only punctuation and spaces", " .,!? -- … \t\n", nil},
		{"english lowercased", "Hello, World! It's 2024.", []string{"hello", "world", "it's", "2024"}},
		{"curly apostrophe normalised", "Don’t stop", []string{"don't", "stop"}},
		{"quotes are not apostrophes", "'quoted' and students' books", []string{"quoted", "and", "students", "books"}},
		{"inner apostrophes chain", "rock'n'roll o'clock", []string{"rock'n'roll", "o'clock"}},
		{"decimal and hyphen split", "3.5 km, well-known", []string{"3", "5", "km", "well", "known"}},
		{"chinese bigrams", "我喜欢北京", []string{"我喜", "喜欢", "欢北", "北京"}},
		{"chinese punctuation splits runs", "我喜欢，北京。", []string{"我喜", "喜欢", "北京"}},
		{"lone cjk char is a unigram", "我 爱 你", []string{"我", "爱", "你"}},
		{"mixed scripts", "我在Google工作3年", []string{"我在", "google", "工作", "3", "年"}},
		{"fullwidth forms folded", "ＡＢＣ１２３！", []string{"abc123"}},
		{"japanese kana and prolonged mark", "コーヒーを", []string{"コー", "ーヒ", "ヒー", "ーを"}},
		{"hangul", "서울 사람", []string{"서울", "사람"}},
		{"accented latin", "Café NAÏVE", []string{"café", "naïve"}},
		{"emoji and symbols dropped", "great 🎉 #fun @home", []string{"great", "fun", "home"}},
		{"emoji variation selector dropped", "I ❤️ it ☺︎", []string{"i", "it"}},
		{"emoji ZWJ sequence and skin tone dropped", "👩\u200d💻 coder 👍🏽", []string{"coder"}},
		{"flag tag sequence dropped", "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f wales", []string{"wales"}},
		{"soft hyphen inside a word is invisible", "co\u00adoperate", []string{"cooperate"}},
		{"zero width non-joiner inside a word", "می\u200cخواهم", []string{"میخواهم"}},
		{"word joiner and byte-order mark", "\ufeffhello\u2060world", []string{"helloworld"}},
		{"zero width space separates words", "foo\u200bbar", []string{"foo", "bar"}},
		{"ideographic variation selector keeps the run", "葛\U000e0100城", []string{"葛城"}},
		{"bidi marks around an apostrophe", "\u202bdon'\u200ft\u202c", []string{"don't"}},
		{"hangul fillers are not text", "\u3164 \uffa0 \u115f\u1160", nil},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got := Tokens(tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Tokens(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestContentTokens(t *testing.T) {
	tests := []struct {
		desc string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"all stopwords", "It is what it is, and I don't", nil},
		{"stopwords dropped, repeats kept", "The cat and the other cat sat on the mat",
			[]string{"cat", "cat", "sat", "mat"}},
		{"possessive stripped", "Anna's marathon in Berlin", []string{"anna", "marathon", "berlin"}},
		{"contraction stopword in curly form", "I’m running", []string{"running"}},
		{"chinese kept as bigrams", "我喜欢北京", []string{"我喜", "喜欢", "欢北", "北京"}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got := ContentTokens(tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ContentTokens(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestStopwords(t *testing.T) {
	sw := Stopwords()
	for i := 1; i < len(sw); i++ {
		if sw[i-1] >= sw[i] {
			t.Fatalf("Stopwords not sorted/unique at %d: %q, %q", i, sw[i-1], sw[i])
		}
	}
	for _, w := range sw {
		if got := Tokens(w); len(got) != 1 || got[0] != w {
			t.Errorf("stopword %q is not a single token of itself: %q", w, got)
		}
		if !IsStopword(w) {
			t.Errorf("IsStopword(%q) = false", w)
		}
	}
	sw[0] = "marathon"
	if IsStopword("marathon") {
		t.Error("Stopwords returned the internal list, not a copy")
	}
}

// defaultIgnorableUnicode15 is the Default_Ignorable_Code_Point property of
// Unicode 15.0 (DerivedCoreProperties.txt), as merged ranges: 4,174 code
// points. Unicode 14.0 has the same set (checked with Perl 5.36's
// \p{Default_Ignorable_Code_Point}).
var defaultIgnorableUnicode15 = [][2]rune{
	{0x00AD, 0x00AD}, {0x034F, 0x034F}, {0x061C, 0x061C}, {0x115F, 0x1160}, {0x17B4, 0x17B5},
	{0x180B, 0x180F}, {0x200B, 0x200F}, {0x202A, 0x202E}, {0x2060, 0x206F}, {0x3164, 0x3164},
	{0xFE00, 0xFE0F}, {0xFEFF, 0xFEFF}, {0xFFA0, 0xFFA0}, {0xFFF0, 0xFFF8}, {0x1BCA0, 0x1BCA3},
	{0x1D173, 0x1D17A}, {0xE0000, 0xE0FFF},
}

// TestDefaultIgnorableSet checks the set Tokens drops, code point by code
// point over all of Unicode, against the published property.
func TestDefaultIgnorableSet(t *testing.T) {
	if unicode.Version != "15.0.0" {
		t.Skipf("the expected set is Unicode 15.0's; Go's tables are %s", unicode.Version)
	}
	want := map[rune]bool{}
	for _, r := range defaultIgnorableUnicode15 {
		for c := r[0]; c <= r[1]; c++ {
			want[c] = true
		}
	}
	if len(want) != 4174 {
		t.Fatalf("expected set has %d code points, want 4174", len(want))
	}
	n := 0
	for c := rune(0); c <= unicode.MaxRune; c++ {
		got := IsDefaultIgnorable(c)
		if got != want[c] {
			n++
			if n <= 10 {
				t.Errorf("IsDefaultIgnorable(%U) = %v, want %v", c, got, want[c])
			}
		}
	}
	if n > 0 {
		t.Errorf("%d code points differ", n)
	}
}
