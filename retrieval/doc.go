// Package retrieval holds memlab's retrieval units, indexes and memory
// systems, and the trace-level retrieval metrics of the papers.
//
// # Systems
//
// A System answers Retrieve(ctx, question, k) with ranked Hits. Every Hit
// names the trace ids it stands for and its kind (KindChunk for a raw trace,
// KindMemory for a memory record, extract_* for expansions...), so recall is
// always computed over trace ids (TraceRanking), whatever the unit is.
//
//   - Flat ("flat-bm25"): CloneMem's Flat baseline with lexical scoring, one
//     unit per raw trace, Okapi BM25 over text.Tokens (which handles
//     Chinese).
//   - FlatUnits ("flat(...)"): the general Flat of memory-systems.md §1 and
//     §8: BM25, dense (any llm.Embedder, offline or a model) or hybrid (RRF)
//     scoring over raw traces and/or expansions (summary, keywords, facts
//     from an llm.Extractor) with the join modes none, separate, merge and
//     merge_raw, scores aggregated per trace.
//   - NaiveRAG (KnowMe-Bench's k = 50 dense baseline), BaseNoMemory and
//     BaseRecent (the latest admitted traces up to a token budget).
//   - Oracle and OracleStatements: the gold trace ids, or the gold evidence
//     statements.
//   - Decomposed and TimeAware wrap any System with a model: question
//     decomposition (round-robin over sub-questions) and LongMemEval-style
//     time-range filtering.
//   - Memory systems built incrementally implement Memory and become
//     Systems through Incremental, which feeds each corpus's traces in time
//     order up to the question's asked-at time: Mem0 (retrieval/mem0), A-Mem
//     (retrieval/amem), the MemOS-style stream (retrieval/memos) and memlab's
//     own timeline memory (retrieval/timeline). The Weaviate store is in
//     retrieval/weaviate.
//
// Systems that call models take an llm.Chatter (an *llm.Client) and count their
// use in a Meter; without a model they fail with ErrNeedsModel.
//
// # Cost before the run
//
// PlanQuestions estimates a run's model use without calling a model, from
// the systems that implement IngestPlanner and SearchPlanner. Decomposed
// plans its decomposition call exactly (the request it sends); the inner
// system's searches depend on how many subquestions the model gives, so
// when the inner system plans them (or an Incremental's memory does) one
// search per question is counted, a lower bound marked not Exact.
//
// # Temporal admission
//
// A question asked at time t only sees the traces dated at or before t
// (datasets.Admit). Every system applies it before ranking, never by
// filtering a short result list afterwards. Flat builds one index per
// corpus whose documents are sorted by time, so the admitted traces of any
// question are a prefix of the documents; BM25 statistics (N, average
// document length, document frequencies) are computed over that prefix
// only, which gives exactly the scores of an index built on the admitted
// traces alone. The vector store keeps vectors in time order the same way.
//
// # Strict statistics
//
// Admission keeps later traces out of the results; strict statistics keep
// them out of the scores. In strict mode (StatsAdmitted, the default) every
// corpus statistic a question's scores use comes from its admitted traces
// only, so adding a trace dated after the question changes nothing about
// it: BM25's N, average length and document frequencies (the prefix above),
// and the offline embedders' idf and LSA basis, which FlatUnits and
// NaiveRAG fit per admitted set (once per distinct set, in asked-at order;
// such a FlatUnits is not Concurrent, so a runner asks it one question at a
// time). Memory systems fit an AdmittedEmbedder per corpus on the traces
// they have ingested and refit it at each ingest batch (CorpusEmbedders).
// StatsCorpus, the leaky mode, fits on every trace of the corpus; it is
// kept to measure the leak. Names carry the mode where it matters
// ("stats=admitted" or "stats=corpus"; see each Name), so strict and leaky
// runs have different ids. A question with no asked-at time admits every
// trace: both modes agree on it. RefitStats reports what strict mode's
// refits cost.
//
// # Metrics
//
// ScoreRetrieval computes, for one question, Recall-Flat and the four
// evidence-group recalls of CloneMem (All-All, All-Any, Any-All, Any-Any),
// plus MRR and nDCG@k; MeanRetrieval averages them over the questions that
// have gold evidence and counts the others separately.
//
// # Dependencies
//
// retrieval and its sub-packages import only datasets, llm, text and
// component of memlab. They must not import generate, judge, record, runs or
// anything above: a memory system knows nothing of how its passages are read
// or scored (internal/archtest enforces it).
package retrieval
