// Package record holds what runs produce, as plain data: the Record of one
// question (the ranked trace ids with their retrieval scores, the
// retrieval metrics, the context given to the reader, the answers, its
// Scores, the failure, latency in all and by stage, and model usage), the Result of one run
// (its records, its Spec and the system's Meter), the Spec that identifies
// a run (the components' specs, whose hash is the run id, and their
// display names, whose hash is the legacy id of runs stored before), and
// the record's JSON form (Marshal, Unmarshal, WriteJSONL: the run store's
// and the JSONL export's; format 2, JSONFormat, and format 1 read). Beside them: the Estimate of a dry run,
// the Sweep of runs over a parameter grid (Axis, Grid), the Calibration of
// a judge, and the running code's version (CodeVersion), recorded with
// every run.
//
// # Scores
//
// A record's answer scores are one list, Record.Scores, whatever made
// them: each Score has its metric, value, scale (Min, Max) and Kind
// (KindExact: choice accuracy, and on LoCoMo its QA F1 and session
// recall; KindProxy: the offline proxies, always under their own proxy
// names; KindLLMJudge: an LLM judge's verdict, with the judge's name,
// model and prompt hash, its explanation, raw reply, attempts, repeated
// samples and failure). Every reader of scores reads
// this list; Offline and SetOffline, Verdicts and SetVerdicts are views of
// it (Verdicts are the LLM judges' scores as judge.Verdict, in order, which
// Record.JudgeVerdicts splits by judge for a rerun's healing).
//
// Making records is package runs' work, storing them package runstore's,
// turning them into tables package reports', and writing them in the
// benchmarks' own formats package formats'.
//
// # Dependencies
//
// record imports only the domain packages whose values a record holds
// (datasets, retrieval, judge, llm) and component (the specs). It must not
// import runs, runstore, reports, formats, analysis, display or kernel:
// every package that reads records depends on it, never the reverse.
package record
