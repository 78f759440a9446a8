package analysis

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Interval is a point estimate with a confidence interval, as returned by
// the bootstrap functions.
type Interval struct {
	// Estimate is the statistic on the data as given (NaN values
	// excluded), e.g. the sample mean.
	Estimate float64
	// Lo and Hi bound the interval: Lo ≤ Hi; both are NaN when N is 0.
	Lo, Hi float64
	// Level is the confidence level, e.g. 0.95.
	Level float64
	// N is the number of values (or pairs) used.
	N int
	// Excluded is the number of values (or pairs) left out because they
	// are NaN (a pair is left out when either of its values is NaN).
	Excluded int
}

// Test is the outcome of a two-sided hypothesis test or of a correlation
// with its p-value.
type Test struct {
	// Statistic is the test's statistic; each function defines it.
	Statistic float64
	// P is the two-sided p-value, in [0, 1].
	P float64
	// N is the number of pairs that enter the statistic.
	N int
	// Excluded is the number of pairs left out because a value is NaN.
	Excluded int
	// Zeros is the number of pairs with a zero difference that Wilcoxon
	// leaves out (they are not counted in N); 0 for the other tests.
	Zeros int
	// Exact reports whether P comes from the exact null distribution
	// (enumerated or computed in closed form) rather than from an
	// asymptotic approximation or Monte Carlo resampling.
	Exact bool
}

// newRand returns the random stream every resampling function of this
// package draws from: rand.New(rand.NewPCG(seed, 0)) of math/rand/v2.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0))
}

// dropNaN returns the non-NaN values of x (a new slice) and the number of
// NaN values left out.
func dropNaN(x []float64) (kept []float64, excluded int) {
	kept = make([]float64, 0, len(x))
	for _, v := range x {
		if math.IsNaN(v) {
			excluded++
			continue
		}
		kept = append(kept, v)
	}
	return kept, excluded
}

// dropNaNPairs returns the pairs (a[i], b[i]) in which neither value is NaN
// (as two new slices) and the number of pairs left out. It panics with
// "analysis: <op>: slice length mismatch" if len(a) != len(b).
func dropNaNPairs(op string, a, b []float64) (x, y []float64, excluded int) {
	if len(a) != len(b) {
		panic("analysis: " + op + ": slice length mismatch")
	}
	x = make([]float64, 0, len(a))
	y = make([]float64, 0, len(b))
	for i := range a {
		if math.IsNaN(a[i]) || math.IsNaN(b[i]) {
			excluded++
			continue
		}
		x = append(x, a[i])
		y = append(y, b[i])
	}
	return x, y, excluded
}

// checkLevel panics unless 0 < level < 1 and resamples >= 1.
func checkLevel(op string, level float64, resamples int) {
	if !(level > 0 && level < 1) {
		panic("analysis: " + op + ": level must be in (0, 1)")
	}
	if resamples < 1 {
		panic("analysis: " + op + ": resamples must be at least 1")
	}
}

// percentile returns the q-quantile (0 ≤ q ≤ 1) of the sorted values s by
// linear interpolation between order statistics, Hyndman and Fan's type
// 7 and numpy.percentile's default:
//
//	h = (len(s) − 1)·q,  Q(q) = s[⌊h⌋] + (h − ⌊h⌋)·(s[⌊h⌋+1] − s[⌊h⌋])
//
// gonum's stat.Quantile offers types 1 (Empirical) and 4 (LinInterp) only,
// so it is written out here. s must be sorted and not empty.
func percentile(s []float64, q float64) float64 {
	h := float64(len(s)-1) * q
	lo := math.Floor(h)
	i := int(lo)
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[i] + (h-lo)*(s[i+1]-s[i])
}

// percentileInterval sorts stats in place and returns its (1−level)/2 and
// (1+level)/2 percentiles.
func percentileInterval(stats []float64, level float64) (lo, hi float64) {
	sort.Float64s(stats)
	return percentile(stats, (1-level)/2), percentile(stats, (1+level)/2)
}

// ranks returns the ranks 1..n of x, ties given the average of the ranks
// they span (scipy.stats.rankdata's default method "average"), and the
// sizes of the tie groups of more than one value.
func ranks(x []float64) (r []float64, ties []int) {
	n := len(x)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return x[idx[i]] < x[idx[j]] })
	r = make([]float64, n)
	for i := 0; i < n; {
		j := i + 1
		for j < n && x[idx[j]] == x[idx[i]] {
			j++
		}
		// positions i..j-1 (ranks i+1..j) share the average rank.
		avg := float64(i+1+j) / 2
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		if j-i > 1 {
			ties = append(ties, j-i)
		}
		i = j
	}
	return r, ties
}
