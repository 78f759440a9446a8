package analysis

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// The reference values in testdata/scipy/reference.json were computed by
// testdata/scipy/reference.py with SciPy 1.10.1 and numpy 1.24.2 (the
// file records the versions); see the script's docstring for what each
// section calls. The tests need only the JSON.

// refTol is the tolerance of every comparison with a deterministic SciPy
// value (absolute, on statistics and p-values alike).
const refTol = 1e-9

// floats decodes a JSON array of numbers in which null stands for NaN.
type floats []float64

func (f *floats) UnmarshalJSON(b []byte) error {
	var v []*float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = make([]float64, len(v))
	for i, p := range v {
		if p == nil {
			(*f)[i] = math.NaN()
		} else {
			(*f)[i] = *p
		}
	}
	return nil
}

// number decodes a JSON number in which null stands for NaN.
type number float64

func (x *number) UnmarshalJSON(b []byte) error {
	var p *float64
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if p == nil {
		*x = number(math.NaN())
	} else {
		*x = number(*p)
	}
	return nil
}

type pairCase struct {
	Name        string
	A, B, X, Y  floats
	Excluded, N int
	Zeros       int
	Statistic   number
	Pvalue      number
	Exact       bool
}

type reference struct {
	Scipy, Numpy string
	Permutation  []struct {
		pairCase
		MC bool
	}
	Mcnemar []struct {
		B, C   int
		Pvalue float64
	}
	McnemarPairs struct {
		A, B   []int
		OnlyA  int `json:"only_a"`
		OnlyB  int `json:"only_b"`
		Pvalue float64
	} `json:"mcnemar_pairs"`
	Wilcoxon []struct {
		pairCase
		Correction bool
		Method     string
		ScipyAuto  *float64 `json:"scipy_auto"`
	}
	Holm []struct {
		P, Adjusted floats
	}
	Spearman, Kendall []pairCase
	Kappa             []struct {
		Name     string
		A, B     []int
		Min, Max int
		Kappa    float64
		QWK      float64 `json:"qwk"`
	}
	Percentile struct {
		X, Q, Values floats
	}
	Bootstrap       bootRef
	PairedBootstrap bootRef `json:"paired_bootstrap"`
}

type bootRef struct {
	X, A, B              floats
	Level                float64
	NResamples           int `json:"n_resamples"`
	Estimate, Lo, Hi, SE float64
}

func loadReference(t *testing.T) *reference {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "scipy", "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r reference
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Scipy == "" || len(r.Permutation) == 0 || len(r.Wilcoxon) == 0 {
		t.Fatalf("reference.json looks empty: scipy %q, %d permutation cases", r.Scipy, len(r.Permutation))
	}
	return &r
}

// maxDiff tracks the largest absolute difference per check, logged at the
// end of each test (go test -v shows them).
type maxDiff struct {
	t    *testing.T
	name string
	max  float64
}

func (m *maxDiff) check(desc, what string, got, want, tol float64) {
	m.t.Helper()
	if math.IsNaN(want) {
		if !math.IsNaN(got) {
			m.t.Errorf("%s: %s = %v, want NaN", desc, what, got)
		}
		return
	}
	d := math.Abs(got - want)
	if !(d <= tol) {
		m.t.Errorf("%s: %s = %.17g, want %.17g (|diff| %.3g > %.3g)", desc, what, got, want, d, tol)
	}
	if d > m.max {
		m.max = d
	}
}

func (m *maxDiff) log() { m.t.Logf("%s: max |diff| vs reference %.3g", m.name, m.max) }

