//go:build ignore

// A notebook whose cells hide their source by tag, for the reports' tests.

// %% [markdown]
// # Hidden code
//
// A table, a [link](https://example.org/x) and *emphasis*; a dataset's
// <script>alert("md")</script> stays text.

// %%
import "fmt"

fmt.Println("shown source")

// %% tags=["remove-input"]
fmt.Println("removed source <script>alert(1)</script>")

// %% tags=["hide-input"]
import "github.com/memlab/memlab/display"

display.Markdown("| system | score |\n| --- | ---: |\n| a<script>x()</script> | 0.5 |")
display.HTML("<table><tr><td onclick=\"evil()\">cell</td></tr></table><script>evil()</script><img src=\"http://example.org/t.png\">", "")

// %% tags=["remove-output"]
fmt.Println("output left out")

// %% tags=["remove-cell"]
fmt.Println("cell left out")
