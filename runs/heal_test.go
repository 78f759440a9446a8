package runs

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
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

// healResponder answers the reader with a letter and a sentence and each
// CloneMem judge with a valid verdict.
func healResponder(call llmtest.ChatCall) (string, error) {
	last := call.LastUser()
	switch {
	case call.Model != "m-judge":
		return "A. My cat is called Miso.", nil
	case strings.Contains(last, judge.FieldMemRecall):
		return fmt.Sprintf(`{%q: 0.5, %q: 1, "reasoning": "partly"}`, judge.FieldMemRecall, judge.FieldMemHelpful), nil
	}
	return fmt.Sprintf(`{%q: 2, "reasoning": "mostly"}`, judge.FieldQAScore), nil
}

// healServer starts a fake server with opts (healResponder answering) and a
// client on it that makes one attempt per call and no cache, so every call
// a run makes is a request the server counts.
func healServer(t *testing.T, opts llmtest.Options) (*llmtest.Server, *llm.Client) {
	t.Helper()
	opts.Responder = healResponder
	srv, err := llmtest.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv, runtest.ClientOn(t, srv)
}

// countingSystem counts Retrieve calls.
type countingSystem struct {
	retrieval.System
	mu sync.Mutex
	n  int
}

func (c *countingSystem) Retrieve(ctx context.Context, q datasets.Question, k int) ([]retrieval.Hit, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.System.Retrieve(ctx, q, k)
}

