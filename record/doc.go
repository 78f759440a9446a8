// Package record holds what runs produce, as plain data: the Record of one
// question (the ranked trace ids with their scores, the retrieval metrics,
// the context given to the reader, the answers, every judge score and
// verdict, the failure, latency and model usage), the Result of one run
// (its records, its Spec and the system's Meter), the Spec that identifies
// a run (its hash is the run id), and the record's JSON form (Marshal,
// Unmarshal, WriteJSONL: the run store's and the JSONL export's). Beside
// them: the Estimate of a dry run, the Sweep of runs over a parameter grid
// (Axis, Grid), the Calibration of a judge, and the running code's version
// (CodeVersion), recorded with every run.
//
// Making records is package runs' work, storing them package runstore's,
// turning them into tables package reports', and writing them in the
// benchmarks' own formats package formats'.
//
// # Dependencies
//
// record imports only the domain packages whose values a record holds
// (datasets, retrieval, judge, llm). It must not import runs, runstore,
// reports, formats, analysis, display or kernel: every package that reads
// records depends on it, never the reverse.
package record
