package mem0_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/retrieval/mem0"
)

// ExampleNew builds a Mem0 memory on a fake model server that extracts one
// fact per trace and always decides ADD, then asks it a question through
// the temporal protocol of retrieval.NewIncremental.
func ExampleNew() {
	srv, err := llmtest.Start(llmtest.Options{Responder: func(call llmtest.ChatCall) (string, error) {
		if strings.HasPrefix(call.LastUser(), "Input:") {
			if strings.Contains(call.LastUser(), "cello") {
				return `{"facts": ["Started cello lessons"]}`, nil
			}
			return `{"facts": ["Moved to Bristol"]}`, nil
		}
		fact := "Moved to Bristol"
		if strings.Contains(call.LastUser(), "Started cello") {
			fact = "Started cello lessons"
		}
		return `{"memory": [{"id": "9", "text": "` + fact + `", "event": "ADD"}]}`, nil
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	cfg, err := llm.ParseConfig("example.conf", strings.NewReader(
		"[endpoint fake]\nbase_url = "+srv.URL()+"\n[role extractor]\nendpoint = fake\nmodel = gpt-4o-mini\n"), func(string) string { return "" })
	if err != nil {
		fmt.Println(err)
		return
	}
	client, err := llm.New(cfg, llm.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}

	day := func(d int) time.Time { return time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC) }
	d := &datasets.Dataset{Corpora: []*datasets.Corpus{{ID: "p1", Traces: []datasets.Trace{
		{ID: "t1", Time: day(1), Text: "Finally moved into the flat in Bristol."},
		{ID: "t2", Time: day(5), Text: "First cello lesson with Helen today!"},
	}}}}
	emb, err := offline.FitHashedTFIDF([]string{d.Corpora[0].Traces[0].Text, d.Corpora[0].Traces[1].Text}, offline.HashedOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	mem, err := mem0.New(client, emb, mem0.DefaultConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	sys := retrieval.NewIncremental(d, mem)
	q := datasets.Question{ID: "q1", CorpusID: "p1", Text: "When did the cello lessons start?", AskedAt: day(6)}
	hits, err := sys.Retrieve(context.Background(), q, 5)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range hits {
		fmt.Println(h.Kind, h.UnitID, h.TraceIDs, h.Text)
	}
	fmt.Printf("%+v\n", mem.Meter().IngestCalls)
	// Output:
	// memory m2 [t2] Started cello lessons
	// memory m1 [t1] Moved to Bristol
	// 4
}
