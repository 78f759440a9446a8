#!/usr/bin/python3
"""Reference values for analysis/stats*.go, computed with SciPy and numpy.

Run from this directory (Debian: apt-get install python3-scipy):

    /usr/bin/python3 reference.py        # writes reference.json (about a minute)

The Go tests read reference.json only; they never need SciPy. Every input
is written into the JSON next to its expected values, so the Go side uses
exactly the same numbers. NaN is written as null (JSON has no NaN).

Conventions (see the Go doc comments for the definitions):
  * Inputs with NaN: SciPy's default nan_policy='propagate' would return
    NaN, while memlab drops the pairs with a NaN and counts them, so the
    reference is computed on the filtered data and "excluded" holds the
    number of pairs dropped.
  * permutation: scipy.stats.permutation_test((a, b), mean(x - y),
    permutation_type='samples', alternative='two-sided',
    n_resamples=np.inf), i.e. exact enumeration of all 2**n sign flips.
    "mc" cases (n > 20, where memlab draws Monte Carlo resamples) hold the
    exact p-value to check the Monte Carlo estimate statistically.
  * wilcoxon: method "auto" is scipy.stats.wilcoxon's default; cases with
    ties but no zeros and n <= 50 use method='approx', because SciPy 1.10's
    'auto' then uses the exact distribution at int(r_plus), which memlab
    deliberately does not copy ("scipy_auto" records SciPy's value there).
  * holm: plain Python step-down formula (statsmodels is not installed);
    cross-checked with statsmodels when it is importable.
  * kappa: plain numpy formulas (sklearn is not installed): Cohen's kappa
    over the labels either rater used and quadratic-weighted kappa on the
    full scale min..max.
  * bootstrap: scipy.stats.bootstrap(method='percentile') uses numpy's
    random stream, which Go cannot reproduce; its interval is stored to be
    compared within Monte Carlo error, together with the standard error.
"""

import json
import math
import platform
import sys
import warnings

import numpy as np
import scipy
from scipy import stats

# SciPy warns that it switches wilcoxon to the normal approximation when
# there are zeros and that n < 10 is small for it: both are expected here.
warnings.simplefilter("ignore", UserWarning)


def clean(v):
    """JSON-safe: numpy scalars to Python, NaN to None."""
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, np.ndarray)):
        return [clean(x) for x in v]
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return None if math.isnan(v) else v
    return v


