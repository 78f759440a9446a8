package analysis

import (
	"errors"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Spearman returns Spearman's rank correlation ρ of x and y (Statistic)
// with its two-sided p-value, e.g. per-question retrieval recall against
// QA consistency. ρ is Pearson's correlation of the ranks (ties take the
// average rank), and the p-value is that of the t approximation with
// n − 2 degrees of freedom:
//
//	t = ρ·√((n − 2) / ((1 + ρ)(1 − ρ))),  P = 2·T_{n−2}(−|t|)
//
// (P = 0 when |ρ| = 1). This is scipy.stats.spearmanr(x, y) of SciPy 1.10;
// Exact is false. Unlike SciPy's default nan_policy='propagate', a pair
// with a NaN is excluded and counted in Excluded.
//
// An error is returned, with NaN Statistic and P, when fewer than 3 pairs
// are left or when x or y is constant (ρ is undefined; SciPy returns NaN).
//
// Spearman panics if len(x) != len(y).
func Spearman(x, y []float64) (Test, error) {
	a, b, excl := dropNaNPairs("spearman", x, y)
	n := len(a)
	out := Test{Statistic: math.NaN(), P: math.NaN(), N: n, Excluded: excl}
	if n < 3 {
		return out, errors.New("analysis: spearman: fewer than 3 pairs")
	}
	ra, tiesA := ranks(a)
	rb, tiesB := ranks(b)
	if isConstant(tiesA, n) || isConstant(tiesB, n) {
		return out, errors.New("analysis: spearman: constant input, correlation undefined")
	}
	rho := stat.Correlation(ra, rb, nil)
	rho = math.Max(-1, math.Min(1, rho))
	out.Statistic = rho
	df := float64(n - 2)
	t := rho * math.Sqrt(math.Max(0, df/((rho+1)*(1-rho))))
	if math.IsInf(t, 0) || math.IsNaN(t) {
		out.P = 0
		return out, nil
	}
	out.P = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(-math.Abs(t))
	return out, nil
}

func isConstant(ties []int, n int) bool {
	return len(ties) == 1 && ties[0] == n
}

// KendallTauExactMax is the largest number of pairs for which KendallTau
// computes the exact p-value (when there are no ties), as
// scipy.stats.kendalltau's method='auto' does.
const KendallTauExactMax = 33

// KendallTau returns Kendall's τ_b of x and y (Statistic), which accounts
// for ties, with its two-sided p-value. Over the n(n−1)/2 pairs of
// observations i < j, with C concordant and D discordant pairs, T_x pairs
// tied in x and T_y tied in y (a pair tied in both counts in both),
//
//	τ_b = (C − D) / √((n₀ − T_x)(n₀ − T_y)),  n₀ = n(n − 1)/2
//
// The p-value is exact when there are no ties and n ≤ KendallTauExactMax
// (or min(D, n₀ − D) ≤ 1): the null distribution of the number of
// inversions of a random permutation (Kendall 1970), P = min(1, 2·Pr(X ≤
// min(C, n₀ − C))); Exact is true. Otherwise z = (C − D)/σ with the tie
// corrected variance
//
//	σ² = (v₀ − v_x − v_y)/18 + 2·T_x·T_y/(n(n−1)) + w_x·w_y/(9n(n−1)(n−2))
//	v₀ = n(n−1)(2n+5),  v_x = Σ t(t−1)(2t+5),  w_x = Σ t(t−1)(t−2)
//
// (t over the sizes of the groups of tied x values; likewise for y) and
// P = 2·Φ(−|z|). This is scipy.stats.kendalltau(x, y) of SciPy 1.10
// (variant='b', method='auto'). Unlike SciPy's default
// nan_policy='propagate', a pair with a NaN is excluded and counted in
// Excluded. The pairs are counted in O(n log n) (Knight's merge-sort
// algorithm, as SciPy does).
//
// An error is returned, with NaN Statistic and P, when fewer than 2 pairs
// are left or when x or y is constant (τ_b is undefined; SciPy returns
// NaN).
//
// KendallTau panics if len(x) != len(y).
func KendallTau(x, y []float64) (Test, error) {
	a, b, excl := dropNaNPairs("kendall tau", x, y)
	n := len(a)
	out := Test{Statistic: math.NaN(), P: math.NaN(), N: n, Excluded: excl}
	if n < 2 {
		return out, errors.New("analysis: kendall tau: fewer than 2 pairs")
	}
	dis, xtie, ytie, ntie := kendallCounts(a, b)
	tot := n * (n - 1) / 2
	if xtie == tot || ytie == tot {
		return out, errors.New("analysis: kendall tau: constant input, correlation undefined")
	}
	conMinusDis := tot - xtie - ytie + ntie - 2*dis
	tau := float64(conMinusDis) / math.Sqrt(float64(tot-xtie)) / math.Sqrt(float64(tot-ytie))
	out.Statistic = math.Max(-1, math.Min(1, tau))
	if xtie == 0 && ytie == 0 && (n <= KendallTauExactMax || min(dis, tot-dis) <= 1) {
		out.Exact = true
		out.P = kendallExactP(n, tot-dis)
		return out, nil
	}
	x0, x1 := tieSums(a)
	y0, y1 := tieSums(b)
	nf := float64(n)
	m := nf * (nf - 1)
	v := (m*(2*nf+5)-x1-y1)/18 + 2*float64(xtie)*float64(ytie)/m + x0*y0/(9*m*(nf-2))
	z := float64(conMinusDis) / math.Sqrt(v)
	out.P = 2 * distuv.UnitNormal.CDF(-math.Abs(z))
	return out, nil
}

// kendallCounts returns the number of discordant pairs, of pairs tied in
// x, tied in y and tied in both, by Knight's algorithm: sort by (x, y),
// then the discordant pairs are the strict inversions of the y sequence,
// counted by a merge sort.
func kendallCounts(x, y []float64) (dis, xtie, ytie, ntie int) {
	n := len(x)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool {
		a, b := idx[i], idx[j]
		return x[a] < x[b] || (x[a] == x[b] && y[a] < y[b])
	})
	for i := 0; i < n; {
		j := i + 1
		for j < n && x[idx[j]] == x[idx[i]] {
			j++
		}
		xtie += (j - i) * (j - i - 1) / 2
		for k := i; k < j; {
			l := k + 1
			for l < j && y[idx[l]] == y[idx[k]] {
				l++
			}
			ntie += (l - k) * (l - k - 1) / 2
			k = l
		}
		i = j
	}
	ys := make([]float64, n)
	for i, k := range idx {
		ys[i] = y[k]
	}
	dis = inversions(ys, make([]float64, n))
	// ys is now sorted: count the ties in y.
	for i := 0; i < n; {
		j := i + 1
		for j < n && ys[j] == ys[i] {
			j++
		}
		ytie += (j - i) * (j - i - 1) / 2
		i = j
	}
	return dis, xtie, ytie, ntie
}

