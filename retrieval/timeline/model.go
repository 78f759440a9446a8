package timeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
)

// statePrompt is memlab's wording for the extractor step.
const statePrompt = `You follow how one person's situation and views on a single topic develop over time.
Topic (its main words): %s
What was known about the person's state on this topic before: %s
New record, dated %s:
"""
%s
"""
State the person's current state on this topic in one sentence, say whether it differs from the state before,
and whether the record shows something actually done or decided (not only planned, searched for or wondered about).
Answer with JSON only: {"state": "...", "changed": true or false, "committed": true or false}`

type stateAnswer struct {
	State     string `json:"state"`
	Changed   bool   `json:"changed"`
	Committed bool   `json:"committed"`
}

// stateRequest is the extractor request at trace tr for the topic whose
// main words are label, whose state before was before.
func (m *Memory) stateRequest(label, before string, tr datasets.Trace) llm.ChatRequest {
	when := "unknown"
	if !tr.Time.IsZero() {
		when = tr.Time.Format("2006-01-02 15:04")
	}
	return llm.ChatRequest{Role: llm.RoleExtractor, Model: m.cfg.ExtractorModel, Temperature: 0, MaxTokens: 200,
		ResponseFormat: llm.FormatJSONObject,
		Messages:       []llm.Message{{Role: "user", Content: fmt.Sprintf(statePrompt, label, before, when, tr.Text)}}}
}

// modelState asks the extractor for the topic state at trace doc. It
// reports false when the answer could not be used (the caller then applies
// the offline rule); only a cancelled context is an error.
func (m *Memory) modelState(ctx context.Context, c *corpus, tp *topic, prev, doc int) (bool, error) {
	e := &c.entries[doc]
	before := "nothing yet"
	if prev >= 0 && c.entries[prev].state != "" {
		before = c.entries[prev].state
	}
	req := m.stateRequest(tp.label(6), before, e.tr)
	m.stats.StateCalls++
	m.meter.IngestCalls++
	resp, err := m.chat.Chat(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		m.stats.CallFailures++
		return false, nil
	}
	m.meter.IngestTokens += resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	var a stateAnswer
	if llm.DecodeReply(resp.Content, &a) != nil || strings.TrimSpace(a.State) == "" {
		m.stats.ParseFailures++
		return false, nil
	}
	e.state = strings.TrimSpace(a.State)
	e.committed, e.changed = a.Committed, a.Changed
	switch {
	case a.Committed:
		e.status = StatusDecided
	case undetermined(e.status):
	default:
		e.status = StatusStated
	}
	if prev >= 0 && a.Changed {
		p := c.entries[prev]
		tp.transitions = append(tp.transitions, Transition{Kind: TransitionModel, FromTraceID: p.tr.ID, ToTraceID: e.tr.ID,
			Time: e.tr.Time, From: p.state, To: e.state})
	}
	return true, nil
}