def pairs_without_nan(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    keep = ~(np.isnan(a) | np.isnan(b))
    return a[keep], b[keep], int((~keep).sum())


rng = np.random.default_rng(20240607)
ref = {
    "generated_by": "analysis/testdata/scipy/reference.py",
    "python": platform.python_version(),
    "scipy": scipy.__version__,
    "numpy": np.__version__,
}

# ---------------------------------------------------------------- inputs
judge_a = [3, 2, 3, 1, 0, 3, 2, 2, 1, 3]
judge_b = [2, 2, 1, 1, 1, 0, 2, 3, 0, 1]
f12_a = np.round(rng.normal(0.6, 0.2, 12), 6)
f12_b = np.round(f12_a - rng.normal(0.1, 0.15, 12), 6)
f16_a = np.round(rng.normal(0.0, 1.0, 16), 6)
f16_b = np.round(rng.normal(0.0, 1.0, 16), 6)
bin18_a = [1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1]
bin18_b = [1, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 1, 1, 0]
nan_a = [0.5, float("nan"), 0.7, 0.9, 0.2, 0.4, float("nan"), 0.8, 0.6, 0.3]
nan_b = [0.4, 0.1, 0.5, float("nan"), 0.3, 0.1, 0.2, 0.5, 0.6, 0.1]
mc22_a = np.round(rng.normal(0.55, 0.2, 22), 6)
mc22_b = np.round(mc22_a - rng.normal(0.05, 0.2, 22), 6)
scores30_a = rng.integers(0, 6, 30)
scores30_b = np.clip(scores30_a - rng.integers(-1, 3, 30), 0, 5)


def mean_diff(x, y, axis):
    return np.mean(x - y, axis=axis)


# ----------------------------------------------------------- permutation
perm = []
for name, a, b, mc in [
    ("judge scores n=10, ties and zeros", judge_a, judge_b, False),
    ("floats n=12", f12_a, f12_b, False),
    ("floats n=16, no effect", f16_a, f16_b, False),
    ("binary n=18", bin18_a, bin18_b, False),
    ("NaN pairs dropped", nan_a, nan_b, False),
    ("all differences zero", [1, 2, 3], [1, 2, 3], False),
    ("floats n=22, Monte Carlo in memlab", mc22_a, mc22_b, True),
]:
    x, y, excl = pairs_without_nan(a, b)
    res = stats.permutation_test((x, y), mean_diff, vectorized=True,
                                 permutation_type="samples",
                                 alternative="two-sided", n_resamples=np.inf,
                                 batch=1 << 16)
    perm.append({"name": name, "a": list(map(float, a)), "b": list(map(float, b)),
                 "excluded": excl, "n": len(x), "mc": mc,
                 "statistic": res.statistic, "pvalue": res.pvalue})
ref["permutation"] = perm

# -------------------------------------------------------------- McNemar
mcn = []
for b, c in [(3, 7), (7, 3), (5, 5), (0, 10), (1, 0), (0, 1), (6, 7), (12, 30),
             (100, 140), (1000, 1100), (2500, 2400), (4, 13)]:
    mcn.append({"b": b, "c": c, "pvalue": stats.binomtest(b, b + c, 0.5).pvalue})
ref["mcnemar"] = mcn
# the same counts from paired booleans (bin18)
da = sum(1 for x, y in zip(bin18_a, bin18_b) if x == 1 and y == 0)
db = sum(1 for x, y in zip(bin18_a, bin18_b) if x == 0 and y == 1)
ref["mcnemar_pairs"] = {"a": bin18_a, "b": bin18_b, "only_a": da, "only_b": db,
                        "pvalue": stats.binomtest(da, da + db, 0.5).pvalue}

# ------------------------------------------------------------- Wilcoxon
w10 = np.round(rng.normal(0.3, 1.0, 10), 6)
w20 = np.round(rng.normal(0.2, 1.0, 20), 6)
w50 = np.round(rng.normal(0.15, 1.0, 50), 6)
w51 = np.round(rng.normal(0.15, 1.0, 51), 6)
w80 = np.round(rng.normal(0.1, 1.0, 80), 6)
ties15_a = [5, 4, 3, 5, 2, 4, 4, 3, 5, 1, 2, 4, 3, 5, 4]
ties15_b = [3, 3, 1, 4, 3, 2, 5, 2, 2, 2, 1, 1, 2, 4, 1]
wil = []
for name, a, b, method in [
    ("exact n=10", w10, np.zeros(10), "auto"),
    ("exact n=20", w20, np.zeros(20), "auto"),
    ("exact n=50 (largest exact)", w50, np.zeros(50), "auto"),
    ("approx n=51 no ties", w51, np.zeros(51), "auto"),
    ("approx n=80 no ties", w80, np.zeros(80), "auto"),
    ("judge scores n=30, zeros and ties", scores30_a, scores30_b, "auto"),
    ("judge scores n=10, zeros and ties", judge_a, judge_b, "auto"),
    ("ties without zeros n=15", ties15_a, ties15_b, "approx"),
    ("r_plus at the centre", [1, -2, -3, 4], [0, 0, 0, 0], "auto"),
    ("all positive n=6", [1, 2, 3, 4, 5, 6.5], [0] * 6, "auto"),
    ("NaN pairs dropped", nan_a, nan_b, "auto"),
]:
    x, y, excl = pairs_without_nan(a, b)
    for corr in (False, True):
        if method == "auto" and corr and name.startswith("exact"):
            continue  # correction only matters for the approximation
        res = stats.wilcoxon(x, y, correction=corr, method=method)
        d = x - y
        nz = d[d != 0]
        case = {"name": name, "a": list(map(float, a)), "b": list(map(float, b)),
                "excluded": excl, "zeros": int((d == 0).sum()), "n": len(nz),
                "correction": corr, "method": method,
                "exact": bool(method == "auto" and len(d) <= 50 and (d == 0).sum() == 0
                              and len(np.unique(np.abs(nz))) == len(nz)),
                "statistic": res.statistic, "pvalue": res.pvalue}
        if method == "approx" and not corr:
            case["scipy_auto"] = stats.wilcoxon(x, y).pvalue
        wil.append(case)
ref["wilcoxon"] = wil

# ----------------------------------------------------------------- Holm


def holm(p):
    p = np.asarray(p, float)
    out = np.full(len(p), np.nan)
    idx = [i for i in range(len(p)) if not math.isnan(p[i])]
    idx.sort(key=lambda i: p[i])  # stable
    m = len(idx)
    running = 0.0
    for j, i in enumerate(idx):
        running = max(running, min(1.0, (m - j) * p[i]))
        out[i] = running
    return out


holm_cases = [
    [0.01, 0.04, 0.03, 0.005],
    [0.2, 0.5, 0.01, 0.01, 0.9, 0.03],
    [1.0, 0.0, 0.5],
    [0.04],
    [0.3, float("nan"), 0.01, 0.02],
    list(np.round(rng.uniform(0, 0.2, 12), 6)),
]
hol = []
for p in holm_cases:
    entry = {"p": p, "adjusted": holm(p)}
    try:
        from statsmodels.stats.multitest import multipletests
        q = np.asarray(p, float)
        keep = ~np.isnan(q)
        sm = np.full(len(q), np.nan)
        sm[keep] = multipletests(q[keep], method="holm")[1]
        assert np.allclose(sm[keep], entry["adjusted"][keep], atol=1e-15, rtol=0)
        entry["statsmodels"] = True
    except ImportError:
        entry["statsmodels"] = False
    hol.append(entry)
ref["holm"] = hol

# ------------------------------------------------- Spearman and Kendall
recall100 = np.round(rng.uniform(0, 1, 100), 2)  # ties at 2 decimals
consist100 = np.clip(np.round(recall100 * 3 + rng.normal(0, 1, 100)), 0, 3)
x10 = np.round(rng.normal(0, 1, 10), 6)
y10 = np.round(x10 + rng.normal(0, 1, 10), 6)
x33 = np.round(rng.normal(0, 1, 33), 6)
y33 = np.round(0.3 * x33 + rng.normal(0, 1, 33), 6)
x34 = np.round(rng.normal(0, 1, 34), 6)
y34 = np.round(0.3 * x34 + rng.normal(0, 1, 34), 6)
x25 = rng.integers(0, 4, 25).astype(float)
y25 = np.clip(x25 + rng.integers(-1, 2, 25), 0, 3).astype(float)
x40 = np.arange(40, dtype=float)
y40 = x40.copy()
y40[[5, 6]] = y40[[6, 5]]  # one discordant pair: exact branch beyond n=33
corr_cases = [
    ("n=10 no ties", x10, y10),
    ("n=33 no ties", x33, y33),
    ("n=34 no ties", x34, y34),
    ("n=25 integer ties", x25, y25),
    ("recall vs consistency n=100, ties", recall100, consist100),
    ("n=40 one discordant pair", x40, y40),
    ("perfect negative n=8", np.arange(8.0), -np.arange(8.0)),
    ("n=3", [1.0, 2.0, 3.5], [2.0, 1.0, 4.0]),
    ("NaN pairs dropped", nan_a, nan_b),
]
sp, kt = [], []
for name, a, b in corr_cases:
    x, y, excl = pairs_without_nan(a, b)
    r = stats.spearmanr(x, y)
    t = stats.kendalltau(x, y)
    has_ties = len(np.unique(x)) < len(x) or len(np.unique(y)) < len(y)
    base = {"name": name, "x": list(map(float, a)), "y": list(map(float, b)),
            "excluded": excl, "n": len(x)}
    sp.append(dict(base, statistic=r.statistic, pvalue=r.pvalue))
    kt.append(dict(base, statistic=t.statistic, pvalue=t.pvalue,
                   exact=bool(not has_ties)
                   and (len(x) <= 33 or (len(x) == 40))))
ref["spearman"] = sp
ref["kendall"] = kt

# ----------------------------------------------------------------- kappa


def cohen_kappa(a, b):
    labels = sorted(set(a) | set(b))
    k = {l: i for i, l in enumerate(labels)}
    o = np.zeros((len(labels), len(labels)))
    for x, y in zip(a, b):
        o[k[x], k[y]] += 1
    n = o.sum()
    po = np.trace(o) / n
    pe = (o.sum(1) / n) @ (o.sum(0) / n)
    return (po - pe) / (1 - pe)


def qwk(a, b, lo, hi):
    K = hi - lo + 1
    o = np.zeros((K, K))
    for x, y in zip(a, b):
        o[x - lo, y - lo] += 1
    n = o.sum()
    e = np.outer(o.sum(1), o.sum(0)) / n
    i, j = np.indices((K, K))
    w = (i - j) ** 2 / (K - 1) ** 2
    return 1 - (w * o).sum() / (w * e).sum()


kap = []
kappa_a = rng.integers(0, 6, 60)
kappa_b = np.clip(kappa_a + rng.integers(-1, 2, 60), 0, 5)
for name, a, b, lo, hi in [
    ("sklearn docstring", [0, 1, 0, 2, 1], [0, 1, 0, 2, 0], 0, 2),
    ("judge scores 0-3", judge_a, judge_b, 0, 3),
    ("binary n=18", bin18_a, bin18_b, 0, 1),
    ("0-5 scores n=60", kappa_a, kappa_b, 0, 5),
    ("1-5 scale, label 2 unused", [1, 3, 4, 5, 5, 1, 3], [1, 4, 4, 5, 3, 1, 3], 1, 5),
]:
    a, b = [int(v) for v in a], [int(v) for v in b]
    kap.append({"name": name, "a": a, "b": b, "min": lo, "max": hi,
                "kappa": cohen_kappa(a, b), "qwk": qwk(a, b, lo, hi)})
ref["kappa"] = kap

# ------------------------------------------------------------ percentile
px = np.round(rng.normal(0, 1, 37), 6)
qs = [0.0, 0.025, 0.1, 0.5, 0.9, 0.975, 1.0]
ref["percentile"] = {"x": px, "q": qs,
                     "values": [np.percentile(px, 100 * q) for q in qs]}

# ------------------------------------------------------------- bootstrap
bx = np.round(rng.beta(2, 3, 40), 6)
res = stats.bootstrap((bx,), np.mean, confidence_level=0.95, n_resamples=20000,
                      method="percentile", random_state=1)
ba = np.round(rng.uniform(0, 1, 40), 6)
bb = np.round(np.clip(ba - rng.normal(0.08, 0.2, 40), 0, 1), 6)
pres = stats.bootstrap((ba, bb), mean_diff, paired=True, vectorized=True,
                       confidence_level=0.95, n_resamples=20000,
                       method="percentile", random_state=1)
ref["bootstrap"] = {
    "x": bx, "level": 0.95, "n_resamples": 20000, "estimate": np.mean(bx),
    "lo": res.confidence_interval.low, "hi": res.confidence_interval.high,
    "se": np.std(bx, ddof=1) / math.sqrt(len(bx)),
}
ref["paired_bootstrap"] = {
    "a": ba, "b": bb, "level": 0.95, "n_resamples": 20000, "estimate": np.mean(ba - bb),
    "lo": pres.confidence_interval.low, "hi": pres.confidence_interval.high,
    "se": np.std(ba - bb, ddof=1) / math.sqrt(len(ba)),
}

with open("reference.json", "w") as f:
    json.dump(clean(ref), f, indent=1, allow_nan=False)
    f.write("\n")
print("wrote reference.json:", {k: len(v) for k, v in ref.items() if isinstance(v, list)},
      file=sys.stderr)
