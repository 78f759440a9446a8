// Command memlab runs long-term-memory experiments written as notebooks.
//
// Usage:
//
//	memlab run [-o DIR] [-p name=value]... [-store FILE | -no-store] [-quiet] [-isolate=false] [-dry-run] NOTEBOOK.go|NOTEBOOK.ipynb
//	memlab convert [-to go|ipynb] [-outputs] NOTEBOOK [OUT]
//	memlab sweep [-o DIR] -p name=v1,v2... [-store FILE | -no-store] [-quiet] NOTEBOOK.go
//	memlab datasets validate [-strict] [-max N] PATH
//	memlab datasets stats PATH
//	memlab datasets errata PATH ERRATA.csv
//	memlab runs list [-store PATH]
//	memlab runs show [-store PATH] RUN
//	memlab runs diff [-store PATH] [-max N] RUN_A RUN_B
//	memlab runs export [-store PATH] [-format csv|jsonl] [-o FILE] RUN
//	memlab rejudge [-store FILE] -data PATH -name NAME [-kind knowme|clonemem] [-model M] [-rubric FILE] RUN
//	memlab calibrate -data PATH [-per-task N] [-seed S] [-write FILE.csv] [-human FILE.csv] [-kind knowme|clonemem] [-model M] [-rubric FILE] [-threshold T] [-workers N]
//	memlab reproduce [-o DIR] MANIFEST
//	memlab kernel [-store FILE | -no-store] [-quiet] [-isolate=false] CONNECTION_FILE
//	memlab kernel extend [-o BINARY] [-name KERNELNAME] [-prefix P] [-src DIR] MODULE@VERSION... | -list
//	memlab repl [-p name=value]... [-o DIR] [-store FILE | -no-store] [-quiet] [-isolate=false] [NOTEBOOK.go]
//	memlab install [--user | --prefix P] [--name N]
//	memlab cache stats|clear [-older-than D] [-path FILE]
//	memlab fake-openai [-addr HOST:PORT] [server options]
//	memlab components [-kind KIND] [-format markdown|csv] [SPEC...]
//	memlab version
//
// run executes a notebook (Go source with jupytext "percent" cell markers,
// `// %%`, or a Jupyter .ipynb whose code cells are Go) cell by cell in the
// memlab interpreter, echoing each cell's output, and writes NOTEBOOK.ipynb
// (nbformat 4, with outputs) and NOTEBOOK.md (a markdown report) next to
// the notebook or under -o DIR (X.out.ipynb and X.out.md where a run of
// X.ipynb would overwrite it). The cells run in the notebook's directory, as
// Jupyter runs a notebook's kernel: relative paths in cells and in -p values
// resolve against it. -p overrides a variable assigned in the parameters
// cell (`// %% tags=["parameters"]` as jupytext writes it, or
// `// %% [parameters]`; in an .ipynb the cell tagged "parameters", as for
// papermill); a name that is not assigned there is an error. A cell error stops the run (later cells are
// not executed), the outputs are still written, and memlab exits 1. Ctrl-C
// (SIGINT) and SIGTERM (timeout, systemd, kill) interrupt the running cell
// the same way: stderr names the signal, the outputs so far are written
// and memlab exits 1. Every run a notebook makes (runs.Run, runs.Evaluate)
// is kept in the run store: each question's record is written when it
// completes, and running the notebook again resumes (completed records
// reused, failed steps done again); -no-store keeps results in memory only. Progress goes to stderr: a bar on a
// terminal, else a line every 10 s; -quiet turns it off. The cells run in a
// worker process (this binary re-executed, see package kernel/worker), so
// that a cell crashing the interpreter (a panic in a goroutine it started)
// fails as that cell's error and the outputs are still written;
// -isolate=false runs them in the memlab process itself. -dry-run asks
// nothing (every model call of the process is refused, cache hits and calls
// outside runs included, and the endpoints are not checked): each run
// the notebook makes estimates what it would spend per stage (ingest,
// retrieve, read, judge: calls, prompt tokens, completion bound, texts
// embedded, and the cost when the config prices the model; exact, a range
// or a lower bound, see runs.EstimateRun), the table is printed at the end
// with the calls refused outside runs and one total (reports.DryRun), and the
// estimates are written to NOTEBOOK.estimate.json. After a real run that called
// models, what each stage spent is printed from the runs' records.
//
// convert turns a .go notebook into an .ipynb (no outputs; memlab's
// kernelspec) and an .ipynb into a .go notebook in jupytext's percent
// format: cells, markdown, raw cells, titles, tags, parameters and cell
// metadata are kept, and a .go file converted to .ipynb and back is the
// same bytes (what the .go form needs is stored in the .ipynb's metadata,
// see notebook.Notebook.Percent). OUT defaults to NOTEBOOK with the other
// extension; -to names the format (OUT "-" writes to stdout); -outputs
// keeps an .ipynb's outputs when writing .ipynb.
//
// sweep runs a notebook once per point of the grid of its -p axes (each a
// parameter of the notebook with comma-separated values), writing each
// point's outputs under DIR/name=value,... (DIR defaults to sweep-NAME beside
// the notebook) and the combined table of every run made, one row per run
// with the point's parameters, to stdout, DIR/sweep.md and DIR/sweep.csv.
//
// datasets validate loads a dataset (a CloneMem persona file or directory, a
// KnowMe-Bench dataset directory; the format is detected) and prints its
// counts and validation report: every defect with its file and JSON path.
// It exits 0 when the dataset loads, even with defects, unless -strict is
// given; it exits 1 when the dataset cannot be loaded. datasets stats prints
// counts by task, type, dimension and medium, the time span and a token
// estimate. datasets errata applies an errata file (CSV
// corpus_id,question_id,action,field,value,reason, see datasets.ReadErrata)
// to the dataset and prints what each erratum excluded or patched and the
// counts; a bad file or an erratum naming no question exits 1 with the
// error naming FILE:LINE. PATH "sample" names the bundled sample.
//
// runs reads the run store ($MEMLAB_RUNS, else runs.db beside the model
// call cache; -store PATH names another), where every run keeps its spec
// and one record per question: runs list shows each run's id, label,
// dataset, system, k, progress and code version; runs show RUN its spec,
// sessions, spending and summary tables; runs diff RUN_A RUN_B the paired
// mean of every metric and the questions that changed, worst regressions
// first (-max N of them, 0 = all); runs export RUN writes its records as
// CSV (one row per question, scores as columns, undefined ones empty) or
// JSONL (the full records), to stdout or -o FILE. RUN is a run id, a unique
// id prefix of at least 4 characters, or a label. These commands never
// create a store nor write to one: they open it read-only, so a store on
// read-only media can be read (writing to it, e.g. memlab run, fails
// saying it is read-only).
//
// Model calls go through a durable SQLite cache ($MEMLAB_CACHE, else
// memlab/calls.db under the user cache directory): cache stats shows its
// entries by kind and model (read-only; with no cache yet it says so and
// exits 0), cache clear removes all entries or those older than
// -older-than, and removes a cache file that is corrupt. A corrupt cache
// stops a run with an error naming the file. Endpoints come from OPENAI_BASE_URL / OPENAI_API_KEY or
// the config file named by MEMLAB_CONFIG (format: see package llm); with
// neither, notebooks run offline. After a run that called models, the calls,
// cache hits, failures, tokens and estimated cost are printed per role and
// model.
//
// rejudge scores the stored answers of a run with another judge (the judge
// role's endpoint, or -model), adding its verdicts under -name beside the
// old ones, without answering again, and prints how the judges agree
// (Cohen's and quadratic-weighted kappa).
//
// calibrate measures a judge against answers whose label is known: it
// builds the dataset's calibration set offline (runs.CalibrationSet: per
// question with a reference answer, a paraphrase labelled right and
// perturbations labelled wrong: another name, another number, a vague
// non-answer, a commitment where the truth is unknown; -per-task N
// questions per task, 0 = all; -seed S), asks the judge role's model (or
// -model; -kind and -rubric as for rejudge) about each, and prints per
// set a markdown table: sensitivity (wrong answers caught), specificity
// (right answers kept), Cohen's kappa and the accuracy per kind. A score
// at or above -threshold of the judge's scale (default 0.5) counts as
// "right"; failed verdicts are counted as failed, never scored. -human
// FILE.csv (corpus_id,question_id,answer,label with label right or wrong)
// calibrates on a person's labels too. -write FILE.csv writes the
// generated set in that format, labels filled in, for a person to relabel,
// and calls no model. Without -write it needs an endpoint: with none it
// fails and says so.
//
// run writes NOTEBOOK.manifest.json beside its outputs when runs were kept
// in the store: every run's spec, means and records. reproduce reruns the
// manifest's notebook with its parameters, in memory, and prints
// "identical" or every difference, cell by cell (exit 1).
//
// kernel is the Jupyter kernel (JupyterLab, VS Code, nbclient start it
// through the kernelspec): cells run exactly as under run, with the same
// run store and cache; runs show their progress in the notebook. Cells run
// in a worker process as under run: a crash fails the cell, and the session
// restarts empty (-isolate=false: in the kernel process). install
// writes that kernelspec (kernel.json with this binary's absolute path) into
// the user's Jupyter data directory, or under --prefix P/share/jupyter.
//
// kernel extend builds a memlab binary whose kernel can also import the
// packages of the given modules (MODULE@VERSION, as go get takes them):
// it generates their yaegi symbol tables, builds cmd/memlab from memlab's
// source with them (the go toolchain is needed; -src names the source when
// the binary cannot find it) into -o BINARY (default: inside the
// kernelspec directory) and installs it as kernelspec KERNELNAME (default
// memlab-LAST, LAST the module's last path element). -list prints the
// packages this binary's kernel has symbols for.
// repl is an interactive session on the terminal: cells run as under run
// (same run store and cache, in a worker process) with line editing,
// history across sessions ($MEMLAB_HISTORY, else memlab/history under the
// user's config directory), multi-line input (a cell that is not complete
// continues on the next line), Tab completion and ?name docs as in the
// Jupyter kernel, the magics (%help, %env, %time, !cmd, %who), Ctrl-C
// interrupting the running cell (not the REPL; at the prompt it drops the
// line), and %save FILE.go writing the session's cells as a notebook. With
// NOTEBOOK.go, its cells run first (-p applied as under run). Ctrl-D quits.
//
// fake-openai serves the in-repo fake OpenAI-compatible server (scripted
// answers, latency, faults) for smoke tests: point OPENAI_BASE_URL at it.
//
// components lists every component the catalog builds by name (package
// catalog: memory systems, embedders, extractors, readers, judges) with
// its knobs, their types, defaults and allowed values, and the model role
// it needs, as a table (-kind keeps one kind). Given SPECs (of -kind,
// default system), it prints each one's canonical string instead, or the
// error naming the nearest valid names; a bad spec exits 1.
//
// Errors are printed once, as "memlab <command>: <error>". Usage errors exit 2.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/memlab/memlab/kernel/worker"
)

