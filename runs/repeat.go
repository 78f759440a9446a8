package runs

import (
	"context"
	"fmt"
	"github.com/memlab/memlab/component"
	"math"
	"sort"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/judge"
)

// Aggregations of repeated judgments.
const (
	AggregateMajority = "majority" // the most frequent rounded score (ties: the median of the tied ones)
	AggregateMedian   = "median"   // the median score
)

// RepeatedJudge judges each item with every one of samples (the same
// judge built with judge.Config.Sample = 0, 1, 2, ... and a temperature
// above 0, so that each is a separate, cached call) and returns one
// verdict per metric whose score aggregates the judged samples by
// AggregateMajority or AggregateMedian, with the samples' scores in
// Verdict.Samples (NaN for a failed sample) and Attempts summed. A verdict
// fails only when every sample failed. Its name is the first sample's.
func RepeatedJudge(samples []Judge, aggregate string) (Judge, error) {
	if len(samples) == 0 {
		return nil, fmt.Errorf("runs: repeated judge: no samples")
	}
	if aggregate != AggregateMajority && aggregate != AggregateMedian {
		return nil, fmt.Errorf("runs: repeated judge: aggregate %q, want %s or %s", aggregate, AggregateMajority, AggregateMedian)
	}
	return repeated{samples, aggregate}, nil
}

type repeated struct {
	samples []Judge
	agg     string
}

func (r repeated) Name() string { return r.samples[0].Name() }

// Version is the samples' versions and the aggregation.
func (r repeated) Version() string {
	var vs []string
	for _, s := range r.samples {
		if v, ok := s.(Versioned); ok {
			vs = append(vs, v.Version())
		}
	}
	return fmt.Sprintf("repeat=%d,aggregate=%s,[%s]", len(r.samples), r.agg, strings.Join(vs, " | "))
}

// Spec is the samples' specs, in order, and the aggregation.
func (r repeated) Spec() component.Spec {
	samples := make([]component.Spec, len(r.samples))
	for i, s := range r.samples {
		samples[i] = describe(s, s.Name())
	}
	return component.New("repeated-judge").With("aggregate", r.agg).With("samples", samples)
}

func (r repeated) Judge(ctx context.Context, q datasets.Question, answer string, retrieved []string) []judge.Verdict {
	byMetric := map[string][]judge.Verdict{}
	var order []string
	for _, s := range r.samples {
		for _, v := range s.Judge(ctx, q, answer, retrieved) {
			if _, ok := byMetric[v.Metric]; !ok {
				order = append(order, v.Metric)
			}
			byMetric[v.Metric] = append(byMetric[v.Metric], v)
		}
	}
	out := make([]judge.Verdict, 0, len(order))
	for _, m := range order {
		vs := byMetric[m]
		agg := vs[0]
		agg.Judge = r.Name()
		agg.Attempts = 0
		agg.Samples = make([]float64, len(vs))
		var ok []float64
		var reasons []string
		for i, v := range vs {
			agg.Attempts += v.Attempts
			agg.Samples[i] = math.NaN()
			if v.Judged() {
				agg.Samples[i] = v.Score
				ok = append(ok, v.Score)
				reasons = append(reasons, v.Reasoning)
			}
		}
		if len(ok) == 0 {
			// Every sample failed: the first failure stands.
			out = append(out, agg)
			continue
		}
		agg.Failure, agg.Error = "", ""
		if r.agg == AggregateMajority {
			agg.Score = majority(ok)
		} else {
			agg.Score = median(ok)
		}
		agg.Reasoning = fmt.Sprintf("%s of %d samples %v; first reason: %s", r.agg, len(vs), agg.Samples, reasons[0])
		out = append(out, agg)
	}
	return out
}

// majority is the most frequent rounded value; ties give the median of
// the tied values.
func majority(xs []float64) float64 {
	count := map[float64]int{}
	best := 0
	for _, x := range xs {
		r := math.Round(x)
		count[r]++
		if count[r] > best {
			best = count[r]
		}
	}
	var tied []float64
	for v, n := range count {
		if n == best {
			tied = append(tied, v)
		}
	}
	return median(tied)
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
