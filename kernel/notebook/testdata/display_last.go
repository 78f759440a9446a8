//go:build ignore

// %% [markdown]
// Cells that end in a display call show the display and no Out value.

// %%
import (
	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/display"
)

dataset := []string{"the-whole-dataset"}

// %%
display.Markdown("## heading")

// %%
t := analysis.Table{Header: []string{"k"}}
t.AddRow([]string{"1"})
display.Table(t)

// %%
len(dataset)
