package runs

import (
	"context"
	"fmt"
	"github.com/memlab/memlab/component"
	"sync"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
)

// RenameJudge returns j under another name: Name returns name and every
// verdict's Judge is name, so two judges of one kind (say the KnowMe judge
// on two models) keep apart in one record (Rejudge,
// reports.JudgeAgreementTable, reports.OnlyJudge).
func RenameJudge(j Judge, name string) Judge { return renamed{j, name} }

type renamed struct {
	j    Judge
	name string
}

func (r renamed) Name() string { return r.name }

// Version is the wrapped judge's version, when it has one.
func (r renamed) Version() string {
	if v, ok := r.j.(Versioned); ok {
		return v.Version()
	}
	return ""
}

// Spec is the wrapped judge's spec under the new name (which its verdicts
// carry).
func (r renamed) Spec() component.Spec {
	return component.New("renamed-judge").With("name", r.name).Part("judge", describe(r.j, r.j.Name()))
}

func (r renamed) Judge(ctx context.Context, q datasets.Question, answer string, retrieved []string) []judge.Verdict {
	vs := r.j.Judge(ctx, q, answer, retrieved)
	for i := range vs {
		vs[i].Judge = r.name
	}
	return vs
}

// Rejudge scores the stored answers of a finished run (an id, id prefix
// or label) with judges, without reading again: each completed record gets
// the new judges' verdicts beside the ones it has, never over them, and is
// written back. A judge whose name already has verdicts in a record is
// skipped there, so a stopped rejudge resumes and a finished one makes no
// call, unless one of those verdicts failed (a failed call, a reply that
// could not be read): the judge then judges that record again and its new
// verdicts replace its old ones, so a rejudge rerun heals what failed.
//
// A record's judge stage counts the rejudge's judging on top of what it
// had: its Usage.Judge adds the new judges' calls and tokens, its
// Stages.Judge and Latency their wall time (Stages stays unmeasured in a
// record without stage times). The judge stage is then what the
// record's current verdicts cost, the run's judges' and the rejudge's
// together, as the record holds both; a verdict judged again after a
// failure counts its failed attempt too, as a resumed run's healing
// does, since those calls were spent.
//
// A failure of the model-call cache's file (corrupt, read-only) stops
// the rejudge with its error, as it stops a run: the records judged
// before it are kept, the one that met it keeps what it had.
//
// d must be the run's dataset (same fingerprint). Up to workers records
// are judged at once (0 = DefaultWorkers). It returns the run with the
// updated records.
func Rejudge(ctx context.Context, st *runstore.Store, run string, d *datasets.Dataset, judges []Judge, workers int) (*record.Result, error) {
	if st == nil || d == nil || len(judges) == 0 {
		return nil, fmt.Errorf("runs: rejudge: a store, the dataset and at least one judge are required")
	}
	info, err := st.Run(run)
	if err != nil {
		return nil, err
	}
	if d.Fingerprint != info.Spec.Fingerprint {
		return nil, fmt.Errorf("runs: rejudge %s: dataset %s has fingerprint %.16s, the run was made on %.16s: load the run's dataset",
			info.ID, d.Name, d.Fingerprint, info.Spec.Fingerprint)
	}
	names := map[string]bool{}
	for _, j := range judges {
		if names[j.Name()] {
			return nil, fmt.Errorf("runs: rejudge %s: two judges are named %q: give one another name with RenameJudge", info.ID, j.Name())
		}
		names[j.Name()] = true
	}
	recs, err := st.Records(info.ID)
	if err != nil {
		return nil, err
	}
	questions := map[string]datasets.Question{}
	order := map[string]int{}
	for i, q := range d.Questions {
		questions[q.CorpusID+"\x00"+q.ID] = q
		order[q.CorpusID+"\x00"+q.ID] = i
	}
	l, err := st.Begin(ctx, info.Spec, info.Label, false)
	if err != nil {
		return nil, err
	}
	notifyStored(info.ID)
	started := time.Now()
	outer := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if workers <= 0 {
		workers = DefaultWorkers
	}
	jobs := make(chan int)
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				rec := recs[i]
				key := rec.CorpusID + "\x00" + rec.QuestionID
				q, ok := questions[key]
				if !ok {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("runs: rejudge %s: question %q of corpus %q is not in dataset %s", info.ID, rec.QuestionID, rec.CorpusID, d.Name)
					}
					mu.Unlock()
					continue
				}
				// The run's own judges' verdicts come first; a failed one of
				// those is the run's to judge again, not the rejudge's.
				own := ownVerdicts(rec)
				vs := rec.Verdicts()
				have, failed := map[string]bool{}, map[string]bool{}
				for k, v := range vs {
					have[v.Judge] = true
					if k >= own && retryableVerdict(v) {
						failed[v.Judge] = true
					}
				}
				retrieved := make([]string, len(rec.Hits))
				for k, h := range rec.Hits {
					retrieved[k] = h.Text
				}
				changed := false
				var judging stageMeter
				judgeCtx := judging.context(ctx)
				for _, j := range judges {
					name := j.Name()
					if have[name] && !failed[name] {
						continue
					}
					done := judging.time()
					fresh := j.Judge(judgeCtx, q, rec.Answer, retrieved)
					done()
					changed = true
					if !failed[name] {
						vs = append(vs, fresh...)
						continue
					}
					// Judged again: the new verdicts take the place of the
					// old ones.
					out := vs[:own:own]
					placed := false
					for _, v := range vs[own:] {
						switch {
						case v.Judge != name:
							out = append(out, v)
						case !placed:
							out, placed = append(out, fresh...), true
						}
					}
					vs = out
				}
				if !changed || ctx.Err() != nil {
					continue
				}
				// A failure of the model-call cache's file (corrupt,
				// read-only) is not the record's, and every record would
				// meet it: the rejudge stops, and this record keeps what it
				// had, as a run does.
				if err := judging.tally.CacheError(); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("runs: rejudge %s stopped: %w", info.ID, err)
					}
					mu.Unlock()
					cancel()
					continue
				}
				rec.SetVerdicts(vs)
				rec.Usage.Judge = rec.Usage.Judge.Add(judging.tally.Counts())
				rec.Stages = rec.Stages.Add(record.StageLatency{Judge: judging.elapsed, Measured: true})
				rec.Latency += judging.elapsed
				if err := st.Rewrite(ctx, info.ID, order[key], rec); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					continue
				}
				recs[i] = rec
			}
		}()
	}
	for i, r := range recs {
		if r.Failure != "" {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	relErr := l.Release(retrieval.Meter{}, time.Since(started))
	res := &record.Result{ID: info.ID, Spec: info.Spec, Label: info.Label, Dataset: info.Spec.Dataset, Fingerprint: info.Spec.Fingerprint,
		K: info.Spec.K, Records: recs, Resumed: len(recs)}
	if len(recs) > 0 {
		res.System, res.Reader = recs[0].System, recs[0].Reader
	}
	switch {
	case firstErr != nil:
		return res, firstErr
	case outer.Err() != nil:
		return res, fmt.Errorf("runs: rejudge %s: %w", info.ID, outer.Err())
	}
	return res, relErr
}
