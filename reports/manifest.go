package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/memlab/memlab/record"
)

// ManifestFormat names the manifest layout written by WriteManifest.
const ManifestFormat = "memlab-manifest/1"

// Manifest is what it takes to reproduce a set of runs and check the
// result: the notebook and parameters that made them, the code version,
// and for each run its spec (dataset fingerprint, system, reader, judges
// with models and prompt and rubric hashes, k, params and seeds), its mean
// metrics and, per question, the ranked traces, a digest of the answer and
// every score.
type Manifest struct {
	Format      string        `json:"format"`
	Created     time.Time     `json:"created"`
	CodeVersion string        `json:"code_version"`
	Notebook    *NotebookRef  `json:"notebook,omitempty"`
	Runs        []ManifestRun `json:"runs"`
}

// NotebookRef names the notebook that made the runs.
type NotebookRef struct {
	Path   string            `json:"path"`
	SHA256 string            `json:"sha256"`
	Params map[string]string `json:"params,omitempty"`
}

// ManifestRun is one run of a manifest.
type ManifestRun struct {
	ID      string                  `json:"id"`
	Label   string                  `json:"label"`
	Spec    record.Spec             `json:"spec"`
	Metrics map[string]record.Float `json:"metrics"`
	Records []ManifestRecord        `json:"records"`
}

// ManifestRecord is one question of a run in a manifest.
type ManifestRecord struct {
	QuestionID string                  `json:"question_id"`
	CorpusID   string                  `json:"corpus_id"`
	Failure    string                  `json:"failure,omitempty"`
	Ranked     []string                `json:"ranked"`
	Answer     string                  `json:"answer_sha256"`
	Values     map[string]record.Float `json:"values"`
}

// NewManifest describes results (and, when nb is not nil, the notebook
// that made them).
func NewManifest(results []*record.Result, nb *NotebookRef) *Manifest {
	m := &Manifest{Format: ManifestFormat, Created: time.Now().UTC().Truncate(time.Second), CodeVersion: record.CodeVersion(), Notebook: nb}
	for _, r := range results {
		if r == nil {
			continue
		}
		mr := ManifestRun{ID: r.ID, Label: r.Label, Spec: r.Spec, Metrics: map[string]record.Float{}}
		for name, v := range summaryMetrics(SummaryOf(r)) {
			mr.Metrics[name] = record.Float(v)
		}
		cols := ColumnsOf(r.Records)
		names := metricNames(cols)
		for i, rec := range r.Records {
			h := sha256.Sum256([]byte(rec.Answer))
			x := ManifestRecord{QuestionID: rec.QuestionID, CorpusID: rec.CorpusID, Failure: rec.Failure, Ranked: rec.Ranked,
				Answer: hex.EncodeToString(h[:8]), Values: map[string]record.Float{}}
			if x.Ranked == nil {
				x.Ranked = []string{}
			}
			for _, n := range names {
				x.Values[n] = record.Float(cols.Metric(n)[i])
			}
			mr.Records = append(mr.Records, x)
		}
		m.Runs = append(m.Runs, mr)
	}
	return m
}

// metricNames are every metric of the columns: retrieval, judges, verdicts.
func metricNames(c *Columns) []string {
	var names []string
	for _, m := range retrievalMetrics {
		names = append(names, m.label)
	}
	names = append(names, c.JudgeNames()...)
	names = append(names, c.VerdictNames()...)
	return names
}

// summaryMetrics are a summary's means by name (Summary.Metric): the
// retrieval metrics, the counts of questions and failures, and the exact
// metrics and proxies with a value, as the manifest's format has them
// (the LLM-judged metrics are in each record's Values).
func summaryMetrics(s Summary) map[string]float64 {
	out := map[string]float64{"questions": float64(s.Questions), "failed": float64(s.Failed)}
	for _, rm := range retrievalMetrics {
		m, _ := s.Metric(rm.label)
		out[rm.label] = m.Value
	}
	for name := range s.Scores {
		if m, _ := s.Metric(name); m.Kind != record.KindLLMJudge && m.N > 0 {
			out[name] = m.Value
		}
	}
	return out
}

// WriteManifest writes m as indented JSON.
func WriteManifest(w io.Writer, m *Manifest) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return fmt.Errorf("reports: write manifest: %w", err)
	}
	return nil
}

// ReadManifest reads a manifest written by WriteManifest.
func ReadManifest(r io.Reader) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(r)
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("reports: read manifest: %w", err)
	}
	if m.Format != ManifestFormat {
		return nil, fmt.Errorf("reports: read manifest: format %q, want %q", m.Format, ManifestFormat)
	}
	return &m, nil
}

