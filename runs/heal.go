package runs

import (
	"strings"

	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
)

// Prefixes of Record.Failure, by the step that failed. A rerun does again
// the failed step and those after it, and reuses those before it.
const (
	failRetrieve   = "retrieve: "
	failReadChoice = "read (multiple choice): "
	failReadFree   = "read (free text): "
)

// retrievedOK reports whether r's retrieval succeeded: its hits can be
// reused.
func retrievedOK(r record.Record) bool { return !strings.HasPrefix(r.Failure, failRetrieve) }

// choiceReadOK reports whether r's multiple-choice read succeeded (or had
// nothing to do): its choice can be reused.
func choiceReadOK(r record.Record) bool {
	return r.Failure == "" || strings.HasPrefix(r.Failure, failReadFree)
}

// retryableVerdict reports whether v failed in a way that asking again may
// mend: every failure but a missing rubric, missing gold statements or a
// missing reference answer (for which no call is made, and none would
// succeed).
func retryableVerdict(v judge.Verdict) bool {
	switch v.Failure {
	case "", judge.FailureNoRubric, judge.FailureNoGold, judge.FailureNoReference:
		return false
	}
	return true
}

func anyRetryable(vs []judge.Verdict) bool {
	for _, v := range vs {
		if retryableVerdict(v) {
			return true
		}
	}
	return false
}

// judgeSpans splits r's verdicts by the n judges of its run (JudgeVerdicts)
// and returns those that follow (a Rejudge's); ok is false when r does not
// say which judge returned which verdict (a record written before
// JudgeVerdicts was kept).
func judgeSpans(r record.Record, n int) (spans [][]judge.Verdict, rest []judge.Verdict, ok bool) {
	vs := r.Verdicts()
	if len(r.JudgeVerdicts) != n {
		return nil, vs, false
	}
	off := 0
	spans = make([][]judge.Verdict, n)
	for i, c := range r.JudgeVerdicts {
		if c < 0 || off+c > len(vs) {
			return nil, vs, false
		}
		spans[i] = vs[off : off+c]
		off += c
	}
	return spans, vs[off:], true
}

// ownVerdicts is the number of r's verdicts its run's judges returned (0
// when r does not say): a Rejudge's follow them.
func ownVerdicts(r record.Record) int {
	n := 0
	for _, c := range r.JudgeVerdicts {
		n += c
	}
	return min(max(n, 0), len(r.Verdicts()))
}

// needsRetry reports whether a stored record of a run with n judges has a
// step to do again: a failed retrieval or read, or a retryable failed
// verdict of one of the run's judges (a Rejudge's verdicts are left to
// Rejudge).
func needsRetry(r record.Record, n int) bool {
	if r.Failure != "" {
		return true
	}
	if n == 0 {
		return false
	}
	spans, _, ok := judgeSpans(r, n)
	if !ok {
		return anyRetryable(r.Verdicts())
	}
	for _, s := range spans {
		if anyRetryable(s) {
			return true
		}
	}
	return false
}

// mergeVerdicts returns the verdicts of a record judged again: fresh (the
// run's judges' verdicts), then those of old that fresh does not replace
// (same judge and metric), in their order.
func mergeVerdicts(fresh, old []judge.Verdict) []judge.Verdict {
	type key struct{ judge, metric string }
	seen := make(map[key]bool, len(fresh))
	for _, v := range fresh {
		seen[key{v.Judge, v.Metric}] = true
	}
	out := fresh
	for _, v := range old {
		if !seen[key{v.Judge, v.Metric}] {
			out = append(out, v)
		}
	}
	return out
}
