package judge

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
)

// readTSV reads a testdata file of tab-separated rows, skipping comments.
func readTSV(t *testing.T, path string, cols int) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		row := strings.Split(sc.Text(), "\t")
		if len(row) < cols {
			t.Fatalf("%s:%d: %d columns, want %d: %q", path, line, len(row), cols, sc.Text())
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// number reads "0.8" or "2/3".
func number(t *testing.T, s string) float64 {
	t.Helper()
	if a, b, ok := strings.Cut(s, "/"); ok {
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.ParseFloat(b, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad number %q", s)
		}
		return x / y
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("bad number %q", s)
	}
	return x
}

// TestLoCoMoF1Cases: the cases of testdata/locomo_f1_cases.tsv, computed
// by hand from the definition.
func TestLoCoMoF1Cases(t *testing.T) {
	rows := readTSV(t, "testdata/locomo_f1_cases.tsv", 5)
	if len(rows) < 30 {
		t.Fatalf("only %d cases", len(rows))
	}
	for _, r := range rows {
		cat, _ := strconv.Atoi(r[0])
		want := number(t, r[3])
		got, err := LoCoMoF1(r[1], r[2], cat)
		if err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("LoCoMoF1(%q, %q, %d) = %v, %v; want %v (%s)", r[1], r[2], cat, got, err, want, r[4])
		}
	}
}

// TestLoCoMoF1MatchesTheOfficialScript: every triple of
// testdata/locomo_f1_official.tsv scores what LoCoMo's own evaluation code
// gave it (the command that ran it is in locomo_f1_official.py).
func TestLoCoMoF1MatchesTheOfficialScript(t *testing.T) {
	rows := readTSV(t, "testdata/locomo_f1_official.tsv", 4)
	if len(rows) != 400 {
		t.Fatalf("%d triples, want 400", len(rows))
	}
	byCat, partial := map[int]int{}, 0
	for i, r := range rows {
		cat, err := strconv.Atoi(r[0])
		if err != nil {
			t.Fatalf("row %d: category %q", i+1, r[0])
		}
		want := number(t, r[3])
		got, err := LoCoMoF1(r[1], r[2], cat)
		if err != nil || math.Abs(got-want) > 1e-9 {
			t.Errorf("row %d: LoCoMoF1(%q, %q, %d) = %v, %v; the official script %v", i+1, r[1], r[2], cat, got, err, want)
		}
		byCat[cat]++
		if want > 0 && want < 1 {
			partial++
		}
	}
	if len(byCat) != 5 || partial < 100 {
		t.Errorf("the triples cover categories %v and %d partial scores: too few to test anything", byCat, partial)
	}
}

func TestLoCoMoF1BadCategory(t *testing.T) {
	for _, c := range []int{0, 6, -1} {
		if v, err := LoCoMoF1("a", "a", c); err == nil || !math.IsNaN(v) || !strings.Contains(err.Error(), strconv.Itoa(c)) {
			t.Errorf("category %d: %v, %v; want NaN and an error naming it", c, v, err)
		}
	}
}

// TestLoCoMoQuestionF1: abstention counts on adversarial questions only, a
// question without reference is NaN, a question of another benchmark an
// error.
func TestLoCoMoQuestionF1(t *testing.T) {
	q := func(cat int, answer string) datasets.Question {
		return datasets.Question{ID: "c/1", Task: datasets.LoCoMoCategories[cat], Answer: answer, Extra: map[string]any{"category": cat}}
	}
	for _, c := range []struct {
		q         datasets.Question
		answer    string
		abstained bool
		want      float64
	}{
		{q(5, ""), "", true, 1},
		{q(5, ""), "She went to Paris", false, 0},
		{q(5, ""), "That is not mentioned.", false, 1},
		{q(4, "a cat"), "", true, 0},
		{q(4, "a cat"), "the cat", false, 1},
		{q(1, "cats, dogs"), "dogs", false, 0.5},
		{q(4, ""), "the cat", false, math.NaN()},
	} {
		got, err := LoCoMoQuestionF1(c.q, c.answer, c.abstained)
		if err != nil || !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("%s %q (abstained %t): %v, %v; want %v", c.q.Task, c.answer, c.abstained, got, err, c.want)
		}
	}
	if _, err := LoCoMoQuestionF1(datasets.Question{ID: "k/1", Task: "Information Extraction", Extra: map[string]any{"category": 1}}, "x", false); err == nil || !strings.Contains(err.Error(), "k/1") {
		t.Errorf("a KnowMe question: %v; want an error naming it", err)
	}
}

func TestLoCoMoNormalize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"The Cat, and a Dog!", "cat dog"}, {"  an\tapple\u00a0pie\x1c", "apple pie"}, {"theme anthem", "theme anthem"},
		{"a_b", "ab"}, {"İ the", "i̇"}, {"über the", "über"}, {"the’s", "’s"},
	} {
		if got := LoCoMoNormalize(c.in); got != c.want {
			t.Errorf("LoCoMoNormalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