func TestPairedPermutationReference(t *testing.T) {
	r := loadReference(t)
	md := &maxDiff{t: t, name: "PairedPermutation"}
	for _, c := range r.Permutation {
		const m = 20000
		got, err := PairedPermutation(c.A, c.B, m, 7)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if got.N != c.N || got.Excluded != c.Excluded {
			t.Errorf("%s: N, Excluded = %d, %d, want %d, %d", c.Name, got.N, got.Excluded, c.N, c.Excluded)
		}
		md.check(c.Name, "statistic", got.Statistic, float64(c.Statistic), refTol)
		if !c.MC {
			if !got.Exact {
				t.Errorf("%s: not exact with n = %d", c.Name, got.N)
			}
			md.check(c.Name, "p", got.P, float64(c.Pvalue), refTol)
			continue
		}
		// Monte Carlo against SciPy's exact p: the estimate is
		// 2(k+1)/(m+1) with k ~ Binomial(m, p/2), sd ≈ √(2p(1−p/2)/m)...
		// allow 5 standard deviations.
		p := float64(c.Pvalue)
		tol := 5 * math.Sqrt(2*p*(1-p/2)/m)
		if got.Exact || math.Abs(got.P-p) > tol {
			t.Errorf("%s: Monte Carlo p = %v (exact %v), want %v ± %.3g", c.Name, got.P, got.Exact, p, tol)
		}
		t.Logf("%s: Monte Carlo p %.5f, SciPy exact %.5f (|diff| %.2g, tolerance %.2g)", c.Name, got.P, p, math.Abs(got.P-p), tol)
	}
	md.log()
}

func TestPairedPermutation(t *testing.T) {
	// One pair: T ∈ {d, −d}, #{T ≤ d} = 2, #{T ≥ d} = 1, P = 2·1/2 = 1.
	got, err := PairedPermutation([]float64{1}, []float64{0}, 10, 1)
	if err != nil || got.P != 1 || got.Statistic != 1 || !got.Exact {
		t.Errorf("one pair: %+v, %v", got, err)
	}
	// Five equal positive differences: only the identity reaches t, P = 2/32.
	got, _ = PairedPermutation([]float64{1, 1, 1, 1, 1}, make([]float64, 5), 10, 1)
	if got.P != 2.0/32 {
		t.Errorf("five positive: P = %v, want %v", got.P, 2.0/32)
	}
	if _, err := PairedPermutation([]float64{math.NaN()}, []float64{1}, 10, 1); err == nil {
		t.Error("no pairs: no error")
	}
	// Monte Carlo: reproducible, seed-dependent, +1 correction (P > 0
	// even when no resample reaches t), with the documented stream.
	n := 40
	a, b := make([]float64, n), make([]float64, n)
	for i := range a {
		a[i] = 1 + float64(i%3)
	}
	p1, _ := PairedPermutation(a, b, 999, 3)
	p2, _ := PairedPermutation(a, b, 999, 3)
	if p1 != p2 || p1.Exact {
		t.Errorf("not reproducible or exact: %+v %+v", p1, p2)
	}
	if want := 2.0 / 1000; p1.P != want {
		t.Errorf("all-positive n = 40: P = %v, want (0+1)·2/(999+1) = %v", p1.P, want)
	}
	// A null effect: over 200 seeded runs P is roughly uniform.
	var below int
	for s := range uint64(200) {
		x := make([]float64, 30)
		rnd := newRand(1000 + s)
		for i := range x {
			x[i] = rnd.NormFloat64()
		}
		res, _ := PairedPermutation(x, make([]float64, 30), 500, s)
		if res.P < 0.1 {
			below++
		}
	}
	// Binomial(200, 0.1): mean 20, sd 4.2.
	if below < 6 || below > 36 {
		t.Errorf("under the null, %d of 200 p-values below 0.1, want about 20", below)
	}
	assertPanics(t, "length mismatch", func() { PairedPermutation([]float64{1}, nil, 10, 1) })
	assertPanics(t, "resamples", func() { PairedPermutation([]float64{1}, []float64{1}, 0, 1) })
}

func TestMcNemarExactReference(t *testing.T) {
	r := loadReference(t)
	md := &maxDiff{t: t, name: "McNemarExact"}
	for _, c := range r.Mcnemar {
		md.check("b, c = "+itoa(c.B)+", "+itoa(c.C), "p", McNemarExact(c.B, c.C), c.Pvalue, refTol)
	}
	mp := r.McnemarPairs
	a, b := make([]bool, len(mp.A)), make([]bool, len(mp.B))
	for i := range a {
		a[i], b[i] = mp.A[i] == 1, mp.B[i] == 1
	}
	x, y := Discordant(a, b)
	if x != mp.OnlyA || y != mp.OnlyB {
		t.Errorf("Discordant = %d, %d, want %d, %d", x, y, mp.OnlyA, mp.OnlyB)
	}
	md.check("pairs", "p", McNemarExact(x, y), mp.Pvalue, refTol)
	md.log()
	if McNemarExact(0, 0) != 1 {
		t.Error("McNemarExact(0, 0) != 1")
	}
	assertPanics(t, "negative", func() { McNemarExact(-1, 2) })
	assertPanics(t, "length mismatch", func() { Discordant([]bool{true}, nil) })
}

