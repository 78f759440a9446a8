package analysis

import (
	"errors"
	"math"
)

// BootstrapMean returns the mean of x with a percentile-bootstrap
// confidence interval at the given level (e.g. 0.95):
//
//	Estimate = x̄ = Σ x_i / n
//	m*_b     = mean of x_{j(b,1)}, ..., x_{j(b,n)},  b = 1..resamples
//	Lo, Hi   = the (1−level)/2 and (1+level)/2 percentiles of m*_1..m*_B
//
// The indices j are drawn uniformly with replacement from the stream
// r := rand.New(rand.NewPCG(seed, 0)) of math/rand/v2: resample by
// resample, index by index, each j = r.IntN(n). The same seed therefore
// gives the same interval on every platform. Percentiles interpolate
// linearly between order statistics (numpy.percentile's default, as in
// scipy.stats.bootstrap(method='percentile')). Use at least 2,000
// resamples for a 95% interval.
//
// NaN values are excluded before anything is computed: n and N count the
// other values and Excluded counts the NaNs. With no value left, Estimate,
// Lo and Hi are NaN.
//
// BootstrapMean panics if level is not in (0, 1) or resamples < 1.
func BootstrapMean(x []float64, level float64, resamples int, seed uint64) Interval {
	checkLevel("bootstrap mean", level, resamples)
	v, excl := dropNaN(x)
	return bootstrapMean(v, excl, level, resamples, seed)
}

func bootstrapMean(v []float64, excluded int, level float64, resamples int, seed uint64) Interval {
	out := Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Level: level, N: len(v), Excluded: excluded}
	n := len(v)
	if n == 0 {
		return out
	}
	out.Estimate = mean(v)
	r := newRand(seed)
	means := make([]float64, resamples)
	for b := range means {
		var s float64
		for range n {
			s += v[r.IntN(n)]
		}
		means[b] = s / float64(n)
	}
	out.Lo, out.Hi = percentileInterval(means, level)
	return out
}

// Bootstrap is BootstrapMean for any statistic: Estimate is stat(x) and
// the interval is the percentile interval of stat over the resamples,
// drawn from the same stream as BootstrapMean (so Bootstrap with a mean
// function and BootstrapMean agree up to rounding).
//
// stat is called once on the data and once per resample, so a function
// defined in a notebook cell costs little: the resampling loop itself is
// compiled. stat receives a buffer that is refilled for every resample; it
// may reorder it (e.g. sort it for a median) but must not keep it. NaN
// values of x are excluded and counted as in BootstrapMean; with none left
// stat is not called and the Interval is NaN. A NaN result of stat on a
// resample sorts first and so pulls Lo down: return a number.
//
// Bootstrap panics if level is not in (0, 1), resamples < 1 or stat is nil.
func Bootstrap(x []float64, stat func([]float64) float64, level float64, resamples int, seed uint64) Interval {
	checkLevel("bootstrap", level, resamples)
	if stat == nil {
		panic("analysis: bootstrap: nil statistic")
	}
	v, excl := dropNaN(x)
	out := Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Level: level, N: len(v), Excluded: excl}
	n := len(v)
	if n == 0 {
		return out
	}
	buf := make([]float64, n)
	copy(buf, v)
	out.Estimate = stat(buf)
	r := newRand(seed)
	stats := make([]float64, resamples)
	for b := range stats {
		for i := range buf {
			buf[i] = v[r.IntN(n)]
		}
		stats[b] = stat(buf)
	}
	out.Lo, out.Hi = percentileInterval(stats, level)
	return out
}

