package judge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/memlab/memlab/component"
	"math"
	"sort"
	"strings"

	"github.com/memlab/memlab/llm"
)

// DefaultRetries is the number of extra calls made for a reply that cannot
// be parsed.
const DefaultRetries = 2

// Config sets how a judge calls its model.
type Config struct {
	// Model overrides the judge role's model ("" = the role's).
	Model string
	// Retries is the number of extra calls made when a reply cannot be
	// parsed (no JSON, missing or out-of-range score): 0 means
	// DefaultRetries, a negative value means none. Each retry is a new call
	// with ChatRequest.Sample incremented, so a cache does not return the
	// same reply. A failed call (*llm.Error) is not retried here: the
	// client has already retried it.
	Retries int
	// MaxTokens caps the reply (0 = server default).
	MaxTokens int
	// Temperature is sent with every judge call (0 = the server's default);
	// repeated judging (Sample) needs it above 0 to draw different replies.
	Temperature float64
	// Sample numbers this judge among repeated judges of the same items
	// (runs.RepeatedJudge): it is part of each call's cache key, so
	// repeats are separate calls, and 0 keeps the keys of a single judge.
	Sample int
	// Seed is sent when HasSeed is true, for endpoints that honour it.
	Seed    int
	HasSeed bool
	// TextFormat asks for free text instead of a JSON object. The client
	// then returns any reply, and ParseVerdict parses it leniently (single
	// quotes, trailing commas); with a JSON object format the client
	// itself rejects replies that hold no valid JSON object, and those
	// count as FailureNoJSON with the client's clipped copy as Raw.
	TextFormat bool
}

func (c Config) retries() int {
	switch {
	case c.Retries < 0:
		return 0
	case c.Retries == 0:
		return DefaultRetries
	}
	return c.Retries
}

// Verdict is one judge's verdict on one item, as recorded per question.
type Verdict struct {
	// Judge names the judge and its prompt set (e.g. "knowme/memlab").
	Judge string
	// Metric is the judged metric's name (a Metric* constant).
	Metric string
	// Model is the model that answered (as the server says), or the model
	// asked for when no answer came.
	Model string
	// RubricHash is the hash of the prompt text used (HashText).
	RubricHash string
	// Score is the parsed score, NaN when Failure is not "".
	Score float64
	// Min and Max are the bounds of the scale.
	Min, Max float64
	// Reasoning is the judge's stated reason, Raw its last reply verbatim.
	Reasoning, Raw string
	// Attempts is the number of judge calls made (1 + retries used).
	Attempts int
	// Failure is "" when judged; else FailureNoJSON, FailureOutOfRange,
	// FailureMissingScore, FailureNoRubric, FailureNoGold, or
	// "call_failed: KIND" with KIND an llm.Err* kind (or "error").
	Failure string
	// Error is the text of the last error when Failure is not "".
	Error string
	// Samples are the scores of the repeated judgments this verdict
	// aggregates (runs.RepeatedJudge; NaN for a failed one), nil for a
	// single judgment.
	Samples []float64
}

// Judged reports whether the verdict holds a score.
func (v Verdict) Judged() bool { return v.Failure == "" }

// NoReference reports whether the item was not judged for lack of a
// reference answer (FailureNoReference): counted apart, not as a failure.
func (v Verdict) NoReference() bool { return v.Failure == FailureNoReference }

// HashText is the version of a prompt template: the first 16 hex digits of
// the SHA-256 of its text.
func HashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// scale is one score field read from a reply.
type scale struct {
	metric   string
	field    string
	min, max float64
}

// call runs one judge prompt and reads every scale from the reply,
// retrying unparseable replies. It returns one verdict per scale; a reply
// is accepted when every scale parses, and after the last retry each
// verdict keeps its own outcome on the last reply.
func call(ctx context.Context, c llm.Chatter, cfg Config, judge, hash string, msgs []llm.Message, scales []scale) []Verdict {
	out := make([]Verdict, len(scales))
	for i, s := range scales {
		out[i] = Verdict{Judge: judge, Metric: s.metric, Model: cfg.Model, RubricHash: hash,
			Score: math.NaN(), Min: s.min, Max: s.max}
	}
	for attempt := 0; attempt <= cfg.retries(); attempt++ {
		resp, err := c.Chat(ctx, request(cfg, msgs, attempt))
		for i := range out {
			out[i].Attempts = attempt + 1
		}
		if err != nil {
			var le *llm.Error
			if errors.As(err, &le) && le.Kind == llm.ErrBadOutput {
				// The client found no JSON object in the reply: an
				// unparseable reply, retried like one.
				for i := range out {
					out[i].Model, out[i].Raw = le.Model, le.Message
					out[i].Failure, out[i].Error = FailureNoJSON, err.Error()
				}
				continue
			}
			kind := "error"
			if le != nil {
				kind = le.Kind
				for i := range out {
					out[i].Model = le.Model
				}
			}
			for i := range out {
				out[i].Raw = ""
				out[i].Failure, out[i].Error = FailureCallFailed+": "+kind, err.Error()
			}
			return out
		}
		ok := true
		obj, perr := ParseObject(resp.Content)
		for i, s := range scales {
			v := &out[i]
			v.Raw = resp.Content
			if resp.Model != "" {
				v.Model = resp.Model
			}
			e := perr
			if e == nil {
				v.Score, e = ScoreField(obj, s.field, s.min, s.max)
				v.Reasoning = ReasonField(obj, s.field)
			}
			if e != nil {
				v.Score, v.Failure, v.Error = math.NaN(), FailureOf(e), e.Error()
				ok = false
				continue
			}
			v.Failure, v.Error = "", ""
		}
		if ok {
			return out
		}
	}
	return out
}