func TestWilcoxonReference(t *testing.T) {
	r := loadReference(t)
	md := &maxDiff{t: t, name: "Wilcoxon"}
	for _, c := range r.Wilcoxon {
		desc := c.Name
		if c.Correction {
			desc += " (continuity correction)"
		}
		got, err := Wilcoxon(c.A, c.B, c.Correction)
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		if got.N != c.N || got.Zeros != c.Zeros || got.Excluded != c.Excluded || got.Exact != c.Exact {
			t.Errorf("%s: N, Zeros, Excluded, Exact = %d, %d, %d, %v, want %d, %d, %d, %v",
				desc, got.N, got.Zeros, got.Excluded, got.Exact, c.N, c.Zeros, c.Excluded, c.Exact)
		}
		md.check(desc, "statistic", got.Statistic, float64(c.Statistic), refTol)
		md.check(desc, "p", got.P, float64(c.Pvalue), refTol)
		if c.ScipyAuto != nil {
			t.Logf("%s: memlab (normal approximation) p %.6g; SciPy 1.10 method='auto' p %.6g (exact distribution at int(R+), not used)", desc, got.P, *c.ScipyAuto)
		}
	}
	md.log()
	if _, err := Wilcoxon([]float64{1, 2}, []float64{1, 2}, false); err == nil {
		t.Error("all zero: no error")
	}
	assertPanics(t, "length mismatch", func() { Wilcoxon([]float64{1}, nil, false) })
}

func TestHolmReference(t *testing.T) {
	r := loadReference(t)
	md := &maxDiff{t: t, name: "Holm"}
	for i, c := range r.Holm {
		got := Holm(c.P)
		if len(got) != len(c.Adjusted) {
			t.Fatalf("case %d: %d values, want %d", i, len(got), len(c.Adjusted))
		}
		for j := range got {
			md.check("case "+itoa(i), "adjusted["+itoa(j)+"]", got[j], c.Adjusted[j], refTol)
		}
		// Monotone in p, never below p, capped at 1.
		for j := range got {
			for k := range got {
				if c.P[j] <= c.P[k] && got[j] > got[k] {
					t.Errorf("case %d: not monotone at %d, %d", i, j, k)
				}
			}
			if got[j] < c.P[j] || got[j] > 1 {
				t.Errorf("case %d: adjusted %v outside [p, 1]", i, got[j])
			}
		}
	}
	md.log()
	if got := Holm(nil); len(got) != 0 {
		t.Errorf("Holm(nil) = %v", got)
	}
	assertPanics(t, "p > 1", func() { Holm([]float64{0.5, 1.5}) })
}

func TestCorrelationReference(t *testing.T) {
	r := loadReference(t)
	for _, f := range []struct {
		name  string
		fn    func(x, y []float64) (Test, error)
		cases []pairCase
	}{
		{"Spearman", Spearman, r.Spearman},
		{"KendallTau", KendallTau, r.Kendall},
	} {
		md := &maxDiff{t: t, name: f.name}
		for _, c := range f.cases {
			got, err := f.fn(c.X, c.Y)
			if err != nil {
				t.Fatalf("%s %s: %v", f.name, c.Name, err)
			}
			if got.N != c.N || got.Excluded != c.Excluded || got.Exact != c.Exact {
				t.Errorf("%s %s: N, Excluded, Exact = %d, %d, %v, want %d, %d, %v",
					f.name, c.Name, got.N, got.Excluded, got.Exact, c.N, c.Excluded, c.Exact)
			}
			md.check(f.name+" "+c.Name, "statistic", got.Statistic, float64(c.Statistic), refTol)
			md.check(f.name+" "+c.Name, "p", got.P, float64(c.Pvalue), refTol)
		}
		md.log()
		if _, err := f.fn([]float64{1, 1, 1}, []float64{1, 2, 3}); err == nil {
			t.Errorf("%s: constant input: no error", f.name)
		}
		if _, err := f.fn([]float64{1}, []float64{2}); err == nil {
			t.Errorf("%s: one pair: no error", f.name)
		}
		assertPanics(t, f.name+" length mismatch", func() { f.fn([]float64{1}, nil) })
	}
}

