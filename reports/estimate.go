package reports

import (
	"fmt"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
)

// DryRun is what a dry run (llm.DryRun) would spend: the estimates of its
// runs and the model calls the process tried outside them (a dense index
// embedding the corpus before runs.Run, a notebook's own Chat), which the
// client refused and counted (llm.Refused).
type DryRun struct {
	Estimates []*record.Estimate
	// Outside is the refused calls as a stage: a lower bound (what a
	// notebook would have done with their answers is not known).
	Outside record.StageEstimate
	// Total adds up every run's stages and Outside.
	Total record.StageEstimate
}

// NewDryRun sums the estimates es and the refused calls.
func NewDryRun(es []*record.Estimate, refused []llm.RefusedCalls) *DryRun {
	d := &DryRun{Estimates: es, Outside: refusedStage(refused)}
	var all []record.StageEstimate
	for _, e := range es {
		for _, s := range e.Stages() {
			all = append(all, s.StageEstimate)
		}
	}
	d.Total = sumStages(append(all, d.Outside))
	return d
}

// refusedStage turns refused calls into a stage estimate, a lower bound
// (calls, prompt tokens and their cost), priced from the configured price
// table.
func refusedStage(refused []llm.RefusedCalls) record.StageEstimate {
	s := record.StageEstimate{Known: true}
	var prices map[string]llm.Price
	if c, err := llm.DefaultConfig(); err == nil && c != nil {
		prices = c.Prices
	}
	models := map[string]bool{}
	priced, unbounded := true, false
	for _, r := range refused {
		s.Calls += r.Calls
		s.PromptTokens += r.PromptTokens
		s.MaxCompletionTokens += r.MaxCompletionTokens
		s.Embeds += r.Texts
		s.EmbedCalls += r.EmbedCalls
		unbounded = unbounded || r.CompletionUnbounded
		models[r.Model] = true
		if p, ok := prices[r.Model]; ok {
			s.CostUSD += float64(r.PromptTokens) * p.Prompt / 1e6
		} else {
			priced = false
		}
	}
	if s.Calls == 0 {
		return s
	}
	s.Known = false
	s.Note = "refused outside runs (the calls a notebook makes with their answers are not counted)"
	s.Priced = priced
	if unbounded {
		s.MaxCompletionTokens = 0
	}
	for m := range models {
		s.Model = m
	}
	if len(models) > 1 {
		s.Model = "several models"
	}
	return s
}

// sumStages adds stages up: a bound only when every stage with calls has
// one, a cost only when every such stage is priced.
func sumStages(stages []record.StageEstimate) record.StageEstimate {
	t := record.StageEstimate{Known: true, Priced: true}
	callsBounded, promptBounded, completionBounded, costBounded := true, true, true, true
	models := map[string]bool{}
	for _, s := range stages {
		if s.Calls == 0 && s.Known {
			continue
		}
		t.Calls += s.Calls
		t.PromptTokens += s.PromptTokens
		t.Embeds += s.Embeds
		t.EmbedCalls += s.EmbedCalls
		t.Known = t.Known && s.Known
		hiCalls, hiPrompt := s.MaxCalls, s.MaxPromptTokens
		if s.Known {
			hiCalls, hiPrompt = s.Calls, s.PromptTokens
		}
		t.MaxCalls += hiCalls
		t.MaxPromptTokens += hiPrompt
		callsBounded = callsBounded && hiCalls > 0
		promptBounded = promptBounded && hiPrompt > 0
		t.MaxCompletionTokens += s.MaxCompletionTokens
		completionBounded = completionBounded && (s.MaxCompletionTokens > 0 || s.Calls == s.EmbedCalls)
		if s.Calls > 0 {
			models[s.Model] = true
			t.Priced = t.Priced && s.Priced
		}
		t.CostUSD += s.CostUSD
		t.MaxCostUSD += s.MaxCostUSD
		costBounded = costBounded && (s.MaxCostUSD > 0 || s.Calls == 0)
	}
	if !callsBounded {
		t.MaxCalls = 0
	}
	if !promptBounded {
		t.MaxPromptTokens = 0
	}
	if !completionBounded {
		t.MaxCompletionTokens = 0
	}
	if !costBounded || !t.Priced {
		t.MaxCostUSD = 0
	}
	if t.Calls == 0 {
		t.Priced = false
	}
	for m := range models {
		t.Model = m
	}
	if len(models) > 1 {
		t.Model = "several models"
	}
	return t
}

// Table is the estimate table (EstimateTable) with a row for the calls
// refused outside runs, when there were any, and a total row.
func (d *DryRun) Table() analysis.Table {
	t := EstimateTable(d.Estimates)
	questions := 0
	for _, e := range d.Estimates {
		questions += e.Questions
	}
	if d.Outside.Calls > 0 {
		t.AddRow(stageRow("outside runs (refused)", "", "before or beside runs.Run", d.Outside))
	}
	t.AddRow(stageRow("total", fmt.Sprint(questions), "all", d.Total))
	return t
}

