package viewer

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
)

// filter is the question list's filter, sort and search (query
// parameters task, dim, outcome, q, sort, desc).
type filter struct {
	Task, Dim, Outcome, Q, Sort string
	Desc                        bool
}

// The outcomes a filter selects.
var outcomes = []struct{ Value, Label string }{
	{"", "any"},
	{"allany0", "All-Any = 0"},
	{"allany1", "All-Any = 1"},
	{"choice0", "choice wrong"},
	{"judge<=2", "an LLM judge's score <= 2"},
	{"failed", "failed"},
	{"abstained", "abstained"},
}

// The columns the question list sorts by.
var sortColumns = []struct{ Value, Label string }{
	{"", "store order"},
	{"question", "question"},
	{"task", "task"},
	{"dimension", "dimension"},
	{"allany", "All-Any"},
	{"recall", "Recall-Flat"},
	{"mrr", "MRR"},
	{"judge", "first LLM judge"},
	{"latency", "latency"},
}

func parseFilter(q url.Values) (filter, error) {
	f := filter{Task: q.Get("task"), Dim: q.Get("dim"), Outcome: q.Get("outcome"), Q: strings.TrimSpace(q.Get("q")),
		Sort: q.Get("sort"), Desc: q.Get("desc") == "1"}
	if !slices.ContainsFunc(outcomes, func(o struct{ Value, Label string }) bool { return o.Value == f.Outcome }) {
		return f, fmt.Errorf("unknown outcome %q (%w)", f.Outcome, errBadParam)
	}
	if !slices.ContainsFunc(sortColumns, func(o struct{ Value, Label string }) bool { return o.Value == f.Sort }) {
		return f, fmt.Errorf("unknown sort column %q (%w)", f.Sort, errBadParam)
	}
	return f, nil
}

// Query is the filter as a query string ("" for none).
func (f filter) Query() string {
	v := url.Values{}
	for k, x := range map[string]string{"task": f.Task, "dim": f.Dim, "outcome": f.Outcome, "q": f.Q, "sort": f.Sort} {
		if x != "" {
			v.Set(k, x)
		}
	}
	if f.Desc {
		v.Set("desc", "1")
	}
	return v.Encode()
}

// match reports whether record i of d passes the filter.
func (f filter) match(d *runData, i int, needle string) bool {
	r := d.recs[i]
	if f.Task != "" && r.Task != f.Task || f.Dim != "" && r.Dimension != f.Dim {
		return false
	}
	if needle != "" && !strings.Contains(d.hay[i], needle) {
		return false
	}
	switch f.Outcome {
	case "allany0":
		return r.Failure == "" && r.Retrieval.HasGold && r.Retrieval.AllAny == 0
	case "allany1":
		return r.Failure == "" && r.Retrieval.HasGold && r.Retrieval.AllAny == 1
	case "choice0":
		s, ok := score(r, judge.MetricChoiceAccuracy)
		return ok && s.Judged() && s.Value == 0
	case "judge<=2":
		for _, s := range r.Scores {
			if s.Kind == record.KindLLMJudge && s.Judged() && s.Value <= 2 {
				return true
			}
		}
		return false
	case "failed":
		return r.Failure != "" || slices.ContainsFunc(r.Scores, record.Score.Failed)
	case "abstained":
		return r.Abstained
	}
	return true
}

// score returns r's score of metric.
func score(r record.Record, metric string) (record.Score, bool) {
	for _, s := range r.Scores {
		if s.Metric == metric {
			return s, true
		}
	}
	return record.Score{}, false
}

// firstJudge is r's first LLM judge score (NaN when none is judged).
func firstJudge(r record.Record) (record.Score, bool) {
	for _, s := range r.Scores {
		if s.Kind == record.KindLLMJudge {
			return s, true
		}
	}
	return record.Score{}, false
}

// selected returns the indices of d's records passing f, sorted as f says.
func (f filter) selected(d *runData) []int {
	needle := strings.ToLower(f.Q)
	var idx []int
	for i := range d.recs {
		if f.match(d, i, needle) {
			idx = append(idx, i)
		}
	}
	if f.Sort == "" {
		if f.Desc {
			slices.Reverse(idx)
		}
		return idx
	}
	key := func(i int) float64 {
		r := d.recs[i]
		switch f.Sort {
		case "allany":
			return r.Retrieval.AllAny
		case "recall":
			return r.Retrieval.RecallFlat
		case "mrr":
			return r.Retrieval.MRR
		case "latency":
			return r.Latency.Seconds()
		case "judge":
			if s, ok := firstJudge(r); ok && s.Judged() {
				return s.Value
			}
			return math.Inf(-1)
		}
		return 0
	}
	str := func(i int) string {
		r := d.recs[i]
		switch f.Sort {
		case "question":
			return r.QuestionID
		case "task":
			return r.Task
		case "dimension":
			return r.Dimension
		}
		return ""
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		c := cmp.Compare(str(a), str(b))
		if c == 0 {
			c = cmp.Compare(key(a), key(b))
		}
		if f.Desc {
			c = -c
		}
		return c
	})
	return idx
}

