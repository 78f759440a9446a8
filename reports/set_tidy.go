package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
)

// tidyColumns are the columns of WriteTidyCSV after the axes'.
var tidyColumns = []string{"point", "run_id", "dataset", "corpus_id", "question_id", "task", "dimension", "level",
	"metric", "kind", "value", "status"}

// KindRetrieval is the kind column of a retrieval metric in WriteTidyCSV
// (the other kinds are record.ScoreKind's).
const KindRetrieval = "retrieval"

// WriteTidyCSV writes the records of every point that ran as tidy data,
// one row per question x point x metric, for pandas.read_csv or R's
// read.csv as they are. The columns are one per axis (its name in
// snake_case; "_axis" appended when it would clash with a column below,
// so an axis "dataset" is "dataset_axis"), then point (the label), run_id,
// dataset, corpus_id, question_id, task, dimension, level (KnowMe-Bench's
// I, II, III; "" otherwise), metric, kind (retrieval, exact, proxy or
// llm_judge), value and status.
//
// A point's metrics are the retrieval metrics (Recall-Flat, All-All,
// All-Any, Any-All, Any-Any, MRR, nDCG@k), then its exact metrics and
// proxies, then its LLM-judged metrics, each sorted, named as Pivot and
// Compare take them (Columns.Metric). value is a plain number on the
// metric's scale (an LLM judge's raw score), empty when there is none;
// status says why: ok, failed (the judge was asked and gave no score),
// no_reference, record_failed (the record failed, never scored) or
// undefined (the question does not define the metric). Quoting follows
// RFC 4180, lines end in CRLF.
func (s *Set) WriteTidyCSV(w io.Writer) error {
	if err := s.Err(); err != nil {
		return err
	}
	header := tidyAxisColumns(s.Axes)
	header = append(header, tidyColumns...)
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("reports: write tidy CSV header: %w", err)
	}
	row := make([]string, 0, len(header))
	for i, p := range s.Points {
		if !p.Ran() {
			continue
		}
		label, res := s.labelOf(i), p.Result
		dataset := res.Dataset
		if dataset == "" && p.Data != nil {
			dataset = p.Data.Name
		}
		cols := ColumnsOf(res.Records)
		vc := verdictKeys(res.Records)
		metrics, kinds := tidyMetrics(res.Records, cols)
		for ri, r := range res.Records {
			for mi, m := range metrics {
				v := cols.Metric(m)[ri]
				row = row[:0]
				for _, a := range s.Axes {
					row = append(row, p.Params[a.Name])
				}
				row = append(row, label, res.ID, dataset, r.CorpusID, r.QuestionID, r.Task, r.Dimension, judge.KnowMeLevel(r.Task),
					m, kinds[mi], csvFloat(v), metricStatus(r, v, m, vc))
				if err := cw.Write(row); err != nil {
					return fmt.Errorf("reports: write tidy CSV row of point %s, question %q: %w", label, r.QuestionID, err)
				}
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("reports: write tidy CSV: %w", err)
	}
	return nil
}

// tidyMetrics returns the metrics of a run's records in WriteTidyCSV's
// order, with their kinds.
func tidyMetrics(recs []record.Record, cols *Columns) (metrics, kinds []string) {
	for _, m := range retrievalMetrics {
		metrics, kinds = append(metrics, m.label), append(kinds, KindRetrieval)
	}
	for _, m := range cols.JudgeNames() {
		kind := string(record.KindProxy)
		for _, r := range recs {
			if sc, ok := r.Offline(m); ok {
				kind = string(sc.Kind)
				break
			}
		}
		metrics, kinds = append(metrics, m), append(kinds, kind)
	}
	for _, m := range cols.VerdictNames() {
		metrics, kinds = append(metrics, m), append(kinds, string(record.KindLLMJudge))
	}
	return metrics, kinds
}

// tidyAxisColumns names the axis columns: snake_case, unique, never one
// of tidyColumns.
func tidyAxisColumns(axes []record.Axis) []string {
	taken := map[string]bool{}
	for _, c := range tidyColumns {
		taken[c] = true
	}
	out := make([]string, len(axes))
	for i, a := range axes {
		name := snakeCase(a.Name)
		if taken[name] {
			name += "_axis"
		}
		for n := 2; taken[name]; n++ {
			name = snakeCase(a.Name) + "_axis_" + strconv.Itoa(n)
		}
		taken[name] = true
		out[i] = name
	}
	return out
}

// snakeCase lowers s and joins its runs of letters and digits with "_";
// a name that would start with a digit (or be empty) gets "axis_" before
// it, as R's read.csv would otherwise rename it.
func snakeCase(s string) string {
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			sep = false
			continue
		}
		sep = true
	}
	out := b.String()
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "axis_" + out
	}
	return strings.TrimSuffix(out, "_")
}
