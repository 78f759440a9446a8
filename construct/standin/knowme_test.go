package standin_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memlab/memlab/construct"
	"github.com/memlab/memlab/construct/standin"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/llm/llmtest"
)

// narrative is the test narrative, written for these tests (fiction).
func narrative(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("../testdata/narrative.txt")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func knowMeParams(t testing.TB) construct.KnowMeParams {
	return construct.KnowMeParams{Name: "vestvik", Narrative: narrative(t), Start: "2009-10-03", QuestionsPerTask: 2}
}

// scripted is the stand-in with a test's rules in front: the ANU check of
// the shed segment rejects the first output (one revision), the check of
// the second psychoanalysis question rejects every output (a rejection),
// and the first realignment call of the letter segment fails with HTTP
// 500 (a failed call, retried when the build runs again).
type scripted struct {
	mu      sync.Mutex
	anuSeen bool
	failed  bool
	failOn  bool
}

func (s *scripted) reply(call llmtest.ChatCall) (string, error) {
	user := call.LastUser()
	task := construct.TaskOf(user)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case task == "knowme.anu.check v1" && strings.Contains(user, "took me back") && !s.anuSeen:
		s.anuSeen = true
		return `{"decision":"REJECT","source_facts":6,"output_facts":6,"missing":["my father let me hold the bucket"],"unsupported":[],"feedback":"keep every fact"}`, nil
	case task == "knowme.question.check v1" && strings.Contains(user, `"task": "Expert-Annotated Psychoanalysis"`) && strings.Contains(user, `"number": 2`):
		return `{"decision":"REJECT","source_facts":4,"output_facts":5,"missing":[],"unsupported":["a motive the entries do not state"],"feedback":"ground it"}`, nil
	case task == "knowme.realign v1" && strings.Contains(user, "letter from my mother") && s.failOn && !s.failed:
		s.failed = true
		return "", &llmtest.StatusError{Status: 500, Message: "scripted failure"}
	}
	return standin.Reply(call)
}