// request is the judge call of attempt (0 = the first) with msgs.
func request(cfg Config, msgs []llm.Message, attempt int) llm.ChatRequest {
	format := llm.FormatJSONObject
	if cfg.TextFormat {
		format = llm.FormatText
	}
	return llm.ChatRequest{Role: llm.RoleJudge, Model: cfg.Model, Messages: msgs, Temperature: cfg.Temperature,
		MaxTokens: cfg.MaxTokens, ResponseFormat: format, Sample: cfg.Sample*64 + attempt, Seed: cfg.Seed, HasSeed: cfg.HasSeed}
}

// MaxAttempts is the most calls a judge makes for one item: the first and
// its retries of unparseable replies.
func (c Config) MaxAttempts() int { return 1 + c.retries() }

// Summary aggregates verdicts of one metric.
type Summary struct {
	// Metric is the verdicts' metric name (names joined by ", " when they
	// are mixed, which makes the scale-based numbers NaN).
	Metric string
	// Judged counts verdicts with a score, Failed those without, except
	// the NoReference ones: questions without reference answer, counted
	// apart (Verdict.NoReference).
	Judged, Failed, NoReference int
	// Failures counts the failed verdicts by Failure kind.
	Failures map[string]int
	// Mean is the mean score over judged verdicts (NaN when none);
	// Normalized is Mean / Max.
	Mean, Normalized float64
	// Distribution counts judged scores rounded to the nearest integer.
	Distribution map[int]int
	// HallucinationRate is the share of judged scores equal to the scale's
	// minimum, PerfectRate the share equal to its maximum.
	HallucinationRate, PerfectRate float64
}

// Aggregate summarizes verdicts: failures are excluded from every number
// and counted, verdicts of questions without reference answer are counted
// apart (NoReference). With n judged scores s_i on the scale [min, max]:
//
//	Mean              = Σ s_i / n
//	Normalized        = Mean / max
//	HallucinationRate = #{s_i = min} / n
//	PerfectRate       = #{s_i = max} / n
//
// The numbers are NaN when n = 0, and when the verdicts do not share one
// metric and scale.
func Aggregate(vs []Verdict) Summary {
	s := Summary{Failures: map[string]int{}, Distribution: map[int]int{}}
	metrics := map[string]bool{}
	var names []string
	mixed := false
	sum, atMin, atMax := 0.0, 0, 0
	for i, v := range vs {
		if !metrics[v.Metric] {
			metrics[v.Metric] = true
			names = append(names, v.Metric)
		}
		if i > 0 && (v.Metric != vs[0].Metric || v.Min != vs[0].Min || v.Max != vs[0].Max) {
			mixed = true
		}
		if v.NoReference() {
			s.NoReference++
			continue
		}
		if !v.Judged() {
			s.Failed++
			s.Failures[v.Failure]++
			continue
		}
		s.Judged++
		sum += v.Score
		s.Distribution[int(math.Round(v.Score))]++
		if v.Score == v.Min {
			atMin++
		}
		if v.Score == v.Max {
			atMax++
		}
	}
	sort.Strings(names)
	s.Metric = strings.Join(names, ", ")
	s.Mean, s.Normalized, s.HallucinationRate, s.PerfectRate = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if s.Judged == 0 || mixed {
		return s
	}
	n := float64(s.Judged)
	s.Mean = sum / n
	if vs[0].Max != 0 {
		s.Normalized = s.Mean / vs[0].Max
	}
	s.HallucinationRate = float64(atMin) / n
	s.PerfectRate = float64(atMax) / n
	return s
}

// String reads e.g. "QA consistency (LLM judge): 8 judged / 2 failed, mean
// 2.25 (normalized 0.750)", with ", 3 no reference" after the counts when
// some questions had no reference answer.
func (s Summary) String() string {
	out := fmt.Sprintf("%s: %d judged / %d failed", s.Metric, s.Judged, s.Failed)
	if s.NoReference > 0 {
		out += fmt.Sprintf(", %d no reference", s.NoReference)
	}
	if !math.IsNaN(s.Mean) {
		out += fmt.Sprintf(", mean %.2f (normalized %.3f)", s.Mean, s.Normalized)
	}
	return out
}

func nan() float64 { return math.NaN() }

// spec is the component spec of a judge of the given kind: where its calls
// go (llm.ModelSpec), the settings that change its verdicts, and the hash
// of its prompts.
func spec(kind string, c llm.Chatter, cfg Config, prompts string) component.Spec {
	s := component.New(kind).With("retries", cfg.retries()).With("max_tokens", cfg.MaxTokens).
		With("text_format", cfg.TextFormat).With("prompts", HashText(prompts)).With("temperature", cfg.Temperature).
		With("sample", cfg.Sample).Part("model", llm.ModelSpec(c, llm.RoleJudge, cfg.Model))
	if cfg.HasSeed {
		s = s.With("seed", cfg.Seed)
	}
	return s
}

// version is a judge's Version: where its calls go (llm.Target), the
// settings that change its verdicts, and the hash of its prompts.
func version(c llm.Chatter, cfg Config, prompts string) string {
	v := fmt.Sprintf("target=%s,retries=%d,max_tokens=%d,text=%t,prompts=%s",
		llm.Target(c, llm.RoleJudge, cfg.Model), cfg.retries(), cfg.MaxTokens, cfg.TextFormat, HashText(prompts))
	if cfg.Temperature != 0 {
		v += fmt.Sprintf(",temperature=%g", cfg.Temperature)
	}
	if cfg.Sample != 0 {
		v += fmt.Sprintf(",sample=%d", cfg.Sample)
	}
	if cfg.HasSeed {
		v += fmt.Sprintf(",seed=%d", cfg.Seed)
	}
	return v
}
