package construct

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/llm/llmtest"
)

// A toy pipeline: "count" counts the words of a text, checked in code (the
// count must match) and by a checker model; "sum" adds the counts.
type countIn struct {
	Text string `json:"text"`
}
type countOut struct {
	Words int    `json:"words"`
	Echo  string `json:"echo"`
}
type sumIn struct {
	Counts []int `json:"counts"`
}
type sumOut struct {
	Total int `json:"total"`
}

func toyPipeline() *Pipeline {
	count := &Step{Name: "toy.count", Stage: "1", Title: "word counts", Role: "backbone",
		Prompt: Prompt{Name: "toy.count", Version: 1, User: "Count the words.\n<<<INPUT\n{{json .}}\nINPUT>>>\n"},
		Revise: &Prompt{Name: "toy.count.revise", Version: 1, User: "Count again.\n<<<INPUT\n{{json .}}\nINPUT>>>\n"},
		Check: &Check{
			Code: func(in, out any) []string {
				if o := out.(*countOut); o.Words != len(strings.Fields(in.(countIn).Text)) {
					return []string{fmt.Sprintf("%d is not the number of words", o.Words)}
				}
				return nil
			},
			Prompt:  &Prompt{Name: "toy.count.check", Version: 1, User: "Check.\n<<<INPUT\n{{json .}}\nINPUT>>>\n"},
			Epsilon: 0.05,
		},
		Stub: func(in any) any {
			return countOut{Words: len(strings.Fields(in.(countIn).Text)), Echo: in.(countIn).Text}
		},
	}
	sum := &Step{Name: "toy.sum", Stage: "2", Title: "total", Role: "backbone", After: []string{"toy.count"},
		Prompt: Prompt{Name: "toy.sum", Version: 1, User: "Add.\n<<<INPUT\n{{json .}}\nINPUT>>>\n"},
		Stub: func(in any) any {
			t := 0
			for _, c := range in.(sumIn).Counts {
				t += c
			}
			return sumOut{Total: t}
		},
	}
	return &Pipeline{Name: "toy", Version: 1, Steps: []*Step{count, sum}}
}

// toyModel answers the toy prompts: counts right, except that a text with
// "miscount" is miscounted on the first try, a text with "hallucinate" has
// its check REJECT it the first time, and a text with "never" is REJECTed
// every time. failOnce texts fail their first call with HTTP 500.
type toyModel struct {
	mu       sync.Mutex
	failOnce map[string]bool
	seen     map[string]int
}

func (m *toyModel) reply(call llmtest.ChatCall) (string, error) {
	user := call.LastUser()
	in, _ := InputOf(user)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen == nil {
		m.seen = map[string]int{}
	}
	for t := range m.failOnce {
		if strings.Contains(user, t) && m.failOnce[t] {
			m.failOnce[t] = false
			return "", &llmtest.StatusError{Status: 500, Message: "scripted failure"}
		}
	}
	switch TaskOf(user) {
	case "toy.count v1", "toy.count.revise v1":
		var x struct {
			Text   string `json:"text"`
			Source struct {
				Text string `json:"text"`
			} `json:"source"`
		}
		json.Unmarshal(in, &x)
		t := x.Text + x.Source.Text
		n := len(strings.Fields(t))
		if strings.Contains(t, "miscount") && TaskOf(user) == "toy.count v1" {
			n++
		}
		b, _ := json.Marshal(countOut{Words: n, Echo: t})
		return string(b), nil
	case "toy.count.check v1":
		m.seen[string(in)]++
		if strings.Contains(user, "never") || (strings.Contains(user, "hallucinate") && !strings.Contains(user, `"previous"`) && m.seen[string(in)] == 1) {
			return `{"decision":"REJECT","source_facts":4,"output_facts":4,"missing":[],"unsupported":["a fact"],"feedback":"remove it"}`, nil
		}
		return `{"decision":"PASS","source_facts":4,"output_facts":4,"missing":[],"unsupported":[],"feedback":""}`, nil
	case "toy.sum v1":
		var x sumIn
		json.Unmarshal(in, &x)
		t := 0
		for _, c := range x.Counts {
			t += c
		}
		return fmt.Sprintf(`{"total": %d}`, t), nil
	}
	return "", fmt.Errorf("toy model: unknown task %q", TaskOf(user))
}

// runToy builds the toy pipeline over texts; it returns the total and the
// build.
func runToy(ctx context.Context, t *testing.T, opts Options, texts []string) (int, *Build, error) {
	t.Helper()
	p := toyPipeline()
	b, err := Start(ctx, p, map[string]any{"texts": texts}, opts)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, len(texts))
	refs := make([]Ref, len(texts))
	err = Each(len(texts), func(i int) error {
		var o countOut
		r, err := b.Do(ctx, p.Step("toy.count"), fmt.Sprintf("text %d", i), countIn{Text: texts[i]}, &o)
		counts[i], refs[i] = o.Words, r
		if err == nil && !r.Accepted() {
			counts[i] = 0
		}
		return err
	})
	if err != nil {
		return 0, b, b.Finish(err)
	}
	var s sumOut
	if _, err := b.Do(ctx, p.Step("toy.sum"), "total", sumIn{Counts: counts}, &s, refs...); err != nil {
		return 0, b, b.Finish(err)
	}
	return s.Total, b, b.Finish(nil)
}

