package viewer

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
)

// hitRow is one ranked retrieval unit of a question.
type hitRow struct {
	Rank                         int
	UnitID, Kind, Time, TraceIDs string
	Score                        string
	Text                         string
	Context                      bool
	// Gold is set when the unit holds a gold trace (the dataset is
	// loaded), Groups the evidence groups it covers ("#1, #3").
	Gold   bool
	Groups string
}

// stageRow is one stage's model calls of a question.
type stageRow struct {
	Stage string
	llm.TallyCounts
}

// questionView is one record as a question page shows it.
type questionView struct {
	Rec       record.Record
	Retrieval string
	Scores    []record.Score
	Stages    []stageRow
	Hits      []hitRow
	Ranked    []string
	Gold      string
	// Source is what the dataset says of the question (nil when the
	// run's dataset is not loaded).
	Source *questionSource
}

func (v *viewer) questionView(d *runData, r record.Record) questionView {
	q := newQuestionView(r)
	if ix := v.ds.of(d.info.Spec.Fingerprint); ix != nil {
		q.markGold(ix)
	}
	return q
}

func newQuestionView(r record.Record) questionView {
	q := questionView{Rec: r, Scores: r.Scores}
	rs := r.Retrieval
	if rs.HasGold {
		q.Retrieval = fmt.Sprintf("at k=%d: Recall-Flat %s, All-All %s, All-Any %s, Any-All %s, Any-Any %s, MRR %s, nDCG %s",
			rs.K, f3(rs.RecallFlat), f3(rs.AllAll), f3(rs.AllAny), f3(rs.AnyAll), f3(rs.AnyAny), f3(rs.MRR), f3(rs.NDCG))
		q.Gold = "The record keeps the recall scores, not the gold trace ids: the units are not marked gold (give memlab view the run's dataset with -data to mark them)."
	} else {
		q.Gold = "The question has no gold trace ids: no recall is scored."
	}
	q.Stages = []stageRow{{"retrieve", r.Usage.Retrieve}, {"read", r.Usage.Read}, {"judge", r.Usage.Judge}, {"total", r.Usage.Total()}}
	inContext := map[string]bool{}
	for _, id := range r.ContextIDs {
		inContext[id] = true
	}
	for i, h := range r.Hits {
		q.Hits = append(q.Hits, hitRow{Rank: i + 1, UnitID: h.UnitID, Kind: cmpOr(h.Kind, "chunk"), Time: date(h.Time),
			TraceIDs: strings.Join(h.TraceIDs, ", "), Score: fmt.Sprintf("%.4g", h.Score), Text: h.Text,
			Context: inContext[h.UnitID] || slices.ContainsFunc(h.TraceIDs, func(id string) bool { return inContext[id] })})
	}
	for i, id := range r.Ranked {
		s := id
		if i < len(r.RankScores) {
			s += fmt.Sprintf(" (%.4g)", r.RankScores[i])
		}
		q.Ranked = append(q.Ranked, s)
	}
	return q
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// find returns the index of the record of (corpus, qid) in d, -1 when none.
func (d *runData) find(corpus, qid string) int {
	return slices.IndexFunc(d.recs, func(r record.Record) bool {
		return r.QuestionID == qid && (corpus == "" || r.CorpusID == corpus)
	})
}

func (v *viewer) questionPage(w http.ResponseWriter, r *http.Request) {
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
	corpus, qid := r.URL.Query().Get("c"), r.URL.Query().Get("qid")
	i := d.find(corpus, qid)
	if i < 0 {
		v.fail(w, fmt.Errorf("run %s has no question %q of corpus %q (%w)", shortID(d.info.ID), qid, corpus, errNotFound))
		return
	}
	idx := f.selected(d)
	fq := f.Query()
	var prev, next string
	pos := slices.Index(idx, i)
	if pos > 0 {
		prev = questionURL(d.info.ID, d.recs[idx[pos-1]], fq)
	}
	if pos >= 0 && pos+1 < len(idx) {
		next = questionURL(d.info.ID, d.recs[idx[pos+1]], fq)
	}
	back := runURL(d.info.ID)
	if fq != "" {
		back += "?" + fq
	}
	v.render(w, http.StatusOK, "question", struct {
		Title      string
		Run        runRow
		Q          questionView
		Pos, Of    int
		Prev, Next string
		Back       string
	}{"question " + qid, v.runRowOf(d), v.questionView(d, d.recs[i]), pos + 1, len(idx), prev, next, back})
}

// flipRow is one flipped question of the compare page.
type flipRow struct {
	QuestionID, Corpus, Task, URL, AURL, BURL string
	AAnswer, BAnswer                          string
}

func (v *viewer) comparePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a, b, err := v.loadPair(q.Get("a"), q.Get("b"))
	if err != nil {
		v.fail(w, err)
		return
	}
	metric := cmpOr(q.Get("m"), "All-Any")
	flips, err := reports.Flips(a.recs, b.recs, metric)
	if err != nil {
		v.fail(w, fmt.Errorf("%w (%w)", err, errBadParam))
		return
	}
	var fixed, broken []flipRow
	for _, fl := range flips {
		cq := compareQuery(a.info.ID, b.info.ID, metric)
		cq.Set("c", fl.CorpusID)
		cq.Set("qid", fl.QuestionID)
		row := flipRow{QuestionID: fl.QuestionID, Corpus: fl.CorpusID, Task: fl.A.Task, URL: "/compare/q?" + cq.Encode(),
			AURL: questionURL(a.info.ID, fl.A, ""), BURL: questionURL(b.info.ID, fl.B, ""),
			AAnswer: clip(answerOf(fl.A), 120), BAnswer: clip(answerOf(fl.B), 120)}
		if fl.Fixed {
			fixed = append(fixed, row)
		} else {
			broken = append(broken, row)
		}
	}
	cols := reports.ColumnsOf(a.recs)
	metrics := []string{"Recall-Flat", "All-All", "All-Any", "Any-All", "Any-Any"}
	metrics = append(metrics, cols.JudgeNames()...)
	metrics = append(metrics, cols.VerdictNames()...)
	paired, err := reports.Compare([]*record.Result{a.result(), b.result()},
		reports.CompareOptions{Metrics: []string{metric}, Resamples: 2000, Seed: 1})
	var pairedTable *analysis.Table
	var pairedNote string
	if err == nil {
		pairedTable, pairedNote = &paired.Table, paired.Note
	} else {
		pairedNote = err.Error()
	}
	var opts []option
	for _, m := range metrics {
		opts = append(opts, option{m, m, m == metric})
	}
	v.render(w, http.StatusOK, "compare", struct {
		Title         string
		A, B          runRow
		Metric        string
		Metrics       []option
		Fixed, Broken []flipRow
		MeanA, MeanB  string
		Paired        *analysis.Table
		PairedNote    string
	}{"compare", v.runRowOf(a), v.runRowOf(b), metric, opts, fixed, broken, meanCell(a.sum, metric), meanCell(b.sum, metric),
		pairedTable, pairedNote})
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

func compareQuery(a, b, metric string) url.Values {
	return url.Values{"a": {a}, "b": {b}, "m": {metric}}
}

func (v *viewer) loadPair(a, b string) (*runData, *runData, error) {
	if a == "" || b == "" {
		return nil, nil, fmt.Errorf("compare needs two runs: a=ID&b=ID (%w)", errBadParam)
	}
	da, err := v.load(a)
	if err != nil {
		return nil, nil, err
	}
	db, err := v.load(b)
	if err != nil {
		return nil, nil, err
	}
	return da, db, nil
}

func (v *viewer) compareQuestionPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a, b, err := v.loadPair(q.Get("a"), q.Get("b"))
	if err != nil {
		v.fail(w, err)
		return
	}
	corpus, qid := q.Get("c"), q.Get("qid")
	ia, ib := a.find(corpus, qid), b.find(corpus, qid)
	if ia < 0 || ib < 0 {
		v.fail(w, fmt.Errorf("question %q of corpus %q is not in both runs (%w)", qid, corpus, errNotFound))
		return
	}
	back := "/compare?" + compareQuery(a.info.ID, b.info.ID, cmpOr(q.Get("m"), "All-Any")).Encode()
	v.render(w, http.StatusOK, "compareq", struct {
		Title string
		A, B  runRow
		QA    questionView
		QB    questionView
		Back  string
	}{"compare " + qid, v.runRowOf(a), v.runRowOf(b), v.questionView(a, a.recs[ia]), v.questionView(b, b.recs[ib]), back})
}
