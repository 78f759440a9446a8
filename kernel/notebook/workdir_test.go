package notebook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// workDirNotebook is a notebook whose cells read a file by a relative
// path, with a parameter and a raw cell.
const workDirNotebook = `//go:build ignore

// %% [markdown]
// # Relative paths

// %% tags=["parameters"]
name := "data.txt"

// %% [raw]
// not run

// %%
import (
	"fmt"
	"os"
)
b, err := os.ReadFile(name)
if err != nil {
	panic(err)
}
wd, _ := os.Getwd()
fmt.Printf("read %q in %s\n", b, wd)
`

// TestRunResolvesRelativePathsInTheNotebooksDirectory runs the same
// notebook as .go and as .ipynb from another working directory: both read
// the file beside them, the process's directory is restored, and a run of
// X.ipynb in its own directory writes X.out.ipynb and X.out.md.
func TestRunResolvesRelativePathsInTheNotebooksDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.txt"), []byte("beside the notebook"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.txt"), []byte("set by a parameter"), 0o644); err != nil {
		t.Fatal(err)
	}
	goPath := filepath.Join(dir, "rel.go")
	if err := os.WriteFile(goPath, []byte(workDirNotebook), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ConvertFile(goPath, filepath.Join(dir, "rel2.ipynb"), "", IpynbOptions{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Getwd()
	realDir, _ := filepath.EvalSymlinks(dir)
	for _, tc := range []struct {
		file, param, want, ipynb, report string
	}{
		{"rel.go", "", "beside the notebook", "rel.ipynb", "rel.md"},
		{"rel2.ipynb", "other.txt", "set by a parameter", "rel2.out.ipynb", "rel2.out.md"},
	} {
		nb, err := Parse(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if tc.param != "" {
			if err := nb.ApplyParams(map[string]string{"name": tc.param}); err != nil {
				t.Fatal(err)
			}
		}
		var out strings.Builder
		res, err := Run(context.Background(), nb, RunOptions{Symbols: []interp.Exports{stdlib.Symbols}, Stdout: &out, Stderr: &out})
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.file, err, out.String())
		}
		if s := out.String(); !strings.Contains(s, tc.want) || !strings.Contains(s, realDir) && !strings.Contains(s, dir) {
			t.Errorf("%s: output %q, want %q read in %s", tc.file, s, tc.want, dir)
		}
		if wd, _ := os.Getwd(); wd != before {
			t.Errorf("%s: working directory after the run %s, want %s", tc.file, wd, before)
		}
		if filepath.Base(res.Ipynb) != tc.ipynb || filepath.Base(res.Report) != tc.report {
			t.Errorf("%s: wrote %s and %s, want %s and %s", tc.file, res.Ipynb, res.Report, tc.ipynb, tc.report)
		}
		b, err := os.ReadFile(res.Ipynb)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"cell_type": "raw"`) {
			t.Errorf("%s: the run's .ipynb lost the raw cell", tc.file)
		}
		validateWithNbformat(t, res.Ipynb)
		md, _ := os.ReadFile(res.Report)
		if strings.Contains(string(md), "not run") {
			t.Errorf("%s: the report shows the raw cell:\n%s", tc.file, md)
		}
	}
	// WorkDir set: the cells run there.
	nb, _ := Parse(goPath)
	var out strings.Builder
	if _, err := Run(context.Background(), nb, RunOptions{OutDir: t.TempDir(), WorkDir: t.TempDir(), Symbols: []interp.Exports{stdlib.Symbols}, Stdout: &out}); err == nil || !strings.Contains(err.Error(), "data.txt") {
		t.Errorf("a run in another WorkDir found data.txt: %v\n%s", err, out.String())
	}
}