// usageError marks an error in the command line itself (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

const usage = `usage:
  memlab run [-o DIR] [-p name=value]... [-store FILE | -no-store] [-quiet] [-isolate=false] [-dry-run] NOTEBOOK.go|NOTEBOOK.ipynb
  memlab convert [-to go|ipynb] [-outputs] NOTEBOOK.go|NOTEBOOK.ipynb [OUT]
  memlab sweep [-o DIR] -p name=v1,v2... [-store FILE | -no-store] [-quiet] NOTEBOOK.go
  memlab grid [-data PATH] -p AXIS=V1,V2... [-system S] [-reader R] [-judge J] [-k K] [-baseline AXIS=V]
              [-tidy FILE.csv] [-store FILE | -no-store] [-quiet] [-dry-run]
  memlab datasets validate [-strict] [-max N] PATH
  memlab datasets stats PATH
  memlab datasets errata PATH ERRATA.csv
  memlab runs list [-store PATH]
  memlab runs show [-store PATH] RUN
  memlab runs diff [-store PATH] [-max N] RUN_A RUN_B
  memlab runs export [-store PATH] [-format csv|jsonl] [-o FILE] RUN
  memlab rejudge [-store FILE] -data PATH -name NAME [-kind knowme|clonemem] [-model M] [-rubric FILE] RUN
  memlab calibrate -data PATH [-per-task N] [-seed S] [-write FILE.csv] [-human FILE.csv] [-kind knowme|clonemem]
                   [-model M] [-rubric FILE] [-threshold T] [-workers N]
  memlab reproduce [-o DIR] MANIFEST
  memlab kernel [-store FILE | -no-store] [-quiet] [-isolate=false] CONNECTION_FILE
  memlab kernel extend [-o BINARY] [-name KERNELNAME] [-prefix P] [-src DIR] MODULE@VERSION... | -list
  memlab repl [-p name=value]... [-o DIR] [-store FILE | -no-store] [-quiet] [-isolate=false] [NOTEBOOK.go]
  memlab install [--user | --prefix P] [--name N]
  memlab cache stats|clear [-older-than D] [-path FILE]
  memlab fake-openai [-addr HOST:PORT] [server options, see -h]
  memlab components [-kind KIND] [-format markdown|csv] [SPEC...]
  memlab version
`

