package notebook

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/kernel"
	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

func runNotebook(t *testing.T, name string, params map[string]string) (*RunResult, error, string) {
	t.Helper()
	nb, err := Parse(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if params != nil {
		if err := nb.ApplyParams(params); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	res, err := Run(context.Background(), nb, RunOptions{OutDir: dir, Symbols: []interp.Exports{stdlib.Symbols}})
	if res == nil {
		t.Fatalf("no result: %v", err)
	}
	return res, err, dir
}

// ipynbJSON is the part of the .ipynb the tests look at.
type ipynbJSON struct {
	NBFormat      int `json:"nbformat"`
	NBFormatMinor int `json:"nbformat_minor"`
	Metadata      struct {
		Kernelspec   map[string]string `json:"kernelspec"`
		LanguageInfo map[string]string `json:"language_info"`
		Memlab       struct {
			Parameters map[string]string `json:"parameters"`
			RanAt      string            `json:"ran_at"`
			Status     string            `json:"status"`
		} `json:"memlab"`
	} `json:"metadata"`
	Cells []struct {
		ID             string           `json:"id"`
		CellType       string           `json:"cell_type"`
		Source         []string         `json:"source"`
		Metadata       map[string]any   `json:"metadata"`
		ExecutionCount *int             `json:"execution_count"`
		Outputs        []map[string]any `json:"outputs"`
	} `json:"cells"`
}

func readIpynb(t *testing.T, path string) ipynbJSON {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb ipynbJSON
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return nb
}

func TestRunSmall(t *testing.T) {
	res, err, dir := runNotebook(t, "small.go", map[string]string{"name": "memlab", "n": "5"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ipynb != filepath.Join(dir, "small.ipynb") || res.Report != filepath.Join(dir, "small.md") {
		t.Fatalf("paths %s %s", res.Ipynb, res.Report)
	}
	nb := readIpynb(t, res.Ipynb)
	if nb.NBFormat != 4 || nb.NBFormatMinor != 5 || nb.Metadata.Kernelspec["name"] != "memlab" || nb.Metadata.LanguageInfo["file_extension"] != ".go" {
		t.Errorf("header: %+v", nb)
	}
	if nb.Metadata.Memlab.Parameters["name"] != "memlab" || nb.Metadata.Memlab.Status != "ok" || nb.Metadata.Memlab.RanAt == "" {
		t.Errorf("memlab metadata: %+v", nb.Metadata.Memlab)
	}
	// markdown, parameters, injected, greeting, display.
	if len(nb.Cells) != 5 {
		t.Fatalf("%d cells, want 5", len(nb.Cells))
	}
	ids := map[string]bool{}
	for _, c := range nb.Cells {
		ids[c.ID] = true
	}
	if len(ids) != 5 {
		t.Errorf("cell ids not unique")
	}
	md := nb.Cells[0]
	if md.CellType != "markdown" || strings.Join(md.Source, "") != "# Small notebook\n\nIt prints, shows markdown and a PNG." || md.Source[0] != "# Small notebook\n" {
		t.Errorf("markdown cell: %+v", md)
	}
	inj := nb.Cells[2]
	if tags, _ := inj.Metadata["tags"].([]any); len(tags) != 1 || tags[0] != TagInjectedParameters {
		t.Errorf("injected cell tags: %v", inj.Metadata)
	}
	greet := nb.Cells[3]
	if greet.ExecutionCount == nil || *greet.ExecutionCount != 3 || len(greet.Outputs) != 1 ||
		greet.Outputs[0]["output_type"] != "stream" || greet.Outputs[0]["name"] != "stdout" {
		t.Fatalf("greeting cell: %+v", greet)
	}
	if txt := greet.Outputs[0]["text"].([]any); len(txt) != 1 || txt[0] != "hello memlab 5 1.5 false\n" {
		t.Errorf("greeting text: %v", txt)
	}
	disp := nb.Cells[4].Outputs
	if len(disp) != 3 || disp[0]["output_type"] != "display_data" || disp[1]["output_type"] != "display_data" || disp[2]["output_type"] != "execute_result" {
		t.Fatalf("display cell outputs: %v", disp)
	}
	if data := disp[0]["data"].(map[string]any); !strings.Contains(strings.Join(toStrings(data["text/markdown"]), ""), "| 5 | memlab |") {
		t.Errorf("markdown display: %v", data)
	}
	pngB64, _ := disp[1]["data"].(map[string]any)["image/png"].(string)
	pngBytes, err := base64.StdEncoding.DecodeString(pngB64)
	if err != nil || !bytes.HasPrefix(pngBytes, []byte("\x89PNG")) {
		t.Errorf("image/png: %v", err)
	}
	onDisk, err := os.ReadFile(filepath.Join(dir, "square.png"))
	if err != nil || !bytes.Equal(onDisk, pngBytes) {
		t.Errorf("square.png next to the report: %v", err)
	}
	if v := toStrings(disp[2]["data"].(map[string]any)["text/plain"]); len(v) != 1 || v[0] != "10" {
		t.Errorf("execute_result: %v", v)
	}

	rep, err := os.ReadFile(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Small notebook\n",
		"parameters: `n=5`, `name=memlab`",
		"```go\nimport \"fmt\"\n\nfmt.Printf(",
		"```\nhello memlab 5 1.5 false\n```",
		"| n | name |",
		"![square.png](square.png)",
		"Out[4]:\n\n```\n10\n```",
		"```go\n// Injected parameters.\nn = 5\nname = \"memlab\"\n```",
	} {
		if !strings.Contains(string(rep), want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
	if strings.Count(string(rep), "# Small notebook") != 1 {
		t.Errorf("title repeated:\n%s", rep)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestRunStopsAtError(t *testing.T) {
	res, err, _ := runNotebook(t, "failing.go", nil)
	var ce *kernel.CellError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %T %v", err, err)
	}
	if ce.Cell != 2 || ce.Line != 4 || ce.FileLine != 11 || !strings.HasSuffix(ce.File, "failing.go") {
		t.Errorf("error at %+v", ce)
	}
	if !strings.HasPrefix(err.Error(), filepath.Join("testdata", "failing.go")+":11: cell 2, line 4: panic: ") {
		t.Errorf("Error() = %q", err.Error())
	}
	if res.Results[2] != nil {
		t.Errorf("the cell after the error ran")
	}
	nb := readIpynb(t, res.Ipynb)
	if nb.Metadata.Memlab.Status != "error" {
		t.Errorf("status %q", nb.Metadata.Memlab.Status)
	}
	c2 := nb.Cells[1]
	if tags, _ := c2.Metadata["tags"].([]any); len(tags) != 2 {
		t.Errorf("tags %v", c2.Metadata)
	}
	last := c2.Outputs[len(c2.Outputs)-1]
	if last["output_type"] != "error" || last["ename"] != "Panic" || !strings.Contains(toStrings(last["traceback"])[0], "cell 2, line 4") {
		t.Errorf("error output: %v", last)
	}
	if c3 := nb.Cells[2]; c3.ExecutionCount != nil || len(c3.Outputs) != 0 {
		t.Errorf("not executed cell: %+v", c3)
	}
	rep, _ := os.ReadFile(res.Report)
	for _, want := range []string{"**Error**", "cell 2, line 4: panic:", "_(not executed)_", "failed"} {
		if !strings.Contains(string(rep), want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
}

// TestIpynbValidates checks the written notebooks with Jupyter's own
// validator (Debian's python3-nbformat).
func TestIpynbValidates(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped under -short: runs python3 nbformat")
	}
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import nbformat").Run(); err != nil {
		t.Skipf("skipped: %s with nbformat not available (apt-get install -y python3-nbformat): %v", py, err)
	}
	for _, name := range []string{"small.go", "failing.go"} {
		var params map[string]string
		if name == "small.go" {
			params = map[string]string{"n": "1"}
		}
		res, _, _ := runNotebook(t, name, params)
		out, err := exec.Command(py, "-c", "import nbformat,sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))", res.Ipynb).CombinedOutput()
		if err != nil {
			t.Errorf("%s: nbformat validation failed: %v\n%s", name, err, out)
		}
	}
}

// TestDisplayCellsHaveNoOut: a cell ending in display.Markdown or
// display.Table writes its display and no execute_result (.ipynb) or
// Out[N] (.md); a cell ending in a value still does.
func TestDisplayCellsHaveNoOut(t *testing.T) {
	res, err, _ := runNotebook(t, "display_last.go", nil)
	if err != nil {
		t.Fatal(err)
	}
	nb := readIpynb(t, res.Ipynb)
	var kinds [][]string
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		var k []string
		for _, o := range c.Outputs {
			k = append(k, o["output_type"].(string))
		}
		kinds = append(kinds, k)
	}
	want := [][]string{nil, {"display_data"}, {"display_data"}, {"execute_result"}}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("code cell outputs %v, want %v", kinds, want)
	}
	for i, c := range nb.Cells {
		if out := fmt.Sprint(c.Outputs); strings.Contains(out, "the-whole-dataset") {
			t.Errorf("cell %d shows the dataset variable: %s", i+1, out)
		}
	}
	md, err := os.ReadFile(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(md), "Out["); n != 1 {
		t.Errorf("the report has %d Out[N] blocks, want 1 (the len cell):\n%s", n, md)
	}
}
