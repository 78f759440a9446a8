package record

import (
	"time"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
)

// Record is what one question becomes in one run.
type Record struct {
	QuestionID string
	CorpusID   string
	Task       string
	Dimension  string
	// System, Reader and K identify the configuration.
	System string
	Reader string
	K      int
	// Visible is the number of traces admitted at the question's time.
	Visible int
	// Ranked is the retrieved trace ids (deduplicated, first occurrence kept,
	// cut at K) and RankScores the retrieval score of the unit that first
	// returned each.
	Ranked     []string
	RankScores []float64
	// Retrieval holds the recall variants, MRR and nDCG at K; HasGold is false
	// for a question without gold trace ids.
	Retrieval retrieval.RetrievalScore
	// Hits are the system's unit-level hits as returned (kind, unit id,
	// trace ids, score, time, text): what exports to the official formats
	// and memory-utility judges read.
	Hits []retrieval.Hit
	// ContextIDs are the ids of the passages given to the reader, in order.
	ContextIDs []string
	// Choice is the option chosen in multiple-choice mode ("" when the
	// question has no options), Correct the gold option.
	Choice  string
	Correct string
	// Answer is the free-text answer, AnswerTraceIDs the traces it cites.
	Answer         string
	AnswerTraceIDs []string
	Abstained      bool
	// Scores are the question's answer scores, whatever their kind: the
	// exact metrics (choice accuracy) and offline proxies (token F1,
	// ROUGE-L, evidence coverage) under their own names, and the LLM
	// judges' verdicts, judged or failed, each with its judge, model,
	// prompt hash, explanation and raw reply. The exact metrics and
	// proxies come first, sorted by name, then the LLM judges' scores in
	// their order. Offline and SetOffline read and set an exact metric or
	// proxy, Verdicts and SetVerdicts the LLM judges' scores.
	Scores []Score
	// JudgeVerdicts is how many LLM-judge scores (Verdicts) each of the
	// run's judges (runs.Config.Judges, in order) returned: Verdicts holds
	// them first, one judge after another, then the verdicts a
	// runs.Rejudge added. A rerun uses it to judge again only the judges
	// whose verdicts failed. nil in records written before it was kept (a
	// rerun then judges such a record's failed verdicts again with every
	// judge of the run).
	JudgeVerdicts []int
	// ChoiceOutcome is how a model reader's multiple-choice output was read
	// (generate.OutcomeChosen, OutcomeUnparseable, OutcomeAmbiguous).
	ChoiceOutcome string
	// Failure is non-empty when a step failed for this question; a failed
	// record is counted apart and never scored.
	Failure string
	// Latency is the wall time of the whole question (retrieve, read, judge).
	Latency time.Duration
	// Stages is Latency by stage (retrieve, read, judge); Stages.Measured
	// is false in records written before memlab kept the stage times.
	Stages StageLatency
	// Usage is what the question's model calls were, by stage.
	Usage Usage
}

// StageLatency is a question's wall time by stage: Retrieve the system's
// Retrieve (for incremental memories, including the ingest of the traces
// that arrived before the question), Read the reader's calls (the choice
// and the free-text answer), Judge the answer's scoring (the offline
// proxies of the answer and the LLM judges). A stage not reached (a
// failed retrieval is never read) took 0. Their sum is at most
// Record.Latency, which also counts scoring the retrieval and the work
// between the stages. A record done again after a failed step (a resumed
// run's healing) adds the earlier attempt's times, as Latency does.
//
// Measured is false when the stage times are unknown: a record written
// before memlab kept them, or one done again from such a record (its
// earlier attempt's times are lost). Then the three times are 0 and mean
// nothing; show them as not recorded, never as 0.
type StageLatency struct {
	Retrieve, Read, Judge time.Duration
	Measured              bool
}

// Sum is the time of the three stages together.
func (s StageLatency) Sum() time.Duration { return s.Retrieve + s.Read + s.Judge }

// Add returns the stage times of two attempts of a question together,
// measured only when both are.
func (s StageLatency) Add(o StageLatency) StageLatency {
	return StageLatency{Retrieve: s.Retrieve + o.Retrieve, Read: s.Read + o.Read, Judge: s.Judge + o.Judge,
		Measured: s.Measured && o.Measured}
}

// Usage counts a question's model calls by stage (llm.Tally): Retrieve is
// what the system's Retrieve called (for incremental memories, including
// the ingest of the traces that arrived before the question), Read the
// reader's calls, Judge the LLM judges'. All zero offline.
type Usage struct {
	Retrieve, Read, Judge llm.TallyCounts
}

// Total is the sum over the stages.
func (u Usage) Total() llm.TallyCounts { return u.Retrieve.Add(u.Read).Add(u.Judge) }
