package amem_test

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
	"github.com/memlab/memlab/retrieval/amem"
)

// ExampleNew builds an A-Mem memory (research defaults) on a fake model
// server: every note gets the same keywords, the second note links to its
// nearest neighbour, and the question becomes the keywords "cello". The
// hit on the cello note is followed by its linked note as a neighbour.
func ExampleNew() {
	srv, err := llmtest.Start(llmtest.Options{Rules: []llmtest.Rule{
		{Contains: "Build a memory note", Reply: `{"keywords": ["music", "week", "plans"], "context": "A note about the week.", "tags": ["life"]}`},
		{Contains: "Number of neighbours: 0", Reply: `{"should_evolve": false, "actions": [], "suggested_connections": [], "tags_to_update": [], "new_context_neighborhood": [], "new_tags_neighborhood": []}`},
		{Contains: "Decide how the memory network evolves", Reply: `{"should_evolve": true, "actions": ["strengthen"], "suggested_connections": [0], "tags_to_update": ["music"], "new_context_neighborhood": [], "new_tags_neighborhood": []}`},
		{Contains: "Turn the question into search keywords", Reply: `{"keywords": "cello"}`},
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
	traces := []datasets.Trace{
		{ID: "t1", Time: day(1), Text: "Booked a trial lesson with Helen."},
		{ID: "t2", Time: day(5), Text: "First cello lesson today!"},
	}
	d := &datasets.Dataset{Corpora: []*datasets.Corpus{{ID: "p1", Traces: traces}}}
	emb, err := offline.FitHashedTFIDF([]string{traces[0].Text, traces[1].Text}, offline.HashedOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	mem, err := amem.New(client, emb, amem.DefaultConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	sys := retrieval.NewIncremental(d, mem)
	q := datasets.Question{ID: "q1", CorpusID: "p1", Text: "When did I start the cello?", AskedAt: day(6)}
	hits, err := sys.Retrieve(context.Background(), q, 5)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range hits {
		fmt.Println(h.Kind, h.UnitID, h.TraceIDs)
	}
	mt := mem.Meter()
	fmt.Println("ingest calls", mt.IngestCalls, "embeds", mt.IngestEmbeds, "query calls", mt.QueryCalls, "embeds", mt.QueryEmbeds)
	// Output:
	// memory n2 [t2]
	// neighbor n1 [t1]
	// ingest calls 4 embeds 3 query calls 1 embeds 1
}
