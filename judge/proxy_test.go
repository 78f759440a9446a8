package judge

import (
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestTokenF1(t *testing.T) {
	tests := []struct {
		desc      string
		pred, ref string
		want      float64
	}{
		{"identical up to case", "The cat sat", "the cat sat", 1},
		// 6 tokens each; common = the×2 + cat + on + mat = 5; P = R = 5/6.
		{"one word differs", "the cat sat on the mat", "the cat is on the mat", 5.0 / 6},
		// common = min(3,1) = 1; P = 1/3, R = 1/2; F1 = 2·(1/6)/(5/6) = 0.4.
		{"multiset overlap", "the the the", "the cat", 0.4},
		{"order ignored", "mat the on sat cat the", "the cat sat on the mat", 1},
		{"disjoint", "berlin", "paris", 0},
		{"both empty", "", "", 1},
		{"punctuation only counts as empty", "...", "", 1},
		{"empty prediction", "", "paris", 0},
		{"empty reference", "paris", "", 0},
		// [我喜 喜欢 欢北 北京] vs [我喜 喜欢 欢上 上海]: common 2; P = R = 1/2.
		{"chinese bigrams", "我喜欢北京", "我喜欢上海", 0.5},
		// [我在 google 工作] vs [在 google 工作]: common 2; P = R = 2/3.
		{"mixed scripts", "我在Google工作", "在google工作", 2.0 / 3},
	}
	for _, tc := range tests {
		if got := TokenF1(tc.pred, tc.ref); !near(got, tc.want) {
			t.Errorf("%s: TokenF1(%q, %q) = %v, want %v", tc.desc, tc.pred, tc.ref, got, tc.want)
		}
	}
}

func TestRougeL(t *testing.T) {
	tests := []struct {
		desc      string
		pred, ref string
		want      float64
	}{
		{"identical", "Ran the Berlin marathon", "ran the berlin marathon", 1},
		// LCS(a b c d, a c b d) = 3; P = R = 3/4 (token F1 would be 1).
		{"one swap", "a b c d", "a c b d", 0.75},
		// LCS = "the gunman" = 2; P = R = 2/4.
		{"reordered sentence", "police killed the gunman", "the gunman killed police", 0.5},
		// LCS = 2; P = 2/2, R = 2/5; F = 2·0.4/1.4 = 4/7.
		{"short prediction", "the cat", "the big black cat sat", 4.0 / 7},
		{"disjoint", "yes", "no", 0},
		{"both empty", "", "", 1},
		{"one empty", "", "something", 0},
		// [我喜 喜欢 欢北 北京] vs [北京 京我 我喜 喜欢]: LCS = 我喜 喜欢 = 2; P = R = 1/2.
		{"chinese reordered", "我喜欢北京", "北京我喜欢", 0.5},
	}
	for _, tc := range tests {
		if got := RougeL(tc.pred, tc.ref); !near(got, tc.want) {
			t.Errorf("%s: RougeL(%q, %q) = %v, want %v", tc.desc, tc.pred, tc.ref, got, tc.want)
		}
	}
}

func TestLCS(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"a b c b d a b", "b d c a b a", 4}, // CLRS example: BCBA
		{"", "a b", 0},
		{"x y z", "x y z", 3},
		{"a a a", "a", 1},
	}
	for _, tc := range tests {
		if got := lcs(strings.Fields(tc.a), strings.Fields(tc.b)); got != tc.want {
			t.Errorf("lcs(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestEvidenceCoverage(t *testing.T) {
	retrieved := "Ran my first marathon in Berlin today. Exhausted!"
	tests := []struct {
		desc       string
		statements []string
		retrieved  string
		want       float64 // NaN for "not scorable"
	}{
		// S1 content {anna ran berlin marathon 2019}: ran, berlin, marathon
		// found, 3/5 >= 0.5, covered. S2 {hates running rain}: 0/3. "" and an
		// all-stopword statement are left out: 1 covered of 2 judged.
		{"mixed", []string{"Anna ran the Berlin marathon in 2019", "She hates running in the rain", "", "It is what it is"},
			retrieved, 0.5},
		// {berlin zoo}: 1/2 is "mostly" (>= 0.5).
		{"exactly half counts", []string{"Berlin zoo"}, retrieved, 1},
		// {anna berlin zoo trip}: 1/4 < 0.5.
		{"a quarter does not", []string{"Anna's Berlin zoo trip"}, retrieved, 0},
		{"nothing retrieved", []string{"Anna ran in Berlin"}, "", 0},
		{"no statements", nil, retrieved, math.NaN()},
		{"only unjudgeable statements", []string{"", "  ", "it was the"}, retrieved, math.NaN()},
		// {我喜 喜欢 欢北 北京} vs retrieved bigrams {北京 京很 很好 我也 也喜 喜欢}:
		// 喜欢 and 北京 found, 2/4, covered. {上海 海很 很热}: 0/3. 1 of 2.
		{"chinese", []string{"我喜欢北京", "上海很热"}, "北京很好，我也喜欢", 0.5},
	}
	for _, tc := range tests {
		got := EvidenceCoverage(tc.statements, tc.retrieved)
		if math.IsNaN(tc.want) != math.IsNaN(got) || (!math.IsNaN(tc.want) && !near(got, tc.want)) {
			t.Errorf("%s: EvidenceCoverage = %v, want %v", tc.desc, got, tc.want)
		}
	}
}

func TestChoiceCorrect(t *testing.T) {
	tests := []struct {
		pred, correct string
		want          bool
	}{
		{"C", "C", true},
		{"c", " C ", true},
		{"A", "B", false},
		{"", "A", false},
		{"A", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		if got := ChoiceCorrect(tc.pred, tc.correct); got != tc.want {
			t.Errorf("ChoiceCorrect(%q, %q) = %v, want %v", tc.pred, tc.correct, got, tc.want)
		}
	}
}

func TestMetricNames(t *testing.T) {
	for _, name := range []string{MetricTokenF1, MetricRougeL, MetricEvidenceCoverage} {
		if !strings.Contains(name, "(proxy") {
			t.Errorf("%q does not say it is a proxy", name)
		}
	}
	llmNames := []string{"QA consistency", "Memory recall", "Memory helpfulness", "KnowMe-Bench score"}
	for _, name := range []string{MetricTokenF1, MetricRougeL, MetricEvidenceCoverage, MetricChoiceAccuracy} {
		for _, llm := range llmNames {
			if strings.EqualFold(name, llm) {
				t.Errorf("proxy metric named like the LLM metric %q", llm)
			}
		}
	}
}
