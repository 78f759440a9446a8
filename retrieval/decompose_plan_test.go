package retrieval

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
)

// dqServed counts the calls the fake server saw for which pick is true and
// the prompt tokens it counted for them.
func dqServed(calls []llmtest.ChatCall, pick func(llmtest.ChatCall) bool) (n, tokens int) {
	for _, c := range calls {
		if pick(c) {
			n++
			for _, m := range c.Messages {
				tokens += llmtest.CountTokens(m.Content)
			}
		}
	}
	return n, tokens
}

func dqIsDecomposition(c llmtest.ChatCall) bool { return c.SchemaName == "subquestions" }

// TestDecomposedPlanExact: around an offline inner system the plan is the
// decomposition calls, exactly as sent.
func TestDecomposedPlanExact(t *testing.T) {
	d := mxSample(t)
	flat, err := NewFlat(d, BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	c, srv := mxFake(t, llmtest.Options{Responder: func(call llmtest.ChatCall) (string, error) {
		b, _ := json.Marshal(map[string][]string{"subquestions": dqSubquestions(dqQuestionOf(call.LastUser()))})
		return string(b), nil
	}})
	s, err := NewDecomposed(flat, c, DecomposeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	const k = 5
	plan := PlanQuestions(d, s, d.Questions, k)
	if len(srv.Calls()) != 0 || s.Meter() != (Meter{}) || len(s.Decompositions()) != 0 {
		t.Fatalf("planning called the model")
	}
	for _, q := range d.Questions {
		if _, err := s.Retrieve(context.Background(), q, k); err != nil {
			t.Fatal(err)
		}
	}
	n, tokens := dqServed(srv.Calls(), dqIsDecomposition)
	p, m := plan.Search, s.Meter()
	t.Logf("search plan %+v; run: %d calls, %d prompt tokens, meter %+v", p, n, tokens, m)
	if !p.Exact || p.Note != "" || p.Calls != m.QueryCalls || p.Calls != n || p.Calls != len(d.Questions) || p.PromptTokens != tokens ||
		p.MaxCompletionTokens != len(d.Questions)*DefaultDecomposeMaxTokens || p.Role != llm.RoleBackbone {
		t.Errorf("search plan %+v; ran %d calls, %d prompt tokens, meter %+v", p, n, tokens, m)
	}
	if !plan.Ingest.Exact || plan.Ingest.Calls != 0 {
		t.Errorf("ingest plan %+v", plan.Ingest)
	}
	if c := s.PlanSearch(d.Questions[0], 0); c != (Cost{Exact: true}) {
		t.Errorf("plan at k = 0: %+v", c)
	}
}

// dqRewriter is a memory that rewrites each question with one model call
// before ranking nothing; it plans that call.
type dqRewriter struct {
	c     llm.Chatter
	mu    sync.Mutex
	meter Meter
}

func (r *dqRewriter) Name() string { return "rewriter" }
func (r *dqRewriter) Ingest(context.Context, string, []datasets.Trace) error {
	return nil
}
func (r *dqRewriter) request(q datasets.Question) llm.ChatRequest {
	return llm.ChatRequest{Role: llm.RoleExtractor, MaxTokens: 50, Messages: []llm.Message{{Role: "user", Content: "Rewrite this question: " + q.Text}}}
}
func (r *dqRewriter) Search(ctx context.Context, q datasets.Question, k int) ([]Hit, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _, err := ChatMetered(ctx, r.c, r.request(q), &r.meter, true)
	return nil, err
}
func (r *dqRewriter) PlanSearch(q datasets.Question, k int) Cost { return RequestCost(r.request(q)) }
func (r *dqRewriter) Meter() Meter {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.meter
}

// dqSilent is a memory that does not plan its searches.
type dqSilent struct{}

func (dqSilent) Name() string                                                  { return "silent" }
func (dqSilent) Ingest(context.Context, string, []datasets.Trace) error        { return nil }
func (dqSilent) Search(context.Context, datasets.Question, int) ([]Hit, error) { return nil, nil }
func (dqSilent) Meter() Meter                                                  { return Meter{} }

// TestDecomposedPlanLowerBound: around an incremental memory that plans its
// searches, the inner search is counted once per question (for an empty
// text, or for the question with KeepQuestion): a lower bound.
func TestDecomposedPlanLowerBound(t *testing.T) {
	d := mxSample(t)
	qs := d.Questions[:3]
	for _, keep := range []bool{false, true} {
		c, srv := mxFake(t, llmtest.Options{Responder: func(call llmtest.ChatCall) (string, error) {
			if dqIsDecomposition(call) {
				return `{"subquestions": ["What happened first?", "And after that?"]}`, nil
			}
			return "rewritten", nil
		}})
		mem := &dqRewriter{c: c}
		s, err := NewDecomposed(NewIncremental(d, mem), c, DecomposeConfig{KeepQuestion: keep})
		if err != nil {
			t.Fatal(err)
		}
		const k = 4
		plan := PlanQuestions(d, s, qs, k)
		if len(srv.Calls()) != 0 {
			t.Fatal("planning called the model")
		}
		for _, q := range SortByAskedAt(qs) {
			if _, err := s.Retrieve(context.Background(), q, k); err != nil {
				t.Fatal(err)
			}
		}
		nDec, tokDec := dqServed(srv.Calls(), dqIsDecomposition)
		nIn, tokIn := dqServed(srv.Calls(), func(c llmtest.ChatCall) bool { return !dqIsDecomposition(c) })
		p, m := plan.Search, s.Meter()
		t.Logf("keep=%t: search plan %+v; run: %d decomposition calls (%d prompt tokens), %d inner calls (%d prompt tokens), meter %+v",
			keep, p, nDec, tokDec, nIn, tokIn, m)
		inner := 2
		if keep {
			inner = 3
		}
		if p.Exact || !strings.Contains(p.Note, "counted once") || !p.Several || nDec != len(qs) || nIn != inner*len(qs) {
			t.Errorf("keep=%t: plan %+v; ran %d + %d calls", keep, p, nDec, nIn)
		}
		if p.Calls != 2*len(qs) || p.Calls > m.QueryCalls || p.PromptTokens <= tokDec || p.PromptTokens > tokDec+tokIn {
			t.Errorf("keep=%t: plan %+v is not a lower bound: %d+%d prompt tokens, meter %+v", keep, p, tokDec, tokIn, m)
		}
		// with KeepQuestion the question's own inner search is planned as sent
		if keep {
			var own int
			for _, q := range qs {
				own += RequestCost(mem.request(q)).PromptTokens
			}
			if p.PromptTokens != tokDec+own {
				t.Errorf("keep: planned %d prompt tokens, want %d + %d", p.PromptTokens, tokDec, own)
			}
		}
	}
}

// TestDecomposedPlanUnknownInner: an inner system that reports model use
// without planning its searches makes the plan not Exact.
func TestDecomposedPlanUnknownInner(t *testing.T) {
	d := mxSample(t)
	c, _ := mxFake(t, llmtest.Options{})
	q := d.Questions[0]
	for _, inner := range []System{&dqStub{}, NewIncremental(d, dqSilent{})} {
		s, err := NewDecomposed(inner, c, DecomposeConfig{})
		if err != nil {
			t.Fatal(err)
		}
		p := s.PlanSearch(q, 3)
		if p.Exact || p.Calls != 1 || !strings.Contains(p.Note, "does not estimate") {
			t.Errorf("%s: plan %+v, want one call, not exact", inner.Name(), p)
		}
	}
}
