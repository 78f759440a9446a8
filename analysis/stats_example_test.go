package analysis_test

import (
	"fmt"
	"math"
	"sort"

	"github.com/memlab/memlab/analysis"
)

// Per-question scores of two memory systems on the same ten questions
// (e.g. judge scores normalized to [0, 1]); NaN marks a failed judge call.
var (
	systemA = []float64{0.9, 0.7, 1, 0.4, 0.8, math.NaN(), 0.6, 1, 0.9, 0.5}
	systemB = []float64{0.6, 0.7, 0.8, 0.3, 0.5, 0.7, 0.6, 0.9, 0.4, 0.5}
)

// The mean score with a 95% percentile-bootstrap interval; the NaN is left
// out and counted.
func ExampleBootstrapMean() {
	iv := analysis.BootstrapMean(systemA, 0.95, 2000, 1)
	fmt.Printf("mean %.3f, 95%% CI [%.3f, %.3f], n = %d (%d NaN excluded)\n",
		iv.Estimate, iv.Lo, iv.Hi, iv.N, iv.Excluded)
	// Output:
	// mean 0.756, 95% CI [0.611, 0.889], n = 9 (1 NaN excluded)
}

// Any statistic, here the median, with a function written in a cell: it
// is called once per resample, the resampling loop is compiled.
func ExampleBootstrap() {
	median := func(v []float64) float64 {
		sort.Float64s(v) // allowed: the buffer is refilled for every resample
		n := len(v)
		if n%2 == 1 {
			return v[n/2]
		}
		return (v[n/2-1] + v[n/2]) / 2
	}
	iv := analysis.Bootstrap(systemB, median, 0.95, 2000, 1)
	fmt.Printf("median %.2f, 95%% CI [%.2f, %.2f]\n", iv.Estimate, iv.Lo, iv.Hi)
	// Output:
	// median 0.60, 95% CI [0.45, 0.75]
}

// Questions about the same persona are not independent: resample personas.
func ExampleBootstrapMeanClustered() {
	scores := []float64{0.9, 0.8, 1, 0.3, 0.2, 0.4, 0.7, 0.6, 0.5, 0.9, 1, 0.8}
	persona := []string{"p1", "p1", "p1", "p2", "p2", "p2", "p3", "p3", "p3", "p4", "p4", "p4"}
	flat := analysis.BootstrapMean(scores, 0.95, 2000, 1)
	cl := analysis.BootstrapMeanClustered(scores, persona, 0.95, 2000, 1)
	fmt.Printf("per question [%.3f, %.3f]\n", flat.Lo, flat.Hi)
	fmt.Printf("per persona  [%.3f, %.3f]\n", cl.Lo, cl.Hi)
	// Output:
	// per question [0.525, 0.817]
	// per persona  [0.450, 0.900]
}

// System A against system B on the same questions: the mean difference
// with its interval and a bootstrap p-value.
func ExamplePairedBootstrap() {
	iv, p := analysis.PairedBootstrap(systemA, systemB, 0.95, 2000, 1)
	fmt.Printf("A − B = %.3f, 95%% CI [%.3f, %.3f], p = %.3f, %d pairs\n", iv.Estimate, iv.Lo, iv.Hi, p, iv.N)
	// Output:
	// A − B = 0.167, 95% CI [0.067, 0.278], p = 0.001, 9 pairs
}

// The sign-flip permutation test of the same comparison: with 9 pairs all
// 2^9 sign patterns are enumerated, so the p-value is exact and the seed
// unused.
func ExamplePairedPermutation() {
	res, err := analysis.PairedPermutation(systemA, systemB, 10000, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("mean difference %.3f, p = %.4f, exact %v, %d pairs, %d excluded\n",
		res.Statistic, res.P, res.Exact, res.N, res.Excluded)
	// Output:
	// mean difference 0.167, p = 0.0312, exact true, 9 pairs, 1 excluded
}

// Choice accuracy of two systems on the same multiple-choice questions.
func ExampleDiscordant() {
	a := []bool{true, true, false, true, true, true, false, true, true, true}
	b := []bool{true, false, false, false, true, false, true, true, false, true}
	onlyA, onlyB := analysis.Discordant(a, b)
	fmt.Printf("only A %d, only B %d, McNemar p = %.3f\n", onlyA, onlyB, analysis.McNemarExact(onlyA, onlyB))
	// Output:
	// only A 4, only B 1, McNemar p = 0.375
}

// McNemar's exact test on the discordant counts.
func ExampleMcNemarExact() {
	// Of 200 questions, 31 only system A got right, 14 only system B.
	fmt.Printf("p = %.4f\n", analysis.McNemarExact(31, 14))
	// Output:
	// p = 0.0161
}

// Judge scores 0–5 of two systems: the signed-rank test drops the zero
// differences and, with ties, uses the normal approximation.
func ExampleWilcoxon() {
	a := []float64{5, 4, 3, 5, 2, 4, 4, 3, 5, 1, 2, 4, 3, 5, 4}
	b := []float64{3, 4, 1, 4, 3, 2, 5, 2, 2, 1, 1, 1, 2, 4, 1}
	res, err := analysis.Wilcoxon(a, b, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("T = %g, p = %.4f, exact %v, n = %d (%d zeros dropped)\n", res.Statistic, res.P, res.Exact, res.N, res.Zeros)
	// Output:
	// T = 8, p = 0.0075, exact false, n = 13 (2 zeros dropped)
}

// Six pairwise comparisons in one table: adjust their p-values together.
func ExampleHolm() {
	p := []float64{0.01, 0.04, 0.03, 0.005, 0.2, 0.01}
	for i, q := range analysis.Holm(p) {
		fmt.Printf("%.3f → %.3f\n", p[i], q)
	}
	// Output:
	// 0.010 → 0.050
	// 0.040 → 0.090
	// 0.030 → 0.090
	// 0.005 → 0.030
	// 0.200 → 0.200
	// 0.010 → 0.050
}

// "Recall is not reasoning": per-question retrieval recall against QA
// consistency (0–3).
func ExampleSpearman() {
	recall := []float64{1, 0.5, 0, 1, 0.75, 0.25, 1, 0, 0.5, 1}
	consistency := []float64{3, 2, 1, 2, 3, 0, 3, 1, 1, 2}
	res, err := analysis.Spearman(recall, consistency)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("rho = %.3f, p = %.4f, n = %d\n", res.Statistic, res.P, res.N)
	// Output:
	// rho = 0.771, p = 0.0090, n = 10
}

// Kendall's tau-b of the same data, which accounts for the many ties.
func ExampleKendallTau() {
	recall := []float64{1, 0.5, 0, 1, 0.75, 0.25, 1, 0, 0.5, 1}
	consistency := []float64{3, 2, 1, 2, 3, 0, 3, 1, 1, 2}
	res, err := analysis.KendallTau(recall, consistency)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("tau-b = %.3f, p = %.4f, exact %v\n", res.Statistic, res.P, res.Exact)
	// Output:
	// tau-b = 0.630, p = 0.0248, exact false
}
