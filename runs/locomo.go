package runs

import (
	"math"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// loCoMoScores sets on rec, the scored record of question q of a LoCoMo
// dataset, the two scores LoCoMo defines, both exact (record.KindExact)
// and made without a model:
//
//   - retrieval.MetricSessionRecall: the gold sessions covered by the
//     sessions of rec.Ranked (the traces retrieved at the question's time,
//     cut at k), sessions read from the dialogue ids
//     (datasets.LoCoMoSession); NaN without gold session;
//   - judge.MetricLoCoMoF1: judge.LoCoMoQuestionF1 of the answer, the
//     reader's abstention counting on adversarial questions; a question of
//     categories 1-4 without reference answer gets a NaN score marked
//     judge.FailureNoReference (counted as no reference). A question whose
//     category is not 1-5 (a defect the loader reported) gets none.
//
// Setting them again gives the same scores, so a record stored before they
// existed gets them when its run resumes.
func loCoMoScores(q datasets.Question, rec *record.Record) {
	rec.SetOffline(record.ExactScore(retrieval.MetricSessionRecall,
		retrieval.SessionRecall(rec.Ranked, q.Evidence, rec.K, datasets.LoCoMoSession)))
	f1, err := judge.LoCoMoQuestionF1(q, rec.Answer, rec.Abstained)
	if err != nil {
		return
	}
	s := record.ExactScore(judge.MetricLoCoMoF1, f1)
	if math.IsNaN(f1) {
		s.Failure = judge.FailureNoReference
	}
	rec.SetOffline(s)
}
