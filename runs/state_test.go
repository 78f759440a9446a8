package runs

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/retrieval/timeline"
)

// TestTimelineStateReachesTheReaders (issue 24): over the sample, the
// timeline memory's state summary reaches both readers through a run. The
// extractive reader chooses "cannot be determined" exactly when the
// summary says undetermined; the model reader's prompt (on the fake
// server) ends with the summary and its verdict, and a model that follows
// the verdict is recorded as such.
func TestTimelineStateReachesTheReaders(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	newSystem := func() retrieval.System {
		m, err := timeline.New(timeline.Config{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return retrieval.NewIncremental(d, m)
	}
	res, err := Evaluate(t.Context(), d, Config{System: newSystem(), Reader: generate.NewExtractive(), K: 10})
	if err != nil {
		t.Fatal(err)
	}
	undetermined := map[string]bool{}
	for _, rec := range res.Records {
		last := rec.Hits[len(rec.Hits)-1]
		if last.Kind != retrieval.KindState {
			t.Fatalf("%s: last hit %q, want the state summary", rec.QuestionID, last.Kind)
		}
		undetermined[rec.QuestionID] = last.Undetermined
		if (rec.Choice == "E") != last.Undetermined {
			t.Errorf("%s: extractive chose %q, state undetermined = %v", rec.QuestionID, rec.Choice, last.Undetermined)
		}
	}

	var mu sync.Mutex
	prompts := map[string]string{}
	srv, err := llmtest.Start(llmtest.Options{Responder: func(c llmtest.ChatCall) (string, error) {
		user := c.Messages[len(c.Messages)-1].Content
		mu.Lock()
		prompts[user[:min(len(user), 200)]+"…"+user[max(0, len(user)-400):]] = user
		mu.Unlock()
		if strings.Contains(user, "NOT determined at this time") {
			return "E", nil
		}
		return "A", nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := llm.SingleEndpoint(srv.URL(), "m")
	cfg.Endpoints["default"].MaxAttempts = 1
	cl, err := llm.New(cfg, llm.Options{BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	mr, err := generate.NewModelReader(cl, generate.ReaderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	res, err = Evaluate(t.Context(), d, Config{System: newSystem(), Reader: mr, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range res.Records {
		if rec.Failure != "" {
			t.Fatalf("%s: %s", rec.QuestionID, rec.Failure)
		}
		if want := map[bool]string{true: "E", false: "A"}[undetermined[rec.QuestionID]]; rec.Choice != want {
			t.Errorf("%s: the model reader chose %q, want %q (undetermined %v)", rec.QuestionID, rec.Choice, want, undetermined[rec.QuestionID])
		}
	}
	n := 0
	for _, p := range prompts {
		if strings.Contains(p, "The memory's summary of the state of things") && strings.Contains(p, "Verdict:") && strings.Count(p, "---- idx") <= 10 {
			n++
		}
	}
	if n < len(d.Questions) {
		t.Errorf("%d of %d prompts show the state summary", n, len(prompts))
	}
}