// questionRow is one question of a run's list.
type questionRow struct {
	N                                          int
	URL, QuestionID, Corpus, Task, Dimension   string
	AllAny, Recall, MRR, Choice, Judge, Answer string
	Failure                                    string
	Abstained                                  bool
}

func newQuestionRow(id string, n int, r record.Record, fq string) questionRow {
	row := questionRow{N: n, URL: questionURL(id, r, fq), QuestionID: r.QuestionID, Corpus: r.CorpusID, Task: r.Task,
		Dimension: r.Dimension, Answer: clip(r.Answer, 160), Failure: clip(r.Failure, 120), Abstained: r.Abstained}
	if r.Failure == "" && r.Retrieval.HasGold {
		row.AllAny, row.Recall, row.MRR = f3(r.Retrieval.AllAny), f3(r.Retrieval.RecallFlat), f3(r.Retrieval.MRR)
	}
	if r.Choice != "" || r.Correct != "" {
		row.Choice = r.Choice + " / " + r.Correct
	}
	if s, ok := firstJudge(r); ok {
		if s.Judged() {
			row.Judge = fmt.Sprintf("%s / %s", f3(s.Value), f3(s.Max))
		} else if s.Failed() {
			row.Judge = "failed"
		}
	}
	return row
}

type option struct {
	Value, Label string
	Selected     bool
}

func options(values []string, cur, anyLabel string) []option {
	out := []option{{"", anyLabel, cur == ""}}
	for _, v := range values {
		label := v
		if label == "" {
			label = "(none)"
			continue
		}
		out = append(out, option{v, label, v == cur})
	}
	return out
}

func (v *viewer) runPage(w http.ResponseWriter, r *http.Request) {
	d, err := v.load(r.PathValue("id"))
	if err != nil {
		v.fail(w, err)
		return
	}
	f, err := parseFilter(r.URL.Query())
	if err != nil {
		v.fail(w, err)
		return
	}
	page := 1
	if p := r.URL.Query().Get("page"); p != "" {
		if page, err = strconv.Atoi(p); err != nil || page < 1 {
			v.fail(w, fmt.Errorf("page %q is not a page number (%w)", p, errBadParam))
			return
		}
	}
	idx := f.selected(d)
	pages := max(1, (len(idx)+v.opts.PageSize-1)/v.opts.PageSize)
	page = min(page, pages)
	lo, hi := (page-1)*v.opts.PageSize, min(page*v.opts.PageSize, len(idx))
	fq := f.Query()
	rows := make([]questionRow, 0, hi-lo)
	for n, i := range idx[lo:hi] {
		rows = append(rows, newQuestionRow(d.info.ID, lo+n+1, d.recs[i], fq))
	}
	tasks, dims := map[string]bool{}, map[string]bool{}
	for _, rec := range d.recs {
		tasks[rec.Task], dims[rec.Dimension] = true, true
	}
	var outs, sorts []option
	for _, o := range outcomes {
		outs = append(outs, option{o.Value, o.Label, o.Value == f.Outcome})
	}
	for _, o := range sortColumns {
		sorts = append(sorts, option{o.Value, o.Label, o.Value == f.Sort})
	}
	pageURL := func(p int) string {
		u := runURL(d.info.ID) + "?page=" + strconv.Itoa(p)
		if fq != "" {
			u += "&" + fq
		}
		return u
	}
	var prev, next string
	if page > 1 {
		prev = pageURL(page - 1)
	}
	if page < pages {
		next = pageURL(page + 1)
	}
	status, running := v.status(d.info)
	stats := d.statsOf()
	sortURL := map[string]string{}
	for _, c := range sortColumns {
		g := f
		g.Sort, g.Desc = c.Value, c.Value == f.Sort && !f.Desc
		u := runURL(d.info.ID)
		if q := g.Query(); q != "" {
			u += "?" + q
		}
		sortURL[c.Value] = u + "#questions"
	}
	v.render(w, http.StatusOK, "run", struct {
		Title      string
		Run        runRow
		Status     string
		Summary    []statTable
		Breakdowns []statTable
		Figures    []figureRef
		Filter     filter
		Tasks      []option
		Dims       []option
		Outcomes   []option
		Sorts      []option
		Rows       []questionRow
		Matched    int
		Total      int
		Page       int
		Pages      int
		Prev, Next string
		SortURL    map[string]string
		Live       bool
	}{"run " + shortID(d.info.ID), v.runRowOf(d), status, stats.Summary, stats.Breakdowns, d.figures(), f,
		options(slices.Sorted(maps.Keys(tasks)), f.Task, "any"), options(slices.Sorted(maps.Keys(dims)), f.Dim, "any"),
		outs, sorts, rows, len(idx), len(d.recs), page, pages, prev, next, sortURL, running})
}

func (v *viewer) runRowOf(d *runData) runRow {
	info := d.info
	return runRow{ID: info.ID, Label: info.Label, Dataset: info.Spec.Dataset, System: info.Spec.System,
		Reader: info.Spec.Reader, Judges: strings.Join(info.Spec.Judges, ", "), Code: info.CodeVersion,
		Updated: date(info.Updated), K: info.Spec.K, Done: info.Done, Failed: info.Failed, Questions: info.Questions}
}
