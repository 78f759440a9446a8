package viewer

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
)

// compareParams are what the compare pages take: the runs, in order (the
// first is the baseline), the metric and the run whose flips against the
// baseline are listed. URLs of two runs as a=ID&b=ID still work: a and b
// come first, then every run=ID.
type compareParams struct {
	Runs   []string
	Metric string
	Flip   string
}

func parseCompare(q url.Values) (compareParams, error) {
	p := compareParams{Metric: cmpOr(q.Get("m"), "All-Any"), Flip: q.Get("flip")}
	for _, k := range []string{"a", "b"} {
		if id := q.Get(k); id != "" {
			p.Runs = append(p.Runs, id)
		}
	}
	p.Runs = append(p.Runs, q["run"]...)
	if len(p.Runs) < 2 {
		return p, fmt.Errorf("compare needs two runs or more: tick them on the runs page, or give run=ID&run=ID (or a=ID&b=ID); got %d (%w)",
			len(p.Runs), errBadParam)
	}
	return p, nil
}

// compareURL is the compare page of runs on metric, listing the flips of
// flip ("" = the second run) against the first.
func compareURL(runs []string, metric, flip string) string {
	v := url.Values{"run": runs, "m": {metric}}
	if flip != "" {
		v.Set("flip", flip)
	}
	return "/compare?" + v.Encode()
}

// letter names the i-th run of a comparison: a, b, c, ... z, then r27, ...
func letter(i int) string {
	if i < 26 {
		return string(rune('a' + i))
	}
	return "r" + strconv.Itoa(i+1)
}

// compareRow is one run of the compare page with its mean and, but for the
// baseline, its paired difference against the baseline.
type compareRow struct {
	Letter string
	Run    runRow
	Mean   string
	// Delta, Test, P, PHolm and Pairs are the paired difference against
	// the baseline ("" for the baseline itself); Discordant McNemar's
	// counts.
	Delta, Test, P, PHolm, Pairs, Discordant string
	Baseline                                 bool
	// BaselineURL compares the same runs with this one first; FlipsURL
	// lists its flips against the baseline; Flipped marks the run whose
	// flips the page lists.
	BaselineURL, FlipsURL string
	Flipped               bool
}

// flipRow is one flipped question of the compare page.
type flipRow struct {
	QuestionID, Corpus, Task, URL, AURL, BURL string
	AAnswer, BAnswer                          string
}

// comparison is what the compare page shows of runs on a metric, made
// once per state of the runs (comparisons are cached by compareKey).
type comparison struct {
	Runs          []compareRow
	IDs           []string
	Metric        string
	Metrics       []option
	FlipRuns      []option
	Other         compareRow
	Fixed, Broken []flipRow
	Note          string
}

// compareKey names a comparison: the states of its runs (sameState), the
// metric and the run whose flips it lists.
func compareKey(runs []*runData, metric string, other int) string {
	var b strings.Builder
	for _, d := range runs {
		fmt.Fprintf(&b, "%s %d %d %d\x00", d.info.ID, d.info.Updated.UnixNano(), d.info.Done, d.info.Failed)
	}
	fmt.Fprintf(&b, "%s\x00%d", metric, other)
	return b.String()
}

func (v *viewer) comparePage(w http.ResponseWriter, r *http.Request) {
	p, err := parseCompare(r.URL.Query())
	if err != nil {
		v.fail(w, err)
		return
	}
	runs, err := v.loadRuns(p.Runs)
	if err != nil {
		v.fail(w, err)
		return
	}
	other := 1
	if p.Flip != "" {
		f, err := v.load(p.Flip)
		if err != nil {
			v.fail(w, err)
			return
		}
		if other = slices.IndexFunc(runs, func(d *runData) bool { return d.info.ID == f.info.ID }); other < 1 {
			v.fail(w, fmt.Errorf("flip=%s is not one of the runs compared after the first (%w)", p.Flip, errBadParam))
			return
		}
	}
	key := compareKey(runs, p.Metric, other)
	v.mu.Lock()
	c := v.compares[key]
	v.mu.Unlock()
	if c == nil {
		if c, err = v.compare(runs, p.Metric, other); err != nil {
			v.fail(w, err)
			return
		}
		v.mu.Lock()
		if len(v.compares) >= 64 {
			clear(v.compares)
		}
		v.compares[key] = c
		v.mu.Unlock()
	}
	v.render(w, http.StatusOK, "compare", struct {
		Title string
		*comparison
	}{"compare", c})
}

