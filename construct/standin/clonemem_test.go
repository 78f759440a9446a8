package standin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/memlab/memlab/construct"
	"github.com/memlab/memlab/construct/standin"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
)

// cmScripted is the stand-in with a test's rules in front: the first
// trace of a private chat is not in the chat format (a revision), the
// validator rejects every option set of the first window's experience
// pattern question (a rejection by the multiple-choice validator) and
// once those of its trajectory question (a regeneration), the
// sufficiency check fails the causal question of the first window's
// emotion arc (the evidence-sufficiency filter), and the first details
// call of phase 3 fails with HTTP 500 (a failed call, retried when the
// build runs again).
type cmScripted struct {
	mu                      sync.Mutex
	chatOnce, trajOnce, bad bool
	fail                    bool
	doomed                  string // the question whose option sets are all rejected
}

// rejectAll reports whether the checked question is the doomed one: the
// first pattern question the validator sees.
func (s *cmScripted) rejectAll(in json.RawMessage) bool {
	var x struct {
		Source json.RawMessage `json:"source"`
	}
	json.Unmarshal(in, &x)
	if s.doomed == "" {
		s.doomed = string(x.Source)
	}
	return s.doomed == string(x.Source)
}

// w1 is the first window's question time.
const w1 = `"question_time": "2023-01-30T23:59:59"`

func (s *cmScripted) reply(call llmtest.ChatCall) (string, error) {
	user := call.LastUser()
	task := construct.TaskOf(user)
	in, _ := construct.InputOf(user)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case task == "clonemem.trace v1" && strings.Contains(string(in), `"medium": "chat_private"`) && !s.chatOnce:
		s.chatOnce = true
		return `{"content": "Priya, it went well today"}`, nil
	case task == "clonemem.choices.check v1" && strings.Contains(user, "Is there something that keeps coming back") && s.rejectAll(in):
		return `{"decision":"REJECT","source_facts":1,"output_facts":4,"missing":[],"unsupported":["the correct option is the only one in the first person"],"feedback":"make the distractors first-person too"}`, nil
	case task == "clonemem.choices.check v1" && strings.Contains(user, "How have things developed") && !s.trajOnce:
		s.trajOnce = true
		return `{"decision":"REJECT","source_facts":1,"output_facts":4,"missing":[],"unsupported":["the answer is the longest option"],"feedback":"lengthen the distractors"}`, nil
	case task == "clonemem.sufficiency v1" && strings.Contains(user, `"dimension": "emotion"`) && strings.Contains(user, `"type": "causal"`) && strings.Contains(user, w1):
		return `{"sufficient": false, "reason": "the traces do not say what caused it"}`, nil
	case task == "clonemem.details v1" && strings.Contains(user, "Event 2: ") && strings.Contains(user, "part 1") && s.fail && !s.bad:
		s.bad = true
		return "", &llmtest.StatusError{Status: 500, Message: "scripted failure"}
	}
	return standin.Reply(call)
}

