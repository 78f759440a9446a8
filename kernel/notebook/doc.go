// Package notebook holds memlab's notebook files and their runner: the
// percent-format file format (Parse, ParseSource, Notebook, Cell), the
// papermill-style parameters (ApplyParams), and Run, which executes a
// notebook in a fresh interpreter session and writes a Jupyter .ipynb and a
// Markdown report. It is what `memlab run`, `memlab sweep` and
// `memlab reproduce` run.
//
// # Notebook files
//
// A notebook is a Go file in jupytext's "percent" format:
//
//	//go:build ignore
//
//	// %% [markdown]
//	// # Title
//	// Some text.
//
//	// %% [parameters]
//	n := 100
//	name := "clonemem"
//
//	// %%
//	fmt.Println(name, n)
//
// Lines before the first "// %%" marker form a header that is not a cell.
// "// %% tags=["parameters"]" (jupytext) marks the parameters cell too.
// ApplyParams overrides parameters papermill-style by inserting an
// "injected-parameters" cell after the parameters cell.
//
// # Runner
//
// Run executes the code cells in order in a fresh kernel.Session (or the
// kernel.Executor that RunOptions.NewExecutor makes, such as a worker
// process), stops at the first error and writes <base>.ipynb (nbformat 4.5,
// the same MIME bundles the Jupyter kernel publishes) and <base>.md (a
// report) into the output directory. For the same notebook, results, start
// time and duration the two files are the same bytes (TestGoldenOutputs).
//
// # Imports
//
// notebook imports package kernel (the session it runs cells in). It must
// not import kernel/jupyter or kernel/worker (an executor in another
// process comes in through RunOptions.NewExecutor), stdlib (the symbol
// tables come in RunOptions.Symbols), cmd/memlab, nor the domain packages
// (datasets, retrieval, generate, judge, runs, llm, analysis): what a
// notebook computes reaches it only as cell output. Package kernel must not
// import it.
package notebook