// compare compares runs on metric: each run's mean with its interval, the
// paired difference of each against the first (reports.Compare), and the
// flips between the first and runs[other].
func (v *viewer) compare(runs []*runData, metric string, other int) (*comparison, error) {
	ids := make([]string, len(runs))
	results := make([]*record.Result, len(runs))
	for i, d := range runs {
		ids[i], results[i] = d.info.ID, d.result()
	}
	// The metrics every run has: the retrieval metrics, then the scores.
	cols := reports.ColumnsOf(runs[0].recs)
	metrics := append(slices.Clone(retrievalNames[:5]), cols.JudgeNames()...)
	metrics, _ = reports.MetricsInEvery(results, append(metrics, cols.VerdictNames()...))
	if !slices.Contains(metrics, metric) {
		return nil, fmt.Errorf("metric %q is not in every run compared (metrics: %s) (%w)", metric, strings.Join(metrics, ", "), errBadParam)
	}
	personas := map[string]bool{}
	for _, d := range runs {
		for _, rec := range d.recs {
			personas[rec.CorpusID] = true
		}
	}
	cmp, cmpErr := reports.Compare(results, reports.CompareOptions{Metrics: []string{metric}, Resamples: ciResamples, Seed: ciSeed,
		Level: ciLevel, ClusterByPersona: len(personas) > 1})
	rows := make([]compareRow, len(runs))
	for i, d := range runs {
		row := compareRow{Letter: letter(i), Run: v.runRowOf(d), Baseline: i == 0, Flipped: i == other}
		if i > 0 {
			order := append([]string{ids[i]}, slices.Delete(slices.Clone(ids), i, i+1)...)
			row.BaselineURL = compareURL(order, metric, "")
			row.FlipsURL = compareURL(ids, metric, ids[i]) + "#flips"
		}
		if cmpErr == nil {
			c := cmp.Cells[i]
			row.Mean = "n/a"
			if c.Mean.N > 0 {
				row.Mean = fmt.Sprintf("%s (n=%d)", analysis.FmtCI(c.Mean.Estimate, c.Mean.Lo, c.Mean.Hi, 3), c.Mean.N)
			}
			if i > 0 {
				row.Pairs, row.Delta, row.P, row.PHolm = strconv.Itoa(c.N), analysis.FmtDelta(c.Delta, 3), pValue(c.P), pValue(c.PHolm)
				row.Test = cmpOr(c.Test, "none (no question both runs scored)")
				if c.Test == "McNemar exact" {
					row.Discordant = fmt.Sprintf("only a: %d, only %s: %d", c.OnlyBaseline, row.Letter, c.OnlyRun)
				}
			}
		}
		rows[i] = row
	}
	c := &comparison{Runs: rows, IDs: ids, Metric: metric, Other: rows[other]}
	if cmpErr != nil {
		c.Note = cmpErr.Error()
	} else {
		c.Note = cmp.Note
	}
	var err error
	if c.Fixed, c.Broken, err = v.flipRows(runs[0], runs[other], ids, metric); err != nil {
		return nil, err
	}
	for _, m := range metrics {
		c.Metrics = append(c.Metrics, option{m, m, m == metric})
	}
	for i := 1; i < len(runs); i++ {
		c.FlipRuns = append(c.FlipRuns, option{ids[i], letter(i) + ": " + shortID(ids[i]) + " " + runs[i].info.Label, i == other})
	}
	return c, nil
}

