package notebook

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.ipynb and testdata/golden.md from the current writers")

// TestGoldenOutputs pins the bytes of the .ipynb and of the report written
// for a fixed notebook (testdata/golden.go with two parameters set), with
// the run's start time and duration fixed. testdata/golden.ipynb and
// testdata/golden.md were generated, before the writers moved here from
// package kernel, with
//
//	go test ./kernel -run '^TestGoldenOutputs$' -update
//
// so that the move is checked to change no byte. Regenerate them only for
// a change of the output that is meant, and review the diff:
//
//	go test ./kernel/notebook -run '^TestGoldenOutputs$' -update
//
// The .ipynb is also checked with nbformat (Debian's python3-nbformat)
// when it is installed.
func TestGoldenOutputs(t *testing.T) {
	nb, err := Parse(filepath.Join("testdata", "golden.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := nb.ApplyParams(map[string]string{"name": "golden <&>", "n": "1"}); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), nb, RunOptions{OutDir: t.TempDir(), Symbols: []interp.Exports{stdlib.Symbols}})
	if res == nil {
		t.Fatalf("no result: %v", err)
	}
	if err == nil {
		t.Fatal("the notebook's failing cell did not fail")
	}
	res.Started = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	res.Duration = 1500 * time.Millisecond
	gotIpynb, err := ipynb(res)
	if err != nil {
		t.Fatal(err)
	}
	gotReport := []byte(report(res))
	for _, g := range []struct {
		file string
		got  []byte
	}{{"golden.ipynb", gotIpynb}, {"golden.md", gotReport}} {
		path := filepath.Join("testdata", g.file)
		if *update {
			if err := os.WriteFile(path, g.got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (generate it with -update)", err)
		}
		if !bytes.Equal(g.got, want) {
			t.Errorf("%s differs from what the writer produces now:\n%s", path, g.got)
		}
	}
	validateIpynb(t, gotIpynb)
}

// validateIpynb checks b with Jupyter's own validator, when installed.
func validateIpynb(t *testing.T, b []byte) {
	t.Helper()
	if testing.Short() {
		return
	}
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import nbformat").Run(); err != nil {
		t.Logf("not validated: %s with nbformat not available (apt-get install -y python3-nbformat): %v", py, err)
		return
	}
	path := filepath.Join(t.TempDir(), "golden.ipynb")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "-c", "import nbformat,sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))", path).CombinedOutput()
	if err != nil {
		t.Errorf("nbformat rejects the .ipynb: %v\n%s", err, out)
	}
}
