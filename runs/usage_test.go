package runs

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
)

func TestRecordsCountModelCallsByStage(t *testing.T) {
	srv, err := llmtest.Start(llmtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := cache.Open(filepath.Join(t.TempDir(), "calls.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	client, err := llm.New(llm.SingleEndpoint(srv.URL(), "m"), llm.Options{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	reader, err := generate.NewModelReader(client, generate.ReaderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	d, flat := runtest.SampleFlat(t)
	cfg := Config{System: flat, Reader: reader, K: 5,
		Judges: []Judge{CloneMemQAJudge(judge.NewCloneMemJudge(client, judge.Config{}))}}
	res, err := Run(context.Background(), d, cfg, Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	var calls int
	for _, r := range res.Records {
		want := 1
		if d.Questions[indexOf(d.Questions, r.QuestionID)].IsMultipleChoice() {
			want = 2
		}
		u := r.Usage
		if u.Read.Calls != want || u.Read.Cached != 0 || u.Read.PromptTokens == 0 || u.Retrieve.Calls != 0 {
			t.Fatalf("%s: usage %+v, want %d read calls", r.QuestionID, u, want)
		}
		if u.Judge.Calls < 1 {
			t.Fatalf("%s: no judge call counted: %+v", r.QuestionID, u)
		}
		calls += u.Total().Calls
	}
	if got := srv.Stats().Total; got != calls {
		t.Errorf("records count %d calls, the server saw %d", calls, got)
	}
	// The same run again is served by the cache, and says so.
	again, err := Run(context.Background(), d, cfg, Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again.Records {
		if tot := r.Usage.Total(); tot.Cached != tot.Calls || tot.Calls == 0 {
			t.Fatalf("%s: second run %+v, want every call cached", r.QuestionID, tot)
		}
	}
	// Usage survives the store.
	b, _ := record.Marshal(again.Records[0])
	back, err := record.Unmarshal(b)
	if err != nil || back.Usage != again.Records[0].Usage {
		t.Errorf("usage round trip: %+v vs %+v (%v)", back.Usage, again.Records[0].Usage, err)
	}
}

func indexOf(qs []datasets.Question, id string) int {
	for i, q := range qs {
		if q.ID == id {
			return i
		}
	}
	return -1
}
