package grid

import (
	"context"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/runs"
)

// TestDatasetAxisRunsTheGivenDatasets: a dataset axis over datasets the
// notebook opened runs each point on that very dataset, errata applied
// (opening its path again would lose them), and tables name it by title.
func TestDatasetAxisRunsTheGivenDatasets(t *testing.T) {
	a := sample(t)
	q0 := a.Questions[0]
	b, _, err := datasets.ApplyErrata(a, []datasets.Erratum{{CorpusID: q0.CorpusID, QuestionID: q0.ID, Action: datasets.ErratumExclude, Reason: "test"}}, "test errata")
	if err != nil {
		t.Fatal(err)
	}
	b.Name = "sample-fixed"
	axis, err := DatasetAxis(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"CloneMem sample", "CloneMem sample-fixed"}; strings.Join(axis.Values, "|") != strings.Join(want, "|") {
		t.Fatalf("axis values %q, want %q", axis.Values, want)
	}
	set, err := Grid{Axes: []record.Axis{Axis("system", "flat(bm25)"), axis}, Datasets: []*datasets.Dataset{a, b},
		Options: runs.Options{NoStore: true, Quiet: true}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Points) != 2 {
		t.Fatalf("%d points, want 2", len(set.Points))
	}
	for i, want := range []struct {
		data *datasets.Dataset
		recs int
	}{{a, len(a.Questions)}, {b, len(a.Questions) - 1}} {
		p := set.Points[i]
		if p.Data != want.data {
			t.Errorf("point %s ran on %s (%p), want the given dataset %p", p.Label, p.Data.Title(), p.Data, want.data)
		}
		if p.Result == nil || len(p.Result.Records) != want.recs {
			t.Errorf("point %s: result %v, want %d records", p.Label, p.Result, want.recs)
		}
	}
	pt, err := set.Pivot("system", "dataset", "Recall-Flat")
	if err != nil {
		t.Fatal(err)
	}
	if h := strings.Join(pt.Table.Header[1:], "|"); h != "CloneMem sample|CloneMem sample-fixed" {
		t.Errorf("pivot columns %q", h)
	}

	if _, err := DatasetAxis(a, a); err == nil || !strings.Contains(err.Error(), `two datasets are titled "CloneMem sample"`) {
		t.Errorf("two datasets of one title: %v", err)
	}
	if _, err := DatasetAxis(); err == nil {
		t.Error("no dataset: no error")
	}
}
