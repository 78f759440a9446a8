package reports

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/runs"
)

// The set of sampleSet: 3 systems x 2 k on the bundled sample, the
// systems built by name as a grid builds them; the one needing an
// embedder model is skipped offline. Every run has an LLM-judge
// stand-in (KnowMe scale 0-5, failing on question ids ending in "3"),
// and the flat runs fail on the sample's first question.
var (
	setOnce    sync.Once
	setFixture Set
	setErr     error
)

const embedderSystem = "flat(dense:embedder(model=x))"

// sampleSet returns a copy of the fixture set (its points share the runs:
// do not change them).
func sampleSet(t testing.TB) *Set {
	t.Helper()
	setOnce.Do(func() { setFixture, setErr = buildSampleSet() })
	if setErr != nil {
		t.Fatal(setErr)
	}
	s := setFixture
	s.Points = append([]Point(nil), s.Points...)
	return &s
}

func buildSampleSet() (Set, error) {
	d, err := datasets.Open("")
	if err != nil {
		return Set{}, err
	}
	var systems []string
	for _, spec := range []string{"flat(bm25)", "oracle", embedderSystem} {
		c, err := catalog.Canonical(catalog.KindSystem, spec)
		if err != nil {
			return Set{}, err
		}
		systems = append(systems, c)
	}
	axes := []record.Axis{{Name: "system", Values: systems}, {Name: "k", Values: []string{"5", "10"}}}
	grid, err := record.Grid(axes)
	if err != nil {
		return Set{}, err
	}
	s := Set{Axes: axes}
	env := &catalog.Env{Data: d}
	for _, params := range grid {
		p := Point{Params: params, Data: d, Label: fmt.Sprintf("system=%s k=%s", params["system"], params["k"])}
		sys, err := catalog.System(env, params["system"])
		var nm *catalog.NeedsModelError
		switch {
		case errors.As(err, &nm):
			p.Skipped = err
			s.Points = append(s.Points, p)
			continue
		case err != nil:
			return Set{}, err
		}
		if params["system"] == systems[0] {
			sys = runtest.FailOn{System: sys, Bad: d.Questions[0].ID}
		}
		k := 5
		if params["k"] == "10" {
			k = 10
		}
		p.Result, err = runs.Run(context.Background(), d, runs.Config{System: sys, Reader: generate.NewExtractive(), K: k,
			Judges: []runs.Judge{runtest.LengthJudge{JudgeName: "length"}}, Label: p.Label}, runs.Options{NoStore: true})
		if err != nil {
			return Set{}, err
		}
		s.Points = append(s.Points, p)
	}
	return s, nil
}
