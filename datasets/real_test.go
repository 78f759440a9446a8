package datasets

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// realKnowMe is KnowMe-Bench dataset 1 in the shared checkout, relative to
// this package's directory (../shared/... from the repository root).
const realKnowMe = "../../shared/datasets/knowmebench/dataset1"

// TestRealKnowMeDataset1 checks that the loader and its validation report
// reproduce the facts measured on the real release (see
// shared/datasets/knowmebench/README.md).
func TestRealKnowMeDataset1(t *testing.T) {
	if _, err := os.Stat(realKnowMe); err != nil {
		t.Skipf("KnowMe-Bench dataset1 not found at %s (relative to datasets/): %v; "+
			"place the shared checkout next to the repository to run this test", realKnowMe, err)
	}
	d, err := Load(realKnowMe)
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != FormatKnowMe || len(d.Corpora) != 1 {
		t.Fatalf("format %q with %d corpora", d.Format, len(d.Corpora))
	}
	c := d.Corpora[0]
	minID, maxID := 1<<30, -1
	for _, tr := range c.Traces {
		n, err := strconv.Atoi(tr.ID)
		if err != nil {
			t.Fatalf("trace id %q is not decimal", tr.ID)
		}
		minID, maxID = min(minID, n), max(maxID, n)
	}
	counts := d.Report.Counts()
	s := ComputeStats(d)
	tasks := map[string]int{}
	for _, row := range s.ByTask {
		tasks[row.Key] = row.N
	}
	ordering := 0
	for _, q := range d.Questions {
		if q.Task == "Logical Event Ordering" && len(q.Ordering) > 0 {
			ordering++
		}
	}
	checks := []struct {
		name      string
		got, want int
	}{
		{"stream entries", len(c.Traces), 6644},
		{"smallest id", minID, 0},
		{"largest id", maxID, 6942},
		{"duplicate ids", counts[DefectDuplicateID], 0},
		{"entries lacking keys", counts[DefectMissingField], 11},
		{"empty timestamps", counts[DefectEmptyTime], 173},
		{"unparseable timestamps", counts[DefectBadTime], 0},
		{"backwards places", counts[DefectBackwardsTime], 176},
		{"tasks", len(s.ByTask), 7},
		{"Adversarial Abstention", tasks["Adversarial Abstention"], 100},
		{"Expert-Annotated Psychoanalysis", tasks["Expert-Annotated Psychoanalysis"], 62},
		{"Information Extraction", tasks["Information Extraction"], 130},
		{"Logical Event Ordering", tasks["Logical Event Ordering"], 52},
		{"Mind-Body Interaction", tasks["Mind-Body Interaction"], 295},
		{"Mnestic Trigger Analysis", tasks["Mnestic Trigger Analysis"], 240},
		{"Temporal Reasoning", tasks["Temporal Reasoning"], 131},
		{"questions", len(d.Questions), 1010},
		{"ordering answers as lists", ordering, 52},
		{"evidence references", s.EvidenceRefs, 1814},
		{"unknown evidence references (stats)", s.UnknownRefs, 63},
		{"unknown evidence references (report)", counts[DefectUnknownEvidence], 63},
		{"questions without answers", counts[DefectNoAnswer], 0},
		{"unmatched answers", counts[DefectUnmatched], 0},
		{"all defects", len(d.Report.Defects), 11 + 173 + 176 + 63},
	}
	for _, ck := range checks {
		if ck.got != ck.want {
			t.Errorf("%s = %d, want %d", ck.name, ck.got, ck.want)
		}
	}
	var b bytes.Buffer
	if err := WriteValidation(&b, d, 5); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"6644\n", "1010 in 7 tasks", "Mind-Body Interaction", "295\n",
		"173\n", "176 (4 to an earlier time, 172 from a known time to an empty or unparseable one)",
		"1814 in 896 questions, 63 unknown", "records missing fields:"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("validation output lacks %q", w)
		}
	}
}
