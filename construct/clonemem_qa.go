package construct

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
)

// bucketItem is an evidence entry in its arc's bucket: dated by the first
// trace that carries it (evidence no trace carries cannot ground a
// question and stays out of the buckets).
type bucketItem struct {
	SegmentItem
	at     time.Time
	traces []Trace
}

// segmentJob is one (window position, arc, question type) to plan.
type segmentJob struct {
	pos          int
	dim          string
	typ          CloneMemType
	questionTime time.Time
	items        []bucketItem // the segment
	later        []bucketItem // the bucket's evidence after the question's time
}

// qaOutcome is what became of one job.
type qaOutcome struct {
	q         *CloneMemQuestion
	filtered  string // "", "unsupported", "format", "sufficiency", "choices"
	refs      []Ref
	reason    string
	revisions int
}

// buckets puts every evidence entry carried by a trace into the buckets of
// its arcs, in time order.
func buckets(res *CloneMemResult) map[string][]bucketItem {
	carried := map[string][]Trace{}
	for _, t := range res.Traces {
		for _, e := range t.Evidence {
			carried[e] = append(carried[e], t)
		}
	}
	out := map[string][]bucketItem{}
	for _, d := range res.Details {
		for _, e := range d.Evidence {
			ts := carried[e.ID]
			if len(ts) == 0 {
				continue
			}
			first, _ := time.Parse(traceLayout, ts[0].EventDate)
			for _, t := range ts[1:] {
				if x, _ := time.Parse(traceLayout, t.EventDate); x.Before(first) {
					first = x
				}
			}
			it := bucketItem{SegmentItem{ID: e.ID, Date: first.Format(dateLayout), Kind: e.Kind, Statement: e.Statement}, first, ts}
			for _, a := range e.Arcs {
				a = lower(a)
				if slices.Contains(CloneMemDimensions, a) && !slices.ContainsFunc(out[a], func(x bucketItem) bool { return x.ID == e.ID }) {
					out[a] = append(out[a], it)
				}
			}
		}
	}
	for d := range out {
		sort.SliceStable(out[d], func(i, j int) bool { return out[d][i].at.Before(out[d][j].at) })
	}
	return out
}

// segmentJobs slides the window over the timeline: at each position the
// buckets that received new evidence are active, and each active bucket's
// latest evidence (at most SegmentMax) is a trajectory segment, planned
// once per question type and asked at the window's end.
func segmentJobs(params CloneMemParams, start, end time.Time, bs map[string][]bucketItem) []segmentJob {
	var jobs []segmentJob
	prevEnd := start.Add(-time.Second)
	for pos := 0; ; pos++ {
		wEnd := start.AddDate(0, 0, params.WindowDays+pos*params.StepDays).Add(-time.Second)
		last := false
		if !wEnd.Before(end.AddDate(0, 0, 1).Add(-time.Second)) {
			wEnd, last = end.AddDate(0, 0, 1).Add(-time.Second), true
		}
		for _, d := range CloneMemDimensions {
			var seg, later []bucketItem
			fresh := false
			for _, it := range bs[d] {
				switch {
				case !it.at.After(wEnd):
					seg = append(seg, it)
					fresh = fresh || it.at.After(prevEnd)
				default:
					later = append(later, it)
				}
			}
			if !fresh || len(seg) == 0 {
				continue
			}
			if len(seg) > params.SegmentMax {
				seg = seg[len(seg)-params.SegmentMax:]
			}
			for _, name := range params.Types {
				jobs = append(jobs, segmentJob{pos: pos, dim: d, typ: *cloneMemType(name), questionTime: wEnd, items: seg, later: later})
			}
		}
		prevEnd = wEnd
		if last {
			break
		}
	}
	return jobs
}

func cloneMemQA(ctx context.Context, b *Build, p *Pipeline, params CloneMemParams, start, end time.Time, res *CloneMemResult, all Ref) error {
	jobs := segmentJobs(params, start, end, buckets(res))
	outcomes := make([]qaOutcome, len(jobs))
	err := Each(len(jobs), func(i int) error {
		var err error
		outcomes[i], err = cloneMemQuestion(ctx, b, p, params, res, jobs[i], all)
		return err
	})
	n := 0
	for i, o := range outcomes {
		if o.filtered != "" {
			res.Filtered[o.filtered]++
			if o.filtered != "unsupported" {
				j := jobs[i]
				res.Dropped = append(res.Dropped, Dropped{Step: "QC " + o.filtered, Item: fmt.Sprintf("window %d %s %s", j.pos+1, j.dim, j.typ.Name), Reason: o.reason, Revisions: o.revisions})
			}
			continue
		}
		if o.q == nil {
			continue
		}
		n++
		o.q.ID = fmt.Sprintf("q%03d", n)
		res.Questions = append(res.Questions, *o.q)
		var keys []string
		for _, r := range o.refs {
			keys = append(keys, r.Key)
		}
		last := o.refs[len(o.refs)-1]
		res.Provenance = append(res.Provenance, Provenance{File: res.FileName(), ID: o.q.ID, Step: last.Step, Item: last.Item, Key: last.Key,
			Prompt: cmChoicesPrompt.ID(), Model: b.target(llm.RoleBackbone, ""), Sources: keys})
	}
	return err
}

