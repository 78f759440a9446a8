// Package amem is memlab's port of A-Mem, the agentic memory of Xu et al.
// (WujiangXu/A-mem research code; A-mem-sys / agiresearch library;
// memory-systems.md §3), as a retrieval.Memory: use it through
// retrieval.NewIncremental, which feeds a corpus's traces in time order up
// to each question's asked-at time. One note is made per trace, so every
// note maps to exactly one trace id.
//
// # Ingest, per trace
//
//  1. Note construction: one chat call (role Config.Role) returning
//     {"keywords":[str],"context":str,"tags":[str]}. On an invalid answer
//     the note keeps empty keywords and tags and the context "General".
//  2. Neighbours: the new content is embedded and the Config.Neighbors
//     notes whose indexed vectors are closest (cosine) are taken.
//  3. Evolution: one chat call showing the new note and its neighbours
//     (as "memory index:0".."memory index:n-1", mapped back to notes, so
//     links cannot dangle), returning {"should_evolve":bool,"actions":
//     ["strengthen"|"update_neighbor"],"suggested_connections":[int],
//     "tags_to_update":[str],"new_context_neighborhood":[str],
//     "new_tags_neighborhood":[[str]]}. The research code makes it even
//     when the store is empty (Config.EvolveEmptyStore), the library skips
//     it then.
//  4. Apply: strengthen links the new note to the suggested neighbours
//     (Note.Links; each linked neighbour records the new note in
//     Note.Backlinks) and replaces the new note's tags with tags_to_update;
//     update_neighbor gives neighbour i, for i < min(n, len(new tags)), the
//     new tags[i] and the new context[i] (its old context when missing).
//     Suggestions naming no shown neighbour are counted in
//     Stats.DanglingLinks. Notes are never merged or deleted.
//  5. Index: the note's index text, "content:<c> context:<ctx> keywords:
//     <k1, k2> tags: <t1, t2>", is embedded. Neighbour edits reach the
//     index at once with Config.ReindexOnEdit (library), else only at the
//     next rebuild (research).
//  6. Every Config.EvoThreshold evolutions (should_evolve true) the whole
//     index is rebuilt: every note re-embedded (research: with the text
//     "<c> , <ctx> <k1> <k2> <t1> <t2>", as its consolidation does).
//
// A trace with empty text makes a note with default fields and no model
// call (Stats.EmptyTraces). An answer that is not the expected JSON (code
// fences stripped, outermost {...} taken; or rejected by the model layer
// as llm.ErrBadOutput) is counted in Stats.InvalidJSON with the trace id
// in Stats.FailedTraces, and the step falls back as said above; the note
// is kept. An answer rejected by the model layer counts as one call in the
// Meter with no tokens. A failed model or embedding call is an error of
// Ingest (or Search).
//
// # Cost before the run
//
// PlanIngest and PlanSearch (retrieval.IngestPlanner, SearchPlanner) say
// what a run will spend without calling a model or changing the memory.
// Exact: the note-construction call of each trace with text, the embedding
// of every note's index text, the query-keywords call of a search
// (Config.QueryKeywords) and its one embedding (assuming the corpus holds
// an admitted note by then). Counted, as a lower bound: an evolution call
// per trace with text that will find an earlier note (or every such trace
// with Config.EvolveEmptyStore), its prompt without the model's keywords
// and context and with empty neighbour lines; the embedding of the content
// compared with earlier notes. A planner only knows the notes the memory
// holds and the batch's earlier traces (retrieval.PlanQuestions plans every
// batch on a fresh memory), so a trace that finds none of them is counted
// without neighbour search. Left out: re-embeddings and rebuilds triggered
// by evolution answers. An ingest plan is Exact only when no trace has
// text.
//
// # Search
//
// With Config.QueryKeywords (research) one chat call turns the question
// into {"keywords":"k1, k2, ..."} and that keyword string is embedded (the
// question itself when the answer is invalid); otherwise the question is
// embedded. Only notes whose trace is dated at or before the question's
// asked-at time (unknown times always) are ranked, by cosine
// (retrieval.MutableVecStore, float64 on the vectors as embedded), ties in
// creation order; the best k are KindMemory hits. Linked notes (Links,
// plus Backlinks with Config.Backlinks) that are admitted are added as
// KindNeighbor hits: in ModeResearch after each hit, as the research code
// does (neighbour count capped near k overall); in ModeLibrary after all
// hits, at most k of them. A note is emitted once, and the list is cut at
// k (retrieval.Memory's contract), so in ModeResearch neighbours take slots
// from lower-ranked hits (recall then counts them in emitted order, the
// doc's recommendation), and in ModeLibrary the result is the plain top k:
// a neighbour could only fill a free slot if fewer than k notes were
// admitted, and then it is already a hit. With Config.ChunkHits each note
// hit is followed by a retrieval.KindChunk hit for its trace (notes are
// one per trace), sharing the k slots.
//
// # Strict statistics
//
// The memory fits no corpus statistic of its own: its scores are cosines
// of the embedder's vectors. An offline embedder fitted beforehand on
// every trace (as offline.FitHashedTFIDF(d.TraceTexts()) is) lets later
// traces shape earlier questions' scores. With a
// retrieval.AdmittedEmbedder (strict mode) the embedder of each corpus is
// fitted on the traces ingested so far and fitted again at each Ingest
// batch, before the batch is processed, and every note held is re-embedded
// with it; the re-embeddings count in Refits, not in the Meter. A model
// embedder has no corpus statistics.
//
// # Dependencies
//
// amem imports only retrieval, datasets, llm, text and component of memlab,
// as every package under retrieval (internal/archtest enforces it).
package amem