// TotalLine is the dry run's last line: the total calls, prompt tokens,
// embedded texts and cost over every run and the calls refused outside
// them.
func (d *DryRun) TotalLine() string {
	s := d.Total
	var b strings.Builder
	fmt.Fprintf(&b, "dry run total over %d run(s)", len(d.Estimates))
	if d.Outside.Calls > 0 {
		fmt.Fprintf(&b, " and %d call(s) refused outside runs", d.Outside.Calls)
	}
	fmt.Fprintf(&b, ": %s model calls, %s prompt tokens, %d embedded texts", span(s.Calls, s.MaxCalls, s.Known),
		span(s.PromptTokens, s.MaxPromptTokens, s.Known), s.Embeds)
	switch {
	case s.Calls == 0:
	case !s.Priced:
		b.WriteString(", cost unknown (a model without a price)")
	case s.MaxCostUSD > 0:
		fmt.Fprintf(&b, ", %.4f–%.4f USD", s.CostUSD, s.MaxCostUSD)
	default:
		fmt.Fprintf(&b, ", ≥ %.4f USD", s.CostUSD)
	}
	b.WriteString("; nothing was asked")
	return b.String()
}

// EstimateTable lays estimates out one row per run and stage: calls and
// prompt tokens ("n" when exact, "a–b" between bounds, "≥ n" when only a
// lower bound is known), the most completion tokens, texts embedded, the
// model and its cost in USD when the config prices it.
func EstimateTable(es []*record.Estimate) analysis.Table {
	t := analysis.Table{Header: []string{"run", "questions", "stage", "calls", "prompt tokens", "completion tokens (at most)", "embedded texts", "model", "cost (USD)", "note"},
		Align: []string{"l", "r", "l", "r", "r", "r", "r", "l", "r", "l"}}
	for _, e := range es {
		for _, s := range e.Stages() {
			t.AddRow(stageRow(e.Label, fmt.Sprint(e.Questions), s.Name, s.StageEstimate))
		}
	}
	return t
}

// stageRow is one row of EstimateTable.
func stageRow(label, questions, stage string, s record.StageEstimate) []string {
	completion := fmt.Sprint(s.MaxCompletionTokens)
	if s.Calls > s.EmbedCalls && s.MaxCompletionTokens == 0 {
		completion = "unbounded"
	}
	cost := ""
	switch {
	case !s.Priced:
		if s.Calls > 0 {
			cost = "no price"
		}
	case s.MaxCostUSD > 0:
		cost = fmt.Sprintf("%.4f–%.4f", s.CostUSD, s.MaxCostUSD)
	default:
		cost = fmt.Sprintf("≥ %.4f", s.CostUSD)
	}
	return []string{label, questions, stage, span(s.Calls, s.MaxCalls, s.Known),
		span(s.PromptTokens, s.MaxPromptTokens, s.Known), completion, fmt.Sprint(s.Embeds), s.Model, cost, s.Note}
}

// span formats an estimate: exact, a range, or a lower bound.
func span(lo, hi int, exact bool) string {
	switch {
	case exact || hi == lo && hi > 0:
		return fmt.Sprint(lo)
	case hi > lo:
		return fmt.Sprintf("%d–%d", lo, hi)
	}
	return fmt.Sprintf("≥ %d", lo)
}

// UsageTable is what runs spent, per stage, from their records' usage (the
// figures an Estimate predicts): one row per run and stage with model
// calls (those served by the cache and those that failed apart), prompt
// and completion tokens and texts embedded. retrieve includes the ingest a
// memory does while answering (records cannot tell them apart; the run's
// Meter can: CostTable).
func UsageTable(results []*record.Result) analysis.Table {
	t := analysis.Table{Header: []string{"run", "questions", "stage", "calls", "from cache", "failed", "prompt tokens", "completion tokens", "embedded texts"},
		Align: []string{"l", "r", "l", "r", "r", "r", "r", "r", "r"}}
	for _, r := range results {
		var ret, read, judged llm.TallyCounts
		for _, rec := range r.Records {
			ret, read, judged = ret.Add(rec.Usage.Retrieve), read.Add(rec.Usage.Read), judged.Add(rec.Usage.Judge)
		}
		label := r.Label
		if label == "" {
			label = record.DefaultLabel(r.System, r.K)
		}
		for _, s := range []struct {
			name string
			c    llm.TallyCounts
		}{{"retrieve", ret}, {"read", read}, {"judge", judged}} {
			t.AddRow([]string{label, fmt.Sprint(len(r.Records)), s.name, fmt.Sprint(s.c.Calls), fmt.Sprint(s.c.Cached), fmt.Sprint(s.c.Failed),
				fmt.Sprint(s.c.PromptTokens), fmt.Sprint(s.c.CompletionTokens), fmt.Sprint(s.c.Texts)})
		}
	}
	return t
}