func TestKappaReference(t *testing.T) {
	r := loadReference(t)
	md := &maxDiff{t: t, name: "CohenKappa/QuadraticWeightedKappa"}
	for _, c := range r.Kappa {
		k, err := CohenKappa(c.A, c.B)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		md.check(c.Name, "kappa", k, c.Kappa, refTol)
		q, err := QuadraticWeightedKappa(c.A, c.B, c.Min, c.Max)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		md.check(c.Name, "qwk", q, c.QWK, refTol)
	}
	md.log()
}

func TestPercentileReference(t *testing.T) {
	r := loadReference(t)
	s := append([]float64(nil), r.Percentile.X...)
	sort.Float64s(s)
	md := &maxDiff{t: t, name: "percentile (numpy.percentile)"}
	for i, q := range r.Percentile.Q {
		md.check("q = "+ftoa(q), "value", percentile(s, q), r.Percentile.Values[i], refTol)
	}
	md.log()
}

// The bootstrap cannot match SciPy draw for draw (numpy's stream is not
// Go's). With 20,000 resamples each endpoint of a 95% percentile interval
// has a Monte Carlo sd of about 0.02 standard errors; the two independent
// runs are required to agree within 0.15 standard errors.
func TestBootstrapAgainstSciPy(t *testing.T) {
	r := loadReference(t)
	b := r.Bootstrap
	got := BootstrapMean(b.X, b.Level, b.NResamples, 42)
	checkBoot(t, "BootstrapMean", got, b)
	p := r.PairedBootstrap
	got, pv := PairedBootstrap(p.A, p.B, p.Level, p.NResamples, 42)
	checkBoot(t, "PairedBootstrap", got, p)
	if (pv <= 1-p.Level) != (got.Lo > 0 || got.Hi < 0) {
		t.Errorf("PairedBootstrap: p = %v but interval [%v, %v]", pv, got.Lo, got.Hi)
	}
}

func checkBoot(t *testing.T, name string, got Interval, want bootRef) {
	t.Helper()
	n := len(want.X)
	if n == 0 {
		n = len(want.A)
	}
	if got.N != n || got.Excluded != 0 || got.Level != want.Level {
		t.Errorf("%s: N, Excluded, Level = %d, %d, %v", name, got.N, got.Excluded, got.Level)
	}
	if math.Abs(got.Estimate-want.Estimate) > refTol {
		t.Errorf("%s: estimate %v, want %v", name, got.Estimate, want.Estimate)
	}
	tol := 0.15 * want.SE
	if math.Abs(got.Lo-want.Lo) > tol || math.Abs(got.Hi-want.Hi) > tol {
		t.Errorf("%s: [%v, %v], SciPy [%v, %v] (tolerance %.3g)", name, got.Lo, got.Hi, want.Lo, want.Hi, tol)
	}
	t.Logf("%s: [%.5f, %.5f], SciPy [%.5f, %.5f]: |diff| %.2g, %.2g standard errors", name, got.Lo, got.Hi, want.Lo, want.Hi,
		math.Abs(got.Lo-want.Lo)/want.SE, math.Abs(got.Hi-want.Hi)/want.SE)
}

