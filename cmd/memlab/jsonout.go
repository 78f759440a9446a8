package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runstore"
)

// The -json outputs of runs list, runs show, cache stats and datasets
// stats: each one JSON document (an object), its fields in snake_case.
// The fields below are stable: new ones may be added, none is renamed or
// removed. Times are RFC 3339 in UTC; a mean that is undefined (no
// question scored) is null.

// jsonFlag adds -json (also --json) to fs.
func jsonFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("json", false, "print one JSON document (stable snake_case fields) instead of text")
}

// writeJSON writes v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("json output: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// jsonTime is t in RFC 3339 (UTC), "" when zero.
func jsonTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// jsonNum is x, nil when it is NaN or infinite (JSON has no such number).
func jsonNum(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// runsListJSON is `memlab runs list -json`.
type runsListJSON struct {
	Store string        `json:"store"`
	Runs  []runItemJSON `json:"runs"`
}

// runItemJSON is one run of runs list -json.
type runItemJSON struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	Dataset     string `json:"dataset"`
	Fingerprint string `json:"fingerprint"`
	// System and Reader are the full specs; SystemName the system's name
	// without its settings.
	System     string `json:"system"`
	SystemName string `json:"system_name"`
	Reader     string `json:"reader"`
	K          int    `json:"k"`
	// Questions, Done and Failed count the run's questions, the records
	// completed without failure and those whose last attempt failed.
	Questions   int     `json:"questions"`
	Done        int     `json:"done"`
	Failed      int     `json:"failed"`
	Complete    bool    `json:"complete"`
	Created     string  `json:"created"`
	Updated     string  `json:"updated"`
	Sessions    int     `json:"sessions"`
	Seconds     float64 `json:"seconds"`
	CodeVersion string  `json:"code_version"`
}

func newRunItemJSON(ri runstore.RunInfo) runItemJSON {
	return runItemJSON{ID: ri.ID, Label: ri.Label, Dataset: ri.Spec.Dataset, Fingerprint: ri.Spec.Fingerprint,
		System: ri.Spec.System, SystemName: shortSystem(ri.Spec.System), Reader: ri.Spec.Reader, K: ri.Spec.K,
		Questions: ri.Questions, Done: ri.Done, Failed: ri.Failed, Complete: ri.Complete(),
		Created: jsonTime(ri.Created), Updated: jsonTime(ri.Updated), Sessions: ri.Sessions, Seconds: ri.Seconds,
		CodeVersion: ri.CodeVersion}
}

func newRunsListJSON(store string, infos []runstore.RunInfo) runsListJSON {
	out := runsListJSON{Store: store, Runs: []runItemJSON{}}
	for _, ri := range infos {
		out.Runs = append(out.Runs, newRunItemJSON(ri))
	}
	return out
}

// runShowJSON is `memlab runs show -json RUN`: the fields of runs list
// and the run's spec, spending and summaries.
type runShowJSON struct {
	Store string `json:"store"`
	runItemJSON
	QuestionsHash string            `json:"questions_hash"`
	Judges        []string          `json:"judges"`
	Params        map[string]string `json:"params"`
	Meter         meterJSON         `json:"meter"`
	// FailedAttempts counts the failed attempts of the failure history,
	// at FailedQuestions distinct questions.
	FailedAttempts  int    `json:"failed_attempts"`
	FailedQuestions int    `json:"failed_questions"`
	Owner           string `json:"owner,omitempty"`
	// Queue is the state of the run's work queue, when it was enqueued
	// for workers (runstore.QueueInfo).
	Queue *queueJSON `json:"queue,omitempty"`
	// Summaries has one entry for all questions (group "") and, when the
	// run has more than one task, one per task, sorted by task.
	Summaries []summaryJSON `json:"summaries"`
}

// queueJSON is a run's work queue (runstore.QueueInfo).
type queueJSON struct {
	Items   int      `json:"items"`
	Todo    int      `json:"todo"`
	Claimed int      `json:"claimed"`
	Expired int      `json:"expired"`
	Done    int      `json:"done"`
	Retaken int      `json:"retaken"`
	Workers []string `json:"workers"`
}

// meterJSON is what the system spent (retrieval.Meter).
type meterJSON struct {
	IngestCalls  int `json:"ingest_calls"`
	IngestTokens int `json:"ingest_tokens"`
	IngestEmbeds int `json:"ingest_embeds"`
	QueryCalls   int `json:"query_calls"`
	QueryTokens  int `json:"query_tokens"`
	QueryEmbeds  int `json:"query_embeds"`
}

