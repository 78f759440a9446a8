// Package reports turns records (package record) into what a paper or a
// notebook shows: summaries (Summarize, SummaryOf, TaskSummaries) and their
// tables (RetrievalTable, AnswerTable, RecallAtKTable, CostTable),
// breakdowns and matrices by task, dimension, level, persona or medium
// (Breakdown, Matrix), paired comparisons with intervals and tests
// (Compare), protocol warnings (Lint), records as columns and CSV (Columns,
// WriteCSV, WriteRunsCSV), question-by-question diffs and flips (Diff, Flips), errata
// tables (ErrataTable), the LLM-judge tables (JudgeTable, the KnowMe-Bench
// Table 1 layout KnowMeTable, JudgeAgreementTable, DisagreementTable,
// CalibrationTable), the sweep table (SweepTable), cost estimates and
// model usage (EstimateTable, DryRun, UsageTable, ClientUsageTable), and
// the reproducibility manifest (NewManifest, Reproduce), and the slicing
// of an experiment grid's results (Set: Where, WhereTasks, Pivot, Compare, plots and
// tidy CSV).
//
// Every function reads records or results only: nothing here runs a
// model, a memory system or a store. Scores are read from Record.Scores
// whatever their kind: every summary (Summary.Scores), breakdown and
// comparison cell counts, for every metric, the questions judged and
// failed (and without reference answer), proxies and exact metrics
// included (they never fail).
//
// # Files
//
//	summary.go      Summary, Summarize, the retrieval, answer, recall-at-k and cost tables
//	breakdown.go    groupings (task, dimension, level, persona, medium), Breakdown, Matrix
//	compare.go      Compare: means with intervals, paired tests, Holm; MetricsInEvery
//	lint.go         Lint: the protocol warnings of a comparison
//	columns.go      Columns, ColumnsOf, WriteCSV; the statuses of a metric's value (StatusOK, ...)
//	diff.go         Diff of two runs question by question, its tables
//	flips.go        Flips of a 0/1 metric between two runs, FlipsTable
//	errata.go       ErrataTable: raw against corrected scores
//	judges.go       Verdicts, JudgeTable, KnowMeTable (KnowMe-Bench Table 1), OnlyJudge,
//	                JudgeAgreementTable, DisagreementTable
//	rates.go        QARates, QARatesTable: CloneMem's QA hallucination and perfect rates
//	paperscale.go   PaperScale, MetricScale, ScaleNote: the scales the papers report metrics on
//	paper.go        the papers' published figures (paperdata/papers.csv): PaperEntries,
//	                PaperLookup, PaperValue, PaperMetric, PaperMetricLabel
//	papertable.go   PaperTable (a paper's layout, its figures beside ours), WithPaper
//	papercell.go    PaperCellOf: a PaperCell (our mean and interval) from records
//	calibration.go  CalibrationTable
//	sweep.go        SweepTable; the tidy CSVs: SweepCSV, WriteSweepCSV, WriteRunsCSV (RunRecords), MetricColumn
//	estimate.go     EstimateTable, DryRun, UsageTable (what runs spent, per stage)
//	clientusage.go  ClientUsageTable (a model client's calls, by role and model)
//	manifest.go     Manifest, NewManifest, WriteManifest, ReadManifest, Reproduce
//	set.go          Set and Point: a grid's points, each with its run or why it has none
//	set_where.go    Set.Where, WithBaseline, Err: selecting points by axis values; WhereTasks: questions by task
//	set_results.go  Set.Results, Skips, Failures
//	set_dims.go     the dimensions of a pivot: axes, groupings, ByPoint, ByMetric
//	set_pivot.go    Set.Pivot, PivotWith: PivotTable, PivotCell, PivotOptions
//	set_pivot_table.go  a PivotTable's cells as numbers (Values, Cell) and as a table, its note
//	set_metrics.go  the metrics a set's points have, their defaults and scales
//	set_compare.go  Set.Compare: Compare over the ran points against the set's baseline
//	set_plots.go    Set.Lines, Bars, Heatmap, Radar and the PivotTable's plots, on the metric's scale
//	set_tidy.go     Set.WriteTidyCSV: one row per question x point x metric
//
// # Dependencies
//
// reports imports record, analysis (statistics and tables) and the domain
// packages whose names and scales it shows (datasets, retrieval, generate,
// judge, llm). It must not import runs, runstore, formats, display or
// kernel.
package reports
