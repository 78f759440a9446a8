package tokenize

import (
	"reflect"
	"testing"
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
