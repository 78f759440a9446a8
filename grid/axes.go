package grid

import (
	"fmt"
	"slices"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/record"
)

// The axis names a grid gives a meaning of its own; any other name is a
// knob of the system (or, when the system has no such knob, of the
// reader), as in `timeline(topic_boost=0.5)`.
const (
	// AxisSystem takes memory-system specs: flat(bm25), timeline, mem0.
	AxisSystem = "system"
	// AxisReader takes reader specs: extractive, reader(model=x); a name
	// the catalog does not have is a model name on the backbone role.
	AxisReader = "reader"
	// AxisJudge takes judge specs, several joined by "+"
	// (judge(clonemem)+judge(clonemem,use=memory)), or none.
	AxisJudge = "judge"
	// AxisK takes retrieval depths.
	AxisK = "k"
	// AxisEmbedder sets the system's embedder: hashed, lsa,
	// embedder(model=x) (a name the catalog does not have is a model name
	// on the embedder role); bm25 makes flat score by BM25.
	AxisEmbedder = "embedder"
	// AxisUnits sets the system's retrieval units: raw, facts+raw, ...
	// ("unit" is read as "units").
	AxisUnits = "units"
	// AxisDataset takes dataset paths (datasets.Open; "sample" is the
	// bundled sample).
	AxisDataset = "dataset"
	// AxisPersona restricts the dataset to one corpus (persona or
	// narrative stream) by id.
	AxisPersona = "persona"
)

// Axis is an axis of name over values, for a notebook's grid:
// grid.Axis("system", "flat(bm25)", "timeline").
func Axis(name string, values ...string) record.Axis {
	return record.Axis{Name: name, Values: values}
}

// DatasetAxis is a dataset axis over datasets a notebook opened itself
// (with their errata applied), each named by its Title ("KnowMe-Bench
// dataset1"): give the same datasets to the grid's Datasets. Two datasets
// of one title are an error, as is none.
//
//	axis, err := grid.DatasetAxis(cm, km, lc)
//	set, err := grid.Grid{Axes: []record.Axis{systems, axis}, Datasets: []*datasets.Dataset{cm, km, lc}}.Run(ctx)
func DatasetAxis(ds ...*datasets.Dataset) (record.Axis, error) {
	a := record.Axis{Name: AxisDataset}
	if len(ds) == 0 {
		return a, fmt.Errorf("grid: dataset axis: no dataset")
	}
	for i, d := range ds {
		if d == nil {
			return a, fmt.Errorf("grid: dataset axis: dataset %d is nil", i+1)
		}
		t := d.Title()
		if slices.Contains(a.Values, t) {
			return a, fmt.Errorf("grid: dataset axis: two datasets are titled %q (%s and another): rename one (Dataset.Name)", t, d.Source)
		}
		a.Values = append(a.Values, t)
	}
	return a, nil
}

// Ks is a k axis over depths: grid.Ks(5, 10, 20).
func Ks(ks ...int) record.Axis {
	a := record.Axis{Name: AxisK}
	for _, k := range ks {
		a.Values = append(a.Values, fmt.Sprint(k))
	}
	return a
}

// ParseAxis reads a command line's axis, "name=v1,v2": values are split at
// the commas outside parentheses, so spec values keep theirs
// (`system=flat(bm25,units=facts+raw),timeline`). Values are trimmed; an
// empty or repeated value, or unbalanced parentheses, is an error naming
// the axis and the value.
func ParseAxis(s string) (record.Axis, error) {
	name, vals, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return record.Axis{}, fmt.Errorf("grid: axis %q: want name=v1,v2,...", s)
	}
	if strings.Count(vals, "(") != strings.Count(vals, ")") {
		return record.Axis{}, fmt.Errorf("grid: axis %q: a '(' is not closed, or a ')' not opened", s)
	}
	a := record.Axis{Name: name}
	seen := map[string]bool{}
	for i, v := range SplitTop(vals, ',') {
		if v == "" {
			return record.Axis{}, fmt.Errorf("grid: axis %q: value %d is empty", s, i+1)
		}
		if seen[v] {
			return record.Axis{}, fmt.Errorf("grid: axis %q: value %q appears twice", s, v)
		}
		seen[v] = true
		a.Values = append(a.Values, v)
	}
	return a, nil
}