// summaryJSON is reports.Summary: the counts, the retrieval means (over
// the questions with gold ids; null when there are none) and every
// metric's mean.
type summaryJSON struct {
	Group      string       `json:"group"`
	Questions  int          `json:"questions"`
	Failed     int          `json:"failed"`
	WithGold   int          `json:"with_gold"`
	NoGold     int          `json:"no_gold"`
	RecallFlat *float64     `json:"recall_flat"`
	AllAll     *float64     `json:"all_all"`
	AllAny     *float64     `json:"all_any"`
	AnyAll     *float64     `json:"any_all"`
	AnyAny     *float64     `json:"any_any"`
	MRR        *float64     `json:"mrr"`
	NDCG       *float64     `json:"ndcg"`
	Metrics    []metricJSON `json:"metrics"`
}

// metricJSON is one metric's mean: Name its display name, Column its
// snake_case name (reports.MetricColumn, as in the CSV exports), Kind
// how its scores are made (exact, proxy, llm_judge...), N the scored
// questions and Failed the failed verdicts.
type metricJSON struct {
	Name   string   `json:"name"`
	Column string   `json:"column"`
	Kind   string   `json:"kind"`
	Mean   *float64 `json:"mean"`
	N      int      `json:"n"`
	Failed int      `json:"failed"`
}

func newSummaryJSON(s reports.Summary) summaryJSON {
	out := summaryJSON{Group: s.Group, Questions: s.Questions, Failed: s.Failed, WithGold: s.WithGold, NoGold: s.NoGold,
		Metrics: []metricJSON{}}
	if s.WithGold > 0 {
		r := s.Retrieval
		out.RecallFlat, out.AllAll, out.AllAny, out.AnyAll = jsonNum(r.RecallFlat), jsonNum(r.AllAll), jsonNum(r.AllAny), jsonNum(r.AnyAll)
		out.AnyAny, out.MRR, out.NDCG = jsonNum(r.AnyAny), jsonNum(r.MRR), jsonNum(r.NDCG)
	}
	names := make([]string, 0, len(s.Scores))
	for n := range s.Scores {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m := s.Scores[n]
		var mean *float64
		if m.N > 0 {
			mean = jsonNum(m.Value)
		}
		out.Metrics = append(out.Metrics, metricJSON{Name: n, Column: reports.MetricColumn(n), Kind: string(m.Kind),
			Mean: mean, N: m.N, Failed: m.Failed})
	}
	return out
}

func newRunShowJSON(store string, ri runstore.RunInfo, recs []record.Record, fails []runstore.Attempt) runShowJSON {
	s := ri.Spec
	out := runShowJSON{Store: store, runItemJSON: newRunItemJSON(ri), QuestionsHash: s.QuestionsHash,
		Judges: append([]string{}, s.Judges...), Params: map[string]string{}, Owner: ri.Owner, Summaries: []summaryJSON{}}
	for k, v := range s.Params {
		out.Params[k] = v
	}
	m := ri.Meter
	out.Meter = meterJSON{m.IngestCalls, m.IngestTokens, m.IngestEmbeds, m.QueryCalls, m.QueryTokens, m.QueryEmbeds}
	qs := map[string]bool{}
	for _, f := range fails {
		qs[f.QuestionID] = true
	}
	out.FailedAttempts, out.FailedQuestions = len(fails), len(qs)
	if len(recs) > 0 {
		out.Summaries = append(out.Summaries, newSummaryJSON(reports.Summarize("", recs)))
		byTask := map[string][]record.Record{}
		for _, r := range recs {
			byTask[r.Task] = append(byTask[r.Task], r)
		}
		if len(byTask) > 1 {
			tasks := make([]string, 0, len(byTask))
			for t := range byTask {
				tasks = append(tasks, t)
			}
			sort.Strings(tasks)
			for _, t := range tasks {
				out.Summaries = append(out.Summaries, newSummaryJSON(reports.Summarize(t, byTask[t])))
			}
		}
	}
	return out
}

// cacheStatsJSON is `memlab cache stats -json` (cache.Stats). Exists is
// false when there is no cache file yet (every count 0).
type cacheStatsJSON struct {
	Path      string           `json:"path"`
	Exists    bool             `json:"exists"`
	FileBytes int64            `json:"file_bytes"`
	Total     cacheGroupJSON   `json:"total"`
	Oldest    string           `json:"oldest"`
	Newest    string           `json:"newest"`
	ByKind    []cacheGroupJSON `json:"by_kind"`
	ByModel   []cacheGroupJSON `json:"by_model"`
}

