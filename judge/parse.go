package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/text"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Parse outcomes of a judge reply. ParseVerdict and ParseObject return
// errors that wrap one of them, so errors.Is names the outcome; FailureOf
// turns such an error into the Verdict.Failure string.
var (
	// ErrNoJSON: the reply holds no JSON object, even after repair.
	ErrNoJSON = errors.New("no JSON object")
	// ErrMissingScore: the object has no score field, or its value is not
	// a number (nor a string holding one).
	ErrMissingScore = errors.New("missing score")
	// ErrOutOfRange: the score is a number outside the judge's scale.
	ErrOutOfRange = errors.New("score out of range")
)

// Failure kinds recorded in Verdict.Failure ("" means judged).
const (
	FailureNoJSON       = "no_json"
	FailureOutOfRange   = "out_of_range"
	FailureMissingScore = "missing_score"
	// FailureCallFailed prefixes the kind of a failed model call:
	// "call_failed: timeout", "call_failed: rate_limit", ...
	FailureCallFailed = "call_failed"
	// FailureNoRubric: no rubric template for the question's task, so no
	// call was made.
	FailureNoRubric = "no_rubric"
	// FailureNoGold: the question has no gold evidence statements, so a
	// judge of memory recall has nothing to compare with; no call was made.
	FailureNoGold = "no_gold"
	// FailureNoReference: the question has no reference answer
	// (datasets.Question.HasReference), so an answer judge has nothing to
	// grade against; no call was made. Such verdicts are counted apart
	// (Summary.NoReference, "no reference"), neither judged nor failed.
	FailureNoReference = "no_reference"
)

// FailureOf returns the Verdict.Failure kind of a parse error: FailureNoJSON,
// FailureMissingScore or FailureOutOfRange; "" for nil, and
// FailureNoJSON for any other error.
func FailureOf(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrOutOfRange):
		return FailureOutOfRange
	case errors.Is(err, ErrMissingScore):
		return FailureMissingScore
	}
	return FailureNoJSON
}

// ParseVerdict reads a score and its reasoning from a judge's reply. It
// accepts what judges write in practice:
//
//   - a clean JSON object;
//   - the object inside a ``` or ```json code fence;
//   - prose around the object (the outermost {...} is taken);
//   - single-quoted keys and strings, and trailing commas (repaired);
//   - the score as a number (integer or float) or as a string holding one.
//
// field names the score key (matched exactly, then ignoring case). The
// reasoning is the first string value among the keys: field with a
// "_score" suffix replaced by "_reason", "reasoning", "reason", then any key
// containing "reason"; "" when there is none.
//
// The errors wrap ErrNoJSON (no object, or prose only), ErrMissingScore (no
// such field, or not a finite number) or ErrOutOfRange (outside [min, max]).
// On error the score is NaN, never 0.
func ParseVerdict(raw, field string, min, max float64) (score float64, reasoning string, err error) {
	obj, err := ParseObject(raw)
	if err != nil {
		return math.NaN(), "", err
	}
	score, err = ScoreField(obj, field, min, max)
	return score, ReasonField(obj, field), err
}

// ParseObject extracts the JSON object of a judge's reply with the repairs
// ParseVerdict describes. The error wraps ErrNoJSON.
func ParseObject(raw string) (map[string]any, error) {
	if b, ok := llm.ReplyJSON(raw); ok {
		var obj map[string]any
		if err := json.Unmarshal(b, &obj); err == nil {
			return obj, nil
		}
	}
	return nil, fmt.Errorf("judge: parse reply %q: %w", text.Clip(raw, 80), ErrNoJSON)
}

// ScoreField reads obj[field] as a number in [min, max]. The error wraps
// ErrMissingScore or ErrOutOfRange; the score is then NaN.
func ScoreField(obj map[string]any, field string, min, max float64) (float64, error) {
	v, ok := lookup(obj, field)
	if !ok {
		return math.NaN(), fmt.Errorf("judge: parse reply: field %q absent (keys: %s): %w", field, keys(obj), ErrMissingScore)
	}
	var x float64
	switch t := v.(type) {
	case float64:
		x = t
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil {
			return math.NaN(), fmt.Errorf("judge: parse reply: field %q = %q is not a number: %w", field, t, ErrMissingScore)
		}
		x = f
	default:
		return math.NaN(), fmt.Errorf("judge: parse reply: field %q = %v (%T) is not a number: %w", field, v, v, ErrMissingScore)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return math.NaN(), fmt.Errorf("judge: parse reply: field %q = %v is not finite: %w", field, x, ErrMissingScore)
	}
	if x < min || x > max {
		return math.NaN(), fmt.Errorf("judge: parse reply: field %q = %v outside [%v, %v]: %w", field, x, min, max, ErrOutOfRange)
	}
	return x, nil
}

// ReasonField returns the reasoning that goes with the score field, as
// ParseVerdict describes; "" when there is none.
func ReasonField(obj map[string]any, field string) string {
	names := []string{}
	if base, ok := strings.CutSuffix(field, "_score"); ok {
		names = append(names, base+"_reason")
	}
	names = append(names, "reasoning", "reason")
	for _, n := range names {
		if v, ok := lookup(obj, n); ok {
			if s, ok := v.(string); ok {
				return s
			}
		}
	}
	// Any other key holding "reason", in a stable order.
	best := ""
	for k := range obj {
		if strings.Contains(strings.ToLower(k), "reason") {
			if _, ok := obj[k].(string); ok && (best == "" || k < best) {
				best = k
			}
		}
	}
	if best != "" {
		return obj[best].(string)
	}
	return ""
}

func lookup(obj map[string]any, field string) (any, bool) {
	if v, ok := obj[field]; ok {
		return v, true
	}
	for k, v := range obj {
		if strings.EqualFold(strings.TrimSpace(k), field) {
			return v, true
		}
	}
	return nil, false
}

func keys(obj map[string]any) string {
	ks := make([]string, 0, len(obj))
	for k := range obj {
		ks = append(ks, strconv.Quote(k))
	}
	sort.Strings(ks)
	if len(ks) == 0 {
		return "none"
	}
	return strings.Join(ks, ", ")
}
