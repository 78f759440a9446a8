//go:build ignore

// A notebook in jupytext's own percent conventions, for the conversion
// tests: a parameters cell as jupytext writes it, a raw cell, a titled
// markdown cell, tags and metadata on marker lines.

// %% Introduction [markdown]
// # Notebooks travel
//
// Text with `code`, a [link](https://example.org) and a list:
//
// * one
// * two

// %% tags=["parameters"]
name := "travel"
n := 3

// %% [raw]
// A raw cell: neither run nor rendered.
//   kept as it is

// %% Setup tags=["setup", "io"] active="ipynb,go"
import "fmt"

// %%
fmt.Println(name, n)


// %% [markdown] tags=["note"]
// Two blank lines above this cell, none below.
// %%
//no space after the slashes in a code comment
fmt.Println("é ✓")