// cacheGroupJSON is a cache.Group: Name is the kind or model ("" for the
// total), Bytes the request and response bytes, Hits the calls served
// from the cache.
type cacheGroupJSON struct {
	Name             string `json:"name"`
	Entries          int64  `json:"entries"`
	Bytes            int64  `json:"bytes"`
	PromptTokens     int64  `json:"prompt_tokens"`
	CompletionTokens int64  `json:"completion_tokens"`
	Hits             int64  `json:"hits"`
}

func newCacheGroupJSON(g cache.Group) cacheGroupJSON {
	return cacheGroupJSON{g.Name, g.Entries, g.Bytes, g.PromptTokens, g.CompletionTokens, g.Hits}
}

func newCacheStatsJSON(s cache.Stats) cacheStatsJSON {
	out := cacheStatsJSON{Path: s.Path, Exists: true, FileBytes: s.FileBytes, Total: newCacheGroupJSON(s.Total),
		Oldest: jsonTime(s.Oldest), Newest: jsonTime(s.Newest), ByKind: []cacheGroupJSON{}, ByModel: []cacheGroupJSON{}}
	for _, g := range s.ByKind {
		out.ByKind = append(out.ByKind, newCacheGroupJSON(g))
	}
	for _, g := range s.ByModel {
		out.ByModel = append(out.ByModel, newCacheGroupJSON(g))
	}
	return out
}

// datasetStatsJSONDoc is `memlab datasets stats -json PATH`
// (datasets.Stats). The breakdowns map a key to its count.
type datasetStatsJSONDoc struct {
	Name           string       `json:"name"`
	Format         string       `json:"format"`
	Source         string       `json:"source"`
	Fingerprint    string       `json:"fingerprint"`
	Corpora        []corpusJSON `json:"corpora"`
	Traces         int          `json:"traces"`
	Questions      int          `json:"questions"`
	ByTask         []countJSON  `json:"by_task"`
	ByDimension    []countJSON  `json:"by_dimension"`
	ByMedium       []countJSON  `json:"by_medium"`
	WithEvidence   int          `json:"with_evidence"`
	EvidenceRefs   int          `json:"evidence_refs"`
	UnknownRefs    int          `json:"unknown_refs"`
	MultipleChoice int          `json:"multiple_choice"`
	WithAskedAt    int          `json:"with_asked_at"`
	First          string       `json:"first"`
	Last           string       `json:"last"`
	UnknownTime    int          `json:"unknown_time"`
	Chars          int          `json:"chars"`
	Tokens         int          `json:"tokens"`
	Defects        int          `json:"defects"`
}

// corpusJSON is one corpus of datasets stats -json.
type corpusJSON struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Language  string `json:"language"`
	Traces    int    `json:"traces"`
	Questions int    `json:"questions"`
	First     string `json:"first"`
	Last      string `json:"last"`
	Chars     int    `json:"chars"`
}

// countJSON is one row of a breakdown.
type countJSON struct {
	Key string `json:"key"`
	N   int    `json:"n"`
}

func countsJSON(cs []datasets.Count) []countJSON {
	out := []countJSON{}
	for _, c := range cs {
		out = append(out, countJSON{c.Key, c.N})
	}
	return out
}

func datasetStatsJSON(s datasets.Stats) datasetStatsJSONDoc {
	out := datasetStatsJSONDoc{Name: s.Name, Format: s.Format, Source: s.Source, Fingerprint: s.Fingerprint,
		Corpora: []corpusJSON{}, Traces: s.Traces, Questions: s.Questions,
		ByTask: countsJSON(s.ByTask), ByDimension: countsJSON(s.ByDimension), ByMedium: countsJSON(s.ByMedium),
		WithEvidence: s.WithEvidence, EvidenceRefs: s.EvidenceRefs, UnknownRefs: s.UnknownRefs,
		MultipleChoice: s.MultipleChoice, WithAskedAt: s.WithAskedAt, First: jsonTime(s.First), Last: jsonTime(s.Last),
		UnknownTime: s.UnknownTime, Chars: s.Chars, Tokens: s.Tokens, Defects: s.Defects}
	for _, c := range s.Corpora {
		out.Corpora = append(out.Corpora, corpusJSON{ID: c.ID, Name: c.Name, Language: c.Language, Traces: c.Traces,
			Questions: c.Questions, First: jsonTime(c.First), Last: jsonTime(c.Last), Chars: c.Chars})
	}
	return out
}
