package notebook

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// roundTripFiles are the committed .go notebooks: the repository's, this
// package's test notebooks (travel.go in jupytext's conventions,
// travel_crlf.go with CRLF line endings, no final newline and lines
// Percent would write otherwise) and cmd/memlab's.
func roundTripFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"../../notebooks/*.go", "testdata/*.go", "../../cmd/memlab/testdata/*.go"} {
		names, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, names...)
	}
	if len(out) < 20 {
		t.Fatalf("only %d notebooks found", len(out))
	}
	return out
}

// TestPercentRoundTrip converts every committed notebook .go -> .ipynb ->
// .go and wants the same bytes, and the .ipynb to read back as the same
// cells; nbformat (when installed) validates each .ipynb.
func TestPercentRoundTrip(t *testing.T) {
	dir := t.TempDir()
	var written []string
	for _, path := range roundTripFiles(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		nb, err := ParseSource(path, src)
		if err != nil {
			t.Fatal(err)
		}
		if got := nb.Percent(); !bytes.Equal(got, src) {
			t.Errorf("%s: Percent of the parsed file differs:\n%s", path, firstDiff(got, src))
			continue
		}
		ipy, err := nb.Convert(FormatIpynb, IpynbOptions{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		back, err := ParseIpynb(path+".ipynb", ipy)
		if err != nil {
			t.Fatalf("%s: the .ipynb does not read back: %v", path, err)
		}
		if len(back.Cells) != len(nb.Cells) {
			t.Fatalf("%s: %d cells, %d after .ipynb", path, len(nb.Cells), len(back.Cells))
		}
		for i := range nb.Cells {
			if !sameCell(&nb.Cells[i], &back.Cells[i]) {
				t.Errorf("%s: cell %d: %+v, after .ipynb %+v", path, i+1, nb.Cells[i], back.Cells[i])
			}
		}
		got, err := back.Convert(FormatGo, IpynbOptions{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !bytes.Equal(got, src) {
			t.Errorf("%s: .go -> .ipynb -> .go differs:\n%s", path, firstDiff(got, src))
		}
		p := filepath.Join(dir, strings.NewReplacer("/", "_", ".", "_").Replace(path)+".ipynb")
		if err := os.WriteFile(p, ipy, 0o644); err != nil {
			t.Fatal(err)
		}
		written = append(written, p)
	}
	validateWithNbformat(t, written...)
}

// firstDiff shows where two texts part.
func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-40)
	return "got  ..." + strings.ReplaceAll(string(got[lo:min(len(got), i+40)]), "\n", `\n`) +
		"\nwant ..." + strings.ReplaceAll(string(want[lo:min(len(want), i+40)]), "\n", `\n`)
}

// validateWithNbformat checks .ipynb files with nbformat (Debian's
// python3-nbformat); it logs and returns when nbformat is missing.
func validateWithNbformat(t *testing.T, paths ...string) {
	t.Helper()
	const py = "/usr/bin/python3" // Debian's, where python3-nbformat installs
	if err := exec.Command(py, "-c", "import nbformat").Run(); err != nil {
		t.Logf("not validated: %s with nbformat not available (apt-get install -y python3-nbformat): %v", py, err)
		return
	}
	args := append([]string{"-c", "import nbformat,sys\nfor p in sys.argv[1:]:\n  nbformat.validate(nbformat.read(p, as_version=4))"}, paths...)
	if out, err := exec.Command(py, args...).CombinedOutput(); err != nil {
		t.Errorf("nbformat rejects a written .ipynb: %v\n%s", err, out)
	}
}

// TestJupytextConventions reads the percent format as jupytext writes it
// and writes a notebook made in Jupyter (no recorded layout) as jupytext
// does.
func TestJupytextConventions(t *testing.T) {
	nb, err := Parse(filepath.Join("testdata", "travel.go"))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		kind, title string
		tags        []string
		meta        map[string]any
	}
	wants := []want{
		{KindMarkdown, "Introduction", nil, nil},
		{KindCode, "", []string{TagParameters}, nil},
		{KindRaw, "", nil, nil},
		{KindCode, "Setup", []string{"setup", "io"}, map[string]any{"active": "ipynb,go"}},
		{KindCode, "", nil, nil},
		{KindMarkdown, "", []string{"note"}, nil},
		{KindCode, "", nil, nil},
	}
	if len(nb.Cells) != len(wants) {
		t.Fatalf("%d cells, want %d", len(nb.Cells), len(wants))
	}
	for i, w := range wants {
		c := &nb.Cells[i]
		if !sameCell(c, &Cell{Kind: w.kind, Title: w.title, Tags: w.tags, Metadata: w.meta, Source: c.Source}) {
			t.Errorf("cell %d: %+v, want %+v", i+1, c, w)
		}
	}
	if s := nb.Cells[2].Source; s != "A raw cell: neither run nor rendered.\n  kept as it is" {
		t.Errorf("raw cell source %q", s)
	}
	if nb.paramCell() != 1 {
		t.Errorf("parameters cell %d, want 1 (tags=[\"parameters\"])", nb.paramCell())
	}
	if err := nb.ApplyParams(map[string]string{"n": "4"}); err != nil {
		t.Errorf("ApplyParams on a jupytext parameters cell: %v", err)
	}

	// A notebook made in Jupyter: no layout recorded.
	ipy := `{"cells": [
	 {"cell_type": "markdown", "metadata": {}, "source": ["# T\n", "\n", "text"]},
	 {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": "x := 1", "outputs": [], "execution_count": 3},
	 {"cell_type": "raw", "metadata": {"format": "text/markdown"}, "source": "raw é"},
	 {"cell_type": "code", "metadata": {"title": "Use", "collapsed": true}, "source": ["fmt.Println(x)"], "outputs": [], "execution_count": null}
	], "metadata": {"kernelspec": {"name": "memlab", "display_name": "Go (memlab)", "language": "go"}}, "nbformat": 4, "nbformat_minor": 4}`
	j, err := ParseIpynb("j.ipynb", []byte(ipy))
	if err != nil {
		t.Fatal(err)
	}
	got, err := j.Convert(FormatGo, IpynbOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantGo := DefaultHeader + `// %% [markdown]
// # T
//
// text

// %% tags=["parameters"]
x := 1

// %% [raw] format="text/markdown"
// raw \u00e9

// %% Use
fmt.Println(x)
`
	wantGo = strings.Replace(wantGo, `raw \u00e9`, "raw é", 1)
	if string(got) != wantGo {
		t.Errorf("Percent of a Jupyter notebook:\n%s\nwant\n%s", got, wantGo)
	}
}

// TestIpynbOutputs keeps an .ipynb's outputs only when asked.
func TestIpynbOutputs(t *testing.T) {
	ipy := `{"cells": [{"cell_type": "code", "id": "a1", "metadata": {}, "source": "1+1", "execution_count": 1,
	  "outputs": [{"output_type": "execute_result", "execution_count": 1, "data": {"text/plain": "2"}, "metadata": {}}]}],
	  "metadata": {"custom": {"k": 1}}, "nbformat": 4, "nbformat_minor": 5}`
	nb, err := ParseIpynb("o.ipynb", []byte(ipy))
	if err != nil {
		t.Fatal(err)
	}
	cleared, err := nb.Ipynb(IpynbOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := nb.Ipynb(IpynbOptions{Outputs: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		b    []byte
		has  []string
		not  []string
	}{
		{"cleared", cleared, []string{`"outputs": []`, `"execution_count": null`, `"id": "a1"`, `"custom"`}, []string{"execute_result"}},
		{"kept", kept, []string{"execute_result", `"execution_count": 1`, `"id": "a1"`}, nil},
	} {
		for _, h := range c.has {
			if !bytes.Contains(c.b, []byte(h)) {
				t.Errorf("%s: no %s in\n%s", c.name, h, c.b)
			}
		}
		for _, h := range c.not {
			if bytes.Contains(c.b, []byte(h)) {
				t.Errorf("%s: %s in\n%s", c.name, h, c.b)
			}
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "cleared.ipynb"), cleared, 0o644)
	os.WriteFile(filepath.Join(dir, "kept.ipynb"), kept, 0o644)
	validateWithNbformat(t, filepath.Join(dir, "cleared.ipynb"), filepath.Join(dir, "kept.ipynb"))
}

// TestParseIpynbErrors: bad input gets an error naming the file and the
// JSON path of the bad value, or the line and column of bad JSON.
func TestParseIpynbErrors(t *testing.T) {
	cases := []struct{ desc, src, want string }{
		{"not json", "{\n \"cells\": [,]\n}", "x.ipynb: line 2, column 12: not JSON"},
		{"not an object", "[]", "x.ipynb: want a JSON object"},
		{"no nbformat", `{"cells": []}`, "x.ipynb: nbformat: want"},
		{"nbformat 3", `{"nbformat": 3, "worksheets": []}`, "x.ipynb: nbformat: version 3 is not supported"},
		{"no cells", `{"nbformat": 4, "cells": [], "metadata": {}}`, "x.ipynb: no cells"},
		{"cells not a list", `{"nbformat": 4, "cells": {}}`, "x.ipynb: cells: want a list"},
		{"cell type", `{"nbformat": 4, "cells": [{"cell_type": "heading", "source": ""}]}`, `x.ipynb: cells[0].cell_type: "heading" is not a cell type`},
		{"source", `{"nbformat": 4, "cells": [{"cell_type": "code", "source": ""}, {"cell_type": "code", "source": 3}]}`, "x.ipynb: cells[1].source: want a string or a list of strings"},
		{"tags", `{"nbformat": 4, "cells": [{"cell_type": "code", "source": "", "metadata": {"tags": "parameters"}}]}`, "x.ipynb: cells[0].metadata.tags: want a list of strings"},
		{"lines", `{"nbformat": 4, "cells": [{"cell_type": "code", "source": "", "metadata": {"lines_to_next_cell": 1e9}}]}`, "x.ipynb: cells[0].metadata.lines_to_next_cell: want a whole number"},
		{"layout", `{"nbformat": 4, "cells": [{"cell_type": "code", "source": "", "metadata": {"memlab": {"marker": 1}}}]}`, "x.ipynb: cells[0].metadata.memlab: want an object"},
		{"header", `{"nbformat": 4, "cells": [{"cell_type": "code", "source": ""}], "metadata": {"memlab": {"percent": {"header": "// %%\n"}}}}`, "x.ipynb: metadata.memlab.percent: header: has a cell marker"},
	}
	for _, c := range cases {
		_, err := ParseIpynb("x.ipynb", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "notebook: parse x.ipynb: ") {
			t.Errorf("%s: err = %v, want %q", c.desc, err, c.want)
		}
	}
}

// TestConvertRefusesAMarkerInASource: a source line that is a cell marker
// would make two cells of one in the .go file.
func TestConvertRefusesAMarkerInASource(t *testing.T) {
	nb, err := ParseIpynb("m.ipynb", []byte(`{"nbformat": 4, "cells": [{"cell_type": "code", "source": "x := 1\n// %% not a cell\ny := 2"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nb.Convert(FormatGo, IpynbOptions{}); err == nil || !strings.Contains(err.Error(), "cell 1 (code) does not read back") {
		t.Errorf("err = %v", err)
	}
}

// TestEditedCellsLoseTheirRecordedLayout: a cell changed in Jupyter is
// written as Percent writes it; the others keep their bytes.
func TestEditedCellsLoseTheirRecordedLayout(t *testing.T) {
	src := "//go:build ignore\n\n// %% [parameters]\nn := 1\n\n// %% [markdown]\n//x\n\n// %%\nfmt.Println(n)\n"
	nb, err := ParseSource("e.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ipy, err := nb.Ipynb(IpynbOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseIpynb("e.ipynb", ipy)
	if err != nil {
		t.Fatal(err)
	}
	back.Cells[0].Tags = append(back.Cells[0].Tags, "extra")
	back.Cells[1].Source = "y"
	want := "//go:build ignore\n\n// %% tags=[\"parameters\", \"extra\"]\nn := 1\n\n// %% [markdown]\n// y\n\n// %%\nfmt.Println(n)\n"
	if got := string(back.Percent()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestRunIpynbConvertsBack: the .ipynb a run writes converts back to the
// .go file that ran, byte for byte.
func TestRunIpynbConvertsBack(t *testing.T) {
	path := filepath.Join("testdata", "travel.go")
	nb, err := Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), nb, RunOptions{OutDir: t.TempDir(), Symbols: []interp.Exports{stdlib.Symbols}})
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(res.Ipynb)
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.Convert(FormatGo, IpynbOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) {
		t.Errorf("the run's .ipynb converts back otherwise:\n%s", firstDiff(got, want))
	}
	kept, err := back.Convert(FormatIpynb, IpynbOptions{Outputs: true})
	if err != nil || !bytes.Contains(kept, []byte("travel 3")) {
		t.Errorf("-outputs lost the run's outputs: %v", err)
	}
}

// TestMarkerLayoutKeys: on a marker line, title= is the title, and the
// layout keys of .ipynb metadata (jupytext's lines_to_next_cell, memlab's
// memlab, as jupytext would copy them from an .ipynb) say nothing.
func TestMarkerLayoutKeys(t *testing.T) {
	src := "// %% title=\"Setup\" lines_to_next_cell=3 memlab={\"marker\": \"x\"} k=1\na := 1\n"
	nb, err := ParseSource("k.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if c := nb.Cells[0]; c.Title != "Setup" || len(c.Metadata) != 1 || c.Metadata["k"] != 1.0 {
		t.Errorf("cell %+v", c)
	}
	if got := nb.Percent(); string(got) != src {
		t.Errorf("Percent: %q", got)
	}
	for _, bad := range []string{"// %% Words title=\"x\"\n", "// %% title=3\n"} {
		if _, err := ParseSource("k.go", []byte(bad)); err == nil || !strings.Contains(err.Error(), "k.go:1: cell title given as title=") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}

// TestJupyterSourcesConvert: what Jupyter tools write converts to .go: a
// code source ending in a newline, CRLF line ends, a Markdown hard line
// break (two spaces at the end of a line), a header without a newline.
func TestJupyterSourcesConvert(t *testing.T) {
	ipy := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {"memlab": {"percent": {"header": "//go:build ignore"}}}, "cells": [
	 {"cell_type": "markdown", "metadata": {}, "source": "line one  \nline two"},
	 {"cell_type": "code", "metadata": {}, "source": ["x := 1\r\n", "y := 2\n", "\n"]}]}`
	nb, err := ParseIpynb("s.ipynb", []byte(ipy))
	if err != nil {
		t.Fatal(err)
	}
	got, err := nb.Convert(FormatGo, IpynbOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "//go:build ignore\n// %% [markdown]\n// line one  \n// line two\n\n// %%\nx := 1\ny := 2\n"
	if string(got) != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