// BootstrapMeanClustered returns the mean of x with a cluster-bootstrap
// percentile interval, for values that are not independent: questions
// about the same persona or from the same conversation. cluster[i] names
// the cluster of x[i]. Whole clusters are resampled: with K clusters
// (ordered by first appearance in cluster), each resample draws K cluster
// indices k = r.IntN(K) from the stream of BootstrapMean and takes the
// ratio of sums
//
//	m*_b = Σ_k sum(cluster k) / Σ_k size(cluster k)
//
// so that every value keeps its weight. Estimate is the plain mean of x.
// With few clusters (e.g. 10 personas) the interval is much wider than
// BootstrapMean's, as it should be; with one value per cluster the two
// coincide in distribution (not draw for draw).
//
// NaN values are excluded and counted in Excluded before clusters are
// formed; a cluster with only NaN values disappears.
//
// BootstrapMeanClustered panics if len(x) != len(cluster), level is not in
// (0, 1) or resamples < 1.
func BootstrapMeanClustered(x []float64, cluster []string, level float64, resamples int, seed uint64) Interval {
	if len(x) != len(cluster) {
		panic("analysis: bootstrap mean clustered: slice length mismatch")
	}
	checkLevel("bootstrap mean clustered", level, resamples)
	id := map[string]int{}
	var sums, sizes []float64
	out := Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Level: level}
	var total float64
	for i, v := range x {
		if math.IsNaN(v) {
			out.Excluded++
			continue
		}
		k, ok := id[cluster[i]]
		if !ok {
			k = len(sums)
			id[cluster[i]] = k
			sums, sizes = append(sums, 0), append(sizes, 0)
		}
		sums[k] += v
		sizes[k]++
		total += v
		out.N++
	}
	if out.N == 0 {
		return out
	}
	out.Estimate = total / float64(out.N)
	r := newRand(seed)
	K := len(sums)
	means := make([]float64, resamples)
	for b := range means {
		var s, c float64
		for range K {
			k := r.IntN(K)
			s += sums[k]
			c += sizes[k]
		}
		means[b] = s / c
	}
	out.Lo, out.Hi = percentileInterval(means, level)
	return out
}

// PairedBootstrap compares two systems scored on the same questions (a[i]
// and b[i] are the scores of question i) by bootstrapping the mean
// per-question difference d_i = a_i − b_i. The Interval is exactly
// BootstrapMean(d, level, resamples, seed) (same stream, same draws), and
// p is the two-sided bootstrap p-value of "mean difference = 0":
//
//	L = #{b : m*_b ≤ 0},  G = #{b : m*_b ≥ 0}
//	p = min(1, 2·(min(L, G) + 1) / (resamples + 1))
//
// that is, twice the share of resampled mean differences on the far side
// of 0 (or at it), with the +1 that keeps a Monte Carlo p-value from being
// 0. p ≤ 1 − level roughly when 0 lies outside the interval. For a test
// with an exact null distribution prefer PairedPermutation.
//
// A pair is excluded (and counted in Excluded) when a[i] or b[i] is NaN.
// With no pair left the Interval and p are NaN.
//
// PairedBootstrap panics if len(a) != len(b), level is not in (0, 1) or
// resamples < 1.
func PairedBootstrap(a, b []float64, level float64, resamples int, seed uint64) (Interval, float64) {
	x, y, excl := dropNaNPairs("paired bootstrap", a, b)
	checkLevel("paired bootstrap", level, resamples)
	d := make([]float64, len(x))
	for i := range d {
		d[i] = x[i] - y[i]
	}
	out := Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Level: level, N: len(d), Excluded: excl}
	n := len(d)
	if n == 0 {
		return out, math.NaN()
	}
	out.Estimate = mean(d)
	r := newRand(seed)
	means := make([]float64, resamples)
	var le, ge int
	for k := range means {
		var s float64
		for range n {
			s += d[r.IntN(n)]
		}
		m := s / float64(n)
		means[k] = m
		if m <= 0 {
			le++
		}
		if m >= 0 {
			ge++
		}
	}
	out.Lo, out.Hi = percentileInterval(means, level)
	p := 2 * float64(min(le, ge)+1) / float64(resamples+1)
	return out, math.Min(1, p)
}

// ExactSignFlipMax is the largest number of pairs for which
// PairedPermutation enumerates all 2^n sign flips (2^20 ≈ 10^6 sums).
const ExactSignFlipMax = 20

