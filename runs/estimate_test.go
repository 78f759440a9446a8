package runs

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
)

// fakeConfig writes a models.conf naming the fake server as the backbone
// and judge endpoint, with prices, sets MEMLAB_CONFIG to it (so estimates
// resolve models and prices as a notebook's llm.Default would) and returns
// a client on it.
func fakeConfig(t *testing.T, srv *llmtest.Server) *llm.Client {
	t.Helper()
	path := filepath.Join(t.TempDir(), "models.conf")
	conf := "[endpoint fake]\nbase_url = " + srv.URL() + "\napi_key_env = \n\n[role backbone]\nendpoint = fake\nmodel = reader-model\n\n" +
		"[role judge]\nendpoint = fake\nmodel = judge-model\n\n[prices]\nreader-model = 0.15, 0.60\njudge-model = 2.50, 10.00\n"
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MEMLAB_CONFIG", path)
	cfg, err := llm.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cache.Open(filepath.Join(t.TempDir(), "calls.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	client, err := llm.New(cfg, llm.Options{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// within reports whether got is within frac of want.
func within(got, want int, frac float64) bool {
	return math.Abs(float64(got-want)) <= frac*float64(want)
}

// TestEstimateMatchesTheRunOnTheFakeServer is issue 10's done-when: the
// dry-run estimate against what a run then spends on the fake server, per
// stage, for a model reader and a judge whose replies parse.
func TestEstimateMatchesTheRunOnTheFakeServer(t *testing.T) {
	srv, err := llmtest.Start(llmtest.Options{Responder: func(call llmtest.ChatCall) (string, error) {
		if call.Model == "judge-model" {
			return scriptedJudge(judge.FieldQAScore, 3, 0)(call)
		}
		return llmtest.DefaultReply(call)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client := fakeConfig(t, srv)
	reader, err := generate.NewModelReader(client, generate.ReaderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	d, flat := runtest.SampleFlat(t)
	cfg := Config{System: flat, Reader: reader, K: 10, Judges: []Judge{CloneMemQAJudge(judge.NewCloneMemJudge(client, judge.Config{}))}}
	est, err := EstimateRun(context.Background(), d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Stats().Total; got != 0 {
		t.Fatalf("the estimate made %d calls", got)
	}
	t.Logf("\n%s", reports.EstimateTable([]*record.Estimate{est}).Markdown())
	res, err := Run(context.Background(), d, cfg, Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	var read, judged llm.TallyCounts
	for _, r := range res.Records {
		read, judged = read.Add(r.Usage.Read), judged.Add(r.Usage.Judge)
	}
	ut := reports.UsageTable([]*record.Result{res})
	if len(ut.Rows) != 3 || ut.Rows[1][3] != "108" || ut.Rows[2][3] != "54" {
		t.Errorf("usage table:\n%s", ut.Markdown())
	}
	t.Logf("made: read %d calls %d prompt tokens; judge %d calls %d prompt tokens", read.Calls, read.PromptTokens, judged.Calls, judged.PromptTokens)
	if est.Read.Calls != read.Calls || !est.Read.Known || est.Read.MaxCompletionTokens < read.CompletionTokens {
		t.Errorf("read: estimated %+v; made %+v", est.Read, read)
	}
	if !within(est.Read.PromptTokens, read.PromptTokens, 0.10) {
		t.Errorf("read prompt tokens: estimated %d, the server counted %d", est.Read.PromptTokens, read.PromptTokens)
	}
	// Every judge reply parses: one call per question, within the bound.
	if est.Judge.Calls != judged.Calls || est.Judge.MaxCalls != 3*judged.Calls {
		t.Errorf("judge calls: estimated %d (at most %d), made %d", est.Judge.Calls, est.Judge.MaxCalls, judged.Calls)
	}
	// The answers are the model's, not written yet: the prompts are
	// estimated without them and bounded with the reader's max_tokens.
	if est.Judge.Known || judged.PromptTokens < est.Judge.PromptTokens || judged.PromptTokens > est.Judge.MaxPromptTokens {
		t.Errorf("judge prompt tokens: estimated %d–%d, the server counted %d", est.Judge.PromptTokens, est.Judge.MaxPromptTokens, judged.PromptTokens)
	}
	if est.Read.Model != "reader-model" || est.Judge.Model != "judge-model" || !est.Read.Priced || !est.Judge.Priced {
		t.Errorf("models and prices: read %q %v, judge %q %v", est.Read.Model, est.Read.Priced, est.Judge.Model, est.Judge.Priced)
	}
	// The read cost: at least the prompts at 0.15 USD per million tokens,
	// at most with every reply at its max_tokens.
	if want := float64(est.Read.PromptTokens) * 0.15 / 1e6; math.Abs(est.Read.CostUSD-want) > 1e-12 || est.Read.MaxCostUSD <= est.Read.CostUSD {
		t.Errorf("read cost %v–%v, want from %v", est.Read.CostUSD, est.Read.MaxCostUSD, want)
	}

	// A dry run estimates and asks nothing.
	t.Setenv("MEMLAB_DRY_RUN", "1")
	before := srv.Stats().Total
	dry, err := Run(context.Background(), d, cfg, Options{NoStore: true})
	if err != nil || dry.Estimate == nil || len(dry.Records) != 0 || srv.Stats().Total != before {
		t.Fatalf("dry run: %+v %v, %d calls", dry, err, srv.Stats().Total-before)
	}
}

// TestEstimateJudgesOfflineAnswersExactly: with an offline reader the
// answers are known before the run, so the judge's prompts are exact.
func TestEstimateJudgesOfflineAnswersExactly(t *testing.T) {
	srv, err := llmtest.Start(llmtest.Options{Responder: scriptedJudge(judge.FieldQAScore, 3, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client := fakeConfig(t, srv)
	d, flat := runtest.SampleFlat(t)
	j := RenameJudge(CloneMemQAJudge(judge.NewCloneMemJudge(client, judge.Config{})), "judge-a")
	cfg := Config{System: flat, Reader: generate.NewExtractive(), K: 5, Judges: []Judge{j}}
	est, err := EstimateRun(context.Background(), d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Stats().Total != 0 || est.Read.Calls != 0 || !est.Read.Known {
		t.Fatalf("estimate: %d calls made; read %+v", srv.Stats().Total, est.Read)
	}
	res, err := Run(context.Background(), d, cfg, Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	var judged llm.TallyCounts
	for _, r := range res.Records {
		judged = judged.Add(r.Usage.Judge)
	}
	t.Logf("judge: estimated %d calls %d prompt tokens; made %d calls %d prompt tokens", est.Judge.Calls, est.Judge.PromptTokens, judged.Calls, judged.PromptTokens)
	if est.Judge.Calls == 0 || est.Judge.Calls != judged.Calls || !within(est.Judge.PromptTokens, judged.PromptTokens, 0.01) {
		t.Errorf("judge: estimated %d calls %d tokens, made %d calls %d tokens", est.Judge.Calls, est.Judge.PromptTokens, judged.Calls, judged.PromptTokens)
	}
}

// TestEstimateRefusesModelCalls: a reader that calls a model without
// planning its requests is refused under the estimate, and the read stage
// says it is not known instead of counting nothing.
func TestEstimateRefusesModelCalls(t *testing.T) {
	srv, err := llmtest.Start(llmtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client := fakeConfig(t, srv)
	mr, err := generate.NewModelReader(client, generate.ReaderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	d, flat := runtest.SampleFlat(t)
	est, err := EstimateRun(context.Background(), d, Config{System: flat, Reader: unplanned{mr}, K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Stats().Total != 0 || est.Read.Known || !strings.Contains(est.Read.Note, "does not plan") {
		t.Errorf("%d calls; read %+v", srv.Stats().Total, est.Read)
	}
}

// unplanned hides a reader's Request method.
type unplanned struct{ r generate.Reader }

func (u unplanned) Name() string { return u.r.Name() }
func (u unplanned) Answer(ctx context.Context, q datasets.Question, p []generate.Passage) (generate.Answer, error) {
	return u.r.Answer(ctx, q, p)
}

// TestEstimateOfAModelEmbeddedSearch: a flat index whose queries are
// embedded by a model cannot be searched under the estimate; the retrieve
// stage says so and the estimate still completes without a call.
func TestEstimateOfAModelEmbeddedSearch(t *testing.T) {
	srv, err := llmtest.Start(llmtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client := fakeConfig(t, srv)
	d, _ := runtest.SampleFlat(t)
	sys, err := retrieval.NewFlatUnits(d, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Embedder: llm.ClientEmbedder{Client: client, Role: llm.RoleBackbone}})
	if err != nil {
		t.Fatal(err)
	}
	before := srv.Stats().Total
	est, err := EstimateRun(context.Background(), d, Config{System: sys, Reader: generate.NewExtractive(), K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Stats().Total != before || est.Retrieve.Known || !strings.Contains(est.Retrieve.Note, "search") {
		t.Errorf("%d calls; retrieve %+v", srv.Stats().Total-before, est.Retrieve)
	}
}