func (c *countingSystem) calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// healConfig is a model-read run with both CloneMem judges (QA
// consistency: one verdict a call; memory utility: two verdicts a call).
func healConfig(t *testing.T, client *llm.Client, sys retrieval.System) Config {
	t.Helper()
	reader, err := generate.NewModelReader(client, generate.ReaderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	jc := judge.Config{Model: "m-judge", Retries: -1}
	return Config{System: sys, Reader: reader, K: 5, Judges: []Judge{
		CloneMemQAJudge(judge.NewCloneMemJudge(client, jc)),
		CloneMemMemoryJudge(judge.NewCloneMemJudge(client, jc)),
	}}
}

// withoutCost is a record as JSON without what differs between a healed
// record and one made in one go: its latency, stage times and usage.
func withoutCost(t *testing.T, r record.Record) string {
	t.Helper()
	r.Latency, r.Stages, r.Usage = 0, record.StageLatency{}, record.Usage{}
	b, err := record.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// judgeFaults scripts faults on two thirds of the judge calls among calls
// (a healthy run's, in order): a server error, then a reply that is not
// JSON, then an answered call, and so on, so that a record may have both
// judges fail, one of them, or none. It returns the script and the number
// of verdicts that fail.
func judgeFaults(calls []llmtest.ChatCall) (script []llmtest.Fault, failedVerdicts int) {
	n := 0
	for i, c := range calls {
		if c.Model != "m-judge" {
			continue
		}
		n++
		kind := ""
		switch n % 3 {
		case 1:
			kind = llmtest.FaultServerError
		case 2:
			kind = llmtest.FaultBadJSON
		default:
			continue
		}
		script = append(script, llmtest.Fault{Call: i + 1, Kind: kind})
		failedVerdicts += verdictsOf(c)
	}
	return script, failedVerdicts
}

// verdictsOf is the number of verdicts a CloneMem judge call gives.
func verdictsOf(c llmtest.ChatCall) int {
	if strings.Contains(c.LastUser(), judge.FieldMemRecall) {
		return 2
	}
	return 1
}

func countFailedVerdicts(recs []record.Record) int {
	n := 0
	for _, r := range recs {
		for _, v := range r.Verdicts() {
			if !v.Judged() {
				n++
			}
		}
	}
	return n
}

// TestRerunHealsEveryFailedStageAndNothingElse fails some judge calls
// (server errors and replies that are not JSON) and one free-text read of
// a run, then reruns it against the healthy server: every failed verdict
// and the failed read are done again, and nothing that succeeded is (the
// server counts the requests, the system its Retrieve calls).
func TestRerunHealsEveryFailedStageAndNothingElse(t *testing.T) {
	d, flat := runtest.SampleFlat(t)

	// A healthy run, one question at a time, shows the order of the calls
	// and what the healed records must equal.
	refSrv, refClient := healServer(t, llmtest.Options{})
	ref, err := Run(context.Background(), d, healConfig(t, refClient, flat), Options{NoStore: true, Workers: 1, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	calls := refSrv.Calls()
	script, failedVerdicts := judgeFaults(calls)
	// The last question's free-text read fails too (the last reader call:
	// nothing comes after its judges, so the call numbers above hold).
	lastRead := -1
	for i, c := range calls {
		if c.Model != "m-judge" {
			lastRead = i
		}
	}
	var lastJudges []int
	for i := lastRead + 1; i < len(calls); i++ {
		lastJudges = append(lastJudges, i+1)
	}
	kept := script[:0]
	for _, f := range script {
		if f.Call <= lastRead+1 {
			kept = append(kept, f)
			continue
		}
		failedVerdicts -= verdictsOf(calls[f.Call-1])
	}
	script = append(kept, llmtest.Fault{Call: lastRead + 1, Kind: llmtest.FaultServerError})
	faulted := len(script) - 1 // judge calls that fail

	srv, client := healServer(t, llmtest.Options{Faults: llmtest.Faults{Script: script}})
	sys := &countingSystem{System: flat}
	cfg := healConfig(t, client, sys)
	st := runtest.OpenStore(t)
	first, err := Run(context.Background(), d, cfg, Options{Store: st, Workers: 1, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	s := reports.SummaryOf(first)
	if s.Failed != 1 {
		t.Fatalf("first run: %d failed records, want 1 (the failed read)", s.Failed)
	}
	if nFailed := countFailedVerdicts(first.Records); nFailed != failedVerdicts || nFailed == 0 {
		t.Fatalf("first run: %d failed verdicts, want %d", nFailed, failedVerdicts)
	}

	// The rerun, against the same server now healthy (the script is spent).
	before, retrieves := srv.Stats().Total, sys.calls()
	second, err := Run(context.Background(), d, cfg, Options{Store: st, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := faulted + 1 + len(lastJudges) // the failed judge calls, the failed read, its judges
	if got := srv.Stats().Total - before; got != wantCalls {
		t.Errorf("rerun made %d model calls, want %d (%d failed judge calls, 1 failed read and its %d judge calls)",
			got, wantCalls, faulted, len(lastJudges))
	}
	if got := sys.calls() - retrieves; got != 0 {
		t.Errorf("rerun retrieved %d times, want 0: every retrieval had succeeded", got)
	}
	if len(second.Records) != len(ref.Records) {
		t.Fatalf("rerun: %d records, want %d", len(second.Records), len(ref.Records))
	}
	diffs := 0
	for i, r := range second.Records {
		if r.Failure != "" {
			t.Errorf("%s still failed: %s", r.QuestionID, r.Failure)
		}
		for _, v := range r.Verdicts() {
			if !v.Judged() {
				t.Errorf("%s: verdict %s/%s still failed: %s", r.QuestionID, v.Judge, v.Metric, v.Failure)
			}
		}
		if got, want := withoutCost(t, r), withoutCost(t, ref.Records[i]); got != want && diffs == 0 {
			diffs++
			t.Errorf("healed record %s differs from a healthy run's:\n%s\n%s", r.QuestionID, got, want)
		}
	}
	// The store has the healed records, and a third run asks nothing.
	stored, err := st.Records(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range stored {
		if got, want := withoutCost(t, r), withoutCost(t, ref.Records[i]); got != want {
			t.Errorf("stored record %s is not the healed one:\n%s\n%s", r.QuestionID, got, want)
			break
		}
	}
	before = srv.Stats().Total
	third, err := Run(context.Background(), d, cfg, Options{Store: st, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Stats().Total - before; got != 0 || third.Resumed != len(d.Questions) {
		t.Errorf("third run made %d calls and resumed %d of %d records, want 0 calls and all resumed", got, third.Resumed, len(d.Questions))
	}
}

// TestRerunHealsRecordsWrittenBeforeJudgeVerdicts: a store written before
// records said which judge returned which verdict still heals. A record
// with a failed verdict is judged again by every judge of the run (the
// others' records are left alone), and afterwards it says.
func TestRerunHealsRecordsWrittenBeforeJudgeVerdicts(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	refSrv, refClient := healServer(t, llmtest.Options{})
	ref, err := Run(context.Background(), d, healConfig(t, refClient, flat), Options{NoStore: true, Workers: 1, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	script, _ := judgeFaults(refSrv.Calls())
	srv, client := healServer(t, llmtest.Options{Faults: llmtest.Faults{Script: script}})
	cfg := healConfig(t, client, flat)
	st := runtest.OpenStore(t)
	first, err := Run(context.Background(), d, cfg, Options{Store: st, Workers: 1, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	// Make the records look like an older version's.
	broken := 0
	for i, r := range first.Records {
		if anyRetryable(r.Verdicts()) {
			broken++
		}
		r.JudgeVerdicts = nil
		if err := st.Rewrite(context.Background(), first.ID, i, r); err != nil {
			t.Fatal(err)
		}
	}
	if broken == 0 {
		t.Fatal("no record has a failed verdict")
	}
	before := srv.Stats().Total
	second, err := Run(context.Background(), d, cfg, Options{Store: st, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := srv.Stats().Total-before, 2*broken; got != want {
		t.Errorf("rerun made %d calls, want %d (both judges of the %d records with a failed verdict)", got, want, broken)
	}
	if second.Resumed != len(d.Questions)-broken {
		t.Errorf("rerun resumed %d records, want %d", second.Resumed, len(d.Questions)-broken)
	}
	for i, r := range second.Records {
		if got, want := withoutCost(t, r), withoutCost(t, ref.Records[i]); got != want {
			if len(r.JudgeVerdicts) == 0 && len(ref.Records[i].JudgeVerdicts) > 0 && !anyRetryable(first.Records[i].Verdicts()) {
				continue // an untouched old record: it keeps its old form
			}
			t.Fatalf("healed record %s differs from a healthy run's:\n%s\n%s", r.QuestionID, got, want)
		}
	}
	if n := countFailedVerdicts(second.Records); n != 0 {
		t.Errorf("%d verdicts still failed", n)
	}
}

// TestRejudgeRerunHealsFailedVerdicts: verdicts a Rejudge could not get
// are asked again by the next Rejudge, and only those.
func TestRejudgeRerunHealsFailedVerdicts(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	readSrv, readClient := healServer(t, llmtest.Options{})
	reader, err := generate.NewModelReader(readClient, generate.ReaderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	st := runtest.OpenStore(t)
	run, err := Run(context.Background(), d, Config{System: flat, Reader: reader, K: 5}, Options{Store: st, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	judges := func(c *llm.Client) []Judge {
		jc := judge.Config{Model: "m-judge", Retries: -1}
		return []Judge{RenameJudge(CloneMemQAJudge(judge.NewCloneMemJudge(c, jc)), "qa"),
			RenameJudge(CloneMemMemoryJudge(judge.NewCloneMemJudge(c, jc)), "memory")}
	}
	// A rejudge against a healthy server shows the calls' order.
	refSt := runtest.OpenStore(t)
	if _, err := Run(context.Background(), d, Config{System: flat, Reader: reader, K: 5}, Options{Store: refSt, Quiet: true}); err != nil {
		t.Fatal(err)
	}
	refSrv, refClient := healServer(t, llmtest.Options{})
	ref, err := Rejudge(context.Background(), refSt, run.ID, d, judges(refClient), 1)
	if err != nil {
		t.Fatal(err)
	}
	script, failedVerdicts := judgeFaults(refSrv.Calls())
	srv, client := healServer(t, llmtest.Options{Faults: llmtest.Faults{Script: script}})
	first, err := Rejudge(context.Background(), st, run.ID, d, judges(client), 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := countFailedVerdicts(first.Records); n != failedVerdicts || n == 0 {
		t.Fatalf("first rejudge: %d failed verdicts, want %d", n, failedVerdicts)
	}
	before := srv.Stats().Total
	second, err := Rejudge(context.Background(), st, run.ID, d, judges(client), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Stats().Total - before; got != len(script) {
		t.Errorf("second rejudge made %d calls, want %d (the failed ones)", got, len(script))
	}
	for i, r := range second.Records {
		if got, want := withoutCost(t, r), withoutCost(t, ref.Records[i]); got != want {
			t.Fatalf("healed record %s differs from a healthy rejudge's:\n%s\n%s", r.QuestionID, got, want)
		}
	}
	before = srv.Stats().Total
	if _, err := Rejudge(context.Background(), st, run.ID, d, judges(client), 0); err != nil {
		t.Fatal(err)
	}
	if got := srv.Stats().Total - before; got != 0 {
		t.Errorf("third rejudge made %d calls, want 0", got)
	}
	if readSrv.Stats().Total != 2*2*len(d.Questions) {
		t.Errorf("reader calls %d, want %d: a rejudge reads nothing", readSrv.Stats().Total, 4*len(d.Questions))
	}
}

// TestCorruptCacheStopsTheRun: a damaged page of the model-call cache is
// not a failure of the questions that read it: the run stops with an error
// that names the file and says to run `memlab cache clear`, and no record
// of a question that met it is stored (before, each such question was
// stored as failed and the run went on and "succeeded").
func TestCorruptCacheStopsTheRun(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	srv, err := llmtest.Start(llmtest.Options{Responder: healResponder})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "calls.db")
	newClient := func() (*llm.Client, *cache.Cache) {
		c, err := cache.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		client, err := llm.New(llm.SingleEndpoint(srv.URL(), "m"), llm.Options{Cache: c})
		if err != nil {
			t.Fatal(err)
		}
		return client, c
	}
	client, c := newClient()
	if _, err := Run(context.Background(), d, healConfig(t, client, flat), Options{NoStore: true, Quiet: true}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	runtest.DamageMiddle(t, path)

	client, c = newClient()
	defer c.Close()
	st := runtest.OpenStore(t)
	res, err := Run(context.Background(), d, healConfig(t, client, flat), Options{Store: st, Quiet: true})
	if !errors.Is(err, cache.ErrCorrupt) {
		t.Fatalf("run over a corrupt cache: %v, want cache.ErrCorrupt", err)
	}
	for _, want := range []string{path, "is corrupt", "memlab cache clear", "stopped after"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if len(res.Records) == len(d.Questions) {
		t.Errorf("the run went on over all %d questions", len(res.Records))
	}
	stored, err := st.Records(res.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range stored {
		if r.Failure != "" || anyRetryable(r.Verdicts()) {
			t.Errorf("record %s was stored failed (%q): the cache's failure is not the question's", r.QuestionID, r.Failure)
		}
	}
}

// TestNeedsRetry: which stored records a rerun does again.
func TestNeedsRetry(t *testing.T) {
	ok := judge.Verdict{Judge: "j", Metric: "m", Score: 1}
	failed := func(kind string) judge.Verdict { return judge.Verdict{Judge: "j", Metric: "m", Failure: kind} }
	cases := []struct {
		desc string
		rec  record.Record
		n    int
		want bool
	}{
		{"complete", record.Record{Scores: record.VerdictScores(ok), JudgeVerdicts: []int{1}}, 1, false},
		{"failed read", record.Record{Failure: failReadFree + "503"}, 1, true},
		{"failed call", record.Record{Scores: record.VerdictScores(failed(judge.FailureCallFailed + ": server")), JudgeVerdicts: []int{1}}, 1, true},
		{"unreadable reply", record.Record{Scores: record.VerdictScores(failed(judge.FailureNoJSON)), JudgeVerdicts: []int{1}}, 1, true},
		{"no rubric", record.Record{Scores: record.VerdictScores(failed(judge.FailureNoRubric)), JudgeVerdicts: []int{1}}, 1, false},
		{"no gold", record.Record{Scores: record.VerdictScores(failed(judge.FailureNoGold)), JudgeVerdicts: []int{1}}, 1, false},
		{"no reference", record.Record{Scores: record.VerdictScores(failed(judge.FailureNoReference)), JudgeVerdicts: []int{1}}, 1, false},
		{"a rejudge's failure", record.Record{Scores: record.VerdictScores(ok, failed(judge.FailureNoJSON)), JudgeVerdicts: []int{1}}, 1, false},
		{"no judges now", record.Record{Scores: record.VerdictScores(failed(judge.FailureNoJSON))}, 0, false},
		{"older record", record.Record{Scores: record.VerdictScores(ok, failed(judge.FailureOutOfRange))}, 1, true},
	}
	for _, c := range cases {
		if got := needsRetry(c.rec, c.n); got != c.want {
			t.Errorf("%s: needsRetry = %v, want %v", c.desc, got, c.want)
		}
	}
}
