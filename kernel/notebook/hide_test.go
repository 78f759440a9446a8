package notebook

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// runHidden runs testdata/hidden.go with the given options and returns the
// result and the .md and .html files.
func runHidden(t *testing.T, opts RunOptions) (*RunResult, string, string) {
	t.Helper()
	nb, err := Parse(filepath.Join("testdata", "hidden.go"))
	if err != nil {
		t.Fatal(err)
	}
	opts.OutDir = t.TempDir()
	opts.Symbols = []interp.Exports{stdlib.Symbols}
	opts.HTML = true
	res, err := Run(context.Background(), nb, opts)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(res.HTML)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(md), string(page)
}

// sourceHidden is metadata.jupyter.source_hidden (and outputs_hidden) of
// each code cell of a run's .ipynb.
func sourceHidden(t *testing.T, path string) (src, outs []bool) {
	t.Helper()
	for _, c := range readIpynb(t, path).Cells {
		if c.CellType != KindCode {
			continue
		}
		j, _ := c.Metadata[metaJupyter].(map[string]any)
		s, _ := j["source_hidden"].(bool)
		o, _ := j["outputs_hidden"].(bool)
		src, outs = append(src, s), append(outs, o)
	}
	return src, outs
}

// TestTagsHideInput: remove-input leaves a cell's source out of the .md
// and the .html, hide-input folds it in a <details> block, remove-output
// and remove-cell leave out the outputs and the cell; the .ipynb keeps
// every source, hidden as JupyterLab hides it, and converts back to the
// .go file.
func TestTagsHideInput(t *testing.T) {
	res, md, page := runHidden(t, RunOptions{})
	for _, doc := range []struct{ name, text string }{{"md", md}, {"html", page}} {
		if !strings.Contains(doc.text, `fmt.Println("shown source")`) && !strings.Contains(doc.text, `fmt.Println(&#34;shown source&#34;)`) {
			t.Errorf("%s: the untagged cell's source is missing", doc.name)
		}
		if strings.Contains(doc.text, `fmt.Println("removed source`) || strings.Contains(doc.text, `fmt.Println(&#34;removed source`) {
			t.Errorf("%s: the remove-input cell's source is there", doc.name)
		}
		if !strings.Contains(doc.text, "removed source") {
			t.Errorf("%s: the remove-input cell's output is missing", doc.name)
		}
		if !regexp.MustCompile(`(?s)<details[^>]*>\s*<summary>Code</summary>.*display\.Markdown`).MatchString(doc.text) {
			t.Errorf("%s: the hide-input cell's source is not in a <details> block", doc.name)
		}
		if regexp.MustCompile("(```\n|<pre class=\"stdout\">)output left out").MatchString(doc.text) || strings.Contains(doc.text, "cell left out") {
			t.Errorf("%s: a remove-output or remove-cell cell shows", doc.name)
		}
	}
	src, outs := sourceHidden(t, res.Ipynb)
	if want := []bool{false, true, true, false, true}; !equalBools(src, want) {
		t.Errorf("source_hidden = %v, want %v", src, want)
	}
	if want := []bool{false, false, false, true, true}; !equalBools(outs, want) {
		t.Errorf("outputs_hidden = %v, want %v", outs, want)
	}
	for _, c := range readIpynb(t, res.Ipynb).Cells {
		if c.CellType == KindCode && len(c.Source) == 0 {
			t.Errorf("a code cell lost its source in the .ipynb: %+v", c)
		}
	}
	b, err := os.ReadFile(res.Ipynb)
	if err != nil {
		t.Fatal(err)
	}
	validateIpynb(t, b)
	back, err := ParseIpynb(res.Ipynb, b)
	if err != nil {
		t.Fatal(err)
	}
	goSrc := back.Percent()
	want, _ := os.ReadFile(filepath.Join("testdata", "hidden.go"))
	if string(goSrc) != string(want) {
		t.Errorf("the run's .ipynb converts back to another .go file:\n%s", goSrc)
	}
}

// TestNoInput: RunOptions.HideInput (memlab run -no-input) leaves every
// code cell's source out of the reports and hides it in the .ipynb.
func TestNoInput(t *testing.T) {
	res, md, page := runHidden(t, RunOptions{HideInput: true})
	if strings.Contains(md, "```go") || strings.Contains(page, `class="language-go"`) {
		t.Errorf("-no-input left code in a report:\n%s", md)
	}
	if !strings.Contains(md, "shown source") || !strings.Contains(page, "shown source") {
		t.Errorf("-no-input dropped an output")
	}
	src, _ := sourceHidden(t, res.Ipynb)
	if want := []bool{true, true, true, true, true}; !equalBools(src, want) {
		t.Errorf("source_hidden = %v, want %v", src, want)
	}
}

// TestHTMLSafe: the HTML report runs and fetches nothing: a <script> in a
// markdown cell, a stream, a markdown display or an HTML display shows as
// text; event handlers and images from elsewhere are gone; tables and
// links render.
func TestHTMLSafe(t *testing.T) {
	_, _, page := runHidden(t, RunOptions{})
	low := strings.ToLower(page)
	for _, bad := range []string{"<script", "src=\"http", "<link", "@import", "<iframe"} {
		if strings.Contains(low, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if regexp.MustCompile(`<[^>]*\son[a-z]+=`).MatchString(low) {
		t.Errorf("the page holds an event handler attribute")
	}
	for _, want := range []string{
		"&lt;script&gt;alert(1)&lt;/script&gt;", // a stream
		"&lt;script&gt;x()&lt;/script&gt;",      // a markdown display
		"&lt;script&gt;evil()&lt;/script&gt;",   // an HTML display
		`<a href="https://example.org/x">link</a>`,
		"<em>emphasis</em>",
		`<th align="right">score</th>`,
		"<td>cell</td>",
		"<style>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