func TestKnowMeEndToEnd(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sc := &scripted{failOn: true}
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
	opts := construct.Options{Store: store, Chat: chat, Seed: 1}

	// First session: the failed call fails the build, after every other
	// item was made.
	res, err := construct.BuildKnowMe(ctx, knowMeParams(t), opts)
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("first session: want the scripted failure, got %v", err)
	}
	fails, _ := store.Failures(res.Build.ID)
	if len(fails) != 1 || fails[0].Step != construct.KnowMeRealign {
		t.Errorf("failures: %+v", fails)
	}
	first := srv.Stats().ByPath[llmtest.PathChat]

	// Second session: resumes; only the failed segment's realignment and
	// what follows it are made.
	srv.Reset()
	res, err = construct.BuildKnowMe(ctx, knowMeParams(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	resumed := srv.Stats().ByPath[llmtest.PathChat]
	if resumed >= first {
		t.Errorf("the resumed session made %d calls, the first %d", resumed, first)
	}
	tot := res.Build.Total()
	t.Logf("first session %d calls, resumed %d\n%s", first, resumed, construct.StatsTable(res.Build.Stats(), tot).Markdown())
	byStep := map[string]construct.StepStats{}
	for _, s := range res.Build.Stats() {
		byStep[s.Step] = s
	}
	if s := byStep[construct.KnowMeANU]; s.Revisions != 1 || s.Rejected != 0 {
		t.Errorf("anu: %d revisions %d rejected, want 1 and 0", s.Revisions, s.Rejected)
	}
	if s := byStep[construct.KnowMeQuestions]; s.Rejected != 1 || s.Revisions != 3 {
		t.Errorf("questions: %d rejected %d revisions, want 1 and 3", s.Rejected, s.Revisions)
	}
	out := filepath.Join(dir, "vestvik")
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
	if d.Format != datasets.FormatKnowMe || len(d.Corpora) != 1 || len(d.Corpora[0].Traces) != len(res.Stream) {
		t.Errorf("loaded %s with %d corpora", d.Format, len(d.Corpora))
	}
	if len(d.Questions) != 13 {
		t.Errorf("%d questions, want 13 (7 tasks x 2, one rejected)", len(d.Questions))
	}
	// The flashback was realigned: an entry of 1986 exists, the stream is
	// in time order.
	var has1986 bool
	for _, tr := range d.Corpora[0].Traces {
		has1986 = has1986 || strings.HasPrefix(tr.TimeRaw, "1986-07")
	}
	if !has1986 {
		t.Errorf("no entry realigned to the summer of 1986")
	}
	review, _ := os.ReadFile(filepath.Join(out, construct.ReviewFile))
	if !strings.Contains(string(review), "knowme.question: 1") {
		t.Errorf("the review file does not list the rejected question:\n%s", review)
	}
	prov, _ := os.ReadFile(filepath.Join(out, construct.ProvenanceFile))
	if n := bytes.Count(prov, []byte("\n")); n != len(res.Stream)+13 {
		t.Errorf("%d provenance lines, want %d", n, len(res.Stream)+13)
	}

	// Rerun: 0 calls, the same files.
	srv.Reset()
	res2, err := construct.BuildKnowMe(ctx, knowMeParams(t), opts)
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

	// Dry run: 0 calls; its plan has as many calls as the build made
	// without its revisions and failure.
	dry, err := construct.BuildKnowMe(ctx, knowMeParams(t), construct.Options{Seed: 1, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.Stats().Total; n != 0 {
		t.Errorf("dry run made %d requests", n)
	}
	dt := dry.Build.Total()
	made := first + resumed - 1 /* failed */ - 2*(1+3) /* revisions and their checks */
	if dt.Calls != made {
		t.Errorf("dry run plans %d calls, the build made %d without revisions", dt.Calls, made)
	}
}

// sameTree fails when two directories' files differ (the review file
// holds wall times and is skipped).
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	filepath.Walk(a, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || fi.Name() == construct.ReviewFile {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		x, _ := os.ReadFile(p)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between the build and its rerun", rel)
		}
		return nil
	})
}

// TestKnowMeKilledAndResumed kills a build process (SIGKILL) in the middle
// of the build, then resumes it: the calls the killed process stored are
// not asked again (the endpoint answers exactly the calls an
// uninterrupted build makes, less those), the items it finished are
// reused, and the result is the uninterrupted build's.
func TestKnowMeKilledAndResumed(t *testing.T) {
	if os.Getenv("CONSTRUCT_CHILD") == "1" {
		chat, err := standin.Client(os.Getenv("CONSTRUCT_URL"), 4, llm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		store, err := construct.OpenStore(os.Getenv("CONSTRUCT_STORE"))
		if err != nil {
			t.Fatal(err)
		}
		construct.BuildKnowMe(context.Background(), knowMeParams(t), construct.Options{Store: store, Chat: chat, Seed: 1})
		t.Fatal("the build was not killed")
	}
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx := context.Background()
	dir := t.TempDir()
	srv, err := standin.Start(standin.Options{Latency: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	chat, err := standin.Client(srv.URL(), 4, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The uninterrupted build, in a store of its own.
	whole, err := construct.OpenStore(filepath.Join(dir, "whole.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	ref, err := construct.BuildKnowMe(ctx, knowMeParams(t), construct.Options{Store: whole, Chat: chat, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	n := srv.Stats().ByOutcome[llmtest.OutcomeOK]
	srv.Reset()

	path := filepath.Join(dir, "killed.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKnowMeKilledAndResumed$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CONSTRUCT_CHILD=1", "CONSTRUCT_URL="+srv.URL(), "CONSTRUCT_STORE="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for srv.Stats().ByOutcome[llmtest.OutcomeOK] < n/2 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	time.Sleep(50 * time.Millisecond) // the calls in flight end
	store, err := construct.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	builds, _ := store.Builds()
	if len(builds) != 1 || builds[0].Status != construct.BuildRunning {
		t.Fatalf("after the kill: builds %+v", builds)
	}
	calls, _ := store.Calls(builds[0].ID)
	stored := 0
	for _, c := range calls {
		if c.Kind != construct.KindCodeCheck {
			stored++
		}
	}
	if stored == 0 || stored >= n {
		t.Fatalf("the killed process stored %d of %d calls: not killed in the middle", stored, n)
	}
	srv.Reset()
	res, err := construct.BuildKnowMe(ctx, knowMeParams(t), construct.Options{Store: store, Chat: chat, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Stats().ByOutcome[llmtest.OutcomeOK]; got != n-stored {
		t.Errorf("the resumed build asked %d calls; an uninterrupted build makes %d and the killed one had stored %d", got, n, stored)
	}
	if tot := res.Build.Total(); tot.Stored == 0 || tot.Calls != n-stored {
		t.Errorf("resumed: %d items reused, %d calls asked (%d replayed from the store); want items reused and %d calls", tot.Stored, tot.Calls, tot.Replayed, n-stored)
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := ref.Write(a); err != nil {
		t.Fatal(err)
	}
	if err := res.Write(b); err != nil {
		t.Fatal(err)
	}
	sameTree(t, a, b)
}

// TestKnowMeRejectedSegmentsAndUnits: boundaries that never pass their
// code check fall back to the paragraphs; a segment whose units the
// checker always rejects is left out of the stream and listed for review;
// the rest of the dataset is built and has no defect.
func TestKnowMeRejectedSegmentsAndUnits(t *testing.T) {
	srv, err := standin.Start(standin.Options{Responder: func(call llmtest.ChatCall) (string, error) {
		user := call.LastUser()
		switch task := construct.TaskOf(user); {
		case task == "knowme.segment v1" || task == "knowme.segment.revise v1":
			return `{"boundaries": [999]}`, nil
		case task == "knowme.anu.check v1" && strings.Contains(user, "Ingrid arrived"):
			return `{"decision":"REJECT","source_facts":5,"output_facts":5,"missing":["the pizzas"],"unsupported":[],"feedback":"keep the pizzas"}`, nil
		}
		return standin.Reply(call)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	chat, err := standin.Client(srv.URL(), 8, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := construct.BuildKnowMe(context.Background(), knowMeParams(t), construct.Options{Chat: chat, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]int{}
	for _, d := range res.Dropped {
		steps[d.Step]++
	}
	if steps[construct.KnowMeSegment] != 1 || steps[construct.KnowMeANU] != 1 {
		t.Errorf("dropped %v: want the window's boundaries and one segment's units", res.Dropped)
	}
	for _, e := range res.Stream {
		if strings.Contains(e.Action, "Ingrid arrived") {
			t.Errorf("the rejected segment's entry %d is in the stream", e.ID)
		}
	}
	dir := t.TempDir()
	if err := res.Write(dir); err != nil {
		t.Fatal(err)
	}
	d, err := datasets.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Report.Defects) > 0 || len(d.Corpora[0].Traces) == 0 {
		t.Errorf("%d defects, %d traces", len(d.Report.Defects), len(d.Corpora[0].Traces))
	}
}

// TestKnowMeDeterministicFromTheCache: two builds with the same seed into
// two fresh stores, sharing the call cache: the second is answered by the
// cache alone (no request) and writes the same files.
func TestKnowMeDeterministicFromTheCache(t *testing.T) {
	dir := t.TempDir()
	srv, err := standin.Start(standin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ch, err := cache.Open(filepath.Join(dir, "calls.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	chat, err := standin.Client(srv.URL(), 8, llm.Options{Cache: ch})
	if err != nil {
		t.Fatal(err)
	}
	var outs []string
	for i := range 2 {
		store, err := construct.OpenStore(filepath.Join(dir, fmt.Sprintf("runs%d.db", i)))
		if err != nil {
			t.Fatal(err)
		}
		srv.Reset()
		res, err := construct.BuildKnowMe(context.Background(), knowMeParams(t), construct.Options{Store: store, Chat: chat, Seed: 5})
		store.Close()
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if n := srv.Stats().Total; n != 0 {
				t.Errorf("the second build sent %d requests; the cache holds every call", n)
			}
			if tot := res.Build.Total(); tot.Cached != tot.Calls || tot.Calls == 0 {
				t.Errorf("second build: %d calls, %d from the cache", tot.Calls, tot.Cached)
			}
		}
		out := filepath.Join(dir, fmt.Sprintf("out%d", i))
		if err := res.Write(out); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	sameTree(t, outs[0], outs[1])
}
