package main

import (
	"flag"
	"io"
)

// commandTable is memlab's commands, in the order memlab -h lists them.
// Each long description is also the command's section of the package
// documentation (doc.go, which TestPackageDoc regenerates from it).
func commandTable() []*command {
	return []*command{
		{name: "run", args: "NOTEBOOK.go|NOTEBOOK.ipynb", files: true,
			short: "Run a notebook cell by cell and write its .ipynb and markdown report",
			long: `run executes a notebook (Go source with jupytext "percent" cell markers,
"// %%", or a Jupyter .ipynb whose code cells are Go) cell by cell in the
memlab interpreter, echoing each cell's output, and writes NOTEBOOK.ipynb
(nbformat 4, with outputs) and NOTEBOOK.md (a markdown report) next to
the notebook or under -o DIR (X.out.ipynb and X.out.md where a run of
X.ipynb would overwrite it). The cells run in the notebook's directory, as
Jupyter runs a notebook's kernel: relative paths in cells and in -p values
resolve against it. -p overrides a variable assigned in the parameters
cell ("// %% tags=["parameters"]" as jupytext writes it, or
"// %% [parameters]"; in an .ipynb the cell tagged "parameters", as for
papermill); a name that is not assigned there is an error. A cell error
stops the run (later cells are not executed), the outputs are still
written, and memlab exits 1. Ctrl-C (SIGINT) and SIGTERM (timeout,
systemd, kill) interrupt the running cell the same way: stderr names the
signal, the outputs so far are written and memlab exits 1.

Every run a notebook makes (runs.Run, runs.Evaluate) is kept in the run
store: each question's record is written when it completes, and running
the notebook again resumes (completed records reused, failed steps done
again); -no-store keeps results in memory only. Progress goes to stderr:
a bar on a terminal, else a line every 10 s; -quiet turns it off. The
cells run in a worker process (this binary re-executed, see package
kernel/worker), so that a cell crashing the interpreter (a panic in a
goroutine it started) fails as that cell's error and the outputs are
still written; -isolate=false runs them in the memlab process itself.
-queue enqueue or work puts the grids the notebook runs (package grid)
in the run store's work queue, as memlab grid -queue does.

-dry-run asks nothing (every model call of the process is refused, cache
hits and calls outside runs included, and the endpoints are not checked):
each run the notebook makes estimates what it would spend per stage
(ingest, retrieve, read, judge: calls, prompt tokens, completion bound,
texts embedded, and the cost when the config prices the model; exact, a
range or a lower bound, see runs.EstimateRun), the table is printed at
the end with the calls refused outside runs and one total
(reports.DryRun), and the estimates are written to
NOTEBOOK.estimate.json. After a real run that called models, what each
stage spent is printed from the runs' records, and run writes
NOTEBOOK.manifest.json beside its outputs when runs were kept in the
store: the spec, means and records of every run the notebook made,
resumed, queued or rejudged, and of no other run written to a shared
store meanwhile (see reproduce).`,
			run: func(c cmdIO, a []string) error { return cmdRun(a, c.stdout, c.stderr) }},

		{name: "convert", args: "NOTEBOOK.go|NOTEBOOK.ipynb [OUT]", files: true,
			short: "Convert a notebook between .go (jupytext percent format) and .ipynb",
			long: `convert turns a .go notebook into an .ipynb (no outputs; memlab's
kernelspec) and an .ipynb into a .go notebook in jupytext's percent
format: cells, markdown, raw cells, titles, tags, parameters and cell
metadata are kept, and a .go file converted to .ipynb and back is the
same bytes (what the .go form needs is stored in the .ipynb's metadata,
see notebook.Notebook.Percent). OUT defaults to NOTEBOOK with the other
extension; -to names the format (OUT "-" writes to stdout); -outputs
keeps an .ipynb's outputs when writing .ipynb.`,
			run: func(c cmdIO, a []string) error { return cmdConvert(a, c.stdout, c.stderr) }},

		{name: "sweep", args: "-p name=v1,v2... NOTEBOOK.go", files: true,
			short: "Run a notebook once per point of a grid of its parameters",
			long: `sweep runs a notebook once per point of the grid of its -p axes (each a
parameter of the notebook with comma-separated values), writing each
point's outputs under DIR/name=value,... (DIR defaults to sweep-NAME beside
the notebook) and the combined table of every run made, one row per run
with the point's parameters, to stdout and DIR/sweep.md, and as a tidy
CSV to DIR/sweep.csv (one value per cell, snake_case headers, a run_id
column; see reports.SweepCSV).`,
			run: func(c cmdIO, a []string) error { return cmdSweep(a, c.stdout, c.stderr) }},

		{name: "grid", args: "-p AXIS=V1,V2...",
			short: "Run every point of a grid of systems, readers, judges and knobs over a dataset",
			long: `grid runs every point of the grid of the -p axes and prints their
comparison. Axes: system, embedder, units, reader, judge, k, dataset,
persona, or any knob of the system or the reader; values are the
catalog's spec strings (memlab components), split at commas outside
parentheses: -p system=flat(bm25),timeline -p k=5,10. Offline, points
that need a model are skipped, and said so once. -queue enqueue puts
every point's run in the run store's work queue and returns, printing
the memlab worker command that works them on any number of machines;
-queue work enqueues and works the queue too, until every point is done
(other workers may join), then prints the comparison.`,
			run: func(c cmdIO, a []string) error { return cmdGrid(a, c.stdout, c.stderr) }},

		{name: "worker", args: "-store URL -run RUN | -all",
			short: "Work the run store's queue: questions of queued runs, with any number of other workers",
			long: `worker works the work queue of a run store (-store, else $MEMLAB_RUNS): the
runs that memlab grid -queue enqueue (or memlab run and sweep -queue,
for the grids of a notebook) put there, -run RUN (repeatable) or -all
of them. Any number of workers, on any number of machines, work one
queue: each claims work items (a question, or a persona's questions in
asked-at order for an incremental memory, never split) in short
transactions (FOR UPDATE SKIP LOCKED), renews its claims every -lease/3,
and writes each question's record as it completes, through its claim:
a worker whose claim was taken over writes nothing more. A worker that
dies loses only the questions in its hands: the others take its items
over once its claims' -lease has run out, and the records it wrote are
kept. A worker stops once every run it works is done (-wait: keeps
waiting for more); Ctrl-C or SIGTERM gives its items back at once.

Each worker needs the memlab binary, the store's URL (its password from
PGPASSWORD, ~/.pgpass or a service file, never the store), the model
endpoint configuration of the run's roles (OPENAI_BASE_URL and
OPENAI_API_KEY, or MEMLAB_CONFIG: the same models, or the run's id
differs and the worker refuses it, saying what differs), and the dataset
(-data PATH, recognized by its fingerprint; by default the path the run
was enqueued with). The model-call cache follows a PostgreSQL store into
its database, so a call one worker made is never paid for again by
another. An SQLite store serves the workers of one machine.`,
			run: func(c cmdIO, a []string) error { return cmdWorker(a, c.stdout, c.stderr) }},

		{name: "datasets",
			short: "Validate, describe, correct and synthesize datasets (validate, stats, errata, synth)",
			long: `datasets loads a dataset (a CloneMem persona file or directory, a
KnowMe-Bench dataset directory, a LoCoMo conversation file, locomo10.json
or a directory of conversations; the format is detected). PATH "sample"
names the bundled sample.`,
			subs: []*command{
				{name: "validate", args: "PATH", files: true,
					short: "Print a dataset's counts and validation report",
					long: `datasets validate loads a dataset and prints its counts and validation
report: every defect with its file and JSON path. It exits 0 when the
dataset loads, even with defects, unless -strict is given; it exits 1
when the dataset cannot be loaded.`,
					run: func(c cmdIO, a []string) error { return datasetsValidate(a, c.stdout) }},
				{name: "stats", args: "PATH", files: true,
					short: "Print counts by task, type, dimension and medium, the time span and a token estimate",
					long: `datasets stats prints a dataset's counts by task, type, dimension and
medium, the time span and a token estimate. -json prints one JSON
document instead: {name, format, source, fingerprint, corpora: [{id,
name, language, traces, questions, first, last, chars}], traces,
questions, by_task, by_dimension, by_medium (each [{key, n}]),
with_evidence, evidence_refs, unknown_refs, multiple_choice,
with_asked_at, first, last, unknown_time, chars, tokens, defects}.`,
					run: func(c cmdIO, a []string) error { return datasetsStats(a, c.stdout) }},
				{name: "errata", args: "PATH ERRATA.csv", files: true,
					short: "Apply an errata file to a dataset and print what it changed",
					long: `datasets errata applies an errata file (CSV
corpus_id,question_id,action,field,value,reason, see datasets.ReadErrata)
to the dataset and prints what each erratum excluded or patched and the
counts; a bad file or an erratum naming no question exits 1 with the
error naming FILE:LINE.`,
					run: func(c cmdIO, a []string) error { return cmdDatasetsErrata(a, c.stdout) }},
				{name: "synth", args: "-o DIR",
					short: "Write a synthetic CloneMem-schema corpus for measuring at scale",
					long: `datasets synth writes a synthetic corpus in CloneMem's release schema to
-o DIR, whose name must contain "synthetic": -personas persona files of
-traces traces and -questions multiple-choice questions each (defaults
100 x 2,000 x 50), made from word lists by a seeded generator (-seed: the
same flags write the same bytes), each persona named "(synthetic)", and
a README saying what it is. It is made for measuring memlab at scale
(scripts/scale-test.sh), never for ranking memory systems.`,
					run: func(c cmdIO, a []string) error { return cmdDatasetsSynth(a, c.stdout) }},
			}},

		{name: "build",
			short: "Build a benchmark: the KnowMe-Bench or CloneMem construction pipeline as a resumable run",
			long: `build runs a benchmark's construction pipeline (package construct) as a
resumable build kept in the run store's file (-store, as for run; -no-store
keeps it in memory): every call, prompt hash, model and output is stored
as it completes, a killed build resumes where it stopped when the same
command runs again, and a finished one makes no model call. The benchmark
is written under -o DIR in its released schema, with provenance.jsonl
(the step, prompt and model that made each element) and review.md (what
was dropped and why, and questions with their evidence for a person to
check), then loaded back and validated: a defect exits 1. -dry-run calls
no model and prints each step's items, calls and tokens (when every first
output passes its check, and when every check fails until its last
revision), their cost (the config's [prices], or -price MODEL=P,C) and the
floor of the wall time at 1 s per call. Building needs a model: without an
endpoint it fails and says so, unless -dry-run or -standin (memlab's
scripted stand-in on an in-process fake server, to try the pipeline).`,
			subs: []*command{
				{name: "knowme",
					short: "Build a KnowMe-Bench dataset from a raw narrative (-p narrative=FILE)",
					long: `build knowme builds a KnowMe-Bench dataset folder (input/, question/,
answer/) from a raw autobiographical narrative: (A) extractive
segmentation by sentence index, (B) Atomic Narrative Units, (C)
flashback-aware realignment, (D) first-person records, and the questions
of the seven tasks, each generative step verified against its source and
revised (KnowMe-Bench's verify-and-revise). Parameters: narrative=FILE
(required), name (default: the file's base name), start (YYYY-MM-DD, the
present when the text dates nothing), per_task (questions per task,
default 2), window_chars (default 6000), tasks (comma-separated).`,
					run: func(c cmdIO, a []string) error { return cmdBuild("knowme", a, c.stdout, c.stderr) }},
				{name: "clonemem",
					short: "Build a CloneMem persona file (-p scale=small|100k|500k)",
					long: `build clonemem builds a CloneMem persona file: stage I persona from a
Big Five configuration, relations, event-seed pool, life arcs and major
events; II rolling phases with their state snapshot; III detailed events
with their evidence and traces in seven media (intent, then content); IV
questions of 8 types x 3 dimensions over arc buckets and sliding windows,
the format and evidence-sufficiency filters, multiple choice with a
validator loop. Parameters: scale (small, the default: three months;
100k or 500k: the paper's settings), person, start, language, months,
events, phases, details, traces, window_days, step_days, types.`,
					run: func(c cmdIO, a []string) error { return cmdBuild("clonemem", a, c.stdout, c.stderr) }},
			}},

		{name: "runs",
			short: "List, show, compare and export the runs of the run store",
			long: `runs reads the run store ($MEMLAB_RUNS, else runs.db beside the model
call cache; -store PATH names another, a file or a PostgreSQL database
as postgres://USER@HOST/DB), where every run keeps its spec
and one record per question. RUN is a run id, a unique id prefix of at
least 4 characters, or a label. These commands never create a store nor
write to one: they open it read-only, so a store on read-only media can
be read (writing to it, e.g. memlab run, fails saying it is read-only).`,
			subs: []*command{
				{name: "list",
					short: "List the runs: id, label, dataset, system, k, progress and code version",
					long: `runs list shows each run's id, label, dataset, system, k, progress and
code version. -json prints one JSON document instead: {store, runs:
[{id, label, dataset, fingerprint, system, system_name, reader, k,
questions, done, failed, complete, created, updated, sessions, seconds,
code_version}]} (times RFC 3339).`,
					run: func(c cmdIO, a []string) error { return redacted(c, a, runsList) }},
				{name: "show", args: "RUN",
					short: "Show a run's spec, sessions, spending and summary tables",
					long: `runs show RUN prints the run's spec, sessions, spending and summary
tables. -json prints one JSON document instead: the fields of runs list
-json and store, questions_hash, judges, params, meter (ingest_calls,
ingest_tokens, ingest_embeds, query_calls, query_tokens, query_embeds),
failed_attempts, failed_questions, owner, queue (a run enqueued for
workers: {items, todo, claimed, expired, done, retaken, workers}) and
summaries: [{group ("" for all questions, else a task), questions,
failed, with_gold, no_gold, recall_flat, all_all, all_any, any_all,
any_any, mrr, ndcg, metrics: [{name, column, kind, mean, n, failed}]}];
an undefined mean is null.`,
					run: func(c cmdIO, a []string) error { return redacted(c, a, runsShow) }},
				{name: "diff", args: "RUN_A RUN_B",
					short: "Compare two runs: paired means and the questions that changed",
					long: `runs diff RUN_A RUN_B prints the paired mean of every metric and the
questions that changed, worst regressions first (-max N of them, 0 =
all).`,
					run: func(c cmdIO, a []string) error { return redacted(c, a, runsDiff) }},
				{name: "export", args: "RUN...",
					short: "Export the records of one or more runs as CSV or JSONL",
					long: `runs export RUN... writes the records of the runs as CSV (one row per
question of each run, a run_id column first, scores as columns with
snake_case names, undefined ones empty; see reports.WriteRunsCSV) or
JSONL (the full records, each with its run_id), to stdout or -o FILE.
-format clonemem, knowme or locomo writes one RUN as its benchmark's
official scorer reads it, from the run's dataset (-data PATH, the same
fingerprint): CloneMem's results file per persona and LoCoMo's qa file
per conversation (predictions under -key, default memlab) into the
directory -o, KnowMe-Bench's judge input to -o FILE or stdout; failed
records are left out (docs/formats.md).`,
					run: func(c cmdIO, a []string) error { return redacted(c, a, runsExport) }},
			}},

		{name: "view",
			short: "Serve a web viewer of the run store for error analysis",
			long: `view serves a read-only web viewer of the run store ($MEMLAB_RUNS, else
runs.db beside the model call cache; -store PATH names another, a file
or postgres://USER@HOST/DB) on
-addr (default 127.0.0.1:8765, loopback only) until interrupted: the runs
with their status and means (tick two or more to compare), a run's
summary and breakdown tables with 95% bootstrap intervals and its
figures, and its questions filtered by task, dimension and outcome
(All-Any = 0, failed, abstained, an LLM judge's score <= 2), searched,
sorted and paginated, a question's record (the answer, every score with
the judge's explanation, calls, tokens and wall time by stage, the
passages given to the reader, the ranked retrieval; j and k go to the
next and previous question under the filter), and runs compared on a
metric (each one's mean with its interval, its paired difference against
the first with its test and Holm-adjusted p, the questions whose outcome
flipped with their rankings side by side). With -data PATH (repeatable; sample is the bundled sample) for a
run's dataset, a question also shows its text, reference answer, options
and gold evidence groups (each trace with its date and medium), and the
retrieved units holding gold traces are marked. It opens the store
read-only, so it can serve a store a run is writing: the runs page and
the page of a run in progress update themselves every 3 s. It keeps the
records of at most -max-records questions in memory (default 20000),
reading again from the store the runs it dropped. Its pages fetch
nothing from the network, escape every text of a dataset or a model and
never show a URL credential.`,
			run: func(c cmdIO, a []string) error { return cmdView(a, c.stderr) }},

		{name: "rejudge", args: "-data PATH -name NAME RUN",
			short: "Score a run's stored answers with another judge",
			long: `rejudge scores the stored answers of a run with another judge (the
judge role's endpoint, or -model), adding its verdicts under -name beside
the old ones, without answering again, and prints how the judges agree
(Cohen's and quadratic-weighted kappa).`,
			run: func(c cmdIO, a []string) error { return cmdRejudge(a, c.stdout, c.stderr) }},

		{name: "calibrate", args: "-data PATH",
			short: "Measure a judge against answers whose label is known",
			long: `calibrate measures a judge against answers whose label is known: it
builds the dataset's calibration set offline (runs.CalibrationSet: per
question with a reference answer, a paraphrase labelled right and
perturbations labelled wrong: another name, another number, a vague
non-answer, a commitment where the truth is unknown; -per-task N
questions per task, 0 = all; -seed S), asks the judge role's model (or
-model; -kind and -rubric as for rejudge) about each, and prints per set
a markdown table: sensitivity (wrong answers caught), specificity (right
answers kept), Cohen's kappa and the accuracy per kind. A score at or
above -threshold of the judge's scale (default 0.5) counts as "right";
failed verdicts are counted as failed, never scored. -human FILE.csv
(corpus_id,question_id,answer,label with label right or wrong)
calibrates on a person's labels too. -write FILE.csv writes the
generated set in that format, labels filled in, for a person to relabel,
and calls no model. Without -write it needs an endpoint: with none it
fails and says so.`,
			run: func(c cmdIO, a []string) error { return cmdCalibrate(a, c.stdout, c.stderr) }},

		{name: "reproduce", args: "MANIFEST", files: true,
			short: "Rerun a run manifest's notebook and compare the results",
			long: `reproduce reruns the notebook of MANIFEST (the NOTEBOOK.manifest.json
that run writes beside its outputs when runs were kept in the store)
with its parameters, in memory, and prints "identical" or every
difference, cell by cell (exit 1).`,
			run: func(c cmdIO, a []string) error { return cmdReproduce(a, c.stdout, c.stderr) }},

		{name: "kernel", args: "CONNECTION_FILE", files: true,
			short: "The Jupyter kernel (started by Jupyter through the kernelspec)",
			long: `kernel is the Jupyter kernel (JupyterLab, VS Code, nbclient start it
through the kernelspec): cells run exactly as under run, with the same
run store and cache; runs show their progress in the notebook. Cells run
in a worker process as under run: a crash fails the cell, and the
session restarts empty (-isolate=false: in the kernel process).`,
			run: func(c cmdIO, a []string) error { return cmdKernel(a, c.stderr) },
			subs: []*command{
				{name: "extend", args: "MODULE@VERSION...",
					short: "Build a memlab kernel that can also import the packages of other modules",
					long: `kernel extend builds a memlab binary whose kernel can also import the
packages of the given modules (MODULE@VERSION, as go get takes them): it
generates their yaegi symbol tables, builds cmd/memlab from memlab's
source with them (the go toolchain is needed; -src names the source when
the binary cannot find it) into -o BINARY (default: inside the
kernelspec directory) and installs it as kernelspec KERNELNAME (default
memlab-LAST, LAST the module's last path element). -list prints the
packages this binary's kernel has symbols for.`,
					run: func(c cmdIO, a []string) error { return cmdKernelExtend(a, c.stdout, c.stderr) }},
			}},

		{name: "repl", args: "[NOTEBOOK.go]", files: true,
			short: "An interactive session on the terminal",
			long: `repl is an interactive session on the terminal: cells run as under run
(same run store and cache, in a worker process) with line editing,
history across sessions ($MEMLAB_HISTORY, else memlab/history under the
user's config directory), multi-line input (a cell that is not complete
continues on the next line), Tab completion and ?name docs as in the
Jupyter kernel, the magics (%help, %env, %time, !cmd, %who), Ctrl-C
interrupting the running cell (not the REPL; at the prompt it drops the
line), and %save FILE.go writing the session's cells as a notebook. With
NOTEBOOK.go, its cells run first (-p applied as under run). Ctrl-D
quits.`,
			run: func(c cmdIO, a []string) error { return cmdRepl(a, c.stdin, c.stdout, c.stderr) }},

		{name: "install",
			short: "Install memlab's Jupyter kernelspec",
			long: `install writes the kernelspec of the kernel (kernel.json with this
binary's absolute path) into the user's Jupyter data directory, or under
-prefix P/share/jupyter.`,
			run: func(c cmdIO, a []string) error { return cmdInstall(a, c.stdout, c.stderr) }},

		{name: "cache",
			short: "Inspect or clear the model call cache (stats, clear)",
			long: `Model calls go through a durable cache: $MEMLAB_CACHE (an SQLite file
or a postgres:// URL), else the run store's PostgreSQL database when
$MEMLAB_RUNS or -store is a postgres:// URL, else the SQLite file
memlab/calls.db under the user cache directory; -path names another. A
corrupt cache stops a run with an error naming the file.`,
			subs: []*command{
				{name: "stats",
					short: "Show the cache's entries by kind and model",
					long: `cache stats shows the cache's entries, bytes, tokens and hits by kind
and model (read-only; with no cache yet it says so and exits 0). -json
prints one JSON document instead: {path, exists, file_bytes, total,
oldest, newest, by_kind, by_model}, each group {name, entries, bytes,
prompt_tokens, completion_tokens, hits}.`,
					run: func(c cmdIO, a []string) error { return cacheStats(a, c.stdout) }},
				{name: "clear",
					short: "Remove all entries, or those older than -older-than",
					long: `cache clear removes all entries or those older than -older-than, and
removes a cache file that is corrupt.`,
					run: func(c cmdIO, a []string) error { return cacheClear(a, c.stdout) }},
			}},

		{name: "config",
			short: "Show the model endpoint configuration, or convert a config file to TOML",
			long: `Endpoints come from OPENAI_BASE_URL / OPENAI_API_KEY or the config file
named by MEMLAB_CONFIG, a TOML file (format: see package llm); with
neither, notebooks run offline. The older line format ("[endpoint vllm]"
sections of "key = value" lines) is still read, with a message saying
how to convert it. After a run that called models, the calls, cache
hits, failures, tokens and estimated cost are printed per role and
model.`,
			subs: []*command{
				{name: "show", args: "[FILE]", files: true,
					short: "Print the effective configuration (no key is ever shown)",
					long: `config show prints the configuration memlab uses (FILE, else
$MEMLAB_CONFIG, else the environment) as TOML: endpoints, replicas,
limits, roles and prices. Keys are never shown: an endpoint's key is
named by its api_key_env, and an inline api_key is replaced by a comment
saying there is one.`,
					run: func(c cmdIO, a []string) error { return configShow(a, c.stdout, c.stderr) }},
				{name: "convert", args: "OLD [NEW.toml]", files: true,
					short: "Convert a config file of the old line format to TOML",
					long: `config convert reads a config file of the old line format and writes
its TOML equivalent to NEW.toml (default: OLD with the extension .toml;
"-" writes to stdout). It refuses to overwrite an existing file.
Comments are not carried over; an inline api_key is (keep the new file
out of version control, or move the key to a variable named by
api_key_env).`,
					run: func(c cmdIO, a []string) error { return configConvert(a, c.stdout, c.stderr) }},
			}},

		{name: "fake-openai",
			short: "Serve the in-repo fake OpenAI-compatible server, for smoke tests",
			long: `fake-openai serves the in-repo fake OpenAI-compatible server (scripted
answers, latency, faults) for smoke tests: point OPENAI_BASE_URL at it.`,
			run: func(c cmdIO, a []string) error { return cmdFakeOpenAI(a, c.stderr) }},

		{name: "components", args: "[SPEC...]",
			short: "List the components the catalog builds, or canonicalize specs",
			long: `components lists every component the catalog builds by name (package
catalog: memory systems, embedders, extractors, readers, judges) with
its knobs, their types, defaults and allowed values, and the model role
it needs, as a table (-kind keeps one kind). Given SPECs (of -kind,
default system), it prints each one's canonical string instead, or the
error naming the nearest valid names; a bad spec exits 1.`,
			run: func(c cmdIO, a []string) error { return cmdComponents(a, c.stdout) }},

		{name: "completion", args: "bash|zsh|fish",
			short: "Print a shell completion script",
			long: `completion prints a script that completes memlab's commands,
subcommands and flags (generated from the command table and each
command's flags, so it cannot go stale) and file names for their
arguments. Load it with, for bash: source <(memlab completion bash) (or
write it to /etc/bash_completion.d/memlab); zsh: memlab completion zsh >
"${fpath[1]}/_memlab"; fish: memlab completion fish >
~/.config/fish/completions/memlab.fish.`,
			run: func(c cmdIO, a []string) error { return cmdCompletion(a, c.stdout) }},

		{name: "version",
			short: "Print the version of memlab (also memlab --version)",
			long: `version prints the module version, VCS revision and Go version the
binary was built from (memlab --version prints the same).`,
			run: func(c cmdIO, a []string) error { return cmdVersion(a, c.stdout) }},

		{name: "help", args: "[COMMAND [SUBCOMMAND]]",
			short: "Help about any command",
			long: `help prints the help of a command (as memlab COMMAND -h does): its
description, usage line with the arguments named, subcommands and
flags, on stdout.`,
			run: func(c cmdIO, a []string) error {
				fs := flag.NewFlagSet("help", flag.ContinueOnError)
				pos, err := parseInterspersed(fs, a)
				if err != nil {
					return err
				}
				if code := helpCommand(pos, c); code != 0 {
					return exitCode(code)
				}
				return nil
			}},
	}
}

// redacted runs a runs subcommand with its output through a
// redactingWriter: no URL credential a store may hold is shown.
func redacted(c cmdIO, args []string, f func([]string, io.Writer) error) (err error) {
	rw := newRedactingWriter(c.stdout)
	defer func() {
		if cerr := rw.Close(); err == nil {
			err = cerr
		}
	}()
	return f(args, rw)
}
