package runs

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
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
	// Params are extra knobs recorded with the run and part of its id:
	// seeds, an embedder's label, the notebook's parameters.
	Params map[string]string
	// Label is a human name for the run in listings ("" = the system's
	// short name and k); the latest start of a run sets it. It is not
	// part of the run id.
	Label string
}

// Evaluate runs cfg over every question of d without a run store (unless
// the host set one with SetDefaultStore): Run with default Options. See
// Run for what happens to each question.
func Evaluate(ctx context.Context, d *datasets.Dataset, cfg Config) (*record.Result, error) {
	return Run(ctx, d, cfg, Options{})
}

// retrieve is the first step of a question: the system's hits.
func retrieve(ctx context.Context, cfg Config, q datasets.Question) ([]retrieval.Hit, error) {
	return cfg.System.Retrieve(ctx, q, cfg.K)
}

// evaluateOne turns a question and its hits (or the retrieval error) into
// its record: retrieval scores, the reader's answers, the proxies, the
// exact metrics (LoCoMo's own on a LoCoMo dataset: loCoMoScores) and the
// LLM judges.
//
// prev, when not nil, is the question's stored record, whose retrieval
// succeeded (hits are its hits) but which has a step to do again
// (needsRetry): the reads that succeeded are reused, and so are the
// verdicts of every judge none of whose verdicts failed; the rest is done
// again. The record's latency, stage times and usage then add this
// attempt's to prev's.
func evaluateOne(ctx context.Context, d *datasets.Dataset, cfg Config, q datasets.Question, media map[string]string,
	prev *record.Record, hits []retrieval.Hit, rerr error, elapsed time.Duration) (rec record.Record) {
	start := time.Now()
	rec = record.Record{
		QuestionID: q.ID, CorpusID: q.CorpusID, Task: q.Task, Dimension: q.Dimension,
		System: cfg.System.Name(), Reader: cfg.Reader.Name(), K: cfg.K,
		Visible: len(d.Visible(q)), Correct: q.Correct,
	}
	// The stages' calls and wall times: elapsed is the retrieval's
	// (measured by the caller), read and judge are timed below, each from
	// its start to its end, so their sum is at most the question's
	// latency.
	var read, judging stageMeter
	readCtx, judgeCtx := read.context(ctx), judging.context(ctx)
	defer func() {
		rec.Latency = elapsed + time.Since(start)
		rec.Stages = record.StageLatency{Retrieve: elapsed, Read: read.elapsed, Judge: judging.elapsed, Measured: true}
		rec.Usage.Read, rec.Usage.Judge = read.tally.Counts(), judging.tally.Counts()
		if prev != nil {
			rec.Latency += prev.Latency
			rec.Stages = prev.Stages.Add(rec.Stages)
			rec.Usage.Retrieve = prev.Usage.Retrieve
			rec.Usage.Read, rec.Usage.Judge = prev.Usage.Read.Add(rec.Usage.Read), prev.Usage.Judge.Add(rec.Usage.Judge)
		}
	}()

	if rerr != nil {
		rec.Failure = failRetrieve + rerr.Error()
		return rec
	}
	rec.Hits = hits
	rec.Ranked, rec.RankScores = rankTraces(hits, cfg.K)
	rec.Retrieval = retrieval.ScoreRetrieval(rec.Ranked, q.Evidence, cfg.K)

	passages := passagesOf(q, hits, media)
	var context strings.Builder
	for _, h := range hits {
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
	rec.SetOffline(record.ProxyScore(judge.MetricEvidenceCoverage, judge.EvidenceCoverage(statements, context.String())))

	switch {
	case !q.IsMultipleChoice():
	case prev != nil && choiceReadOK(*prev):
		rec.Choice, rec.ChoiceOutcome = prev.Choice, prev.ChoiceOutcome
		if s, ok := prev.Offline(judge.MetricChoiceAccuracy); ok {
			rec.SetOffline(s)
		}
	default:
		done := read.time()
		a, err := cfg.Reader.Answer(readCtx, q, passages)
		done()
		if err != nil {
			rec.Failure = failReadChoice + err.Error()
			return rec
		}
		rec.Choice, rec.ChoiceOutcome = a.Choice, a.Outcome
		switch {
		case a.Outcome == generate.OutcomeUnparseable || a.Outcome == generate.OutcomeAmbiguous:
			// A recorded failure of the reader, not a wrong letter: counted
			// apart (Summary.ChoiceUnread), left out of choice accuracy.
		case judge.ChoiceCorrect(a.Choice, q.Correct):
			rec.SetOffline(record.ExactScore(judge.MetricChoiceAccuracy, 1))
		default:
			rec.SetOffline(record.ExactScore(judge.MetricChoiceAccuracy, 0))
		}
	}

	var a generate.Answer
	if prev != nil && prev.Failure == "" {
		a = generate.Answer{Text: prev.Answer, TraceIDs: prev.AnswerTraceIDs, Abstained: prev.Abstained}
	} else {
		free := q
		free.Choices, free.Correct = nil, ""
		var err error
		done := read.time()
		a, err = cfg.Reader.Answer(readCtx, free, passages)
		done()
		if err != nil {
			rec.Failure = failReadFree + err.Error()
			return rec
		}
	}
	rec.Answer, rec.AnswerTraceIDs, rec.Abstained = a.Text, a.TraceIDs, a.Abstained
	defer judging.time()()
	f1, rouge := math.NaN(), math.NaN()
	if q.Answer != "" {
		f1, rouge = judge.TokenF1(a.Text, q.Answer), judge.RougeL(a.Text, q.Answer)
	}
	rec.SetOffline(record.ProxyScore(judge.MetricTokenF1, f1))
	rec.SetOffline(record.ProxyScore(judge.MetricRougeL, rouge))
	if d.Format == datasets.FormatLoCoMo {
		loCoMoScores(q, &rec)
	}
	// The verdicts prev keeps: per judge of the run, and after them a
	// Rejudge's (all of them, unsplit, in a record older than
	// JudgeVerdicts).
	var spans [][]judge.Verdict
	var rest []judge.Verdict
	split := false
	if prev != nil && prev.Failure == "" {
		spans, rest, split = judgeSpans(*prev, len(cfg.Judges))
	}
	var verdicts []judge.Verdict
	if len(cfg.Judges) > 0 {
		retrieved := make([]string, len(passages))
		for i, p := range passages {
			retrieved[i] = p.Text
		}
		rec.JudgeVerdicts = make([]int, len(cfg.Judges))
		for i, j := range cfg.Judges {
			var vs []judge.Verdict
			if split && !anyRetryable(spans[i]) {
				vs = spans[i]
			} else {
				vs = j.Judge(judgeCtx, q, a.Text, retrieved)
			}
			verdicts = append(verdicts, vs...)
			rec.JudgeVerdicts[i] = len(vs)
		}
	}
	if split {
		verdicts = append(verdicts, rest...)
	} else {
		verdicts = mergeVerdicts(verdicts, rest)
	}
	rec.SetVerdicts(verdicts)
	return rec
}

// stageMeter measures one stage of a question: the model calls made
// with its context (context) and its wall time, the sum of the spans
// timed (time). evaluateOne measures the read and judge stages with it,
// Rejudge the judging it adds.
type stageMeter struct {
	tally   llm.Tally
	elapsed time.Duration
}

// context returns ctx counting its model calls in m (and in the tallies
// ctx already carries).
func (m *stageMeter) context(ctx context.Context) context.Context {
	return llm.WithTally(ctx, &m.tally)
}

// time starts a span of the stage; the function it returns ends it.
func (m *stageMeter) time() func() {
	t0 := time.Now()
	return func() { m.elapsed += time.Since(t0) }
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

// passagesOf turns q's hits into the passages given to the reader, each
// with the medium of its first trace.
func passagesOf(q datasets.Question, hits []retrieval.Hit, media map[string]string) []generate.Passage {
	passages := make([]generate.Passage, 0, len(hits))
	for _, h := range hits {
		p := generate.Passage{ID: h.UnitID, TraceIDs: h.TraceIDs, Text: h.Text, Time: h.Time, Kind: h.Kind, Score: h.Score, Undetermined: h.Undetermined}
		if len(h.TraceIDs) > 0 {
			p.Medium = media[q.CorpusID+"\x00"+h.TraceIDs[0]]
		}
		passages = append(passages, p)
	}
	return passages
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
