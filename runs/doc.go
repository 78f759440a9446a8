// Package runs executes experiments: a memory system and a reader over a
// dataset's questions, each question becoming one record.Record, the run
// one record.Result. Records are stored by package runstore, turned into
// tables by package reports and written in the benchmarks' formats by
// package formats.
//
// # Runs and resume
//
// A run is a Config (system, reader, LLM judges, k, params) over a
// dataset's questions. SpecOf names everything that identifies it: the
// dataset and its questions, the component specs of the system, reader and
// judges (component.Spec: every knob, nested for wrappers), k and params;
// the hash of their canonical JSON is the run id: the same config over the
// same dataset is the same run. (A run stored before component specs,
// under the id of the display names, record.Spec.LegacyID, is adopted
// under its new id and resumed.) Run executes it: retrieval one question at a time in
// asked-at order (memories grow as a clone's would), reading and judging
// on a pool of workers. With a store (runstore.Store, or the default one:
// SetDefaultStore) every record is written when its question completes;
// running the same config again loads the completed records, does again
// only the steps that failed and asks only what is missing, so a killed
// run resumes where it stopped and a finished one makes no model call.
//
// A run can also be put in the store's work queue (Enqueue) and done by
// many workers at once (package grid's Worker, memlab worker), each doing
// claimed work items (Items.Do) as Run does: an item per question for a
// system that retrieves in any order, a persona's questions in asked-at
// order for the others.
//
// # Sweeps, baselines, estimates, judges
//
// RunSweep runs a function at every point of a parameter grid
// (record.Grid; `memlab sweep` runs a notebook there) and Observe sees
// every run a process makes, ObserveStored the id of every run it writes
// to a store (`memlab run`'s manifest lists those). Baselines and RunWithBaselines add the floor
// and ceiling rows every table needs. EstimateRun says what a run will
// spend before any call (a dry run, llm.DryRun, returns it instead of
// records). The Judge adapters (KnowMeJudge, CloneMemQAJudge,
// CloneMemMemoryJudge, LoCoMoJudge, RenameJudge, RepeatedJudge) put package judge's
// judges into runs; Rejudge scores a stored run's answers with more
// judges, Calibrate measures a judge on labelled answers (CalibrationSet).
// Progress reporters (Progress; package display has memlab's) are told
// about every completed question.
//
// # Files
//
//	run.go          Config, Evaluate, one question's record (retrieve, read, judge)
//	exec.go         Options, the default store and progress, Run and its worker pool
//	queue.go        queued runs: WorkItems, Enqueue, Items (a worker's claimed items)
//	spec.go         SpecOf: the run's identity
//	heal.go         what a rerun does again (failed steps, retryable verdicts)
//	sweep.go        RunSweep, ParseKs, Observe, ObserveStored
//	baselines.go    Baselines, RunWithBaselines
//	estimate.go     EstimateRun and the planners
//	judges.go       Judge and the adapters of package judge's judges
//	locomo.go       LoCoMo's own scores of a record (LoCoMo F1, session recall)
//	rejudge.go      RenameJudge, Rejudge
//	repeat.go       RepeatedJudge
//	calibrate.go    CalibrationSet, Calibrate, ReadCalibrationCSV
//	calibration_csv.go  WriteCalibrationCSV
//	progress.go     the Progress interface
//
// # Dependencies
//
// runs imports record, runstore and the pipeline it drives (datasets,
// retrieval, generate, judge, llm; analysis for statistics). It must not
// import reports, formats, display or kernel; only the command line
// (cmd/memlab), notebooks and kernel-level code import runs.
package runs