// ManifestDiff is one difference between a manifest and a reproduction.
type ManifestDiff struct {
	Run, Question, Field string
	Want, Got            string
}

// String is "run / question / field: want X, got Y".
func (d ManifestDiff) String() string {
	where := d.Run
	if d.Question != "" {
		where += " / " + d.Question
	}
	return fmt.Sprintf("%s / %s: want %s, got %s", where, d.Field, d.Want, d.Got)
}

// Reproduce compares a reproduction's results with manifest m, run by run
// (matched by id, so by spec) and cell by cell: each mean metric, and per
// question the failure, the ranked traces, the answer digest and every
// score (equal within 1e-9, NaN equal to NaN). No difference means the
// runs were reproduced identically.
func Reproduce(m *Manifest, results []*record.Result) []ManifestDiff {
	got := NewManifest(results, nil)
	byID := map[string]ManifestRun{}
	for _, r := range got.Runs {
		byID[r.ID] = r
	}
	var diffs []ManifestDiff
	seen := map[string]bool{}
	for _, w := range m.Runs {
		seen[w.ID] = true
		g, ok := byID[w.ID]
		if !ok {
			diffs = append(diffs, ManifestDiff{Run: w.Label + " " + w.ID, Field: "run", Want: "present", Got: "not made (its spec changed, or the notebook no longer makes it)"})
			continue
		}
		run := w.Label + " " + w.ID
		diffs = append(diffs, compareValues(run, "", "mean ", w.Metrics, g.Metrics)...)
		gr := map[string]ManifestRecord{}
		for _, r := range g.Records {
			gr[r.CorpusID+"/"+r.QuestionID] = r
		}
		for _, wr := range w.Records {
			q := wr.CorpusID + "/" + wr.QuestionID
			r, ok := gr[q]
			if !ok {
				diffs = append(diffs, ManifestDiff{run, q, "record", "present", "missing"})
				continue
			}
			delete(gr, q)
			if wr.Failure != r.Failure {
				diffs = append(diffs, ManifestDiff{run, q, "failure", fmt.Sprintf("%q", wr.Failure), fmt.Sprintf("%q", r.Failure)})
			}
			if fmt.Sprint(wr.Ranked) != fmt.Sprint(r.Ranked) {
				diffs = append(diffs, ManifestDiff{run, q, "ranked", fmt.Sprint(wr.Ranked), fmt.Sprint(r.Ranked)})
			}
			if wr.Answer != r.Answer {
				diffs = append(diffs, ManifestDiff{run, q, "answer", wr.Answer, r.Answer})
			}
			diffs = append(diffs, compareValues(run, q, "", wr.Values, r.Values)...)
		}
		for q := range gr {
			diffs = append(diffs, ManifestDiff{run, q, "record", "absent", "present"})
		}
	}
	for _, g := range got.Runs {
		if !seen[g.ID] {
			diffs = append(diffs, ManifestDiff{Run: g.Label + " " + g.ID, Field: "run", Want: "absent", Got: "made"})
		}
	}
	return diffs
}

// compareValues lists the names whose values differ, or that only one
// side has.
func compareValues(run, q, prefix string, want, got map[string]record.Float) []ManifestDiff {
	var out []ManifestDiff
	for _, name := range sortedNames(want, got) {
		w, wok := want[name]
		g, gok := got[name]
		switch {
		case wok && !gok:
			out = append(out, ManifestDiff{run, q, prefix + name, fmtNF(w), "absent"})
		case !wok && gok:
			out = append(out, ManifestDiff{run, q, prefix + name, "absent", fmtNF(g)})
		case !sameFloat(w, g):
			out = append(out, ManifestDiff{run, q, prefix + name, fmtNF(w), fmtNF(g)})
		}
	}
	return out
}

// sortedNames is the names of a and b, sorted.
func sortedNames(a, b map[string]record.Float) []string {
	all := map[string]record.Float{}
	maps.Copy(all, a)
	maps.Copy(all, b)
	return slices.Sorted(maps.Keys(all))
}

func sameFloat(a, b record.Float) bool {
	x, y := float64(a), float64(b)
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	return math.Abs(x-y) <= 1e-9
}

func fmtNF(f record.Float) string {
	if math.IsNaN(float64(f)) {
		return "undefined"
	}
	return fmt.Sprintf("%.6g", float64(f))
}
