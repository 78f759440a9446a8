// Package notebook holds memlab's notebook files and their runner: the
// percent-format file format (Parse, ParseSource, Notebook, Cell), Jupyter
// notebooks (ParseIpynb), the conversions between the two (Convert,
// Percent, Ipynb, ConvertFile), the papermill-style parameters
// (ApplyParams), and Run, which executes a notebook in a fresh interpreter
// session and writes a Jupyter .ipynb and a Markdown report. It is what
// `memlab run`, `memlab convert`, `memlab sweep` and `memlab reproduce` run.
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
//	// %% tags=["parameters"]
//	n := 100
//	name := "clonemem"
//
//	// %% [raw]
//	// Neither run nor rendered.
//
//	// %%
//	fmt.Println(name, n)
//
// Lines before the first "// %%" marker form a header that is not a cell.
// A marker is read as jupytext reads it: "// %% Title [markdown]
// key=value ...", with the cell type ([markdown], [md], [raw]) anywhere in
// the title and JSON values (tags=["a", "b"]); memlab's own
// "// %% [parameters]" marks the parameters cell too. ApplyParams overrides
// parameters papermill-style by inserting an "injected-parameters" cell
// after the parameters cell.
//
// # Jupyter notebooks and conversions
//
// Parse reads an .ipynb (nbformat 4) too: code cells are Go cells, the
// cell tagged "parameters" is the parameters cell, and the cells keep
// their metadata. Convert writes a notebook as .ipynb or as .go; a .go
// file converted to .ipynb and back is the same bytes, because what the
// .go form has beyond the cells (header, marker spelling, blank lines,
// comment style, line endings) is kept in the .ipynb's metadata, as
// jupytext keeps lines_to_next_cell (see Notebook.Percent). Outputs are
// dropped unless IpynbOptions.Outputs.
//
// # Runner
//
// Run executes the code cells in order in a fresh kernel.Session (or the
// kernel.Executor that RunOptions.NewExecutor makes, such as a worker
// process) in the notebook's directory (RunOptions.WorkDir), where
// Jupyter starts a notebook's kernel, so that relative paths name the same
// files in both; it stops at the first error and writes <base>.ipynb (nbformat 4.5,
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
