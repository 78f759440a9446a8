package reports

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/memlab/memlab/record"
)

// Lint kinds, the first word of each warning Lint returns.
const (
	LintTopK        = "top-k"
	LintReaders     = "readers"
	LintJudges      = "judges"
	LintProxyBeside = "proxy-beside-judged"
	LintQuestions   = "questions"
	LintCluster     = "cluster"
)

// LintOptions says what a table compares, for Lint.
type LintOptions struct {
	// Metrics are the metric names shown side by side (nil: not checked).
	Metrics []string
	// Clustered is true when the table's intervals resample whole personas.
	Clustered bool
	// Intervals is true when the table shows intervals (the cluster lint
	// applies only then).
	Intervals bool
}

// Lint returns the protocol warnings of comparing results in one table,
// each "KIND: explanation" with KIND one of the Lint* constants:
//
//   - top-k: a run's k is at or above the number of traces admitted at a
//     question's time, so retrieval returns every admitted trace and
//     recall says nothing about ranking;
//   - readers / judges: the runs were read or judged differently, so their
//     answer scores are not comparable;
//   - proxy-beside-judged: an offline proxy metric is shown beside an
//     LLM-judged one;
//   - questions: the runs did not score the same questions (different
//     question sets, or failures in one run and not the other);
//   - cluster: intervals treat questions as independent although several
//     questions share a persona.
func Lint(results []*record.Result, opts LintOptions) []string {
	var out []string
	for _, r := range results {
		if r == nil {
			continue
		}
		n := 0
		for _, rec := range r.Records {
			if rec.Failure == "" && rec.K >= rec.Visible && rec.Visible > 0 {
				n++
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%s: %s: k = %d is at or above the number of admitted traces for %d of %d questions: there every admitted trace is returned, and recall says nothing about ranking",
				LintTopK, r.Label, r.K, n, len(r.Records)))
		}
	}
	readers, judges := map[string][]string{}, map[string][]string{}
	for _, r := range results {
		if r == nil {
			continue
		}
		readers[r.Reader] = append(readers[r.Reader], r.Label)
		judges[strings.Join(r.Spec.Judges, "; ")] = append(judges[strings.Join(r.Spec.Judges, "; ")], r.Label)
	}
	if len(readers) > 1 {
		out = append(out, fmt.Sprintf("%s: the runs use %d readers (%s): answer scores compare readers as well as memories",
			LintReaders, len(readers), groupText(readers)))
	}
	if len(judges) > 1 {
		out = append(out, fmt.Sprintf("%s: the runs use %d judge sets (%s): judged scores are not comparable",
			LintJudges, len(judges), groupText(judges)))
	}
	var proxies, judged []string
	for _, m := range opts.Metrics {
		if isProxy(m) {
			proxies = append(proxies, m)
		}
		for _, r := range results {
			if r == nil {
				continue
			}
			if names, _ := Verdicts(r.Records); slices.Contains(names, m) {
				judged = append(judged, m)
				break
			}
		}
	}
	if len(proxies) > 0 && len(judged) > 0 {
		out = append(out, fmt.Sprintf("%s: offline proxies (%s) are shown beside LLM-judged metrics (%s): they measure different things",
			LintProxyBeside, strings.Join(proxies, ", "), strings.Join(judged, ", ")))
	}
	if len(results) > 1 && results[0] != nil {
		scored := func(r *record.Result) map[string]bool {
			s := map[string]bool{}
			for _, rec := range r.Records {
				if rec.Failure == "" {
					s[rec.CorpusID+"/"+rec.QuestionID] = true
				}
			}
			return s
		}
		base := scored(results[0])
		for _, r := range results[1:] {
			if r == nil {
				continue
			}
			s := scored(r)
			onlyBase, onlyThis := 0, 0
			for q := range base {
				if !s[q] {
					onlyBase++
				}
			}
			for q := range s {
				if !base[q] {
					onlyThis++
				}
			}
			if onlyBase+onlyThis > 0 {
				out = append(out, fmt.Sprintf("%s: %s scored %d questions that %s did not, and missed %d that it scored: means are over different questions (paired comparisons use the common ones)",
					LintQuestions, r.Label, onlyThis, results[0].Label, onlyBase))
			}
		}
	}
	if opts.Intervals && !opts.Clustered {
		perPersona := map[string]int{}
		for _, r := range results {
			if r == nil {
				continue
			}
			for _, rec := range r.Records {
				perPersona[rec.CorpusID]++
			}
			break
		}
		if len(perPersona) > 1 {
			total := 0
			for _, n := range perPersona {
				total += n
			}
			if total > len(perPersona) {
				out = append(out, fmt.Sprintf("%s: the intervals treat the %d questions as independent, but they share %d personas: resample whole personas (CompareOptions.ClusterByPersona) for honest intervals",
					LintCluster, total, len(perPersona)))
			}
		}
	}
	return out
}

// isProxy reports whether a metric name is an offline proxy's.
func isProxy(name string) bool { return strings.Contains(strings.ToLower(name), "proxy") }

// groupText is "A: r1, r2; B: r3" with keys sorted.
func groupText(g map[string][]string) string {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		name := k
		if name == "" {
			name = "none"
		}
		parts[i] = name + " for " + strings.Join(g[k], ", ")
	}
	return strings.Join(parts, "; ")
}
