package retrieval

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
)

// Join modes of index expansion (CloneMem's --join_method, memory-systems.md
// §1 and §8).
const (
	// JoinNone indexes the raw traces only (no expansion).
	JoinNone = "none"
	// JoinSeparate indexes every expansion as its own unit, plus the raw
	// trace when UseRaw is set.
	JoinSeparate = "separate"
	// JoinMerge indexes one unit per trace with its expansions joined by
	// "\n" (KindMerged), plus the raw trace when UseRaw is set.
	JoinMerge = "merge"
	// JoinMergeRaw indexes one unit per trace: the raw text and its
	// expansions joined by "\n" (KindMergedRaw). It implies UseRaw.
	JoinMergeRaw = "merge_raw"
)

// UnitOptions say how traces become retrieval units.
type UnitOptions struct {
	// Expansions lists the extraction kinds to index, in this order:
	// llm.ExtractSummary, llm.ExtractKeywords, llm.ExtractFacts (CloneMem's
	// summ, keywords, facts). Empty means raw traces only.
	Expansions []string
	// Join is JoinNone, JoinSeparate, JoinMerge or JoinMergeRaw. "" is
	// JoinNone without expansions and JoinSeparate with them.
	Join string
	// UseRaw keeps the raw trace as a unit next to its expansions and counts
	// its score in the trace score (CloneMem's use_chunk). JoinNone and
	// JoinMergeRaw always use the raw text.
	UseRaw bool
}

// Resolve applies the defaults and validates o: known, unrepeated
// expansion kinds, a known join mode, no expansions with JoinNone, and
// UseRaw set for JoinNone and JoinMergeRaw.
func (o UnitOptions) Resolve() (UnitOptions, error) {
	seen := map[string]bool{}
	for _, e := range o.Expansions {
		switch e {
		case llm.ExtractSummary, llm.ExtractKeywords, llm.ExtractFacts:
		default:
			return o, errorf("unit options: unknown expansion %q, want %q, %q or %q", e, llm.ExtractSummary, llm.ExtractKeywords, llm.ExtractFacts)
		}
		if seen[e] {
			return o, errorf("unit options: expansion %q listed twice", e)
		}
		seen[e] = true
	}
	o.Expansions = append([]string(nil), o.Expansions...)
	if o.Join == "" {
		o.Join = JoinNone
		if len(o.Expansions) > 0 {
			o.Join = JoinSeparate
		}
	}
	switch o.Join {
	case JoinNone:
		if len(o.Expansions) > 0 {
			return o, errorf("unit options: join %q with expansions %v: choose %q, %q or %q", JoinNone, o.Expansions, JoinSeparate, JoinMerge, JoinMergeRaw)
		}
		o.UseRaw = true
	case JoinSeparate, JoinMerge:
		if len(o.Expansions) == 0 {
			return o, errorf("unit options: join %q needs at least one expansion", o.Join)
		}
	case JoinMergeRaw:
		if len(o.Expansions) == 0 {
			return o, errorf("unit options: join %q needs at least one expansion", o.Join)
		}
		o.UseRaw = true
	default:
		return o, errorf("unit options: unknown join %q, want %q, %q, %q or %q", o.Join, JoinNone, JoinSeparate, JoinMerge, JoinMergeRaw)
	}
	return o, nil
}

// Label is the options' short form used in system names, e.g.
// "+facts,join=merge,raw" ("" for raw traces only).
func (o UnitOptions) Label() string {
	if len(o.Expansions) == 0 {
		return ""
	}
	var b strings.Builder
	for _, e := range o.Expansions {
		b.WriteString("+" + expansionTag(e))
	}
	b.WriteString(",join=" + o.Join)
	if o.UseRaw {
		b.WriteString(",raw")
	}
	return b.String()
}

// expansionTag is CloneMem's method name of an extraction kind.
func expansionTag(kind string) string {
	if kind == llm.ExtractSummary {
		return "summ"
	}
	return kind
}