func TestBootstrapMean(t *testing.T) {
	x := []float64{0.2, math.NaN(), 0.9, 0.4, 0.7, math.NaN(), 0.1, 1, 0.5}
	a := BootstrapMean(x, 0.9, 2000, 1)
	if a.N != 7 || a.Excluded != 2 || a.Level != 0.9 {
		t.Errorf("N, Excluded, Level = %d, %d, %v", a.N, a.Excluded, a.Level)
	}
	if want := 3.8 / 7; math.Abs(a.Estimate-want) > 1e-15 {
		t.Errorf("estimate %v, want %v", a.Estimate, want)
	}
	if !(a.Lo < a.Estimate && a.Estimate < a.Hi) {
		t.Errorf("interval [%v, %v] misses the estimate %v", a.Lo, a.Hi, a.Estimate)
	}
	if b := BootstrapMean(x, 0.9, 2000, 1); b != a {
		t.Errorf("same seed, different result: %+v, %+v", a, b)
	}
	if b := BootstrapMean(x, 0.9, 2000, 2); b.Lo == a.Lo && b.Hi == a.Hi {
		t.Errorf("seed ignored: %+v", b)
	}
	// A wider level gives a wider interval on the same draws.
	if w := BootstrapMean(x, 0.99, 2000, 1); !(w.Lo <= a.Lo && w.Hi >= a.Hi) {
		t.Errorf("99%% [%v, %v] inside 90%% [%v, %v]", w.Lo, w.Hi, a.Lo, a.Hi)
	}
	// Bootstrap with a mean callback draws the same indices.
	calls := 0
	g := Bootstrap(x, func(v []float64) float64 { calls++; return mean(v) }, 0.9, 2000, 1)
	if calls != 2001 || math.Abs(g.Lo-a.Lo) > 1e-12 || math.Abs(g.Hi-a.Hi) > 1e-12 || g.Estimate != a.Estimate {
		t.Errorf("Bootstrap(mean) = %+v after %d calls, BootstrapMean = %+v", g, calls, a)
	}
	// Degenerate inputs.
	if e := BootstrapMean([]float64{math.NaN()}, 0.95, 10, 1); !math.IsNaN(e.Estimate) || !math.IsNaN(e.Lo) || e.N != 0 || e.Excluded != 1 {
		t.Errorf("all NaN: %+v", e)
	}
	if one := BootstrapMean([]float64{3}, 0.95, 10, 1); one.Lo != 3 || one.Hi != 3 {
		t.Errorf("one value: %+v", one)
	}
	// Coverage: over 300 seeded normal samples of 30 values the 90%
	// interval covers the true mean 0 about 270 times (percentile intervals
	// run a little short at n = 30).
	covered := 0
	for s := range uint64(300) {
		rnd := newRand(5000 + s)
		v := make([]float64, 30)
		for i := range v {
			v[i] = rnd.NormFloat64()
		}
		if iv := BootstrapMean(v, 0.9, 1000, s); iv.Lo <= 0 && 0 <= iv.Hi {
			covered++
		}
	}
	if covered < 245 || covered > 290 {
		t.Errorf("90%% interval covered the mean %d times of 300", covered)
	}
	assertPanics(t, "level", func() { BootstrapMean(x, 1, 10, 1) })
	assertPanics(t, "resamples", func() { BootstrapMean(x, 0.95, 0, 1) })
	assertPanics(t, "nil stat", func() { Bootstrap(x, nil, 0.95, 10, 1) })
}

func TestPairedBootstrap(t *testing.T) {
	a := []float64{0.9, 0.8, math.NaN(), 0.7, 1, 0.6, 0.9, 0.8}
	b := []float64{0.5, 0.7, 0.5, 0.7, 0.6, 0.6, 0.4, math.NaN()}
	iv, p := PairedBootstrap(a, b, 0.95, 2000, 9)
	d := []float64{0.4, 0.1, 0, 0.4, 0, 0.5}
	want := BootstrapMean(d, 0.95, 2000, 9)
	if iv.N != 6 || iv.Excluded != 2 {
		t.Errorf("N, Excluded = %d, %d, want 6, 2", iv.N, iv.Excluded)
	}
	if math.Abs(iv.Lo-want.Lo) > 1e-12 || math.Abs(iv.Hi-want.Hi) > 1e-12 || math.Abs(iv.Estimate-want.Estimate) > 1e-12 {
		t.Errorf("PairedBootstrap %+v, BootstrapMean of differences %+v", iv, want)
	}
	// Every difference is ≥ 0 and the mean of a resample is 0 only if it
	// draws the two zeros alone: P(m* ≤ 0) = (2/6)^6 ≈ 0.0014, so L is
	// small and p is about 2·(L+1)/2001.
	if !(p > 0 && p < 0.02) {
		t.Errorf("p = %v, want small", p)
	}
	if _, p := PairedBootstrap([]float64{1, 2}, []float64{1, 2}, 0.95, 100, 1); p != 1 {
		t.Errorf("no difference: p = %v, want 1", p)
	}
	if iv, p := PairedBootstrap(nil, nil, 0.95, 100, 1); !math.IsNaN(p) || !math.IsNaN(iv.Estimate) {
		t.Errorf("empty: %+v, %v", iv, p)
	}
	assertPanics(t, "length mismatch", func() { PairedBootstrap([]float64{1}, nil, 0.95, 10, 1) })
}

