package reports

import (
	"fmt"
	"math"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/text"
)

// Flip is a question whose 0/1 outcome on a metric changed between two
// runs, with what each run retrieved.
type Flip struct {
	CorpusID, QuestionID string
	// Fixed is true for wrong in A and right in B, false for the reverse.
	Fixed bool
	// A and B are the two runs' records of the question.
	A, B record.Record
}

// Flips lists the questions whose value of metric (a 0/1 metric such as
// choice accuracy or All-Any; see Columns.Metric) is 1 in one run and 0 in
// the other, A's order; a question missing or undefined in either run is
// not a flip.
func Flips(a, b []record.Record, metric string) ([]Flip, error) {
	ca, cb := ColumnsOf(a).Metric(metric), ColumnsOf(b).Metric(metric)
	if ca == nil || cb == nil {
		return nil, fmt.Errorf("reports: flips: metric %q is not in both runs", metric)
	}
	idx := map[string]int{}
	for i, r := range b {
		idx[r.CorpusID+"\x00"+r.QuestionID] = i
	}
	var out []Flip
	for i, r := range a {
		j, ok := idx[r.CorpusID+"\x00"+r.QuestionID]
		if !ok || math.IsNaN(ca[i]) || math.IsNaN(cb[j]) {
			continue
		}
		switch {
		case ca[i] == 1 && cb[j] == 0:
			out = append(out, Flip{r.CorpusID, r.QuestionID, false, r, b[j]})
		case ca[i] == 0 && cb[j] == 1:
			out = append(out, Flip{r.CorpusID, r.QuestionID, true, r, b[j]})
		}
	}
	return out, nil
}

// FlipsTable shows flips side by side: the question, the direction, then
// for each run its answer (or choice) and its retrieved traces, the gold
// ones marked ✓ when d (the runs' dataset) is given.
func FlipsTable(d *datasets.Dataset, flips []Flip) analysis.Table {
	gold := map[string]map[string]bool{}
	question := map[string]string{}
	if d != nil {
		for _, q := range d.Questions {
			g := map[string]bool{}
			for _, id := range q.GoldTraceIDs() {
				g[id] = true
			}
			gold[q.CorpusID+"\x00"+q.ID] = g
			question[q.CorpusID+"\x00"+q.ID] = q.Text
		}
	}
	t := analysis.Table{Header: []string{"question", "flip", "A: answer", "A: retrieved", "B: answer", "B: retrieved"},
		Align: []string{"l", "l", "l", "l", "l", "l"}}
	for _, f := range flips {
		key := f.CorpusID + "\x00" + f.QuestionID
		dir := "right → wrong"
		if f.Fixed {
			dir = "wrong → right"
		}
		q := f.QuestionID
		if s := question[key]; s != "" {
			q += ": " + text.ClipLine(s, 80)
		}
		t.AddRow([]string{q, dir, answerText(f.A), retrievedText(f.A, gold[key]), answerText(f.B), retrievedText(f.B, gold[key])})
	}
	return t
}

func answerText(r record.Record) string {
	if r.Choice != "" {
		return "(" + r.Choice + ") " + text.ClipLine(r.Answer, 60)
	}
	return text.ClipLine(r.Answer, 60)
}

func retrievedText(r record.Record, gold map[string]bool) string {
	parts := make([]string, len(r.Ranked))
	for i, id := range r.Ranked {
		parts[i] = id
		if gold[id] {
			parts[i] += " ✓"
		}
	}
	return strings.Join(parts, ", ")
}
