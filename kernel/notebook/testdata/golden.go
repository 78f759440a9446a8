//go:build ignore

// A fixed notebook whose .ipynb and report bytes are pinned by
// TestGoldenOutputs: every kind of output, parameters, an error and a cell
// after it that does not run.

// %% [markdown]
// # Golden notebook
//
// Text with <angle brackets> & an ampersand, kept as is.

// %% [parameters]
n := 2
name := "world"
ratio := 0.5
loud := false

// %% Streams tags=["io"]
import (
	"fmt"
	"os"
)

fmt.Printf("hello %s %d %g %v\n", name, n, ratio, loud)
fmt.Fprintln(os.Stderr, "a warning <b>")
fmt.Println("é, 日本, `ticks` ```")

// %%
import (
	"bytes"
	"image"
	"image/png"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/display"
)

display.Markdown("## Section\n\n| n | name |\n|---|---|\n| " + fmt.Sprint(n) + " | " + name + " |")
display.HTML("<b>bold</b> & more", "bold & more")
display.Text("plain\ntext")
tbl := analysis.Table{Header: []string{"k", "v"}}
tbl.AddRow([]string{"a", "1"})
display.Table(tbl)
var buf bytes.Buffer
if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
	panic(err)
}
if err := display.PNG("dot.png", buf.Bytes()); err != nil {
	panic(err)
}
if err := display.SVG("box.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"></svg>`)); err != nil {
	panic(err)
}
live := display.NewLive()
live.Markdown("step 1")
live.Markdown("step 2")
fmt.Println("after the displays")
"<value> & \"quotes\"\nsecond line"

// %% [markdown]
// ## A markdown cell between code cells

// %%

// %% tags=["fails"]
var s []int
fmt.Println("before the error")
s[n] = 1

// %%
fmt.Println("never")
