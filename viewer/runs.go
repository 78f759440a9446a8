package viewer

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runstore"
)

// runRow is one run of the runs page.
type runRow struct {
	ID, Label, Dataset, System, Reader, Judges, Code, Updated, Status string
	K, Done, Failed, Questions                                        int
	Running                                                           bool
	// Means are the main metrics' means, in runsMetrics' order; LLM the
	// LLM judges' means.
	Means []string
	LLM   string
	Spend string
	Err   string
	// Pending is set when the means are not computed yet (the runs page's
	// time budget ran out).
	Pending bool
}

// runsMetrics are the columns of means on the runs page.
var runsMetrics = []string{"Recall-Flat", "All-Any", "MRR", judge.MetricChoiceAccuracy}

func (v *viewer) runsPage(w http.ResponseWriter, r *http.Request) {
	infos, err := v.read("")
	if err != nil {
		v.fail(w, err)
		return
	}
	rows := make([]runRow, 0, len(infos))
	start, pending, read := time.Now(), 0, false
	for _, info := range infos {
		// Reading a run's records for its means is what costs: past the
		// budget (once one run was read), only the runs already read show
		// theirs.
		load := !read || v.opts.MeansBudget < 0 || time.Since(start) < v.opts.MeansBudget
		if _, ok := v.summary(info); load && !ok {
			read = true
		}
		row := v.runRow(info, load)
		if row.Pending {
			pending++
		}
		rows = append(rows, row)
	}
	live := pending > 0
	for _, r := range rows {
		live = live || r.Running
	}
	v.render(w, http.StatusOK, "runs", struct {
		Title, Store string
		Metrics      []string
		Runs         []runRow
		Pending      int
		Live         bool
	}{"runs", v.st.Path(), runsMetrics, rows, pending, live})
}

// running reports whether a process holds the run and renewed its lease
// recently.
func (v *viewer) running(info runstore.RunInfo) bool {
	return info.Owner != "" && !info.Heartbeat.IsZero() && v.opts.Now().Sub(info.Heartbeat) < 2*runstore.LeaseTimeout
}

// runRow is info's row; its means are left out (Pending) unless its
// records were read already or load is true.
func (v *viewer) runRow(info runstore.RunInfo, load bool) runRow {
	row := runRow{ID: info.ID, Label: info.Label, Dataset: info.Spec.Dataset, System: info.Spec.System,
		Reader: info.Spec.Reader, Judges: strings.Join(info.Spec.Judges, ", "), Code: info.CodeVersion,
		Updated: date(info.Updated), K: info.Spec.K, Done: info.Done, Failed: info.Failed, Questions: info.Questions}
	row.Status, row.Running = v.status(info)
	m := info.Meter
	if calls := m.IngestCalls + m.QueryCalls; calls > 0 || m.IngestEmbeds+m.QueryEmbeds > 0 {
		row.Spend = fmt.Sprintf("%d calls, %d tokens, %d embeds", calls, m.IngestTokens+m.QueryTokens, m.IngestEmbeds+m.QueryEmbeds)
	}
	sum, ok := v.summary(info)
	if !ok && !load {
		row.Pending = true
		return row
	}
	if !ok {
		d, err := v.loadInfo(info)
		if err != nil {
			row.Err = err.Error()
			return row
		}
		sum = d.sum
	}
	for _, name := range runsMetrics {
		row.Means = append(row.Means, meanCell(sum, name))
	}
	var llmMeans []string
	for _, name := range slices.Sorted(maps.Keys(sum.Scores)) {
		if m := sum.Scores[name]; m.Kind == record.KindLLMJudge {
			llmMeans = append(llmMeans, fmt.Sprintf("%s: %s (n=%d)", name, f3(m.Value), m.N))
		}
	}
	row.LLM = strings.Join(llmMeans, "; ")
	return row
}

// status is "running", "complete", "N failed" or "incomplete".
func (v *viewer) status(info runstore.RunInfo) (string, bool) {
	switch {
	case v.running(info):
		return "running", true
	case info.Failed > 0:
		return fmt.Sprintf("%d failed", info.Failed), false
	case info.Complete():
		return "complete", false
	}
	return "incomplete", false
}

// meanCell is a summary's mean of a metric by name (reports'
// Summary.Metric: a retrieval metric by its display name, else a score's
// mean), "n/a" when no question has a value.
func meanCell(s reports.Summary, name string) string {
	m, ok := s.Metric(name)
	if !ok || m.N == 0 {
		return "n/a"
	}
	return f3(m.Value)
}
