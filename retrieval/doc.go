// Package retrieval holds memlab's memory systems that need no model, and
// the trace-level retrieval metrics of the papers.
//
// # Systems
//
// A System answers Retrieve(ctx, question, k) with ranked Hits. Every Hit
// names the trace ids it stands for, so recall is always computed over trace
// ids (TraceRanking), whatever the retrieval unit is.
//
//   - Flat ("flat-bm25"): CloneMem's Flat baseline with lexical scoring. One
//     retrieval unit per raw trace, Okapi BM25 over tokenize.Tokens (which
//     handles Chinese), one index per corpus.
//   - Oracle ("oracle"): the question's gold trace ids in listed order.
//
// # Temporal admission
//
// A question asked at time t only sees the traces dated at or before t
// (datasets.Admit). Both systems apply it before ranking, never by
// filtering a short result list afterwards. Flat builds one index per
// corpus whose documents are sorted by time, so the admitted traces of any
// question are a prefix of the documents; BM25 statistics (N, average
// document length, document frequencies) are computed over that prefix
// only, which gives exactly the scores of an index built on the admitted
// traces alone.
//
// # Metrics
//
// ScoreRetrieval computes, for one question, Recall-Flat and the four
// evidence-group recalls of CloneMem (All-All, All-Any, Any-All, Any-Any),
// plus MRR and nDCG@k; MeanRetrieval averages them over the questions that
// have gold evidence and counts the others separately.
package retrieval
