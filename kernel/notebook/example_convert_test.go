package notebook_test

import (
	"fmt"

	"github.com/memlab/memlab/kernel/notebook"
)

// A .go notebook converted to .ipynb and back is the same bytes, memlab's
// "// %% [parameters]" spelling included; the .ipynb tags the cell
// "parameters", as papermill and Jupyter expect.
func ExampleNotebook_Convert() {
	src := "//go:build ignore\n\n// %% [markdown]\n// # Title\n\n// %% [parameters]\nn := 1\n\n// %%\nfmt.Println(n)\n"
	nb, err := notebook.ParseSource("nb.go", []byte(src))
	if err != nil {
		panic(err)
	}
	ipy, err := nb.Convert(notebook.FormatIpynb, notebook.IpynbOptions{})
	if err != nil {
		panic(err)
	}
	back, err := notebook.ParseIpynb("nb.ipynb", ipy)
	if err != nil {
		panic(err)
	}
	fmt.Println(back.Cells[1].Tags)
	goSrc, err := back.Convert(notebook.FormatGo, notebook.IpynbOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(goSrc) == src)
	// Output:
	// [parameters]
	// true
}
