package text

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestPorterStemMatchesNLTK: PorterStem gives NLTK's stem for every word
// of testdata/porter_nltk.tsv, which NLTK 3.8's PorterStemmer() (default
// mode, NLTK_EXTENSIONS) wrote (the command is in
// testdata/porter_words.py): the distinct tokens of the LoCoMo
// conversations as LoCoMo's evaluation normalizes them, words of an
// English word list with every suffix the rules name, and hand-picked
// cases.
func TestPorterStemMatchesNLTK(t *testing.T) {
	f, err := os.Open("testdata/porter_nltk.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, bad := 0, 0
	for line := 1; sc.Scan(); line++ {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		word, want, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("porter_nltk.tsv:%d: no tab in %q", line, sc.Text())
		}
		n++
		if got := PorterStem(word); got != want {
			bad++
			if bad <= 20 {
				t.Errorf("porter_nltk.tsv:%d: PorterStem(%q) = %q, NLTK %q", line, word, got, want)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 15000 {
		t.Fatalf("only %d pairs read", n)
	}
	if bad > 0 {
		t.Errorf("%d of %d pairs differ", bad, n)
	}
	t.Logf("%d pairs, %d differ", n, bad)
}

// TestPorterStemCases: the paper's examples and NLTK's changes, as data.
func TestPorterStemCases(t *testing.T) {
	for _, c := range []struct{ word, want string }{
		{"caresses", "caress"}, {"ponies", "poni"}, {"cats", "cat"}, {"feed", "feed"}, {"agreed", "agre"},
		{"plastered", "plaster"}, {"motoring", "motor"}, {"sing", "sing"}, {"hopping", "hop"}, {"falling", "fall"},
		{"filing", "file"}, {"happy", "happi"}, {"relational", "relat"}, {"generalization", "gener"},
		// NLTK_EXTENSIONS
		{"dies", "die"}, {"flies", "fli"}, {"died", "die"}, {"spied", "spi"}, {"enjoy", "enjoy"}, {"spy", "spi"},
		{"skies", "sky"}, {"dying", "die"}, {"news", "news"}, {"innings", "inning"}, {"generalli", "gener"},
		{"geology", "geolog"}, {"as", "as"}, {"", ""},
		// the irregular table is looked up with the word as given
		{"Skies", "ski"}, {"SKY", "ski"}, {"sky", "sky"},
		{"İstanbul", "i̇stanbul"},
	} {
		if got := PorterStem(c.word); got != c.want {
			t.Errorf("PorterStem(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}

func TestPyLower(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ABC def", "abc def"}, {"İ", "i\u0307"}, {"ΟΔΟΣ", "οδος"}, {"ΣΑ", "σα"}, {"Σ", "σ"}, {"AΣ.", "aς."}, {"A'Σ", "a'ς"},
	} {
		if got := PyLower(c.in); got != c.want {
			t.Errorf("PyLower(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