// ExpansionKind returns the unit kind (KindSummary, KindKeywords,
// KindFacts) of an extraction kind, or "".
func ExpansionKind(extract string) string {
	switch extract {
	case llm.ExtractSummary:
		return KindSummary
	case llm.ExtractKeywords:
		return KindKeywords
	case llm.ExtractFacts:
		return KindFacts
	}
	return ""
}

// joinItems turns an extractor's items into one expansion text as
// CloneMem's script stores it: keyphrases and facts joined by "; ", summary
// sentences by " "; blank items are dropped and the result trimmed.
func joinItems(kind string, items []string) string {
	var keep []string
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" {
			keep = append(keep, it)
		}
	}
	sep := "; "
	if kind == llm.ExtractSummary {
		sep = " "
	}
	return strings.TrimSpace(strings.Join(keep, sep))
}

// UnitReport counts what BuildUnits did.
type UnitReport struct {
	// Traces is the number of traces read; Units the number of units made.
	Traces, Units int
	// Calls is the number of extractor calls; Failed how many returned an
	// error (that expansion is then empty for its trace).
	Calls, Failed int
	// Empty counts expansions that came back empty (no items).
	Empty int
	// RawFallback counts traces that have no expansion text and keep their
	// raw unit as their only scored unit although UseRaw is false.
	RawFallback int
	// Failures lists the first few extractor errors, "trace ID kind: error".
	Failures []string
}

// maxFailures bounds UnitReport.Failures.
const maxFailures = 20

// BuildUnits turns traces into retrieval units as CloneMem's Flat retriever
// does with index expansion (memory-systems.md §1): for each trace in the
// given order, one raw unit (Kind KindChunk, ID = trace id) and one unit
// per non-empty expansion (Kind KindSummary/KindKeywords/KindFacts, ID =
// "traceID#summ" etc.), reshaped by the join mode:
//
//   - none: the raw units only.
//   - separate: the expansion units, preceded by the raw unit if UseRaw.
//   - merge: one KindMerged unit ("traceID#merged") whose text is the
//     expansions joined by "\n", followed by the raw unit if UseRaw.
//   - merge_raw: one KindMergedRaw unit ("traceID#merged_raw"): the raw
//     text and the expansions joined by "\n".
//
// Every unit carries its trace's id and time. A trace whose expansions are
// all empty or failed keeps its raw unit even without UseRaw (CloneMem's
// script stops there; memlab never drops a trace) and is counted in
// RawFallback. An extractor error is counted in the report, the expansion
// is empty, and building goes on; only a cancelled ctx stops it (its error
// is returned). ex may be nil only when no expansion is asked for.
func BuildUnits(ctx context.Context, traces []datasets.Trace, ex llm.Extractor, opts UnitOptions) ([]Unit, UnitReport, error) {
	o, err := opts.Resolve()
	if err != nil {
		return nil, UnitReport{}, errorf("build units: %w", err)
	}
	rep := UnitReport{Traces: len(traces)}
	if len(o.Expansions) > 0 && ex == nil {
		return nil, rep, errorf("build units: expansions %v need an extractor, got nil", o.Expansions)
	}
	units := make([]Unit, 0, len(traces)*(1+len(o.Expansions)))
	for _, tr := range traces {
		if err := ctx.Err(); err != nil {
			return nil, rep, errorf("build units: %w", err)
		}
		raw := Unit{ID: tr.ID, Kind: KindChunk, TraceIDs: []string{tr.ID}, Time: tr.Time, Text: tr.Text}
		if o.Join == JoinNone {
			units = append(units, raw)
			continue
		}
		var exp []Unit // non-empty expansions, in option order
		for _, kind := range o.Expansions {
			rep.Calls++
			items, err := ex.Extract(ctx, kind, tr.Text)
			if err != nil {
				if ctx.Err() != nil {
					return nil, rep, errorf("build units: trace %q %s: %w", tr.ID, kind, ctx.Err())
				}
				rep.Failed++
				if len(rep.Failures) < maxFailures {
					rep.Failures = append(rep.Failures, fmt.Sprintf("trace %s %s: %v", tr.ID, kind, err))
				}
				continue
			}
			text := joinItems(kind, items)
			if text == "" {
				rep.Empty++
				continue
			}
			exp = append(exp, Unit{ID: tr.ID + "#" + expansionTag(kind), Kind: ExpansionKind(kind),
				TraceIDs: []string{tr.ID}, Time: tr.Time, Text: text})
		}
		if len(exp) == 0 && o.Join != JoinMergeRaw {
			if !o.UseRaw {
				rep.RawFallback++
			}
			units = append(units, raw)
			continue
		}
		switch o.Join {
		case JoinSeparate:
			if o.UseRaw {
				units = append(units, raw)
			}
			units = append(units, exp...)
		case JoinMerge:
			units = append(units, Unit{ID: tr.ID + "#" + KindMerged, Kind: KindMerged, TraceIDs: []string{tr.ID},
				Time: tr.Time, Text: joinTexts(exp)})
			if o.UseRaw {
				units = append(units, raw)
			}
		case JoinMergeRaw:
			texts := append([]Unit{raw}, exp...)
			units = append(units, Unit{ID: tr.ID + "#" + KindMergedRaw, Kind: KindMergedRaw, TraceIDs: []string{tr.ID},
				Time: tr.Time, Text: joinTexts(texts)})
		}
	}
	rep.Units = len(units)
	return units, rep, nil
}

