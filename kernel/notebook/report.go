package notebook

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memlab/memlab/kernel"
)

// report renders a run as a Markdown report: title, parameters and run time,
// markdown cells verbatim (raw cells left out), code in ```go fences, streams in plain fences,
// markdown displays inline, PNGs as images next to the report, errors with
// their cell coordinate.
func report(res *RunResult) string {
	nb := res.Notebook
	var b strings.Builder
	title := nb.Title()
	fmt.Fprintf(&b, "# %s\n\n", title)
	titleDone := false // the heading the title came from is not repeated
	params := "none"
	if len(nb.Params) > 0 {
		keys := make([]string, 0, len(nb.Params))
		for k := range nb.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = "`" + k + "=" + nb.Params[k] + "`"
		}
		params = strings.Join(keys, ", ")
	}
	status := "ok"
	if res.Err != nil {
		status = "failed"
	}
	fmt.Fprintf(&b, "_Notebook `%s` · parameters: %s · ran %s · %s · %s_\n\n",
		filepath.Base(nb.Path), params, res.Started.UTC().Format(time.RFC3339), res.Duration.Round(time.Millisecond), status)

	for i, c := range nb.Cells {
		v := res.view(&c)
		if !v.cell {
			continue
		}
		if c.Kind == KindMarkdown {
			src := c.Source
			if !titleDone {
				src, titleDone = dropHeading(src, title)
			}
			if src = strings.Trim(src, "\n"); src != "" {
				b.WriteString(src + "\n\n")
			}
			continue
		}
		if c.Kind != KindCode { // a raw cell is neither run nor rendered
			continue
		}
		switch v.input {
		case inputShown:
			b.WriteString(fence(c.Source, "go"))
		case inputFolded:
			b.WriteString("<details>\n<summary>Code</summary>\n\n" + fence(c.Source, "go") + "</details>\n\n")
		}
		r := res.Results[i]
		if r == nil {
			b.WriteString("_(not executed)_\n\n")
			continue
		}
		if !v.outputs {
			if r.Err == nil {
				continue
			}
			r = &kernel.CellResult{Err: r.Err} // an error is never hidden
		}
		for _, o := range r.Outputs {
			switch o.Kind {
			case kernel.OutStdout:
				b.WriteString(fence(o.Text, ""))
			case kernel.OutStderr:
				b.WriteString("stderr:\n\n" + fence(o.Text, ""))
			case kernel.OutDisplay:
				d := o.Display
				switch {
				case d.PNG != nil || d.SVG != nil:
					fmt.Fprintf(&b, "![%s](%s)\n\n", d.Name, d.Name)
				case d.Markdown != "":
					b.WriteString(strings.TrimRight(d.Markdown, "\n") + "\n\n")
				case d.HTML != "":
					b.WriteString(strings.TrimRight(d.HTML, "\n") + "\n\n")
				default:
					b.WriteString(fence(d.Text, ""))
				}
			}
		}
		if r.Value != "" {
			fmt.Fprintf(&b, "Out[%d]:\n\n%s", r.Count, fence(r.Value, ""))
		}
		if r.Err != nil {
			_, _, tb := kernel.ErrorParts(r.Err)
			b.WriteString("**Error**\n\n" + fence(strings.Join(tb, "\n"), ""))
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// How a report shows a code cell's source.
const (
	inputShown   = iota
	inputFolded  // in a <details> block (TagHideInput)
	inputRemoved // left out (TagRemoveInput, RunOptions.HideInput)
)

// cellView is what the writers show of a cell.
type cellView struct {
	cell    bool // the cell is in the reports at all (not TagRemoveCell)
	input   int  // inputShown, inputFolded or inputRemoved
	outputs bool // its outputs are shown (not TagRemoveOutput)
}

// view is what the writers show of cell c: its tags (TagRemoveInput,
// TagHideInput, TagRemoveOutput, TagRemoveCell) and the run's HideInput.
func (res *RunResult) view(c *Cell) cellView {
	v := cellView{cell: true, input: inputShown, outputs: true}
	switch {
	case c.HasTag(TagRemoveCell):
		return cellView{cell: false, input: inputRemoved, outputs: false}
	case c.HasTag(TagRemoveInput) || res.HideInput:
		v.input = inputRemoved
	case c.HasTag(TagHideInput):
		v.input = inputFolded
	}
	if c.HasTag(TagRemoveOutput) {
		v.outputs = false
	}
	return v
}

// dropHeading removes the first heading line of src if its text is title.
func dropHeading(src, title string) (string, bool) {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "#") {
			if strings.TrimSpace(strings.TrimLeft(t, "#")) != title {
				return src, false
			}
			return strings.Join(append(lines[:i:i], lines[i+1:]...), "\n"), true
		}
	}
	return src, false
}

// fence wraps text in a code fence longer than any backtick run inside it.
func fence(text, lang string) string {
	n := 3
	run := 0
	for _, r := range text {
		if r == '`' {
			run++
			if run >= n {
				n = run + 1
			}
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f + "\n\n"
}
