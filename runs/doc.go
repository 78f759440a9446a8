// Package runs evaluates a memory system and a reader over a dataset's
// questions and keeps one Record per question: the ranked trace ids, the
// retrieval scores at k, the context given to the reader, the answers and
// each judge score. Summaries and breakdowns are computed from records only.
//
// This first version runs in memory and one question at a time; the SQLite
// run store, the response cache, resume and worker pools come with later
// issues.
package runs