func TestBootstrapMeanClustered(t *testing.T) {
	// 10 personas × 20 questions with a persona effect: the clustered
	// interval must be much wider than the per-question one.
	var x []float64
	var c []string
	rnd := newRand(77)
	for p := range 10 {
		effect := rnd.NormFloat64()
		for range 20 {
			x = append(x, effect+0.3*rnd.NormFloat64())
			c = append(c, "persona"+itoa(p))
		}
	}
	x[3] = math.NaN()
	flat := BootstrapMean(x, 0.95, 2000, 1)
	cl := BootstrapMeanClustered(x, c, 0.95, 2000, 1)
	if cl.N != 199 || cl.Excluded != 1 || math.Abs(cl.Estimate-flat.Estimate) > 1e-12 {
		t.Errorf("clustered %+v, flat %+v", cl, flat)
	}
	if wc, wf := cl.Hi-cl.Lo, flat.Hi-flat.Lo; wc < 2*wf {
		t.Errorf("clustered width %v not much wider than per-question %v", wc, wf)
	}
	if again := BootstrapMeanClustered(x, c, 0.95, 2000, 1); again != cl {
		t.Error("not reproducible")
	}
	// One value per cluster: same estimate, similar width.
	ids := make([]string, len(x))
	for i := range ids {
		ids[i] = itoa(i)
	}
	one := BootstrapMeanClustered(x, ids, 0.95, 4000, 3)
	if w1, wf := one.Hi-one.Lo, flat.Hi-flat.Lo; math.Abs(w1-wf) > 0.15*wf {
		t.Errorf("singleton clusters width %v, per-question %v", w1, wf)
	}
	assertPanics(t, "length mismatch", func() { BootstrapMeanClustered(x, nil, 0.95, 10, 1) })
}

func TestRanks(t *testing.T) {
	r, ties := ranks([]float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5})
	want := []float64{4.5, 1.5, 6, 1.5, 8, 11, 3, 10, 8, 4.5, 8} // scipy.stats.rankdata
	for i := range want {
		if r[i] != want[i] {
			t.Fatalf("ranks = %v, want %v", r, want)
		}
	}
	if len(ties) != 3 || ties[0] != 2 || ties[1] != 2 || ties[2] != 3 {
		t.Errorf("ties = %v, want [2 2 3]", ties)
	}
}

func assertPanics(t *testing.T, desc string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", desc)
		}
	}()
	f()
}

func itoa(i int) string { return ftoa(float64(i)) }

func ftoa(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// kendallCounts against the O(n²) definition, on data with many ties.
func TestKendallCountsBruteForce(t *testing.T) {
	r := newRand(11)
	for _, n := range []int{2, 3, 7, 50, 301} {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = float64(r.IntN(5))
			y[i] = float64(r.IntN(4)) + 0.5*x[i]
		}
		var dis, xt, yt, nt int
		for i := range n {
			for j := i + 1; j < n; j++ {
				dx, dy := x[i]-x[j], y[i]-y[j]
				if dx == 0 {
					xt++
				}
				if dy == 0 {
					yt++
				}
				if dx == 0 && dy == 0 {
					nt++
				}
				if dx*dy < 0 {
					dis++
				}
			}
		}
		gd, gx, gy, gn := kendallCounts(x, y)
		if gd != dis || gx != xt || gy != yt || gn != nt {
			t.Errorf("n = %d: kendallCounts = %d %d %d %d, want %d %d %d %d", n, gd, gx, gy, gn, dis, xt, yt, nt)
		}
	}
}
