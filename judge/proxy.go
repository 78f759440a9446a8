package judge

import (
	"math"
	"strings"

	"github.com/memlab/memlab/text"
)

// Metric names of the offline proxies, to be used wherever their values are
// shown.
const (
	MetricTokenF1          = "Token F1 (proxy)"
	MetricRougeL           = "ROUGE-L (proxy)"
	MetricEvidenceCoverage = "Evidence coverage (proxy for memory recall)"
	MetricChoiceAccuracy   = "Choice accuracy"
)

// TokenF1 is the SQuAD-style token F1 of pred against ref over
// text.Tokens, with multiset overlap:
//
//	common = Σ_t min(count_pred(t), count_ref(t))
//	P = common / |pred|, R = common / |ref|, F1 = 2·P·R / (P + R)
//
// It is 1 when both have no token, 0 when only one has none or common = 0.
func TokenF1(pred, ref string) float64 {
	p, r := text.Tokens(pred), text.Tokens(ref)
	if len(p) == 0 || len(r) == 0 {
		if len(p) == len(r) {
			return 1
		}
		return 0
	}
	counts := map[string]int{}
	for _, t := range r {
		counts[t]++
	}
	common := 0
	for _, t := range p {
		if counts[t] > 0 {
			counts[t]--
			common++
		}
	}
	return f1(common, len(p), len(r))
}

func f1(common, np, nr int) float64 {
	if common == 0 {
		return 0
	}
	prec := float64(common) / float64(np)
	rec := float64(common) / float64(nr)
	return 2 * prec * rec / (prec + rec)
}

// RougeL is the ROUGE-L F-measure (beta = 1) of pred against ref over
// text.Tokens:
//
//	P = LCS / |pred|, R = LCS / |ref|, F = 2·P·R / (P + R)
//
// with LCS the length of the longest common token subsequence. It is 1 when
// both have no token and 0 when only one has none or LCS = 0.
func RougeL(pred, ref string) float64 {
	p, r := text.Tokens(pred), text.Tokens(ref)
	if len(p) == 0 || len(r) == 0 {
		if len(p) == len(r) {
			return 1
		}
		return 0
	}
	return f1(lcs(p, r), len(p), len(r))
}

// lcs is the length of the longest common subsequence, in O(|a|·|b|) time
// and O(|b|) memory.
func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// EvidenceCoverage is the offline proxy for CloneMem's memory recall: the
// share of statements whose distinct content tokens
// (text.ContentTokens) are at least half present in the retrieved text:
//
//	covered(s) = |C(s) ∩ C(retrieved)| / |C(s)| >= 0.5
//	coverage   = #covered / #statements with C(s) non-empty
//
// Statements without content tokens (empty, or only stopwords) cannot be
// judged and are left out. It is NaN when no statement is left, so a
// question without gold statements is never scored 0 or 1 by accident.
func EvidenceCoverage(statements []string, retrieved string) float64 {
	have := map[string]bool{}
	for _, t := range text.ContentTokens(retrieved) {
		have[t] = true
	}
	judged, covered := 0, 0
	for _, s := range statements {
		set := map[string]bool{}
		for _, t := range text.ContentTokens(s) {
			set[t] = true
		}
		if len(set) == 0 {
			continue
		}
		judged++
		found := 0
		for t := range set {
			if have[t] {
				found++
			}
		}
		if 2*found >= len(set) {
			covered++
		}
	}
	if judged == 0 {
		return math.NaN()
	}
	return float64(covered) / float64(judged)
}

// ChoiceCorrect reports whether the predicted option id equals the correct
// one (case and surrounding spaces ignored). An empty prediction (a parse
// failure or an abstention without option) or an empty correct id is never
// correct.
func ChoiceCorrect(pred, correct string) bool {
	pred, correct = strings.TrimSpace(pred), strings.TrimSpace(correct)
	return pred != "" && correct != "" && strings.EqualFold(pred, correct)
}
