// Package judge scores answers and retrieved context. This file set holds
// the offline proxies, used when no LLM judge is reachable:
//
//   - TokenF1 ("Token F1 (proxy)") and RougeL ("ROUGE-L (proxy)") of an
//     answer against the reference answer;
//   - EvidenceCoverage ("Evidence coverage (proxy for memory recall)"): the
//     share of gold evidence statements whose content words are mostly
//     present in the retrieved text;
//   - ChoiceCorrect ("Choice accuracy"): exact option match, which needs no
//     judge and is not a proxy.
//
// The proxies measure word overlap, not meaning. They are always shown under
// the names above (the Metric* constants), never under the name of an
// LLM-judged metric (CloneMem QA consistency, memory recall, memory
// helpfulness, KnowMe-Bench score).
//
// All text comparisons use retrieval/tokenize: lowercased word tokens, with
// Chinese and other CJK text as overlapping character bigrams, so the
// proxies work on both languages of CloneMem.
package judge
