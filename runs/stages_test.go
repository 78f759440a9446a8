package runs

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// pause is how long each slow stage of these tests takes at least.
const pause = 3 * time.Millisecond

// slowSystem retrieves after a pause.
type slowSystem struct{ retrieval.System }

func (s slowSystem) Retrieve(ctx context.Context, q datasets.Question, k int) ([]retrieval.Hit, error) {
	time.Sleep(pause)
	return s.System.Retrieve(ctx, q, k)
}

// pausingReader answers after a pause, failing as countingReader does.
type pausingReader struct{ *countingReader }

func (r pausingReader) Answer(ctx context.Context, q datasets.Question, p []generate.Passage) (generate.Answer, error) {
	time.Sleep(pause)
	return r.countingReader.Answer(ctx, q, p)
}

// slowJudge judges after a pause.
type slowJudge struct{ runtest.LengthJudge }

func (j slowJudge) Judge(ctx context.Context, q datasets.Question, answer string, retrieved []string) []judge.Verdict {
	time.Sleep(pause)
	return j.LengthJudge.Judge(ctx, q, answer, retrieved)
}

// checkStages fails unless r's stage times are measured, each at least
// the pauses of the stage (reads: one per read call), and sum to at most
// its latency.
func checkStages(t *testing.T, r record.Record, reads int, judged bool) {
	t.Helper()
	s := r.Stages
	if !s.Measured {
		t.Fatalf("%s: stage times not measured: %+v", r.QuestionID, s)
	}
	if s.Retrieve < pause || s.Read < time.Duration(reads)*pause || judged && s.Judge < pause {
		t.Errorf("%s: stages %+v, want retrieve >= %v, read >= %d x %v, judge >= %v", r.QuestionID, s, pause, reads, pause, pause)
	}
	if s.Sum() > r.Latency {
		t.Errorf("%s: stages sum to %v, more than the latency %v", r.QuestionID, s.Sum(), r.Latency)
	}
}

// TestRecordsTimeTheStages: every record keeps the wall time of its
// retrieval, its reads and its judging, each at least what the stage
// took, together at most the question's latency; a question whose
// retrieval failed spent nothing reading or judging.
func TestRecordsTimeTheStages(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	bad := d.Questions[2].ID
	r := pausingReader{&countingReader{Reader: generate.NewExtractive()}}
	cfg := Config{System: runtest.FailOn{System: slowSystem{flat}, Bad: bad}, Reader: r, K: 5,
		Judges: []Judge{slowJudge{runtest.LengthJudge{JudgeName: "length"}}}}
	res, err := Run(context.Background(), d, cfg, Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range res.Records {
		q := d.Questions[indexOf(d.Questions, rec.QuestionID)]
		if rec.QuestionID == bad {
			if s := rec.Stages; !s.Measured || s.Read != 0 || s.Judge != 0 || s.Sum() > rec.Latency {
				t.Errorf("failed retrieval: stages %+v, latency %v; want measured, no read, no judge", s, rec.Latency)
			}
			continue
		}
		reads := 1
		if q.IsMultipleChoice() {
			reads = 2
		}
		checkStages(t, rec, reads, true)
		if i > 3 && t.Failed() {
			break
		}
	}
}

// TestHealedRecordAddsTheStageTimes: a question whose read failed is
// read again by the next run of the config, and its record adds the
// first attempt's stage times to the second's (the retrieval is not done
// again); a record from before the stage times were kept heals into one
// whose stage times are not measured either.
func TestHealedRecordAddsTheStageTimes(t *testing.T) {
	st := runtest.OpenStore(t)
	d, flat := runtest.SampleFlat(t)
	bad := d.Questions[3].ID
	reads := 1
	if d.Questions[3].IsMultipleChoice() {
		reads = 2
	}
	r := pausingReader{&countingReader{Reader: generate.NewExtractive(), failOnce: map[string]*atomic.Bool{bad: {}}}}
	cfg := Config{System: slowSystem{flat}, Reader: r, K: 5}
	first, err := Run(context.Background(), d, cfg, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	before := recordOf(t, first.Records, bad)
	if before.Failure == "" || !before.Stages.Measured || before.Stages.Read < pause {
		t.Fatalf("first attempt: failure %q, stages %+v; want a failed read, timed", before.Failure, before.Stages)
	}
	second, err := Run(context.Background(), d, cfg, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	after := recordOf(t, second.Records, bad)
	if after.Failure != "" {
		t.Fatalf("healed record still failed: %s", after.Failure)
	}
	checkStages(t, after, reads, false)
	if after.Stages.Retrieve != before.Stages.Retrieve || after.Stages.Read < before.Stages.Read+time.Duration(reads)*pause ||
		after.Latency < before.Latency+after.Stages.Read-before.Stages.Read {
		t.Errorf("healed stages %+v (latency %v) do not add the first attempt's %+v (latency %v)",
			after.Stages, after.Latency, before.Stages, before.Latency)
	}

	// The same failure stored as memlab wrote it before the stage times.
	old := before
	old.Stages = record.StageLatency{}
	st2 := runtest.OpenStore(t)
	third, err := Run(context.Background(), d, cfg, Options{Store: st2})
	if err != nil {
		t.Fatal(err)
	}
	lease, err := st2.Begin(context.Background(), third.Spec, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := st2.Put(context.Background(), third.ID, indexOf(d.Questions, bad), 2, old); err != nil {
		t.Fatal(err)
	}
	if err := lease.Release(retrieval.Meter{}, 0); err != nil {
		t.Fatal(err)
	}
	healed, err := Run(context.Background(), d, cfg, Options{Store: st2})
	if err != nil {
		t.Fatal(err)
	}
	if h := recordOf(t, healed.Records, bad); h.Failure != "" || h.Stages.Measured || h.Latency < old.Latency {
		t.Errorf("healed from a record without stage times: failure %q, stages %+v, latency %v; want unmeasured stages, latency >= %v",
			h.Failure, h.Stages, h.Latency, old.Latency)
	}
}

// recordOf is the record of question id.
func recordOf(t *testing.T, recs []record.Record, id string) record.Record {
	t.Helper()
	for _, r := range recs {
		if r.QuestionID == id {
			return r
		}
	}
	t.Fatalf("no record of question %s", id)
	return record.Record{}
}
