// Package judge scores answers and retrieved context.
//
// # LLM judges
//
// CloneMemJudge scores QA consistency (0-3) and memory utility (recall in
// [0,1], helpfulness 0-2); LoCoMoJudge labels LoCoMo answers CORRECT or
// WRONG (J); KnowMeJudge scores 0-5 with memlab's own rubric
// per task family or with the benchmark's official rubric file
// (LoadRubricFile). Judges call an llm.Chatter at temperature 0 asking for JSON,
// parse the reply robustly (ParseVerdict: fences, prose around the object,
// single quotes, trailing commas, scores as strings), retry an unparseable
// reply, and return a Verdict per item with the judge model, rubric hash,
// raw output, score and reasoning. A reply that still cannot be read, an
// out-of-range score or a failed call is a named Failure with a NaN score,
// counted by Aggregate ("n judged / n failed"), never a 0.
//
// # Offline proxies
//
// Used when no LLM judge is reachable:
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
// # LoCoMo
//
// LoCoMoF1 ("LoCoMo F1", MetricLoCoMoF1) is LoCoMo's QA metric exactly as
// its evaluation script (task_eval/evaluation.py) computes it: answers
// normalized (LoCoMoNormalize), tokens stemmed with NLTK's Porter stemmer
// (text.PorterStem), token F1; multi-hop (category 1) answers split on
// commas, the mean over gold parts of the best predicted part; open-domain
// (category 3) gold cut at its first ";"; adversarial (category 5) right
// when the answer says "no information available" or "not mentioned"
// (LoCoMoQuestionF1 also counts a reader's abstention). It is the
// benchmark's own metric, not a proxy: runs record it as an exact score.
// testdata holds hand-computed cases and 400 triples scored by the
// official code.
//
// LoCoMoJudge is the "J" score of later papers (Mem0's evaluation): a
// model labels each answer CORRECT (1) or WRONG (0) against the gold
// answer, generous about length, wording and the form of dates
// (LoCoMoJPrompt, memlab's words, hashed as LoCoMoJHash), "LoCoMo J (LLM
// judge)" (MetricLoCoMoJ). ParseLabel reads the label; an unreadable reply
// or a failed call is a named failure, never a 0. Adversarial questions
// are not judged (no-reference verdicts), as Mem0 skips them.
//
// All text comparisons use package text: lowercased word tokens, with
// Chinese and other CJK text as overlapping character bigrams, so the
// proxies work on both languages of CloneMem.
//
// # Dependencies
//
// judge imports only datasets, llm, text and component of memlab. It must
// not import retrieval, generate, record, runs or anything above them: a
// judge scores an answer, whoever produced it (internal/archtest enforces
// it).
package judge
