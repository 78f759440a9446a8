package analysis

import (
	"errors"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Discordant counts the discordant pairs of two systems' binary outcomes on
// the same questions (a[i], b[i]: whether each system got question i
// right): onlyA is the number of questions only a got right, onlyB the
// number only b got right. Pass them to McNemarExact.
//
// Discordant panics if len(a) != len(b).
func Discordant(a, b []bool) (onlyA, onlyB int) {
	if len(a) != len(b) {
		panic("analysis: discordant: slice length mismatch")
	}
	for i := range a {
		switch {
		case a[i] && !b[i]:
			onlyA++
		case !a[i] && b[i]:
			onlyB++
		}
	}
	return onlyA, onlyB
}

// McNemarExact returns the two-sided p-value of McNemar's exact test for
// paired binary outcomes (e.g. choice accuracy of two systems on the same
// questions), given the discordant counts b (only the first system right)
// and c (only the second right), for instance from Discordant. Under the
// null hypothesis of equal accuracy b is Binomial(b + c, 1/2), and
//
//	p = min(1, 2·BinomCDF(min(b, c); b + c, 1/2))
//
// which equals scipy.stats.binomtest(b, b + c, 0.5).pvalue. Concordant
// pairs do not enter the test. With b + c = 0 there is no evidence either
// way and p is 1 (SciPy rejects n = 0).
//
// McNemarExact panics if b or c is negative.
func McNemarExact(b, c int) float64 {
	if b < 0 || c < 0 {
		panic("analysis: mcnemar exact: negative count")
	}
	n := b + c
	if n == 0 || b == c {
		return 1
	}
	cdf := distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(min(b, c)))
	return math.Min(1, 2*cdf)
}

// WilcoxonExactMax is the largest number of pairs for which Wilcoxon uses
// the exact null distribution (when there are no zero differences and no
// ties), as scipy.stats.wilcoxon's method='auto' does.
const WilcoxonExactMax = 50

// Wilcoxon is the two-sided Wilcoxon signed-rank test of "the differences
// d_i = a_i − b_i are symmetric about 0", for paired ordinal scores such as
// two systems' judge scores on the same questions. Zero differences are
// dropped first (scipy's default zero_method='wilcox'; Zeros counts them,
// N counts the n differences left). The |d_i| are ranked 1..n, ties taking
// the average rank, and
//
//	R+ = Σ_{d_i > 0} rank_i,  R− = Σ_{d_i < 0} rank_i,  Statistic = min(R+, R−)
//
// The p-value comes from
//
//   - the exact distribution of R+ (all 2^n sign patterns equally likely)
//     when n ≤ WilcoxonExactMax and there are no zero differences and no
//     ties among the |d_i|: P = min(1, 2·min(Pr(R+ ≤ r), Pr(R+ ≥ r))) with
//     r the observed R+, and P = 1 when r is the centre ⌊n(n+1)/4⌋;
//     Exact is true;
//
//   - otherwise the normal approximation with the tie correction
//
//     μ = n(n+1)/4,  σ² = n(n+1)(2n+1)/24 − Σ_ties t(t²−1)/48
//     z = (Statistic − μ − c)/σ,  P = 2·Φ(−|z|)
//
//     where c = ½·sign(Statistic − μ) if correction is true (continuity
//     correction) and 0 otherwise; t runs over the sizes of the groups of
//     tied |d_i|.
//
// With correction false this is scipy.stats.wilcoxon(a, b) of SciPy 1.10
// (defaults zero_method='wilcox', correction=False, method='auto') except
// in one case: with ties but no zeros and n ≤ 50, SciPy 1.10 uses the exact
// distribution at the truncated int(R+), which is not the distribution of a
// statistic with ties; Wilcoxon uses the normal approximation there, as
// later SciPy releases do. Unlike SciPy's default nan_policy='propagate',
// a pair with a NaN is excluded and counted in Excluded.
//
// An error is returned, with NaN Statistic and P, when no non-zero
// difference is left (SciPy raises ValueError too).
//
// Wilcoxon panics if len(a) != len(b).
func Wilcoxon(a, b []float64, correction bool) (Test, error) {
	x, y, excl := dropNaNPairs("wilcoxon", a, b)
	out := Test{Statistic: math.NaN(), P: math.NaN(), Excluded: excl}
	d := make([]float64, 0, len(x))
	for i := range x {
		v := x[i] - y[i]
		if v == 0 {
			out.Zeros++
			continue
		}
		d = append(d, v)
	}
	n := len(d)
	out.N = n
	if n == 0 {
		return out, errors.New("analysis: wilcoxon: every difference is zero (or no pairs)")
	}
	abs := make([]float64, n)
	for i, v := range d {
		abs[i] = math.Abs(v)
	}
	r, ties := ranks(abs)
	var rplus, rminus float64
	for i, v := range d {
		if v > 0 {
			rplus += r[i]
		} else {
			rminus += r[i]
		}
	}
	T := math.Min(rplus, rminus)
	out.Statistic = T
	if n <= WilcoxonExactMax && out.Zeros == 0 && len(ties) == 0 {
		out.Exact = true
		out.P = wilcoxonExactP(n, int(rplus))
		return out, nil
	}
	nf := float64(n)
	mu := nf * (nf + 1) / 4
	se := nf * (nf + 1) * (2*nf + 1)
	for _, t := range ties {
		tf := float64(t)
		se -= 0.5 * tf * (tf*tf - 1)
	}
	se = math.Sqrt(se / 24)
	var c float64
	if correction {
		switch {
		case T > mu:
			c = 0.5
		case T < mu:
			c = -0.5
		}
	}
	z := (T - mu - c) / se
	out.P = 2 * distuv.UnitNormal.CDF(-math.Abs(z))
	return out, nil
}

