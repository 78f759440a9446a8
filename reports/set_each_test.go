package reports_test

import (
	"context"
	"strings"
	"testing"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
)

// TestCompareEach: one comparison per k, each against the baseline
// system at that k, the same as Where(k=v).Compare; an unknown axis is an
// error naming the axes.
func TestCompareEach(t *testing.T) {
	set, err := grid.Grid{Env: &catalog.Env{}, Axes: []record.Axis{grid.Axis("system", "flat(bm25)", "oracle", "mem0"), grid.Ks(5, 10)},
		Options: runs.Options{NoStore: true, Quiet: true}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	opts := reports.CompareOptions{Metrics: []string{"Recall-Flat"}, Seed: 1, Resamples: 200}
	each, err := set.CompareEach("k", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(each.Each) != 2 || each.Values[0] != "5" || each.Values[1] != "10" {
		t.Fatalf("values %v, %d comparisons; want k 5 and 10", each.Values, len(each.Each))
	}
	at10, err := set.Where("k=10").Compare(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := each.Each[1].Table.Markdown(), at10.Table.Markdown(); got != want {
		t.Errorf("k=10 comparison differs from Where(k=10).Compare:\n%s\nwant\n%s", got, want)
	}
	md := each.Markdown()
	if !strings.Contains(md, "**k = 5**") || !strings.Contains(md, "**k = 10**") || !strings.Contains(md, "against system=flat(bm25) k=5") {
		t.Errorf("markdown lacks a heading per k or the per-k baseline:\n%s", md)
	}
	if !strings.Contains(md, "needs an extractor model") {
		t.Errorf("markdown does not say mem0 was skipped:\n%s", md)
	}
	if _, err := set.CompareEach("embedder", opts); err == nil || !strings.Contains(err.Error(), "axes system, k") {
		t.Errorf("unknown axis: err %v", err)
	}
}

// TestSetPaperTableVariants: points of one paper label with different
// embedders (Table 3) or units (Table 6) keep distinct columns instead of
// failing on a shared key; a system without an embedder has no embedder
// label.
func TestSetPaperTableVariants(t *testing.T) {
	run := func(systems ...string) *reports.Set {
		set, err := grid.Grid{Env: &catalog.Env{}, Axes: []record.Axis{grid.Axis("system", systems...)},
			Options: runs.Options{NoStore: true, Quiet: true}}.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	t3, _, err := run("flat(bm25)", "flat(dense:lsa)", "timeline").PaperTable(reports.SetPaperOptions{Paper: reports.PaperCloneMem, Table: "3"})
	if err != nil {
		t.Fatal(err)
	}
	if h := strings.Join(t3.Header, "|"); !strings.Contains(h, "BM25 Flat") || !strings.Contains(h, "lsa (offline) Flat") || !strings.Contains(h, "|timeline|") {
		t.Errorf("Table 3 columns %s: want one per embedder of Flat and timeline without an embedder", h)
	}
	t6, _, err := run("flat(bm25,join=none)", "flat(bm25,units=facts,join=separate)", "flat(bm25,units=facts,join=merge)",
		"flat(bm25,units=facts,join=merge_raw)").PaperTable(reports.SetPaperOptions{Paper: reports.PaperCloneMem, Table: "6"})
	if err != nil {
		t.Fatal(err)
	}
	h := strings.Join(t6.Header, "|")
	for _, want := range []string{"|w/o mem|", "w/o org (join=separate)", "w/o org (join=merge)", "|combined|"} {
		if !strings.Contains(h, want) {
			t.Errorf("Table 6 columns %s lack %q", h, want)
		}
	}
	if l := reports.PaperEmbedderLabel("timeline"); l != "" {
		t.Errorf("timeline's embedder label %q, want none", l)
	}
	for _, spec := range []string{"flat(dense:embedder)", "mem0(embedder=embedder)", "amem(embedder=embedder,stats=corpus)"} {
		if l := reports.PaperEmbedderLabel(spec); l != "embedder role" {
			t.Errorf("%s: embedder label %q, want embedder role", spec, l)
		}
	}
	if l := reports.PaperUnitLabel("flat(bm25,units=facts,join=merge_raw)"); l != "combined" {
		t.Errorf("merge_raw's unit label %q, want combined", l)
	}
}