// PairedPermutation is the paired permutation (sign-flip) test of "the
// per-question differences d_i = a_i − b_i are symmetric about 0": under
// that null hypothesis every sign pattern s ∈ {−1, +1}^n is as likely, so
// the statistic
//
//	T(s) = Σ s_i·d_i / n        (T(1,...,1) = t, the observed mean difference)
//
// is compared with its distribution over sign patterns, and
//
//	P = min(1, 2·min(#{s : T(s) ≤ t}, #{s : T(s) ≥ t}) / 2^n)              exact
//	P = min(1, 2·(min(#{T_k ≤ t}, #{T_k ≥ t}) + 1) / (resamples + 1))     Monte Carlo
//
// which is scipy.stats.permutation_test((a, b), mean-difference,
// permutation_type='samples', alternative='two-sided'). Values of T within
// 1e-12·mean|d_i| of t count as equal to t, so that sums equal in exact
// arithmetic are not split by rounding (SciPy uses a relative 1e-14 on t).
//
// With n ≤ ExactSignFlipMax all 2^n patterns are enumerated (Exact is true,
// resamples and seed are unused); otherwise resamples patterns T_1..T_m
// are drawn: for each resample, the sign of d_i is flipped when bit i mod
// 64 of a word from r.Uint64() is 1, a new word being drawn for pairs 0, 64,
// 128, ..., with r := rand.New(rand.NewPCG(seed, 0)). Statistic is t.
//
// A pair is excluded (and counted in Excluded) when a[i] or b[i] is NaN. An
// error is returned, with NaN Statistic and P, when no pair is left.
//
// PairedPermutation panics if len(a) != len(b) or resamples < 1.
func PairedPermutation(a, b []float64, resamples int, seed uint64) (Test, error) {
	x, y, excl := dropNaNPairs("paired permutation", a, b)
	if resamples < 1 {
		panic("analysis: paired permutation: resamples must be at least 1")
	}
	n := len(x)
	out := Test{Statistic: math.NaN(), P: math.NaN(), N: n, Excluded: excl}
	if n == 0 {
		return out, errors.New("analysis: paired permutation: no pairs")
	}
	d := make([]float64, n)
	var abs float64
	for i := range d {
		d[i] = x[i] - y[i]
		abs += math.Abs(d[i])
	}
	tol := 1e-12 * abs / float64(n)
	var le, ge, total int
	if n <= ExactSignFlipMax {
		// Meet in the middle: T(mask) = (lo[mask & low bits] + hi[mask >> h]) / n,
		// bit i of mask set meaning d_i flipped. Each half sum is computed
		// directly, so rounding does not accumulate over the enumeration.
		h := n / 2
		lo, hi := halfSums(d[:h]), halfSums(d[h:])
		t := (lo[0] + hi[0]) / float64(n)
		out.Statistic = t
		for _, sh := range hi {
			for _, sl := range lo {
				v := (sl + sh) / float64(n)
				if v <= t+tol {
					le++
				}
				if v >= t-tol {
					ge++
				}
			}
		}
		total = len(lo) * len(hi)
		out.Exact = true
		out.P = math.Min(1, 2*float64(min(le, ge))/float64(total))
		return out, nil
	}
	t := mean(d)
	out.Statistic = t
	r := newRand(seed)
	for range resamples {
		var s float64
		var w uint64
		for i, v := range d {
			if i%64 == 0 {
				w = r.Uint64()
			}
			// flip the sign bit of v when the low bit of w is 1
			s += math.Float64frombits(math.Float64bits(v) ^ (w&1)<<63)
			w >>= 1
		}
		v := s / float64(n)
		if v <= t+tol {
			le++
		}
		if v >= t-tol {
			ge++
		}
	}
	out.P = math.Min(1, 2*float64(min(le, ge)+1)/float64(resamples+1))
	return out, nil
}

// halfSums returns, for every mask of len(d) bits, Σ ±d_i with d_i negated
// when bit i is set.
func halfSums(d []float64) []float64 {
	s := make([]float64, 1<<len(d))
	for m := range s {
		var v float64
		for i, x := range d {
			if m>>i&1 == 1 {
				v -= x
			} else {
				v += x
			}
		}
		s[m] = v
	}
	return s
}

// mean returns Σ x_i / n in index order.
func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