func main() {
	if worker.IsWorker() {
		os.Exit(workerMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

// realMain runs the command and returns the exit status.
func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "run":
		err = cmdRun(rest, stdout, stderr)
	case "convert":
		err = cmdConvert(rest, stdout, stderr)
	case "datasets":
		err = cmdDatasets(rest, stdout)
		if len(rest) > 0 {
			cmd += " " + rest[0]
		}
	case "sweep":
		err = cmdSweep(rest, stdout, stderr)
	case "grid":
		err = cmdGrid(rest, stdout, stderr)
	case "runs":
		err = cmdRuns(rest, stdout)
		if len(rest) > 0 {
			cmd += " " + rest[0]
		}
	case "cache":
		err = cmdCache(rest, stdout)
		if len(rest) > 0 {
			cmd += " " + rest[0]
		}
	case "rejudge":
		err = cmdRejudge(rest, stdout, stderr)
	case "calibrate":
		err = cmdCalibrate(rest, stdout, stderr)
	case "reproduce":
		err = cmdReproduce(rest, stdout, stderr)
	case "kernel":
		if len(rest) > 0 && rest[0] == "extend" {
			cmd += " extend"
			err = cmdKernelExtend(rest[1:], stdout, stderr)
			break
		}
		err = cmdKernel(rest, stderr)
	case "repl":
		err = cmdRepl(rest, os.Stdin, stdout, stderr)
	case "install":
		err = cmdInstall(rest, stdout, stderr)
	case "fake-openai":
		err = cmdFakeOpenAI(rest, stderr)
	case "components":
		err = cmdComponents(rest, stdout)
	case "version":
		err = cmdVersion(stdout)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = usagef("unknown command %q", cmd)
	}
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "memlab %s: %v\n", cmd, err)
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprint(stderr, usage)
		return 2
	}
	return 1
}

// parseInterspersed parses flags that may come before or after positional
// arguments (`memlab run nb.go -p x=1`), returning the positionals.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
