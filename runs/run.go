package runs

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/retrieval"
)

// Config is one experimental configuration: a memory system, a reader and the
// retrieval depth k (the number of trace hits given to the reader and scored
// by the retrieval metrics).
type Config struct {
	System retrieval.System
	Reader generate.Reader
	K      int
	// Judges are the LLM judges run on each answered question (none offline:
	// the proxies always run).
	Judges []Judge
}

// Result is the records of one configuration over a dataset's questions.
type Result struct {
	Dataset     string
	Fingerprint string
	System      string
	Reader      string
	K           int
	Records     []Record
	// Meter is what the system spent during this run (model calls, tokens,
	// embedded texts at ingest and query), for systems that count it.
	Meter retrieval.Meter
}

// Evaluate runs cfg over every question of d, in dataset order. For each
// question it retrieves the top cfg.K hits (the system applies temporal
// admission), scores retrieval at K, asks the reader twice (multiple choice
// when the question has options, and free text with the options removed),
// and computes the offline judges. A failure of one question's step is
// recorded in that record and the run goes on; Evaluate returns an error only
// for a bad configuration or a cancelled ctx.
func Evaluate(ctx context.Context, d *datasets.Dataset, cfg Config) (*Result, error) {
	if d == nil || cfg.System == nil || cfg.Reader == nil {
		return nil, fmt.Errorf("runs: evaluate: dataset, system and reader are required")
	}
	if cfg.K <= 0 {
		return nil, fmt.Errorf("runs: evaluate %s: k must be positive, got %d", cfg.System.Name(), cfg.K)
	}
	res := &Result{
		Dataset: d.Name, Fingerprint: d.Fingerprint,
		System: cfg.System.Name(), Reader: cfg.Reader.Name(), K: cfg.K,
		Records: make([]Record, 0, len(d.Questions)),
	}
	// Questions are asked in asked-at order (no time last), as a clone's
	// memory grows; incremental memory systems need it. Records keep the
	// dataset's order.
	order := make([]int, len(d.Questions))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ta, tb := d.Questions[order[a]].AskedAt, d.Questions[order[b]].AskedAt
		if ta.IsZero() || tb.IsZero() {
			return !ta.IsZero() && tb.IsZero()
		}
		return ta.Before(tb)
	})
	var before retrieval.Meter
	metered, isMetered := cfg.System.(retrieval.Metered)
	if isMetered {
		before = metered.Meter()
	}
	recs := make([]Record, len(d.Questions))
	media := mediaOf(d)
	for n, i := range order {
		if err := ctx.Err(); err != nil {
			res.Records = compact(recs)
			return res, fmt.Errorf("runs: evaluate %s at k=%d: stopped after %d of %d questions: %w",
				res.System, cfg.K, n, len(d.Questions), err)
		}
		recs[i] = evaluateOne(ctx, d, cfg, d.Questions[i], media)
	}
	res.Records = recs
	if isMetered {
		m := metered.Meter()
		res.Meter = retrieval.Meter{IngestCalls: m.IngestCalls - before.IngestCalls, IngestTokens: m.IngestTokens - before.IngestTokens,
			IngestEmbeds: m.IngestEmbeds - before.IngestEmbeds, QueryCalls: m.QueryCalls - before.QueryCalls,
			QueryTokens: m.QueryTokens - before.QueryTokens, QueryEmbeds: m.QueryEmbeds - before.QueryEmbeds}
	}
	return res, nil
}

// compact drops the records of questions not asked (a stopped run).
func compact(recs []Record) []Record {
	out := recs[:0:0]
	for _, r := range recs {
		if r.QuestionID != "" {
			out = append(out, r)
		}
	}
	return out
}

