package formats

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
)

// CloneMemJudgeItem is one question of the official CloneMem judge's
// result file (detailed_llm_results.<question id>). A score the file does
// not give, or gives as null, is NaN: unscored, not 0.
type CloneMemJudgeItem struct {
	QuestionID       string
	QAConsistency    float64 // 0-3
	QAReason         string
	MemRecall        float64 // [0, 1]
	MemHelpful       float64 // 0-2
	MemHelpfulReason string
}

// CloneMemJudgeResults is the official CloneMem judge's result file read
// back: its choice accuracy (NaN when absent) and the per-question items,
// sorted by question id.
type CloneMemJudgeResults struct {
	ChoiceAccuracy float64
	Items          []CloneMemJudgeItem
}

// ReadCloneMemJudgeResults reads a result file of CloneMem's LLM-judge
// script (see docs/formats.md): an object with choice_accuracy,
// llm_metrics_avg, normalized_metrics and detailed_llm_results keyed by
// question id. Malformed JSON is an error naming line and column; a
// question entry that is not an object or has a score that is not a number
// is an error naming the question id.
func ReadCloneMemJudgeResults(rd io.Reader) (*CloneMemJudgeResults, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("formats: read clonemem judge results: %w", err)
	}
	var top struct {
		ChoiceAccuracy *float64                   `json:"choice_accuracy"`
		Detailed       map[string]json.RawMessage `json:"detailed_llm_results"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("formats: read clonemem judge results: %w", syntaxErr(data, err))
	}
	if top.Detailed == nil {
		return nil, fmt.Errorf("formats: read clonemem judge results: no detailed_llm_results object")
	}
	out := &CloneMemJudgeResults{ChoiceAccuracy: math.NaN()}
	if top.ChoiceAccuracy != nil {
		out.ChoiceAccuracy = *top.ChoiceAccuracy
	}
	ids := make([]string, 0, len(top.Detailed))
	for id := range top.Detailed {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		var e struct {
			QAScore      *float64 `json:"QA_consistency_score"`
			QAReason     string   `json:"QA_consistency_reason"`
			MemRecall    *float64 `json:"Mem_recall"`
			MemHelpful   *float64 `json:"Mem_helpful_score"`
			HelpfulReasn string   `json:"Mem_helpful_reason"`
		}
		if err := json.Unmarshal(top.Detailed[id], &e); err != nil {
			return nil, fmt.Errorf("formats: read clonemem judge results: detailed_llm_results[%q]: %v", id, err)
		}
		out.Items = append(out.Items, CloneMemJudgeItem{QuestionID: id, QAConsistency: orNaN(e.QAScore), QAReason: e.QAReason,
			MemRecall: orNaN(e.MemRecall), MemHelpful: orNaN(e.MemHelpful), MemHelpfulReason: e.HelpfulReasn})
	}
	return out, nil
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