// cloneMemQuestion plans, writes, filters and converts one question.
func cloneMemQuestion(ctx context.Context, b *Build, p *Pipeline, params CloneMemParams, res *CloneMemResult, j segmentJob, all Ref) (qaOutcome, error) {
	item := fmt.Sprintf("window %d %s %s", j.pos+1, j.dim, j.typ.Name)
	qtime := j.questionTime.Format(traceLayout)
	seg := make([]SegmentItem, len(j.items))
	byID := map[string]bucketItem{}
	for i, it := range j.items {
		seg[i] = it.SegmentItem
		byID[it.ID] = it
	}
	var plan planOut
	pref, err := b.Do(ctx, p.Step(CloneMemPlan), item, planIn{res.Profile.Name, j.typ.Name, j.typ.Description, j.dim, qtime, seg}, &plan, all)
	if err != nil {
		return qaOutcome{}, err
	}
	if !pref.Accepted() {
		return qaOutcome{filtered: "format", reason: "the plan failed its format check after its revisions", revisions: pref.Revisions}, nil
	}
	if !plan.Supported {
		return qaOutcome{filtered: "unsupported", reason: plan.Reason}, nil
	}
	var chosen []SegmentItem
	for _, id := range plan.Evidence {
		chosen = append(chosen, byID[id].SegmentItem)
	}
	var w writeOut
	wref, err := b.Do(ctx, p.Step(CloneMemWrite), item, writeIn{res.Profile.Name, res.Relations, j.typ.Name, j.dim, qtime, plan, chosen, params.Language}, &w, pref)
	if err != nil {
		return qaOutcome{}, err
	}
	if !wref.Accepted() {
		return qaOutcome{filtered: "format", reason: "the question failed its format check after its revisions", revisions: wref.Revisions}, nil
	}
	// Evidence groups with the traces (dated at or before the question's
	// time) that carry their evidence.
	var groups []datasets.CloneMemEvidence
	var all_ []string
	var traces []Trace
	for _, g := range w.Evidence {
		var ids []string
		for _, eid := range g.EvidenceIDs {
			for _, t := range byID[eid].traces {
				if tt, _ := time.Parse(traceLayout, t.EventDate); !tt.After(j.questionTime) && !slices.Contains(ids, t.ID) {
					ids = append(ids, t.ID)
					if !slices.Contains(all_, t.ID) {
						all_ = append(all_, t.ID)
						traces = append(traces, t)
					}
				}
			}
		}
		groups = append(groups, datasets.CloneMemEvidence{Statement: g.Statement, DigitalTraceIDs: ids})
	}
	var suff sufficiencyOut
	sref, err := b.Do(ctx, p.Step(CloneMemSufficiency), item, sufficiencyIn{j.dim, w.Question, w.Answer, j.typ.Name, qtime, w.Evidence, traces}, &suff, wref)
	if err != nil {
		return qaOutcome{}, err
	}
	if !sref.Accepted() || !suff.Sufficient {
		return qaOutcome{filtered: "sufficiency", reason: "evidence-sufficiency check: " + suff.Reason}, nil
	}
	var later []string
	if j.typ.Name != "unanswerable" && j.typ.Name != "counterfactual" {
		for _, it := range j.later {
			if len(later) == 3 {
				break
			}
			later = append(later, it.Statement)
		}
	}
	count := 3
	if j.typ.Name == "unanswerable" {
		count = 4
	}
	var statements []string
	for _, g := range w.Evidence {
		statements = append(statements, g.Statement)
	}
	var ch choicesOut
	cref, err := b.Do(ctx, p.Step(CloneMemChoices), item, choicesIn{j.dim, w.Question, w.Answer, j.typ.Name, qtime, statements, later, count}, &ch, sref)
	if err != nil {
		return qaOutcome{}, err
	}
	if !cref.Accepted() {
		return qaOutcome{filtered: "choices", reason: "the validator found the answer given away after every regeneration of the distractors", revisions: cref.Revisions}, nil
	}
	q := &CloneMemQuestion{CloneMemQuestion: datasets.CloneMemQuestion{Question: w.Question, QuestionType: j.typ.Name, QuestionTime: qtime,
		Answer: w.Answer, Dimension: j.dim, DigitalTraceIDs: all_, Evidence: groups}}
	q.Choices, q.CorrectChoiceID = letterChoices(b.Seed(), item, ch, j.typ.Name == "unanswerable")
	for _, d := range ch.Distractors {
		if d.LaterTrue {
			q.laterTrue = append(q.laterTrue, d.Text)
		}
	}
	return qaOutcome{q: q, refs: []Ref{pref, wref, sref, cref}}, nil
}

// letterChoices lays out A-D and E ("cannot be determined"): the correct
// option at a seeded place among A-D, or E for an unanswerable question.
func letterChoices(seed int, item string, ch choicesOut, unanswerable bool) ([]datasets.CloneMemChoice, string) {
	rng := rand.New(rand.NewPCG(uint64(seed), hashSeed("choices "+item, 0)))
	var opts []string
	for _, d := range ch.Distractors {
		opts = append(opts, strings.TrimSpace(d.Text))
	}
	correct := "E"
	if !unanswerable {
		opts = opts[:min(3, len(opts))]
		at := rng.IntN(len(opts) + 1)
		opts = slices.Insert(opts, at, strings.TrimSpace(ch.Correct))
		correct = string(rune('A' + at))
	} else {
		opts = opts[:min(4, len(opts))]
		rng.Shuffle(len(opts), func(i, j int) { opts[i], opts[j] = opts[j], opts[i] })
	}
	var out []datasets.CloneMemChoice
	for i, o := range opts {
		out = append(out, datasets.CloneMemChoice{ID: string(rune('A' + i)), Text: o})
	}
	return append(out, datasets.CloneMemChoice{ID: "E", Text: CannotBeDetermined}), correct
}
