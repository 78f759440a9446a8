// Package construct builds benchmarks: the construction pipelines of
// CloneMem and KnowMe-Bench (whose releases ship data but no construction
// code) as resumable builds on memlab's model layer and run store.
//
// # Pipelines, steps, items
//
// A Pipeline is a DAG of named Steps. A step has a model role (llm.Role*),
// a versioned Prompt (text/template; its hash is part of every item's
// identity), typed JSON input and output, and an optional Check:
// Verify-and-Revise, as KnowMe-Bench's appendix A describes it. A code
// check first (indices in range, verbatim spans present, evidence ids
// known); then a checker model lists the source's facts the output misses
// and the output's facts the source does not support, and
//
//	delta = alpha * missing/|F(S)| + beta * unsupported/|F(T)|   (alpha 0.4, beta 0.6)
//
// must be at most the step's epsilon, with a PASS. A failed check sends
// its feedback to the step's revision prompt, at most k_max times (3);
// then the item is rejected: kept with its feedback, flagged for review,
// left out of the benchmark. Revisions and rejections are counted per step.
//
// The pipeline's Go code makes the items: Build.Do makes one item of a
// step from its input and the refs of the items it was made from (its
// provenance), and Each runs items concurrently, so items of different
// steps overlap as far as their own dependencies allow; the calls in
// flight are bounded by the endpoint's concurrency (Options.Concurrency).
//
// # Storage, resume, reruns
//
// With a Store (the run store's SQLite file, tables construct_*, migrated
// on their own schema version beside the run store's), every call is
// stored when it returns and every item when its output is accepted or
// rejected, with its step, prompt hash, model, input and the keys of its
// inputs. An item's key hashes the step (prompt hashes, models, check,
// temperature), the seed and the input, so running a build again reuses
// every stored item and makes no call; a build killed between two calls
// of an item replays the calls it had made (the call cache is not needed
// for that). A failed call is recorded as a failure, never as an empty
// item: the item is made again when the build runs again.
//
// # Dry runs and floors
//
// A dry run (Options.DryRun, or llm.DryRun for the process) makes no call:
// each step's Stub stands for the model's reply, so the rest of the
// pipeline is planned from it, and the build counts each step's calls and
// tokens (llm.EstimateTokens of the rendered prompts and of the stub
// replies), both when every first output passes its check and when every
// check fails until its last revision; EstimateTable prices them
// (Pricing, from llm.Config's price table).
//
// Every build records its calls as a graph (each call waits for the calls
// of the items it is made from and for the call before it in its item).
// StepStats.Depth is the longest chain of calls ending in a step;
// StepStats.FloorCalls is when an ideal executor, running every call as
// soon as what it waits for is done and a slot of the build's concurrency
// is free (the longest remaining chain first), finishes the step's last
// call, in call latencies: the floor the step's dependencies and the
// endpoint's concurrency set, which a measured wall time is compared with
// (docs/performance.md).
//
// # The two pipelines
//
// KnowMePipeline and BuildKnowMe: from a raw narrative, (A) extractive
// segmentation by sentence index, (B) Atomic Narrative Units, (C)
// flashback-aware realignment (a model labels each unit MAINTAIN, PUSH,
// POP or TRANSIENT with its time and trigger; the stack machine runs in
// code over the whole narrative), (D) first-person records, and the
// questions of the seven tasks, each generative step verified and
// revised; KnowMeResult.Write writes a KnowMe-Bench dataset folder.
// CloneMemPipeline and BuildCloneMem: from a Big Five configuration, the
// persona, social relations, event-seed pool, life arcs, major events,
// rolling phases with their state snapshot, detailed events with their
// evidence, traces in seven media (intent, then content), evidence in arc
// buckets over sliding windows, evidence-gated QA planning and writing,
// quality control, multiple choice with a validator loop;
// CloneMemResult.Write writes a CloneMem persona file (in the schema
// datasets.CloneMemFile declares, with datasets.WriteCloneMemFile). Both
// write the provenance of every element (provenance.jsonl) and a file a
// person reviews a sample with (review.md). docs/construction.md says each
// step, its prompt version and each choice memlab made where the papers
// are silent.
//
// Package construct/standin is a scripted stand-in for the model: it
// answers every prompt of both pipelines from the prompt's input alone,
// so tests and offline demos build small benchmarks end to end against
// the fake server (llm/llmtest). What it writes shows the pipeline, not a
// benchmark.
//
// # Dependencies
//
// construct imports datasets, llm, text, component, runstore and analysis
// of memlab; only the command line and the notebooks' symbol tables
// import it (internal/archtest enforces it).
package construct
