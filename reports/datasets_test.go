package reports

import (
	"strconv"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
)

func TestDatasetTable(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	st := datasets.ComputeStats(d)
	md := DatasetTable(d, nil).Markdown()
	want := "| CloneMem sample | 2 | " + strconv.Itoa(st.Traces) + " | 54 | " + strconv.Itoa(st.WithEvidence) + " | " + strconv.Itoa(st.MultipleChoice) + " | " +
		st.First.Format("2006-01-02") + " to " + st.Last.Format("2006-01-02") + " | " + strconv.Itoa(st.Defects) + " | none |"
	if !strings.Contains(md, want) {
		t.Errorf("table lacks %q:\n%s", want, md)
	}
	if n := strings.Count(md, "\n"); n != 3 {
		t.Errorf("%d lines, want a header, a rule and one row (nil left out):\n%s", n, md)
	}
}
