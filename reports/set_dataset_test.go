package reports

import (
	"slices"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/record"
)

// TestDatasetAxisShownByTitle: a pivot and a bar chart over a dataset axis
// show each dataset by its benchmark and name, not by the path the axis
// was given, and the note gives each title its path.
func TestDatasetAxisShownByTitle(t *testing.T) {
	base := sampleSet(t)
	paths := []string{"../../shared/datasets/knowmebench/dataset1", "../../shared/datasets/locomo"}
	titled := []*datasets.Dataset{}
	for _, f := range []struct{ format, name string }{{datasets.FormatKnowMe, "dataset1"}, {datasets.FormatLoCoMo, "locomo"}} {
		d := *base.Points[0].Data
		d.Format, d.Name = f.format, f.name
		titled = append(titled, &d)
	}
	s := &Set{Axes: []record.Axis{{Name: "system", Values: nil}, {Name: "dataset", Values: paths}}}
	for _, p := range base.Points {
		if !p.Ran() || p.Params["k"] != "10" {
			continue
		}
		if !slices.Contains(s.Axes[0].Values, p.Params["system"]) {
			s.Axes[0].Values = append(s.Axes[0].Values, p.Params["system"])
		}
		for i, path := range paths {
			q := p
			q.Params = map[string]string{"system": p.Params["system"], "dataset": path}
			q.Label = "system=" + p.Params["system"] + " dataset=" + path
			q.Data = titled[i]
			s.Points = append(s.Points, q)
		}
	}
	pt, err := s.Pivot("system", "dataset", "Recall-Flat")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Recall-Flat: system \\ dataset", "KnowMe-Bench dataset1", "LoCoMo"}; !slices.Equal(pt.Table.Header, want) {
		t.Errorf("header %q, want %q", pt.Table.Header, want)
	}
	if !slices.Equal(pt.Cols, paths) {
		t.Errorf("Cols %q, want the axis values %q (Cell looks them up)", pt.Cols, paths)
	}
	for _, want := range []string{"Datasets: KnowMe-Bench dataset1 = `" + paths[0] + "`", "LoCoMo = `" + paths[1] + "`"} {
		if !strings.Contains(pt.Note, want) {
			t.Errorf("note lacks %q:\n%s", want, pt.Note)
		}
	}
	if _, ok := pt.Cell(s.Axes[0].Values[0], paths[1]); !ok {
		t.Errorf("Cell by the axis value %q not found", paths[1])
	}
	bars, err := s.Bars("dataset", "system", "Recall-Flat")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"KnowMe-Bench dataset1", "LoCoMo"}; !slices.Equal(bars.Groups, want) {
		t.Errorf("bar groups %q, want %q", bars.Groups, want)
	}
	bars, err = s.Bars("system", "dataset", "Recall-Flat")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ser := range bars.Series {
		names = append(names, ser.Name)
	}
	if want := []string{"KnowMe-Bench dataset1", "LoCoMo"}; !slices.Equal(names, want) {
		t.Errorf("bar series %q, want %q", names, want)
	}
}
