package construct

import (
	"encoding/json"
	"fmt"

	"github.com/memlab/memlab/llm"
)

// typicalFeedback stands for a checker's feedback in a dry run's revision
// prompts.
const typicalFeedback = "Facts of the source the output misses: one fact of about ten words; another fact of about ten words. Facts of the output the source does not support: one fact of about ten words."

// messagesTokens estimates the prompt tokens of msgs as llm's dry run does.
func messagesTokens(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += llm.EstimateTokens(m.Content)
	}
	return n
}

// plan is Do in a dry run: the step's stub stands for the reply; the
// calls and tokens are counted, the first output passing its check (the
// Max figures count every revision).
func (b *Build) plan(s *Step, item string, in, out any, ref Ref, parents []*node) (Ref, error) {
	stub := s.Stub(in)
	sj, err := json.Marshal(stub)
	if err != nil {
		return ref, fmt.Errorf("construct: %s: step %s, %s: stub: %w", b.pipeline.Name, s.Name, item, err)
	}
	if err := json.Unmarshal(sj, out); err != nil {
		return ref, fmt.Errorf("construct: %s: step %s, %s: the stub does not decode into %T: %w", b.pipeline.Name, s.Name, item, out, err)
	}
	msgs, err := s.Prompt.Render(in)
	if err != nil {
		return ref, err
	}
	gp, gc := messagesTokens(msgs), llm.EstimateTokens(string(sj))
	calls, pt, ct := 1, gp, gc
	var cp, cc, rp int
	kmax := 0
	if c := s.Check; c != nil {
		if c.Prompt != nil {
			v := Verdict{Decision: "PASS", SourceFacts: 12, OutputFacts: 12, Missing: []string{}, Unsupported: []string{}, Feedback: "The output is faithful to the source."}
			if c.Stub != nil {
				v = c.Stub(in, out)
			}
			cm, err := c.Prompt.Render(map[string]any{"source": c.source(in), "output": out})
			if err != nil {
				return ref, err
			}
			vj, _ := json.Marshal(v)
			cp, cc = messagesTokens(cm), llm.EstimateTokens(string(vj))
			calls, pt, ct = calls+1, pt+cp, ct+cc
		}
		if s.Revise != nil {
			kmax = c.maxRevisions()
			rm, err := s.Revise.Render(map[string]any{"source": in, "previous": out, "feedback": typicalFeedback})
			if err != nil {
				return ref, err
			}
			rp = messagesTokens(rm)
		}
	}
	b.mu.Lock()
	st := b.stats[s.Name]
	n := 1
	if cp > 0 {
		n = 2
	}
	g := st.role(s.Role, b.modelName(s.Role, s.Model))
	g.Calls++
	g.PromptTokens += gp
	g.CompletionTokens += gc
	g.MaxCalls += 1 + kmax
	g.MaxPromptTokens += gp + kmax*rp
	g.MaxCompletionTokens += gc * (1 + kmax)
	if cp > 0 {
		c := st.role(s.Check.role(), b.modelName(s.Check.role(), s.Check.Model))
		c.Calls++
		c.PromptTokens += cp
		c.CompletionTokens += cc
		c.MaxCalls += 1 + kmax
		c.MaxPromptTokens += cp * (1 + kmax)
		c.MaxCompletionTokens += cc * (1 + kmax)
	}
	st.Items++
	st.Calls += calls
	st.PromptTokens += pt
	st.CompletionTokens += ct
	st.MaxCalls += calls + kmax*n
	st.MaxPromptTokens += pt + kmax*(rp+cp)
	st.MaxCompletionTokens += ct + kmax*(gc+cc)
	b.mu.Unlock()
	last := b.graph.add(s.Name, 1, parents)
	if cp > 0 {
		last = b.graph.add(s.Name, 1, []*node{last})
	}
	ref.Status, ref.node = StatusAccepted, last
	return ref, nil
}