// wilcoxonExactP returns the exact two-sided p-value of R+ = r with n
// non-zero, untied differences, computed as SciPy 1.10 does: the pmf of R+
// by the recursion c_k = ½·c_{k−1} + ½·c_{k−1} shifted by k.
func wilcoxonExactP(n, r int) float64 {
	c := []float64{1}
	for k := 1; k <= n; k++ {
		next := make([]float64, k*(k+1)/2+1)
		m := len(c)
		for i, v := range c {
			next[i] = v * 0.5
		}
		for i, v := range c {
			next[len(next)-m+i] += v * 0.5
		}
		c = next
	}
	if r == (len(c)-1)/2 {
		return 1
	}
	var less, greater float64
	for i := 0; i <= r; i++ {
		less += c[i]
	}
	for i := r; i < len(c); i++ {
		greater += c[i]
	}
	return math.Max(0, math.Min(1, 2*math.Min(less, greater)))
}

// Holm returns Holm's step-down adjusted p-values, for m comparisons made
// at once (e.g. every pair of systems in a table): with the p-values
// sorted ascending, p_(1) ≤ ... ≤ p_(m),
//
//	p̃_(i) = min(1, max_{j ≤ i} (m − j + 1)·p_(j))
//
// returned in the order of p. Rejecting where p̃ ≤ α controls the
// family-wise error rate at α under any dependence. The adjusted values are
// monotone in p and capped at 1; this is
// statsmodels.stats.multitest.multipletests(p, method='holm')[1]. Equal
// p-values get equal adjusted values.
//
// A NaN p-value stays NaN in the result and is not counted in m.
//
// Holm panics if a p-value is outside [0, 1].
func Holm(p []float64) []float64 {
	out := make([]float64, len(p))
	idx := make([]int, 0, len(p))
	for i, v := range p {
		if math.IsNaN(v) {
			out[i] = math.NaN()
			continue
		}
		if v < 0 || v > 1 {
			panic("analysis: holm: p-value outside [0, 1]")
		}
		idx = append(idx, i)
	}
	sort.SliceStable(idx, func(i, j int) bool { return p[idx[i]] < p[idx[j]] })
	m := len(idx)
	running := 0.0
	for j, i := range idx {
		v := math.Min(1, float64(m-j)*p[i])
		running = math.Max(running, v)
		out[i] = running
	}
	return out
}