func joinTexts(us []Unit) string {
	parts := make([]string, len(us))
	for i, u := range us {
		parts[i] = u.Text
	}
	return strings.Join(parts, "\n")
}

// TraceScore is one trace's aggregated score.
type TraceScore struct {
	TraceID string
	Score   float64
}

// AggregateScores turns unit scores into trace scores as CloneMem's Flat
// retriever does (memory-systems.md §1): the scores of a trace's units are
// averaged per unit kind, and the trace score is the mean of those per-kind
// means over all kinds when useRaw is set, else over the non-raw kinds
// (KindChunk excluded) — but over the raw kind when a trace has nothing
// else (the RawFallback of BuildUnits). A unit standing for several traces
// counts for each. scores[i] is the score of units[i]; a NaN score marks a
// unit left out (not admitted). The result is sorted by score descending,
// ties in order of each trace's first unit.
func AggregateScores(units []Unit, scores []float64, useRaw bool) ([]TraceScore, error) {
	if len(scores) != len(units) {
		return nil, errorf("aggregate scores: %d scores for %d units", len(scores), len(units))
	}
	type acc struct {
		first int
		sum   map[string]float64
		n     map[string]int
		kinds []string // in first-seen order, for a deterministic sum
	}
	byTrace := map[string]*acc{}
	var order []string
	for i, u := range units {
		s := scores[i]
		if s != s { // NaN: not admitted
			continue
		}
		kind := u.Kind
		if kind == "" {
			kind = KindChunk
		}
		for _, id := range u.TraceIDs {
			a := byTrace[id]
			if a == nil {
				a = &acc{first: i, sum: map[string]float64{}, n: map[string]int{}}
				byTrace[id] = a
				order = append(order, id)
			}
			if a.n[kind] == 0 {
				a.kinds = append(a.kinds, kind)
			}
			a.sum[kind] += s
			a.n[kind]++
		}
	}
	out := make([]TraceScore, 0, len(order))
	for _, id := range order {
		a := byTrace[id]
		var total float64
		n := 0
		for _, kind := range a.kinds {
			if !useRaw && kind == KindChunk {
				continue
			}
			total += a.sum[kind] / float64(a.n[kind])
			n++
		}
		if n == 0 { // only a raw unit: the fallback
			total, n = a.sum[KindChunk]/float64(a.n[KindChunk]), 1
		}
		out = append(out, TraceScore{TraceID: id, Score: total / float64(n)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out, nil
}
