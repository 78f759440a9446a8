package timeline

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/retrieval"
)

// DevHalf reports whether a sample question is in the half the abstention
// threshold is fitted on: odd question numbers (q01, q03 ...).
func devHalf(q datasets.Question) bool {
	i := strings.LastIndexByte(q.ID, 'q')
	n, err := strconv.Atoi(q.ID[i+1:])
	return err == nil && n%2 == 1
}

type abstainRow struct {
	q     datasets.Question
	score float64
	undet bool
}

// abstainScores runs the default memory over the sample in asked-at order
// and returns each question's state hit.
func abstainScores(t *testing.T, cfg Config) []abstainRow {
	t.Helper()
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	inc := retrieval.NewIncremental(d, m)
	var out []abstainRow
	for _, q := range retrieval.SortByAskedAt(d.Questions) {
		hits, err := inc.Retrieve(t.Context(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		last := hits[len(hits)-1]
		if last.Kind != retrieval.KindState {
			t.Fatalf("%s: last hit is %q, want the state hit", q.ID, last.Kind)
		}
		out = append(out, abstainRow{q, last.Score, last.Undetermined})
	}
	return out
}

// youden returns the score threshold maximising TPR - FPR of score >= t
// (the lowest on ties) and the AUC.
func youden(rows []abstainRow) (float64, float64) {
	var pos, neg []float64
	for _, r := range rows {
		if r.q.Task == "unanswerable" {
			pos = append(pos, r.score)
		} else {
			neg = append(neg, r.score)
		}
	}
	var ts []float64
	for _, r := range rows {
		ts = append(ts, r.score)
	}
	sort.Float64s(ts)
	best, bestJ := math.NaN(), math.Inf(-1)
	rate := func(xs []float64, t float64) float64 {
		n := 0
		for _, x := range xs {
			if x >= t {
				n++
			}
		}
		return float64(n) / float64(len(xs))
	}
	for i := len(ts) - 1; i >= 0; i-- {
		if j := rate(pos, ts[i]) - rate(neg, ts[i]); j >= bestJ {
			best, bestJ = ts[i], j
		}
	}
	var u float64
	for _, p := range pos {
		for _, n := range neg {
			switch {
			case p > n:
				u++
			case p == n:
				u += 0.5
			}
		}
	}
	return best, u / float64(len(pos)*len(neg))
}

// TestAbstainThresholdDefault refits DefaultAbstainThreshold: Youden's J on
// the odd-numbered questions of the sample (the dev half), and prints the
// AUC of both halves with -v. The default must be that fit, rounded to two
// decimals.
func TestAbstainThresholdDefault(t *testing.T) {
	cfg := DefaultConfig()
	rows := abstainScores(t, cfg)
	var dev, eval []abstainRow
	for _, r := range rows {
		if devHalf(r.q) {
			dev = append(dev, r)
		} else {
			eval = append(eval, r)
		}
	}
	th, aucDev := youden(dev)
	_, aucEval := youden(eval)
	_, aucAll := youden(rows)
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%-32s dev=%-5v %-20s %.3f %v\n", r.q.ID, devHalf(r.q), r.q.Task, r.score, r.undet)
	}
	t.Logf("\n%sYouden threshold on the dev half %.4f; AUC dev %.3f, eval %.3f, all %.3f", b.String(), th, aucDev, aucEval, aucAll)
	if got := math.Round(th*100) / 100; got != DefaultAbstainThreshold {
		t.Errorf("DefaultAbstainThreshold = %v, the dev-half fit is %.4f (%.2f)", DefaultAbstainThreshold, th, got)
	}
}