func evaluateOne(ctx context.Context, d *datasets.Dataset, cfg Config, q datasets.Question, media map[string]string) Record {
	start := time.Now()
	rec := Record{
		QuestionID: q.ID, CorpusID: q.CorpusID, Task: q.Task, Dimension: q.Dimension,
		System: cfg.System.Name(), Reader: cfg.Reader.Name(), K: cfg.K,
		Visible: len(d.Visible(q)), Correct: q.Correct,
		Judges: map[string]float64{},
	}
	defer func() { rec.Latency = time.Since(start) }()

	hits, err := cfg.System.Retrieve(ctx, q, cfg.K)
	if err != nil {
		rec.Failure = "retrieve: " + err.Error()
		return rec
	}
	rec.Hits = hits
	rec.Ranked, rec.Scores = rankTraces(hits, cfg.K)
	rec.Retrieval = retrieval.ScoreRetrieval(rec.Ranked, q.Evidence, cfg.K)

	passages := make([]generate.Passage, 0, len(hits))
	var context strings.Builder
	for _, h := range hits {
		p := generate.Passage{ID: h.UnitID, TraceIDs: h.TraceIDs, Text: h.Text, Time: h.Time}
		if len(h.TraceIDs) > 0 {
			p.Medium = media[q.CorpusID+"\x00"+h.TraceIDs[0]]
		}
		passages = append(passages, p)
		rec.ContextIDs = append(rec.ContextIDs, h.UnitID)
		context.WriteString(h.Text)
		context.WriteString("\n")
	}

	var statements []string
	for _, g := range q.Evidence {
		if g.Statement != "" {
			statements = append(statements, g.Statement)
		}
	}
	rec.Judges[judge.MetricEvidenceCoverage] = judge.EvidenceCoverage(statements, context.String())

	if q.IsMultipleChoice() {
		a, err := cfg.Reader.Answer(ctx, q, passages)
		if err != nil {
			rec.Failure = "read (multiple choice): " + err.Error()
			return rec
		}
		rec.Choice, rec.ChoiceOutcome = a.Choice, a.Outcome
		switch {
		case a.Outcome == generate.OutcomeUnparseable || a.Outcome == generate.OutcomeAmbiguous:
			// A recorded failure of the reader, not a wrong letter: counted
			// apart (Summary.ChoiceUnread), left out of choice accuracy.
		case judge.ChoiceCorrect(a.Choice, q.Correct):
			rec.Judges[judge.MetricChoiceAccuracy] = 1
		default:
			rec.Judges[judge.MetricChoiceAccuracy] = 0
		}
	}

	free := q
	free.Choices, free.Correct = nil, ""
	a, err := cfg.Reader.Answer(ctx, free, passages)
	if err != nil {
		rec.Failure = "read (free text): " + err.Error()
		return rec
	}
	rec.Answer, rec.AnswerTraceIDs, rec.Abstained = a.Text, a.TraceIDs, a.Abstained
	if len(cfg.Judges) > 0 {
		retrieved := make([]string, len(passages))
		for i, p := range passages {
			retrieved[i] = p.Text
		}
		for _, j := range cfg.Judges {
			rec.Verdicts = append(rec.Verdicts, j.Judge(ctx, q, a.Text, retrieved)...)
		}
	}
	if q.Answer != "" {
		rec.Judges[judge.MetricTokenF1] = judge.TokenF1(a.Text, q.Answer)
		rec.Judges[judge.MetricRougeL] = judge.RougeL(a.Text, q.Answer)
	} else {
		rec.Judges[judge.MetricTokenF1] = math.NaN()
		rec.Judges[judge.MetricRougeL] = math.NaN()
	}
	return rec
}

// mediaOf maps "corpus\x00trace" to the trace's medium.
func mediaOf(d *datasets.Dataset) map[string]string {
	m := map[string]string{}
	for _, c := range d.Corpora {
		for _, t := range c.Traces {
			m[c.ID+"\x00"+t.ID] = t.Medium
		}
	}
	return m
}

// rankTraces cuts hits to trace ids, keeps the first occurrence of each, and
// stops at k; each id carries the score of the hit that first returned it.
func rankTraces(hits []retrieval.Hit, k int) ([]string, []float64) {
	ids := retrieval.TraceRanking(hits)
	if len(ids) > k {
		ids = ids[:k]
	}
	score := map[string]float64{}
	for _, h := range hits {
		for _, id := range h.TraceIDs {
			if _, ok := score[id]; !ok {
				score[id] = h.Score
			}
		}
	}
	scores := make([]float64, len(ids))
	for i, id := range ids {
		scores[i] = score[id]
	}
	return ids, scores
}
