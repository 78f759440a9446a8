package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
)

// Float is a float64 whose JSON form keeps what encoding/json refuses:
// NaN (undefined for this question) is null, infinities are the strings
// "+Inf" and "-Inf". Records and manifests store their scores as Float.
type Float float64

// MarshalJSON writes null for NaN, "+Inf"/"-Inf" for infinities, else the
// shortest decimal that reads back to the same float64.
func (f Float) MarshalJSON() ([]byte, error) {
	x := float64(f)
	switch {
	case math.IsNaN(x):
		return []byte("null"), nil
	case math.IsInf(x, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(x, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *Float) UnmarshalJSON(b []byte) error {
	switch s := string(bytes.TrimSpace(b)); s {
	case "null":
		*f = Float(math.NaN())
	case `"+Inf"`:
		*f = Float(math.Inf(1))
	case `"-Inf"`:
		*f = Float(math.Inf(-1))
	default:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("want a number, null, \"+Inf\" or \"-Inf\", got %.40s", s)
		}
		*f = Float(x)
	}
	return nil
}

func floatsJSON(xs []float64) []Float {
	if xs == nil {
		return nil
	}
	out := make([]Float, len(xs))
	for i, x := range xs {
		out[i] = Float(x)
	}
	return out
}

func floatsOf(xs []Float) []float64 {
	if xs == nil {
		return nil
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// JSONFormat is the version of the record's JSON form that Marshal
// writes: 2 holds every score in one "scores" list (Record.Scores) and the
// retrieval scores of the ranked traces in "rank_scores"; its optional
// "stage_ms" (the stage times, Record.Stages, in milliseconds) is absent
// from records written before memlab kept them, which read back with
// Stages.Measured false. Format 1 (no
// "format" key) held the retrieval scores in "scores", the exact metrics
// and proxies in a "judges" map and the LLM judges' verdicts in a
// "verdicts" list; Unmarshal reads both.
const JSONFormat = 2

// recordJSON is the stored and exported form of a Record (one JSON object
// per record in the run store and in JSONL exports).
type recordJSON struct {
	Format         int             `json:"format,omitempty"` // 0 = format 1
	QuestionID     string          `json:"question_id"`
	CorpusID       string          `json:"corpus_id"`
	Task           string          `json:"task,omitempty"`
	Dimension      string          `json:"dimension,omitempty"`
	System         string          `json:"system"`
	Reader         string          `json:"reader"`
	K              int             `json:"k"`
	Visible        int             `json:"visible"`
	Ranked         []string        `json:"ranked"`
	RankScores     []Float         `json:"rank_scores,omitempty"`
	Retrieval      scoreJSON       `json:"retrieval"`
	Hits           []hitJSON       `json:"hits"`
	ContextIDs     []string        `json:"context_ids"`
	Choice         string          `json:"choice,omitempty"`
	Correct        string          `json:"correct,omitempty"`
	ChoiceOutcome  string          `json:"choice_outcome,omitempty"`
	Answer         string          `json:"answer"`
	AnswerTraceIDs []string        `json:"answer_trace_ids,omitempty"`
	Abstained      bool            `json:"abstained"`
	Scores         json.RawMessage `json:"scores"` // format 2: []answerScoreJSON; format 1: []Float (RankScores)
	JudgeVerdicts  []int           `json:"judge_verdicts,omitempty"`
	Failure        string          `json:"failure,omitempty"`
	LatencyMS      Float           `json:"latency_ms"`
	StagesMS       *stagesJSON     `json:"stage_ms,omitempty"` // absent: not measured (older records)
	Usage          *usageJSON      `json:"usage,omitempty"`
	// Format 1 only: read, never written.
	Judges   map[string]Float `json:"judges,omitempty"`
	Verdicts []verdictJSON    `json:"verdicts,omitempty"`
}

// answerScoreJSON is one Score.
type answerScoreJSON struct {
	Metric      string    `json:"metric"`
	Kind        ScoreKind `json:"kind"`
	Value       Float     `json:"value"`
	Min         Float     `json:"min"`
	Max         Float     `json:"max"`
	Judge       string    `json:"judge,omitempty"`
	Model       string    `json:"model,omitempty"`
	PromptHash  string    `json:"prompt_hash,omitempty"`
	Explanation string    `json:"explanation,omitempty"`
	Failure     string    `json:"failure,omitempty"`
	Error       string    `json:"error,omitempty"`
	Raw         string    `json:"raw,omitempty"`
	Attempts    int       `json:"attempts,omitempty"`
	Samples     []Float   `json:"samples,omitempty"`
}

// stagesJSON is Record.Stages in milliseconds; written when measured.
type stagesJSON struct {
	Retrieve Float `json:"retrieve"`
	Read     Float `json:"read"`
	Judge    Float `json:"judge"`
}

// ms is d in milliseconds; duration reads it back to the nanosecond.
func ms(d time.Duration) Float { return Float(float64(d) / float64(time.Millisecond)) }

func duration(ms Float) time.Duration {
	return time.Duration(math.Round(float64(ms) * float64(time.Millisecond)))
}

// usageJSON is Record.Usage; absent when no model was called.
type usageJSON struct {
	Retrieve llm.TallyCounts `json:"retrieve"`
	Read     llm.TallyCounts `json:"read"`
	Judge    llm.TallyCounts `json:"judge"`
}

type scoreJSON struct {
	K          int   `json:"k"`
	HasGold    bool  `json:"has_gold"`
	RecallFlat Float `json:"recall_flat"`
	AllAll     Float `json:"all_all"`
	AllAny     Float `json:"all_any"`
	AnyAll     Float `json:"any_all"`
	AnyAny     Float `json:"any_any"`
	MRR        Float `json:"mrr"`
	NDCG       Float `json:"ndcg"`
}

type hitJSON struct {
	UnitID   string   `json:"unit_id"`
	TraceIDs []string `json:"trace_ids"`
	Score    Float    `json:"score"`
	Text     string   `json:"text"`
	Kind     string   `json:"kind,omitempty"`
	Time     string   `json:"time,omitempty"` // RFC 3339 with nanoseconds; "" = unknown
	// Undetermined is a state summary's abstention decision.
	Undetermined bool `json:"undetermined,omitempty"`
}

// verdictJSON is a verdict of format 1.
type verdictJSON struct {
	Judge      string  `json:"judge"`
	Metric     string  `json:"metric"`
	Model      string  `json:"model,omitempty"`
	RubricHash string  `json:"rubric_hash,omitempty"`
	Score      Float   `json:"score"`
	Min        Float   `json:"min"`
	Max        Float   `json:"max"`
	Reasoning  string  `json:"reasoning,omitempty"`
	Raw        string  `json:"raw,omitempty"`
	Attempts   int     `json:"attempts"`
	Failure    string  `json:"failure,omitempty"`
	Error      string  `json:"error,omitempty"`
	Samples    []Float `json:"samples,omitempty"`
}

// Marshal returns r as one line of JSON (the run store's and the
// JSONL export's form): snake_case keys, NaN as null, infinities as
// "+Inf"/"-Inf", times in RFC 3339 with nanoseconds, latency and stage
// times in milliseconds.
func Marshal(r Record) ([]byte, error) {
	j := recordJSON{
		QuestionID: r.QuestionID, CorpusID: r.CorpusID, Task: r.Task, Dimension: r.Dimension,
		System: r.System, Reader: r.Reader, K: r.K, Visible: r.Visible,
		Format: JSONFormat, Ranked: r.Ranked, RankScores: floatsJSON(r.RankScores), ContextIDs: r.ContextIDs,
		Choice: r.Choice, Correct: r.Correct, ChoiceOutcome: r.ChoiceOutcome,
		Answer: r.Answer, AnswerTraceIDs: r.AnswerTraceIDs, Abstained: r.Abstained,
		Failure: r.Failure, LatencyMS: ms(r.Latency),
		JudgeVerdicts: r.JudgeVerdicts,
	}
	if st := r.Stages; st.Measured {
		j.StagesMS = &stagesJSON{Retrieve: ms(st.Retrieve), Read: ms(st.Read), Judge: ms(st.Judge)}
	}
	if r.Usage != (Usage{}) {
		j.Usage = &usageJSON{Retrieve: r.Usage.Retrieve, Read: r.Usage.Read, Judge: r.Usage.Judge}
	}
	s := r.Retrieval
	j.Retrieval = scoreJSON{K: s.K, HasGold: s.HasGold, RecallFlat: Float(s.RecallFlat), AllAll: Float(s.AllAll),
		AllAny: Float(s.AllAny), AnyAll: Float(s.AnyAll), AnyAny: Float(s.AnyAny), MRR: Float(s.MRR), NDCG: Float(s.NDCG)}
	for _, h := range r.Hits {
		hj := hitJSON{UnitID: h.UnitID, TraceIDs: h.TraceIDs, Score: Float(h.Score), Text: h.Text, Kind: h.Kind, Undetermined: h.Undetermined}
		if !h.Time.IsZero() {
			hj.Time = h.Time.Format(time.RFC3339Nano)
		}
		j.Hits = append(j.Hits, hj)
	}
	scores := make([]answerScoreJSON, len(r.Scores))
	for i, s := range r.Scores {
		scores[i] = answerScoreJSON{Metric: s.Metric, Kind: s.Kind, Value: Float(s.Value), Min: Float(s.Min), Max: Float(s.Max),
			Judge: s.Judge, Model: s.Model, PromptHash: s.PromptHash, Explanation: s.Explanation, Failure: s.Failure,
			Error: s.Error, Raw: s.Raw, Attempts: s.Attempts, Samples: floatsJSON(s.Samples)}
	}
	sb, err := json.Marshal(scores)
	if err != nil {
		return nil, fmt.Errorf("record: encode scores of record %q: %w", r.QuestionID, err)
	}
	j.Scores = sb
	b, err := json.Marshal(j)
	if err != nil {
		return nil, fmt.Errorf("record: encode record %q: %w", r.QuestionID, err)
	}
	return b, nil
}

// Unmarshal reads a record written by Marshal, in the current JSON form
// (JSONFormat) or format 1, whose retrieval scores, "judges" map and
// "verdicts" become RankScores and Scores (the map's metrics sorted by
// name, choice accuracy as KindExact and the others as KindProxy, on the
// scale 0..1; then the verdicts in order, as KindLLMJudge).
func Unmarshal(data []byte) (Record, error) {
	var j recordJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return Record{}, fmt.Errorf("record: decode record: %w", err)
	}
	r := Record{
		QuestionID: j.QuestionID, CorpusID: j.CorpusID, Task: j.Task, Dimension: j.Dimension,
		System: j.System, Reader: j.Reader, K: j.K, Visible: j.Visible,
		Ranked: j.Ranked, RankScores: floatsOf(j.RankScores), ContextIDs: j.ContextIDs,
		Choice: j.Choice, Correct: j.Correct, ChoiceOutcome: j.ChoiceOutcome,
		Answer: j.Answer, AnswerTraceIDs: j.AnswerTraceIDs, Abstained: j.Abstained,
		Failure: j.Failure, Latency: duration(j.LatencyMS),
		JudgeVerdicts: j.JudgeVerdicts,
	}
	if st := j.StagesMS; st != nil {
		r.Stages = StageLatency{Retrieve: duration(st.Retrieve), Read: duration(st.Read), Judge: duration(st.Judge), Measured: true}
	}
	if j.Usage != nil {
		r.Usage = Usage{Retrieve: j.Usage.Retrieve, Read: j.Usage.Read, Judge: j.Usage.Judge}
	}
	s := j.Retrieval
	r.Retrieval = retrieval.RetrievalScore{K: s.K, HasGold: s.HasGold, RecallFlat: float64(s.RecallFlat), AllAll: float64(s.AllAll),
		AllAny: float64(s.AllAny), AnyAll: float64(s.AnyAll), AnyAny: float64(s.AnyAny), MRR: float64(s.MRR), NDCG: float64(s.NDCG)}
	for i, hj := range j.Hits {
		h := retrieval.Hit{UnitID: hj.UnitID, TraceIDs: hj.TraceIDs, Score: float64(hj.Score), Text: hj.Text, Kind: hj.Kind, Undetermined: hj.Undetermined}
		if hj.Time != "" {
			t, err := time.Parse(time.RFC3339Nano, hj.Time)
			if err != nil {
				return Record{}, fmt.Errorf("record: decode record %q: hits[%d].time: %w", j.QuestionID, i, err)
			}
			h.Time = t
		}
		r.Hits = append(r.Hits, h)
	}
	switch j.Format {
	case 0, 1:
		if err := readFormat1(&r, j); err != nil {
			return Record{}, err
		}
	case JSONFormat:
		var scores []answerScoreJSON
		if len(j.Scores) > 0 {
			if err := json.Unmarshal(j.Scores, &scores); err != nil {
				return Record{}, fmt.Errorf("record: decode record %q: scores: %w", j.QuestionID, err)
			}
		}
		for i, s := range scores {
			switch s.Kind {
			case KindExact, KindProxy, KindLLMJudge:
			default:
				return Record{}, fmt.Errorf("record: decode record %q: scores[%d].kind: unknown kind %q (want %q, %q or %q)",
					j.QuestionID, i, s.Kind, KindExact, KindProxy, KindLLMJudge)
			}
			r.Scores = append(r.Scores, Score{Metric: s.Metric, Kind: s.Kind, Value: float64(s.Value), Min: float64(s.Min), Max: float64(s.Max),
				Judge: s.Judge, Model: s.Model, PromptHash: s.PromptHash, Explanation: s.Explanation, Failure: s.Failure,
				Error: s.Error, Raw: s.Raw, Attempts: s.Attempts, Samples: floatsOf(s.Samples)})
		}
	default:
		return Record{}, fmt.Errorf("record: decode record %q: format %d is newer than this memlab's %d", j.QuestionID, j.Format, JSONFormat)
	}
	return r, nil
}

// readFormat1 reads the scores of a record of format 1 into r.
func readFormat1(r *Record, j recordJSON) error {
	if len(j.Scores) > 0 {
		var rank []Float
		if err := json.Unmarshal(j.Scores, &rank); err != nil {
			return fmt.Errorf("record: decode record %q: scores (format 1: the ranked traces' scores): %w", j.QuestionID, err)
		}
		r.RankScores = floatsOf(rank)
	}
	for _, m := range slices.Sorted(maps.Keys(j.Judges)) {
		v := float64(j.Judges[m])
		if k := offlineKind(m); k == KindExact {
			r.Scores = append(r.Scores, ExactScore(m, v))
		} else {
			r.Scores = append(r.Scores, ProxyScore(m, v))
		}
	}
	for _, v := range j.Verdicts {
		r.Scores = append(r.Scores, VerdictScore(judge.Verdict{Judge: v.Judge, Metric: v.Metric, Model: v.Model, RubricHash: v.RubricHash,
			Score: float64(v.Score), Min: float64(v.Min), Max: float64(v.Max), Reasoning: v.Reasoning, Raw: v.Raw,
			Attempts: v.Attempts, Failure: v.Failure, Error: v.Error, Samples: floatsOf(v.Samples)}))
	}
	return nil
}

// WriteJSONL writes recs as JSON Lines: one Marshal object per line (the
// run store's form; Unmarshal reads a line back).
func WriteJSONL(w io.Writer, recs []Record) error {
	for _, r := range recs {
		b, err := Marshal(r)
		if err != nil {
			return err
		}
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("record: write JSONL record %q: %w", r.QuestionID, err)
		}
	}
	return nil
}
