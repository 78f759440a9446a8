package analysis

import (
	"fmt"
	"math"
	"sort"
)

// ROC is the receiver operating characteristic of a score against a binary
// label: a higher score should mean the label is more likely true.
type ROC struct {
	// Positives and Negatives count the labelled items (NaN scores are
	// left out and counted in Excluded).
	Positives, Negatives, Excluded int
	// AUC is the area under the curve: the probability that a random
	// positive scores above a random negative, ties counting one half (the
	// Mann-Whitney U statistic divided by Positives x Negatives). NaN when
	// either class is empty.
	AUC float64
	// Thresholds are the distinct scores, highest first; FPR and TPR start
	// at (0, 0) (threshold +Inf) and then hold, for each threshold t, the
	// false and true positive rates of "score >= t", ending at (1, 1).
	Thresholds []float64
	FPR, TPR   []float64
}

// NewROC computes the ROC of scores against labels (same length; NaN
// scores are excluded). An empty class gives AUC NaN and no curve, not an
// error; different lengths are an error.
func NewROC(scores []float64, labels []bool) (ROC, error) {
	if len(scores) != len(labels) {
		return ROC{AUC: math.NaN()}, fmt.Errorf("analysis: roc: %d scores and %d labels", len(scores), len(labels))
	}
	type item struct {
		s   float64
		pos bool
	}
	var items []item
	var r ROC
	for i, s := range scores {
		if math.IsNaN(s) {
			r.Excluded++
			continue
		}
		items = append(items, item{s, labels[i]})
		if labels[i] {
			r.Positives++
		} else {
			r.Negatives++
		}
	}
	if r.Positives == 0 || r.Negatives == 0 {
		r.AUC = math.NaN()
		return r, nil
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].s > items[j].s })
	r.FPR, r.TPR = []float64{0}, []float64{0}
	var tp, fp int
	var area float64
	for i := 0; i < len(items); {
		j, dtp, dfp := i, 0, 0
		for ; j < len(items) && items[j].s == items[i].s; j++ {
			if items[j].pos {
				dtp++
			} else {
				dfp++
			}
		}
		// trapezoid over a block of ties: ties count one half
		area += float64(dfp) * (float64(tp) + float64(dtp)/2)
		tp, fp = tp+dtp, fp+dfp
		r.Thresholds = append(r.Thresholds, items[i].s)
		r.TPR = append(r.TPR, float64(tp)/float64(r.Positives))
		r.FPR = append(r.FPR, float64(fp)/float64(r.Negatives))
		i = j
	}
	r.AUC = area / float64(r.Positives*r.Negatives)
	return r, nil
}

// AUCInterval is a percentile bootstrap interval of the ROC AUC at level
// (e.g. 0.95): resamples draws of the positives and of the negatives, each
// with replacement within its class (stratified, so every draw has both),
// with the given seed. Its Estimate is the AUC of the data.
func AUCInterval(scores []float64, labels []bool, level float64, resamples int, seed uint64) (Interval, error) {
	checkLevel("AUCInterval", level, resamples)
	r, err := NewROC(scores, labels)
	if err != nil {
		return Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Level: level}, err
	}
	iv := Interval{Estimate: r.AUC, Lo: math.NaN(), Hi: math.NaN(), Level: level, N: r.Positives + r.Negatives, Excluded: r.Excluded}
	if math.IsNaN(r.AUC) {
		return iv, nil
	}
	var pos, neg []float64
	for i, s := range scores {
		switch {
		case math.IsNaN(s):
		case labels[i]:
			pos = append(pos, s)
		default:
			neg = append(neg, s)
		}
	}
	rng := newRand(seed)
	stats := make([]float64, resamples)
	ps, ns := make([]float64, len(pos)), make([]float64, len(neg))
	for b := range stats {
		for i := range ps {
			ps[i] = pos[rng.IntN(len(pos))]
		}
		for i := range ns {
			ns[i] = neg[rng.IntN(len(neg))]
		}
		stats[b] = mannWhitneyAUC(ps, ns)
	}
	sort.Float64s(stats)
	iv.Lo, iv.Hi = percentileInterval(stats, level)
	return iv, nil
}

// mannWhitneyAUC is P(pos > neg) + P(pos = neg)/2 by sorting.
func mannWhitneyAUC(pos, neg []float64) float64 {
	n := append([]float64(nil), neg...)
	sort.Float64s(n)
	var u float64
	for _, p := range pos {
		lo := sort.SearchFloat64s(n, p)                                 // negatives below p
		hi := sort.Search(len(n), func(i int) bool { return n[i] > p }) // negatives at or below p
		u += float64(lo) + float64(hi-lo)/2
	}
	return u / float64(len(pos)*len(neg))
}

// Decision is a decision's confusion counts against a label, with its
// precision and recall (NaN when undefined).
type Decision struct {
	Threshold                float64
	TP, FP, TN, FN, Excluded int
	Precision, Recall        float64
	// FPR is the false positive rate FP / (FP + TN).
	FPR float64
}

// ConfusionAt counts the decision "score >= threshold" against labels (NaN
// scores excluded).
func ConfusionAt(scores []float64, labels []bool, threshold float64) (Decision, error) {
	c := Decision{Threshold: threshold}
	if len(scores) != len(labels) {
		return c, fmt.Errorf("analysis: confusion: %d scores and %d labels", len(scores), len(labels))
	}
	for i, s := range scores {
		switch {
		case math.IsNaN(s):
			c.Excluded++
		case s >= threshold && labels[i]:
			c.TP++
		case s >= threshold:
			c.FP++
		case labels[i]:
			c.FN++
		default:
			c.TN++
		}
	}
	c.Precision, c.Recall, c.FPR = ratio(c.TP, c.TP+c.FP), ratio(c.TP, c.TP+c.FN), ratio(c.FP, c.FP+c.TN)
	return c, nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// YoudenThreshold returns the threshold t among the scores that maximises
// Youden's J = TPR - FPR of "score >= t" (the lowest such t on ties: the
// one that flags most), and that J. It needs both classes.
func YoudenThreshold(scores []float64, labels []bool) (threshold, j float64, err error) {
	r, err := NewROC(scores, labels)
	if err != nil {
		return math.NaN(), math.NaN(), err
	}
	if math.IsNaN(r.AUC) {
		return math.NaN(), math.NaN(), fmt.Errorf("analysis: youden threshold: %d positives and %d negatives, want both", r.Positives, r.Negatives)
	}
	threshold, j = math.NaN(), math.Inf(-1)
	for i, t := range r.Thresholds {
		if v := r.TPR[i+1] - r.FPR[i+1]; v >= j {
			threshold, j = t, v
		}
	}
	return threshold, j, nil
}
