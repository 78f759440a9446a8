// Package formats writes runs' records in the formats the benchmarks'
// official scorers read, and reads those files and the scorers' results
// back: CloneMem's results file (WriteCloneMem, WriteCloneMemCorpus,
// WriteCloneMemDir, ReadCloneMem) and its LLM judge's result file
// (ReadCloneMemJudgeResults); KnowMe-Bench's judge input (WriteKnowMe,
// ReadKnowMe) and its judge's result file (ReadKnowMeScores); LoCoMo's
// qa lists with predictions (WriteLoCoMo, WriteLoCoMoDir), which its
// evaluation code scores as memlab does.
// docs/formats.md describes each format, which memlab field maps to which
// key, and what was checked against the official scripts. Bad input is an
// error naming where in the file (line and column, record, JSON path).
//
// # Dependencies
//
// formats imports record (what it writes and reads) and the datasets and
// retrieval types a record holds. It must not import runs, runstore,
// reports, display or kernel.
package formats
