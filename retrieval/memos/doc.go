// Package memos is memlab's port of MemOS's tree textual memory with the
// reorganizer off: the "log-based chronological stream" baseline of
// KnowMe-Bench (memory-systems.md §5).
//
// # Ingest
//
// Each Ingest call is one MemOS add: its traces, in time order, are
// messages (role user, chat_time = trace time) cut into windows of
// Config.Window messages (10) overlapping by Config.Overlap (2). In fine
// mode one model call per window (extractor role, temperature 0, JSON
// object) extracts {"memory list":[{"key","memory_type","value","tags"}],
// "summary"}; each non-empty value becomes a memory node whose TraceIDs are
// the window's trace ids and whose Time is the latest trace time. An
// unusable answer (no JSON, wrong shape, failed call) is counted in
// Stats.ExtractFailures and the raw window is stored instead, as in fast
// mode, so no trace is dropped silently; an empty list is counted in
// Stats.EmptyWindows. In fast mode (the default, no model) the raw window
// text is the node, tagged "mode:fast", of type UserMemory. Every node is
// embedded once and stored as a WorkingMemory copy and in its scope
// (LongTermMemory or UserMemory), each trimmed FIFO to its cap: 20 working
// memories as upstream, and 1,000,000 long-term and user memories instead
// of upstream's 1500 and 480, so the baseline does not silently forget
// (set LongTermCap/UserCap to UpstreamLongTerm/UpstreamUser to reproduce
// it). Window 1, Overlap 0 (NoOverlap) is the one-trace-per-node variant;
// its hits are Kind chunk, every other node's hits are Kind memory.
//
// # Search
//
// Temporal admission comes first: only nodes whose Time is at or before
// q.AskedAt are ranked. Fast mode embeds the question. Fine mode
// pre-searches 5 nodes for context, asks the model for {"keys","tags",
// "goal_type","rephrased_instruction","internet_search","memories"} (a
// failure falls back to the fast goal and is counted), then embeds the
// rephrased question and up to 4 paraphrases. Path A ranks the working
// memory; path B unites, per scope, graph recall (key among the keys, or 2
// shared tags) and vector recall (2k per query vector) and keeps the best
// 2k; the union is deduplicated by text, sorted by cosine (best over query
// vectors) and cut at k. ResortByTime re-sorts the final list by time.
//
// # Cost before the run
//
// PlanIngest and PlanSearch (retrieval.IngestPlanner, SearchPlanner) say
// what a run will spend without calling a model or changing the memory.
// Fast mode is exact: no call, one embedding per window at ingest and one
// per search (assuming the corpus holds an admitted node by then). Fine
// mode: the window extraction calls are exact (the requests Ingest sends,
// windows cut per batch as Ingest cuts them), but the number of nodes
// embedded depends on the answers and is left out; a search counts the
// goal call with its prompt lacking the pre-searched memories, and the
// question's embedding only (the rephrased question and paraphrases are
// left out). Both fine-mode plans are lower bounds, not Exact.
//
// # Strict statistics
//
// The memory fits no corpus statistic of its own: its scores are cosines
// of the embedder's vectors. An offline embedder fitted beforehand on
// every trace (as offline.FitHashedTFIDF(d.TraceTexts()) is) lets later
// traces shape earlier questions' scores. With a
// retrieval.AdmittedEmbedder (strict mode) the embedder of each corpus is
// fitted on the traces ingested so far and fitted again at each Ingest
// batch, before the batch is processed, and every memory node held is re-embedded
// with it; the re-embeddings count in Refits, not in the Meter. A model
// embedder has no corpus statistics.
//
// The Meter counts model calls and tokens (ingest: one per window in fine
// mode; query: one per question in fine mode) and embedded texts. Every
// knob is in Config and in Name.
//
// # Dependencies
//
// memos imports only retrieval, datasets, llm, text and component of memlab,
// as every package under retrieval (internal/archtest enforces it).
package memos