// inversions sorts v ascending (buf is scratch of the same length) and
// returns the number of pairs i < j with v[i] > v[j].
func inversions(v, buf []float64) int {
	n := len(v)
	if n < 2 {
		return 0
	}
	h := n / 2
	inv := inversions(v[:h], buf[:h]) + inversions(v[h:], buf[h:])
	i, j, k := 0, h, 0
	for i < h && j < n {
		if v[j] < v[i] {
			buf[k] = v[j]
			inv += h - i
			j++
		} else {
			buf[k] = v[i]
			i++
		}
		k++
	}
	k += copy(buf[k:], v[i:h])
	copy(buf[k:], v[j:n])
	copy(v, buf)
	return inv
}

// tieSums returns Σ t(t−1)(t−2) and Σ t(t−1)(2t+5) over the sizes t of the
// groups of tied values of x.
func tieSums(x []float64) (w, v float64) {
	_, ties := ranks(x)
	for _, t := range ties {
		tf := float64(t)
		w += tf * (tf - 1) * (tf - 2)
		v += tf * (tf - 1) * (2*tf + 5)
	}
	return w, v
}

// kendallExactP returns the exact two-sided p-value of c concordant pairs
// among n untied observations, by the algorithm of SciPy 1.10's
// _kendall_p_exact: cumulative counts of permutations by number of
// inversions, in float64.
func kendallExactP(n, c int) float64 {
	tot := n * (n - 1) / 2
	c = min(c, tot-c)
	var p float64
	switch {
	case n <= 2:
		p = 1
	case c == 0:
		p = 2 / factorial(n)
	case c == 1:
		p = 2 / factorial(n-1)
	case 4*c == n*(n-1):
		p = 1
	case n < 171:
		cnt := make([]float64, c+1)
		cnt[0], cnt[1] = 1, 1
		prev := make([]float64, c+1)
		for j := 3; j <= n; j++ {
			for i := 1; i <= c; i++ {
				cnt[i] += cnt[i-1]
			}
			if j <= c {
				copy(prev, cnt)
				for i := j; i <= c; i++ {
					cnt[i] -= prev[i-j]
				}
			}
		}
		var s float64
		for _, v := range cnt {
			s += v
		}
		p = 2 * s / factorial(n)
	default:
		cnt := make([]float64, c+1)
		cnt[0], cnt[1] = 1, 1
		prev := make([]float64, c+1)
		for j := 3; j <= n; j++ {
			for i := 1; i <= c; i++ {
				cnt[i] += cnt[i-1]
			}
			for i := range cnt {
				cnt[i] /= float64(j)
			}
			if j <= c {
				copy(prev, cnt)
				for i := j; i <= c; i++ {
					cnt[i] -= prev[i-j]
				}
			}
		}
		for _, v := range cnt {
			p += v
		}
	}
	return math.Max(0, math.Min(1, p))
}

// factorial returns n! as a float64 (+Inf beyond 170!).
func factorial(n int) float64 {
	f := 1.0
	for i := 2; i <= n; i++ {
		f *= float64(i)
	}
	return f
}
