// Package mem0 is memlab's port of Mem0's classic extract→update memory
// pipeline (mem0ai/mem0 v0.1.x–v1.x; memory-systems.md §4), as a
// retrieval.Memory: use it through retrieval.NewIncremental, which feeds a
// corpus's traces in time order up to each question's asked-at time.
//
// # Ingest
//
// One trace is one add() (the doc's advice, so every fact is attributable).
// For each trace:
//
//  1. Fact extraction: one chat call (role Config.Role, JSON object
//     answer unless Config.NoJSONMode). The system message asks for the
//     person's facts and states today's date, which is the trace's date
//     (the wall clock's for an undated trace; Config.WallClockDate restores
//     upstream's wall-clock date); the user message is "Input:\n" followed by
//     one "user: " line holding the trace's timestamp, medium and text. The
//     answer must be {"facts":[str]}.
//  2. For each fact, the Config.TopS most similar memory records of the
//     corpus (cosine of embeddings) are collected, deduplicated by record.
//  3. Record ids are shown to the model as "0", "1", ... and mapped back.
//  4. Update decision: one chat call (skipped when there are no facts) with
//     the current memories as [{"id","text"}] and the new facts. The answer
//     must be {"memory":[{"id","text","event","old_memory"}]} with event one
//     of ADD, UPDATE, DELETE, NONE.
//  5. Apply, in answer order: ADD makes a new record (its embedding is the
//     fact's when the text equals a fact, else the text is embedded); UPDATE
//     overwrites a record's text (embedded the same way) and adds the
//     trace to its provenance; DELETE removes the record with its provenance; NONE
//     changes nothing. A decision with empty text (ADD, UPDATE), an
//     unknown id (UPDATE, DELETE, NONE) or an unknown event is skipped and
//     counted in Stats.Skipped.
//
// Provenance (the trace ids behind each record) is kept outside the record
// text, so the model never sees trace ids.
//
// Failures: a model answer that is not a JSON object with the expected
// field (code fences are stripped and the outermost {...} is taken first),
// or that the model layer rejected as not JSON (an *llm.Error of kind
// llm.ErrBadOutput, after the client's retries), is counted in Stats.InvalidJSON and the trace id is recorded in
// Stats.FailedTraces; as upstream, an invalid extraction gives no facts
// (so no update call) and an invalid update decision applies nothing. The
// trace is still counted as ingested and later traces go on normally. A
// trace with empty text makes no model call and is counted in
// Stats.EmptyTraces. An answer rejected by the model layer counts as one
// call in the Meter with no tokens (the layer returns no usage for it). A
// failed model or embedding call (network, rate
// limit, cancelled ctx) is an error of Ingest.
//
// # Search
//
// The question text is embedded (no model call); the records whose time
// (their latest provenance trace's; unknown times are always admitted) is
// at or before the question's asked-at time are ranked by cosine
// (retrieval.MutableVecStore, float64 on the vectors as embedded; updates
// and deletes change its rows in place), ties in creation order, scores below Config.Threshold dropped when it is set, and
// the best k are returned as retrieval.KindMemory hits whose TraceIDs are
// the record's provenance. With Config.ChunkHits each memory hit is
// followed by retrieval.KindChunk hits for its provenance traces not
// emitted before (CloneMem's "both kinds", memory-systems.md §8); memory
// and chunk hits then share the k slots.
//
// # Cost before the run
//
// PlanIngest and PlanSearch (retrieval.IngestPlanner, SearchPlanner) say
// what a run will spend without calling a model or changing the memory.
// Exact: the fact-extraction call of each trace with text (the request
// Ingest sends: prompt tokens and max_tokens), and the one question
// embedding of a search (assuming the corpus holds records by then). A
// lower bound, marked not Exact: the ingest as a whole, since the update
// call of a trace (made only when facts were extracted, listing the
// similar records found) and the embeddings of facts and records depend on
// the extraction's answer; they are left out.
//
// # Strict statistics
//
// The memory fits no corpus statistic of its own: its scores are cosines
// of the embedder's vectors. An offline embedder fitted beforehand on
// every trace (as offline.FitHashedTFIDF(d.TraceTexts()) is) lets later
// traces shape earlier questions' scores. With a
// retrieval.AdmittedEmbedder (strict mode) the embedder of each corpus is
// fitted on the traces ingested so far and fitted again at each Ingest
// batch, before the batch is processed, and every record held is re-embedded
// with it; the re-embeddings count in Refits, not in the Meter. A model
// embedder has no corpus statistics.
//
// Mem0's optional graph memory and the newer "v3" pipeline are not
// ported.
//
// # Dependencies
//
// mem0 imports only retrieval, datasets, llm, text and component of memlab,
// as every package under retrieval (internal/archtest enforces it).
package mem0
