package reports_test

import (
	"context"
	"strings"
	"testing"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
)

func TestPaperLabels(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{reports.PaperSystemLabel("flat(dense:embedder(model=contriever))"), "Flat"},
		{reports.PaperSystemLabel("amem(embedder=lsa)"), "A-Mem"},
		{reports.PaperSystemLabel("recent(tokens=32000)"), "base"},
		{reports.PaperSystemLabel("timeline"), "timeline"},
		{reports.PaperBackboneLabel("reader(model=meta-llama/Llama-3.1-8B-Instruct)"), "LLaMA"},
		{reports.PaperBackboneLabel(`reader(model="openai/gpt-4o-mini")`), "4o-mini"},
		{reports.PaperBackboneLabel("reader(model=qwen3-32b)"), "Qwen3-32B"},
		{reports.PaperBackboneLabel("extractive"), "extractive (offline)"},
		{reports.PaperBackboneLabel("reader(model=mistral-7b)"), "mistral-7b"},
		{reports.PaperEmbedderLabel("flat(bm25)"), "BM25"},
		{reports.PaperEmbedderLabel("flat(dense:lsa)"), "lsa (offline)"},
		{reports.PaperEmbedderLabel("flat(dense:embedder(model=facebook/contriever))"), "Contriever"},
		{reports.PaperEmbedderLabel("mem0(embedder=embedder(model=text-embedding-3-small))"), "text-emb-3-small"},
		{reports.PaperUnitLabel("flat(bm25)"), "w/o mem"},
		{reports.PaperUnitLabel("flat(bm25,units=facts+raw)"), "combined"},
		{reports.PaperUnitLabel("flat(bm25,units=facts)"), "w/o org"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestSetPaperTable: a grid's set in CloneMem Table 3's layout: rows k x
// metric, a column per point, each with its "(paper)" column; an offline
// reader is never given the paper's figures.
func TestSetPaperTable(t *testing.T) {
	set, err := grid.Grid{Env: &catalog.Env{}, Axes: []record.Axis{grid.Axis("system", "flat(bm25)", "oracle"), grid.Ks(10, 20)},
		Options: runs.Options{NoStore: true, Quiet: true}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tab, note, err := set.PaperTable(reports.SetPaperOptions{Paper: reports.PaperCloneMem, Table: "3"})
	if err != nil {
		t.Fatal(err)
	}
	md := tab.Markdown()
	if len(tab.Rows) != 2*3 {
		t.Errorf("%d rows, want k (2) x the 3 recall metrics of Table 3:\n%s", len(tab.Rows), md)
	}
	if !strings.Contains(md, "Recall-All-Any") || !strings.Contains(md, "(paper)") || !strings.Contains(note, "backbone extractive (offline)") {
		t.Errorf("table lacks the paper's metric labels, its columns or our backbone:\n%s", md)
	}
	for _, r := range tab.Rows {
		for j, h := range tab.Header {
			if strings.HasSuffix(h, "(paper)") && r[j] != "" {
				t.Errorf("an offline reader's column got a published figure %q in %q:\n%s", r[j], h, md)
			}
		}
	}
	if note == "" {
		t.Error("no note")
	}
}

// TestSetPaperTableFigures: a point whose components are the paper's
// (Flat with Contriever read by LLaMA, on the fake server) has the
// published figure beside it.
func TestSetPaperTableFigures(t *testing.T) {
	env := &catalog.Env{Client: runtest.FakeClient(t, nil)}
	set, err := grid.Grid{Env: env, Reader: "reader(model=llama-3.1-8b-instruct)",
		Axes:    []record.Axis{grid.Axis("embedder", "contriever", "lsa")},
		Options: runs.Options{NoStore: true, Quiet: true}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tab, _, err := set.PaperTable(reports.SetPaperOptions{Paper: reports.PaperCloneMem, Table: "5", Metrics: []string{"Recall-Flat"}})
	if err != nil {
		t.Fatal(err)
	}
	md := tab.Markdown()
	if !strings.Contains(md, "| 0.1972 |") {
		t.Errorf("no published Recall-Flat of LLaMA / Contriever (0.1972) beside ours:\n%s", md)
	}
	if strings.Count(md, "0.1972") != 1 {
		t.Errorf("the figure is shown beside the offline embedder too:\n%s", md)
	}
}
