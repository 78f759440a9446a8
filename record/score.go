package record

import (
	"math"
	"slices"

	"github.com/memlab/memlab/judge"
)

// ScoreKind says how a score was made.
type ScoreKind string

// The kinds of Score.
const (
	// KindExact is a score computed exactly from the gold answer or gold
	// evidence: choice accuracy, and on LoCoMo its own QA F1
	// (judge.MetricLoCoMoF1, the benchmark's lexical metric as its script
	// computes it) and session recall (retrieval.MetricSessionRecall).
	KindExact ScoreKind = "exact"
	// KindProxy is an offline proxy of a metric an LLM judges (token F1,
	// ROUGE-L, evidence coverage): always under its own proxy name, never
	// under the judged metric's.
	KindProxy ScoreKind = "proxy"
	// KindLLMJudge is an LLM judge's verdict.
	KindLLMJudge ScoreKind = "llm_judge"
)

// Score is one metric's score of one question, whatever made it: an exact
// metric, an offline proxy or an LLM judge. A record holds them all in
// Record.Scores.
type Score struct {
	// Metric is the metric's name (a judge.Metric* constant).
	Metric string
	// Value is the score on the scale Min..Max; NaN when the metric is
	// undefined for the question (e.g. evidence coverage without gold
	// statements) or when Failure is not "".
	Value float64
	// Min and Max are the bounds of the scale (0 and 1 for exact metrics
	// and proxies).
	Min, Max float64
	// Kind says how the score was made.
	Kind ScoreKind
	// Judge, Model and PromptHash identify an LLM judge: its name and
	// prompt set (e.g. "knowme/memlab"), the model that answered (or was
	// asked when no answer came) and the hash of the prompt text
	// (judge.HashText). "" for other kinds.
	Judge, Model, PromptHash string
	// Explanation is the judge's stated reason.
	Explanation string
	// Failure is "" when scored (or undefined); else why the judge gave no
	// score (see judge.Verdict.Failure). Exact metrics and proxies never
	// fail; an exact metric that needs a reference answer the question
	// lacks is marked judge.FailureNoReference (counted as no reference).
	Failure string
	// Raw is the judge's last reply verbatim, Attempts the number of judge
	// calls made, Error the text of the last error when Failure is not "".
	Raw      string
	Attempts int
	Error    string
	// Samples are the scores of the repeated judgments this score
	// aggregates (runs.RepeatedJudge; NaN for a failed one), nil for a
	// single judgment.
	Samples []float64
}

// Judged reports whether s holds a score: not failed, and defined.
func (s Score) Judged() bool { return s.Failure == "" && !math.IsNaN(s.Value) }

// Failed reports whether a judge was asked and gave no score (a question
// without reference answer, NoReference, is not a failure).
func (s Score) Failed() bool { return s.Failure != "" && !s.NoReference() }

// NoReference reports whether the question was not judged for lack of a
// reference answer (judge.FailureNoReference).
func (s Score) NoReference() bool { return s.Failure == judge.FailureNoReference }

// Normalized is Value mapped to 0..1 by the scale (NaN when not judged or
// when the scale is empty).
func (s Score) Normalized() float64 {
	if !s.Judged() || !(s.Max > s.Min) {
		return math.NaN()
	}
	return (s.Value - s.Min) / (s.Max - s.Min)
}

// Verdict returns an LLM judge's score as the judge package's Verdict.
func (s Score) Verdict() judge.Verdict {
	return judge.Verdict{Judge: s.Judge, Metric: s.Metric, Model: s.Model, RubricHash: s.PromptHash,
		Score: s.Value, Min: s.Min, Max: s.Max, Reasoning: s.Explanation, Raw: s.Raw,
		Attempts: s.Attempts, Failure: s.Failure, Error: s.Error, Samples: s.Samples}
}

// VerdictScore returns an LLM judge's verdict as a Score of KindLLMJudge.
func VerdictScore(v judge.Verdict) Score {
	return Score{Metric: v.Metric, Value: v.Score, Min: v.Min, Max: v.Max, Kind: KindLLMJudge,
		Judge: v.Judge, Model: v.Model, PromptHash: v.RubricHash, Explanation: v.Reasoning, Raw: v.Raw,
		Attempts: v.Attempts, Failure: v.Failure, Error: v.Error, Samples: v.Samples}
}

// ProxyScore returns an offline proxy's value (0..1, NaN when undefined)
// as a Score of KindProxy.
func ProxyScore(metric string, v float64) Score {
	return Score{Metric: metric, Value: v, Min: 0, Max: 1, Kind: KindProxy}
}

// ExactScore returns an exact metric's value (0..1) as a Score of
// KindExact.
func ExactScore(metric string, v float64) Score {
	return Score{Metric: metric, Value: v, Min: 0, Max: 1, Kind: KindExact}
}

// offlineKind is the kind of an offline metric of a record written before
// Record.Scores (its Judges map): choice accuracy is exact, every other a
// proxy.
func offlineKind(metric string) ScoreKind {
	if metric == judge.MetricChoiceAccuracy {
		return KindExact
	}
	return KindProxy
}

// Offline returns the score of an exact metric or proxy by name (not an
// LLM judge's); ok is false when r has none.
func (r Record) Offline(metric string) (s Score, ok bool) {
	for _, s := range r.Scores {
		if s.Kind != KindLLMJudge && s.Metric == metric {
			return s, true
		}
	}
	return Score{}, false
}

// SetOffline sets the score of an exact metric or proxy (s.Kind not
// KindLLMJudge), replacing r's score of the same metric and kind. Scores
// keeps the exact metrics and proxies first, sorted by metric name (as
// Unmarshal reads format 1), then the LLM judges' scores in their order.
func (r *Record) SetOffline(s Score) {
	at := len(r.Scores)
	for i, x := range r.Scores {
		if x.Kind == s.Kind && x.Metric == s.Metric {
			r.Scores[i] = s
			return
		}
		if x.Kind == KindLLMJudge || x.Metric > s.Metric {
			at = i
			break
		}
	}
	r.Scores = slices.Insert(r.Scores, at, s)
}

// Verdicts returns r's LLM judges' scores as verdicts, in order: a view of
// the KindLLMJudge entries of Scores (JudgeVerdicts counts them).
func (r Record) Verdicts() []judge.Verdict {
	var out []judge.Verdict
	for _, s := range r.Scores {
		if s.Kind == KindLLMJudge {
			out = append(out, s.Verdict())
		}
	}
	return out
}

// SetVerdicts replaces r's LLM judges' scores by vs (in order), after the
// exact metrics and proxies, which it keeps.
func (r *Record) SetVerdicts(vs []judge.Verdict) {
	kept := make([]Score, 0, len(r.Scores)+len(vs))
	for _, s := range r.Scores {
		if s.Kind != KindLLMJudge {
			kept = append(kept, s)
		}
	}
	for _, v := range vs {
		kept = append(kept, VerdictScore(v))
	}
	r.Scores = kept
}

// VerdictScores returns verdicts as Scores of KindLLMJudge, in order.
func VerdictScores(vs ...judge.Verdict) []Score {
	out := make([]Score, len(vs))
	for i, v := range vs {
		out[i] = VerdictScore(v)
	}
	return out
}