// flipRows are the questions right in a and wrong in b on metric
// (broken) and the reverse (fixed), each linking to both rankings side by
// side.
func (v *viewer) flipRows(a, b *runData, ids []string, metric string) (fixed, broken []flipRow, err error) {
	flips, err := reports.Flips(a.recs, b.recs, metric)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (%w)", err, errBadParam)
	}
	for _, fl := range flips {
		cq := url.Values{"a": {a.info.ID}, "b": {b.info.ID}, "m": {metric}, "c": {fl.CorpusID}, "qid": {fl.QuestionID}}
		if len(ids) > 2 {
			cq["run"] = ids
		}
		row := flipRow{QuestionID: fl.QuestionID, Corpus: fl.CorpusID, Task: fl.A.Task, URL: "/compare/q?" + cq.Encode(),
			AURL: questionURL(a.info.ID, fl.A, ""), BURL: questionURL(b.info.ID, fl.B, ""),
			AAnswer: clip(answerOf(fl.A), 120), BAnswer: clip(answerOf(fl.B), 120)}
		if fl.Fixed {
			fixed = append(fixed, row)
		} else {
			broken = append(broken, row)
		}
	}
	return fixed, broken, nil
}

// pValue formats a p-value: "0.042", "< 0.001", "n/a".
func pValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "n/a"
	case p < 0.001:
		return "< 0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// result is the run as a record.Result.
func (d *runData) result() *record.Result {
	i := d.info
	return &record.Result{ID: i.ID, Spec: i.Spec, Label: cmpOr(i.Label, shortID(i.ID)), Dataset: i.Spec.Dataset,
		Fingerprint: i.Spec.Fingerprint, System: i.Spec.System, Reader: i.Spec.Reader, K: i.Spec.K, Records: d.recs}
}

func answerOf(r record.Record) string {
	if r.Failure != "" {
		return "failed: " + r.Failure
	}
	if r.Choice != "" {
		return r.Choice
	}
	return r.Answer
}

// loadRuns loads the runs compared, each once.
func (v *viewer) loadRuns(ids []string) ([]*runData, error) {
	out := make([]*runData, 0, len(ids))
	for _, id := range ids {
		d, err := v.load(id)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(o *runData) bool { return o.info.ID == d.info.ID }) {
			return nil, fmt.Errorf("run %s is picked twice: compare different runs (%w)", shortID(d.info.ID), errBadParam)
		}
		out = append(out, d)
	}
	return out, nil
}

// compareQuestionPage shows a question in two runs side by side
// (/compare/q?a=ID&b=ID&c=CORPUS&qid=QUESTION; run=ID... and m name the
// comparison it came from, for the link back).
func (v *viewer) compareQuestionPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("a") == "" || q.Get("b") == "" {
		v.fail(w, fmt.Errorf("a question side by side needs two runs: a=ID&b=ID (%w)", errBadParam))
		return
	}
	runs, err := v.loadRuns([]string{q.Get("a"), q.Get("b")})
	if err != nil {
		v.fail(w, err)
		return
	}
	a, b := runs[0], runs[1]
	corpus, qid := q.Get("c"), q.Get("qid")
	ia, ib := a.find(corpus, qid), b.find(corpus, qid)
	if ia < 0 || ib < 0 {
		v.fail(w, fmt.Errorf("question %q of corpus %q is not in both runs (%w)", qid, corpus, errNotFound))
		return
	}
	metric := cmpOr(q.Get("m"), "All-Any")
	back := compareURL([]string{a.info.ID, b.info.ID}, metric, "")
	if all := q["run"]; len(all) > 2 {
		back = compareURL(all, metric, b.info.ID)
	}
	v.render(w, http.StatusOK, "compareq", struct {
		Title string
		A, B  runRow
		QA    questionView
		QB    questionView
		Back  string
	}{"compare " + qid, v.runRowOf(a), v.runRowOf(b), v.questionView(a, a.recs[ia]), v.questionView(b, b.recs[ib]), back + "#flips"})
}