func TestCloneMemEndToEnd(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sc := &cmScripted{fail: true}
	srv, err := standin.Start(standin.Options{Responder: sc.reply})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	chat, err := standin.Client(srv.URL(), 8, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := construct.OpenStore(filepath.Join(dir, "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	opts := construct.Options{Store: store, Chat: chat, Seed: 3}
	params := construct.CloneMemParams{PersonID: "p07"}

	res, err := construct.BuildCloneMem(ctx, params, opts)
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("first session: want the scripted failure, got %v", err)
	}
	first := srv.Stats().ByPath[llmtest.PathChat]
	srv.Reset()
	res, err = construct.BuildCloneMem(ctx, params, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first session %d calls, resumed %d\n%s", first, srv.Stats().ByPath[llmtest.PathChat],
		construct.StatsTable(res.Build.Stats(), res.Build.Total()).Markdown())
	by := map[string]construct.StepStats{}
	for _, s := range res.Build.Stats() {
		by[s.Step] = s
	}
	if s := by[construct.CloneMemTrace]; s.Revisions != 1 {
		t.Errorf("traces: %d revisions, want 1 (the chat not in the chat format)", s.Revisions)
	}
	if s := by[construct.CloneMemChoices]; s.Rejected != 1 || s.Revisions != 3+1 {
		t.Errorf("choices: %d rejected %d revisions, want 1 and 4", s.Rejected, s.Revisions)
	}
	if res.Filtered["sufficiency"] != 1 || res.Filtered["choices"] != 1 {
		t.Errorf("filtered %v: want one by the sufficiency check, one by the validator", res.Filtered)
	}
	out := filepath.Join(dir, "out")
	if err := res.Write(out); err != nil {
		t.Fatal(err)
	}
	d, err := datasets.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep bytes.Buffer
	d.Report.WriteText(&rep, 0)
	if len(d.Report.Defects) > 0 {
		t.Errorf("validation report:\n%s", rep.String())
	}
	if d.Format != datasets.FormatCloneMem || len(d.Corpora[0].Traces) != 6*2*2 {
		t.Errorf("%s with %d traces, want 24", d.Format, len(d.Corpora[0].Traces))
	}
	// The temporal check: no cited trace after its question's time, and
	// every question sees its evidence.
	types, dims := map[string]int{}, map[string]int{}
	for _, q := range d.Questions {
		types[q.Task]++
		dims[q.Dimension]++
		visible := map[string]bool{}
		for _, tr := range d.Visible(q) {
			visible[tr.ID] = true
		}
		for _, id := range q.GoldTraceIDs() {
			if !visible[id] {
				t.Errorf("question %s cites trace %s, not visible at %s", q.ID, id, q.AskedAt)
			}
		}
		if len(q.Choices) != 5 || q.Choices[4].Text != construct.CannotBeDetermined || (q.Task == "unanswerable") != (q.Correct == "E") {
			t.Errorf("question %s (%s): choices %v, correct %s", q.ID, q.Task, q.Choices, q.Correct)
		}
	}
	if len(types) != 8 || len(dims) != 3 {
		t.Errorf("question types %v, dimensions %v: want all 8 and 3", types, dims)
	}
	raw, _ := os.ReadFile(filepath.Join(out, res.FileName()))
	var f map[string]json.RawMessage
	json.Unmarshal(raw, &f)
	if len(f) != 4 {
		t.Errorf("persona file keys: %d, want person_name, person_id, context, questions", len(f))
	}
	review, _ := os.ReadFile(filepath.Join(out, construct.ReviewFile))
	for _, want := range []string{"removed by the evidence-sufficiency filter: 1", "removed by the multiple-choice validator: 1", "(true later)"} {
		if !strings.Contains(string(review), want) {
			t.Errorf("review lacks %q", want)
		}
	}

	// Rerun: 0 calls, the same file.
	srv.Reset()
	res2, err := construct.BuildCloneMem(ctx, params, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.Stats().Total; n != 0 {
		t.Errorf("rerun made %d requests", n)
	}
	out2 := filepath.Join(dir, "again")
	if err := res2.Write(out2); err != nil {
		t.Fatal(err)
	}
	sameTree(t, out, out2)

	// Dry run: 0 calls.
	dry, err := construct.BuildCloneMem(ctx, params, construct.Options{Seed: 3, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.Stats().Total; n != 0 {
		t.Errorf("dry run made %d requests", n)
	}
	if dt := dry.Build.Total(); dt.Calls == 0 || len(dry.Traces) != 24 {
		t.Errorf("dry run: %d calls, %d traces", dt.Calls, len(dry.Traces))
	}
	// The phases are one chain (each carries the snapshot of the one
	// before): persona, relations, arcs, events, then 6 phases.
	for _, s := range dry.Build.Stats() {
		if s.Step == construct.CloneMemPhase && (s.Items != 6 || s.Depth != 4+6) {
			t.Errorf("phases: %d items at depth %d, want 6 ending at depth 10", s.Items, s.Depth)
		}
	}
}

// TestCloneMemCanceledAndResumed cancels a build's context half way (as
// an interrupt does), then resumes it: the resumed build asks exactly the
// calls an uninterrupted build makes less those the canceled one stored.
func TestCloneMemCanceledAndResumed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var n, cut int
	var mu sync.Mutex
	var cancel context.CancelFunc
	srv, err := standin.Start(standin.Options{Responder: func(c llmtest.ChatCall) (string, error) {
		mu.Lock()
		if cut > 0 && c.N == cut {
			cancel()
		}
		mu.Unlock()
		return standin.Reply(c)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	chat, err := standin.Client(srv.URL(), 4, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	params := construct.CloneMemParams{PersonID: "p08", Types: []string{"trajectory", "unanswerable"}}
	whole, err := construct.OpenStore(filepath.Join(dir, "whole.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	if _, err := construct.BuildCloneMem(ctx, params, construct.Options{Store: whole, Chat: chat, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	n = srv.Stats().ByOutcome[llmtest.OutcomeOK]
	srv.Reset()

	store, err := construct.OpenStore(filepath.Join(dir, "cut.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cctx, c := context.WithCancel(ctx)
	mu.Lock()
	cut, cancel = n/2, c
	mu.Unlock()
	if _, err := construct.BuildCloneMem(cctx, params, construct.Options{Store: store, Chat: chat, Seed: 1}); err == nil {
		t.Fatal("the canceled build did not fail")
	}
	mu.Lock()
	cut = 0
	mu.Unlock()
	builds, _ := store.Builds()
	calls, _ := store.Calls(builds[0].ID)
	stored := 0
	for _, c := range calls {
		if c.Kind != construct.KindCodeCheck {
			stored++
		}
	}
	srv.Reset()
	res, err := construct.BuildCloneMem(ctx, params, construct.Options{Store: store, Chat: chat, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Stats().ByOutcome[llmtest.OutcomeOK]; got != n-stored || stored == 0 {
		t.Errorf("resumed build asked %d calls; uninterrupted %d, stored before the cancel %d", got, n, stored)
	}
	if res.Build.Total().Stored == 0 {
		t.Errorf("no item reused")
	}
}
