// Package reports turns records (package record) into what a paper or a
// notebook shows: summaries (Summarize, SummaryOf, TaskSummaries) and their
// tables (RetrievalTable, AnswerTable, RecallAtKTable, CostTable),
// breakdowns and matrices by task, dimension, level, persona or medium
// (Breakdown, Matrix), paired comparisons with intervals and tests
// (Compare), protocol warnings (Lint), records as columns and CSV (Columns,
// WriteCSV), question-by-question diffs and flips (Diff, Flips), errata
// tables (ErrataTable), the LLM-judge tables (JudgeTable, the KnowMe-Bench
// Table 1 layout KnowMeTable, JudgeAgreementTable, DisagreementTable,
// CalibrationTable), the sweep table (SweepTable), cost estimates and
// model usage (EstimateTable, DryRun, UsageTable, ClientUsageTable), and
// the reproducibility manifest (NewManifest, Reproduce).
//
// Every function reads records or results only: nothing here runs a
// model, a memory system or a store.
//
// # Dependencies
//
// reports imports record, analysis (statistics and tables) and the domain
// packages whose names and scales it shows (datasets, retrieval, generate,
// judge, llm). It must not import runs, runstore, formats, display or
// kernel.
package reports
