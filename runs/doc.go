// Package runs evaluates a memory system and a reader over a dataset's
// questions and keeps one Record per question: the ranked trace ids, the
// retrieval scores at k, the context given to the reader, the answers and
// each judge score. Summaries and breakdowns are computed from records only.
//
// # Runs and the run store
//
// A run is a config (Config: system, reader, judges, k, params) over a
// dataset's questions. Its Spec names everything that identifies it, and
// the spec's hash is the run id: the same config over the same dataset is
// the same run. Run executes it: retrieval one question at a time in
// asked-at order (memories grow as a clone's would), reading and judging
// on a pool of workers. With a Store (an SQLite file in WAL mode, see
// OpenStore) every record is written when its question completes; running
// the same config again loads the completed records, retries the failed
// ones and asks only what is missing, so a killed run resumes where it
// stopped and a finished one makes no model call. A lease keeps two
// processes from running the same run at once. The store also keeps each
// run's code version, sessions, wall time, spending (retrieval.Meter) and
// the history of failed attempts; its schema is versioned and migrated.
//
// # Sweeps and progress
//
// Grid and RunSweep run a function at every point of a parameter grid
// (`memlab sweep` runs a notebook there) and Sweep.Table combines the runs
// into one table. Progress reporters (NewBar for terminals, NewLines for
// logs) are told about every completed question.
//
// # Official formats
//
// WriteCloneMem and WriteKnowMe export records to the benchmarks' own
// scorers' formats; ReadCloneMem, ReadKnowMeScores and
// ReadCloneMemJudgeResults read their outputs back.
package runs