func stat(b *Build, step string) StepStats {
	for _, s := range b.Stats() {
		if s.Step == step {
			return s
		}
	}
	return StepStats{}
}

// TestVerifyReviseRejectFailResume exercises every branch of an item: a
// code check failing then passing after a revision, a model check failing
// then passing, a rejection after k_max revisions, a failed call recorded
// as a failure and retried when the build runs again, and a rerun with 0
// calls; a dry run makes none either.
func TestVerifyReviseRejectFailResume(t *testing.T) {
	ctx := context.Background()
	m := &toyModel{failOnce: map[string]bool{"flaky": true}}
	srv, err := llmtest.Start(llmtest.Options{Responder: m.reply})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	chat := runtest.ClientOn(t, srv)
	store, err := OpenStore(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	texts := []string{"one two three", "a miscount here", "please hallucinate now", "never good enough", "a flaky call"}
	opts := Options{Store: store, Chat: chat, Seed: 7}

	_, b, err := runToy(ctx, t, opts, texts)
	if err == nil || !strings.Contains(err.Error(), "text 4") {
		t.Fatalf("first build: want the failed call of text 4, got %v", err)
	}
	c := stat(b, "toy.count")
	if c.Failed != 1 || c.Items != 4 {
		t.Errorf("first build: %d failed calls and %d items, want 1 and 4", c.Failed, c.Items)
	}
	fails, _ := store.Failures(b.ID)
	if len(fails) != 1 || fails[0].Item != "text 4" || !strings.Contains(fails[0].Error, "500") {
		t.Errorf("failures stored: %+v", fails)
	}
	builds, _ := store.Builds()
	if len(builds) != 1 || builds[0].Status != BuildIncomplete {
		t.Fatalf("builds: %+v", builds)
	}
	// text 1: code check fails, 1 revision; text 2: model check fails, 1
	// revision; text 3: rejected after 3 revisions.
	items, _ := store.Items(b.ID, "toy.count")
	revs := map[string]int{}
	status := map[string]string{}
	for _, it := range items {
		revs[it.Item], status[it.Item] = it.Revisions, it.Status
	}
	if revs["text 0"] != 0 || revs["text 1"] != 1 || revs["text 2"] != 1 || revs["text 3"] != 3 || status["text 3"] != StatusRejected || status["text 2"] != StatusAccepted {
		t.Errorf("revisions %v statuses %v", revs, status)
	}
	if c.Revisions != 5 || c.Rejected != 1 {
		t.Errorf("stats: %d revisions %d rejected, want 5 and 1", c.Revisions, c.Rejected)
	}
	first := srv.Stats().ByPath[llmtest.PathChat]

	// Resume: only the failed item is made (2 calls: count and check), then the sum.
	srv.Reset()
	total, b2, err := runToy(ctx, t, opts, texts)
	if err != nil {
		t.Fatal(err)
	}
	if b2.ID != b.ID {
		t.Errorf("the resumed build has id %s, want %s", b2.ID, b.ID)
	}
	if got := srv.Stats().ByPath[llmtest.PathChat]; got != 3 {
		t.Errorf("resume made %d calls, want 3 (the failed item's 2, the sum's 1); the first session made %d", got, first)
	}
	if want := 3 + 3 + 3 + 0 + 3; total != want {
		t.Errorf("total %d, want %d (the rejected text counts 0)", total, want)
	}
	if c := stat(b2, "toy.count"); c.Stored != 4 || c.Calls != 2 {
		t.Errorf("resume: %d stored %d calls, want 4 and 2", c.Stored, c.Calls)
	}
	builds, _ = store.Builds()
	if builds[0].Status != BuildComplete || builds[0].Sessions != 2 {
		t.Errorf("build after resume: %+v", builds[0])
	}

	// Rerun: no call at all.
	srv.Reset()
	if _, _, err := runToy(ctx, t, opts, texts); err != nil {
		t.Fatal(err)
	}
	if got := srv.Stats().Total; got != 0 {
		t.Errorf("rerun made %d requests, want 0", got)
	}

	// Dry run: no call, the same items, calls counted from the stubs.
	_, d, err := runToy(ctx, t, Options{Seed: 7, DryRun: true}, texts)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Stats().Total; got != 0 {
		t.Errorf("dry run made %d requests", got)
	}
	dc := stat(d, "toy.count")
	if dc.Items != 5 || dc.Calls != 10 || dc.MaxCalls != 10+5*3*2 || dc.PromptTokens == 0 {
		t.Errorf("dry run count step: %+v", dc)
	}
	if ds := stat(d, "toy.sum"); ds.Calls != 1 || ds.Depth != 3 {
		t.Errorf("dry run sum step: %+v (want 1 call at depth 3: count, check, sum)", ds)
	}
}

// TestInterruptedItemReplaysItsCalls: an item cut off between its calls
// (generated, not checked) gives back its stored call when the build runs
// again, without the call cache: the endpoint sees only the calls not made.
func TestInterruptedItemReplaysItsCalls(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	killed := false
	m := &toyModel{}
	srv, err := llmtest.Start(llmtest.Options{Responder: func(c llmtest.ChatCall) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if TaskOf(c.LastUser()) == "toy.count.check v1" && !killed {
			killed = true
			cancel() // the build is killed as its first check is asked
			return "", &llmtest.StatusError{Status: 503, Message: "going away"}
		}
		return m.reply(c)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	store, err := OpenStore(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	opts := Options{Store: store, Chat: runtest.ClientOn(t, srv), Seed: 1, Concurrency: 1}
	if _, _, err := runToy(ctx, t, opts, []string{"alpha beta"}); err == nil {
		t.Fatal("the interrupted build did not fail")
	}
	srv.Reset()
	total, b, err := runToy(context.Background(), t, opts, []string{"alpha beta"})
	if err != nil || total != 2 {
		t.Fatalf("resume: total %d, %v", total, err)
	}
	// The generation was stored; the check and the sum are asked.
	if got := srv.Stats().ByPath[llmtest.PathChat]; got != 2 {
		t.Errorf("resume asked %d calls, want 2 (check, sum)", got)
	}
	if c := stat(b, "toy.count"); c.Replayed != 1 {
		t.Errorf("replayed %d calls, want 1", c.Replayed)
	}
}

func TestFloorSchedule(t *testing.T) {
	var g graph
	// Two chains of 3 calls and 4 independent calls, on 2 slots: the
	// chains' 6 calls and the 4 others need 5 steps; the longest chain is 3.
	for range 2 {
		a := g.add("s", 1, nil)
		b := g.add("s", 1, []*node{a})
		g.add("s", 1, []*node{b})
	}
	for range 4 {
		g.add("t", 1, nil)
	}
	f := g.total(2)
	if f.depth != 3 || f.schedule != 5 {
		t.Errorf("floor %+v, want depth 3 schedule 5", f)
	}
	if f := g.total(100); f.schedule != 3 {
		t.Errorf("unbounded schedule %d, want 3", f.schedule)
	}
	fl := g.floors(2)
	if fl["s"].depth != 3 {
		t.Errorf("step floors %+v", fl)
	}
}

func TestScore(t *testing.T) {
	c := &Check{Epsilon: 0.05}
	v := c.Score(Verdict{Decision: "PASS", SourceFacts: 10, OutputFacts: 10, Missing: []string{"x", "y"}})
	if v.Pass || v.Delta < 0.079 || v.Delta > 0.081 {
		t.Errorf("two missing of 10: %+v", v)
	}
	if v := (&Check{Epsilon: 0.05}).Score(Verdict{Decision: "PASS", SourceFacts: 10, OutputFacts: 10}); !v.Pass {
		t.Errorf("nothing missing: %+v", v)
	}
	if v := (&Check{Epsilon: 0.5}).Score(Verdict{Decision: "reject"}); v.Pass {
		t.Errorf("a REJECT passed: %+v", v)
	}
	if v := (&Check{}).Score(Verdict{Decision: "PASS", OutputFacts: 0, Unsupported: []string{"a"}}); v.Hallucination != 1 || v.Pass {
		t.Errorf("unsupported fact with no count: %+v", v)
	}
	_ = errors.New
}

// TestModelsOverrideAStep: Options.Models gives a step and a checker
// their own model, which enters the build's identity and the calls.
func TestModelsOverrideAStep(t *testing.T) {
	m := &toyModel{}
	srv, err := llmtest.Start(llmtest.Options{Responder: m.reply})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	chat := runtest.ClientOn(t, srv)
	_, plain, err := runToy(context.Background(), t, Options{Chat: chat}, []string{"a b"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Reset()
	_, b, err := runToy(context.Background(), t, Options{Chat: chat, Models: map[string]string{"toy.sum": "other-model", "toy.count.check": "checker"}}, []string{"a b"})
	if err != nil {
		t.Fatal(err)
	}
	if b.ID == plain.ID {
		t.Errorf("the build id does not change with a step's model")
	}
	got := map[string]int{}
	for _, c := range srv.Calls() {
		got[c.Model]++
	}
	if got["other-model"] != 1 || got["checker"] != 1 || got["m-backbone"] != 1 {
		t.Errorf("models called: %v", got)
	}
	if _, err := Start(context.Background(), toyPipeline(), nil, Options{Chat: chat, Models: map[string]string{"toy.nope": "x"}}); err == nil {
		t.Errorf("an unknown step in Models is not an error")
	}
}
