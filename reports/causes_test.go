package reports_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
)

// timelineRun is the timeline memory's run on the bundled sample at k=10,
// offline.
func timelineRun(t testing.TB) (*datasets.Dataset, *record.Result) {
	t.Helper()
	d, err := datasets.Open("")
	if err != nil {
		t.Fatal(err)
	}
	s, err := grid.Grid{Data: d, System: "timeline", Env: &catalog.Env{}, Options: runs.Options{NoStore: true, Quiet: true}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return d, s.Results()[0]
}

func TestErrorCauses(t *testing.T) {
	d, res := timelineRun(t)
	rep := reports.ErrorCauses(d, res, reports.CauseOptions{})
	if rep.Questions != 54 {
		t.Errorf("%d questions classified, want 54", rep.Questions)
	}
	sum := 0
	for i, c := range rep.Causes {
		sum += len(c.Records)
		if i > 0 && len(c.Records) > len(rep.Causes[i-1].Records) {
			t.Errorf("causes not most frequent first: %s (%d) after %s (%d)", c.Name, len(c.Records), rep.Causes[i-1].Name, len(rep.Causes[i-1].Records))
		}
		n := 0
		for _, v := range c.ByTask {
			n += v
		}
		if n != len(c.Records) {
			t.Errorf("%s: by task sums to %d, has %d records", c.Name, n, len(c.Records))
		}
	}
	if sum != rep.Failures || sum == 0 {
		t.Errorf("failures %d, causes hold %d", rep.Failures, sum)
	}
	// Every wrong choice on an answerable multiple-choice question is
	// counted once, under one of the four retrieval causes.
	wrong := 0
	for _, r := range res.Records {
		if r.Choice != r.Correct && r.Task != "unanswerable" {
			wrong++
		}
	}
	got := 0
	for _, name := range []string{reports.CauseNoGold, reports.CauseNoneRetrieved, reports.CausePartly, reports.CauseReading} {
		c, _ := rep.Cause(name)
		got += len(c.Records)
	}
	if got != wrong {
		t.Errorf("wrong choices: %d under the four causes, %d in the run", got, wrong)
	}
	// A stricter threshold selects at least as many trajectory questions.
	loose := reports.ErrorCauses(d, res, reports.CauseOptions{LowRecall: 0.9})
	a, _ := rep.Cause("trajectory, Recall-Flat < 0.50")
	b, _ := loose.Cause("trajectory, Recall-Flat < 0.90")
	if len(b.Records) < len(a.Records) || len(b.Records) == 0 {
		t.Errorf("trajectory below 0.9: %d, below 0.5: %d", len(b.Records), len(a.Records))
	}
	ex := rep.Examples(rep.Causes[0].Name, 2)
	for _, want := range []string{"### " + rep.Causes[0].Name + " (", "; 2 shown)", "**Gold evidence:**", "✓ = gold", "**Judge:** none"} {
		if !strings.Contains(ex, want) {
			t.Errorf("examples lack %q:\n%s", want, ex)
		}
	}
	if bp := rep.Bars("t", "timeline"); len(bp.Groups) != len(rep.Causes) || len(bp.Series[0].Values) != len(rep.Causes) {
		t.Errorf("bars: %d groups, %d values for %d causes", len(bp.Groups), len(bp.Series[0].Values), len(rep.Causes))
	}
}

// ErrorCauses groups a run's failures by cause; Table counts them by task
// and Examples shows the questions of one.
func ExampleErrorCauses() {
	d, err := datasets.Open("")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := grid.Grid{Data: d, System: "timeline", Env: &catalog.Env{}, Options: runs.Options{NoStore: true, Quiet: true}}.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	rep := reports.ErrorCauses(d, s.Results()[0], reports.CauseOptions{LowRecall: 0.5})
	fmt.Println(rep.Failures, "failures over", rep.Questions, "questions")
	fmt.Println(rep.Table().Rows[0][:3])
	// Output:
	// 29 failures over 54 questions
	// [wrong choice, gold partly retrieved 12 22.2%]
}
