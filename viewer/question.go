package viewer

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
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

// stageRow is one stage's model calls and wall time of a question.
type stageRow struct {
	Stage string
	llm.TallyCounts
	// Time is the stage's wall time, "not recorded" in a record written
	// before memlab kept the stage times.
	Time string
}

// contextRow is one passage given to the reader, in the reader's order.
type contextRow struct {
	N  int
	ID string
	// Hit is the retrieved unit the passage is (with its rank, time, kind,
	// trace ids, gold mark and text); nil when the record's hits have no
	// unit or trace of that id.
	Hit *hitRow
}

// questionView is one record as a question page shows it.
type questionView struct {
	Rec       record.Record
	Retrieval string
	Scores    []record.Score
	Stages    []stageRow
	// StagesNote says what the stage times are, or that they were not
	// recorded.
	StagesNote string
	Hits       []hitRow
	// Context are the passages given to the reader, in order.
	Context []contextRow
	Ranked  []string
	Gold    string
	// Source is what the dataset says of the question (nil when the
	// run's dataset is not loaded).
	Source *questionSource
}

func (v *viewer) questionView(d *runData, r record.Record) questionView {
	q := newQuestionView(r)
	if ix := v.ds.of(d.info.Spec.Fingerprint); ix != nil {
		q.markGold(ix)
	}
	q.matchContext()
	return q
}

// matchContext lists the passages given to the reader (Rec.ContextIDs),
// each matched to the first hit of that unit id, else to the first hit
// holding a trace of that id.
func (q *questionView) matchContext() {
	for i, id := range q.Rec.ContextIDs {
		row := contextRow{N: i + 1, ID: id}
		j := slices.IndexFunc(q.Rec.Hits, func(h retrieval.Hit) bool { return h.UnitID == id })
		if j < 0 {
			j = slices.IndexFunc(q.Rec.Hits, func(h retrieval.Hit) bool { return slices.Contains(h.TraceIDs, id) })
		}
		if j >= 0 {
			row.Hit = &q.Hits[j]
		}
		q.Context = append(q.Context, row)
	}
}

// duration formats a wall time: "1.500 s" from a second on, else
// milliseconds ("12.35 ms").
func duration(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%.3f s", d.Seconds())
	}
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
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
	st := r.Stages
	times := []string{"not recorded", "not recorded", "not recorded"}
	if st.Measured {
		times = []string{duration(st.Retrieve), duration(st.Read), duration(st.Judge)}
		q.StagesNote = fmt.Sprintf("Wall time: retrieve is the system's search (with an incremental memory's ingest of the traces before the question), read the reader's calls, judge the scoring of the answer (proxies and LLM judges); together %s of the question's %s, the rest scoring the retrieval and the work between the stages.",
			duration(st.Sum()), duration(r.Latency))
	} else {
		q.StagesNote = "This record was written before memlab kept the time of each stage: only the question's total wall time is known."
	}
	q.Stages = []stageRow{{"retrieve", r.Usage.Retrieve, times[0]}, {"read", r.Usage.Read, times[1]}, {"judge", r.Usage.Judge, times[2]},
		{"total", r.Usage.Total(), duration(r.Latency)}}
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
