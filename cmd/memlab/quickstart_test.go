package main

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runQuickstart runs notebooks/quickstart.go as the README does and checks
// the outputs every run must have.
func runQuickstart(t *testing.T, params ...string) string {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{"run", "../../notebooks/quickstart.go", "-o", dir}, params...)
	code, stdout, stderr := memlab(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"quickstart.ipynb", "quickstart.md"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "recall_at_k.png"))
	if err != nil {
		t.Fatalf("no plot: %v", err)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("recall_at_k.png is not a PNG: %v", err)
	}
	if py, err := exec.LookPath("/usr/bin/python3"); err == nil {
		cmd := exec.Command(py, "-c", "import nbformat,sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))", filepath.Join(dir, "quickstart.ipynb"))
		if out, err := cmd.CombinedOutput(); err != nil {
			if strings.Contains(string(out), "No module named") {
				t.Log("nbformat not installed; .ipynb not validated (apt-get install python3-nbformat)")
			} else {
				t.Errorf("nbformat rejects quickstart.ipynb: %v\n%s", err, out)
			}
		}
	}
	report, _ := os.ReadFile(filepath.Join(dir, "quickstart.md"))
	if !strings.Contains(string(report), "![recall_at_k.png](recall_at_k.png)") {
		t.Error("the report does not show the plot")
	}
	return stdout
}

func TestQuickstartOnSample(t *testing.T) {
	out := runQuickstart(t)
	for _, re := range []string{
		// the grid: every system at every k, each point run
		`6 points over system \(2\) x k \(3\): 6 ran, 0 skipped, 0 failed`,
		// every system at every k, with all 54 questions scored
		`\| system=flat\(bm25\) k=5 \| 0\.494 \[0\.\d+, 0\.\d+\] \|`, `\| system=flat\(bm25\) k=20 \| 0\.790 \[`,
		`\| system=oracle k=10 \| 1\.000 \[1\.000, 1\.000\] \|`,
		// the answer table labels proxies as proxies
		`Token F1 \(proxy\)`, `ROUGE-L \(proxy\)`, `\| Choice accuracy \|`, `\| system=flat\(bm25\) k=10 \| 0\.658 .* \| 0\.296 \[0\.\d+, 0\.\d+\] \(n=54\) \|`,
		// per-task recall at each k
		`\| trajectory \| flat-bm25 \| 6 \|`,
		// the comparison with intervals and a paired test
		`\| system=oracle k=10 \| 10 \| 54 \| 1\.000 \[1\.000, 1\.000\] \(n=54\) \| \+0\.342, p < 0\.001 \(n=54\) \|`, `Holm-adjusted`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("quickstart output lacks %s", re)
		}
	}
	for _, bad := range []string{"QA consistency", "LLM"} {
		if strings.Contains(out, bad) {
			t.Errorf("offline quickstart output mentions %q: a proxy must not be shown under an LLM-judged metric's name", bad)
		}
	}
}

func TestQuickstartOnKnowMeDataset1(t *testing.T) {
	if testing.Short() {
		t.Skip("the quickstart on KnowMe dataset 1 takes about 20 s; skipped under -short")
	}
	const path = "../../../shared/datasets/knowmebench/dataset1"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("KnowMe-Bench dataset1 not found at %s (it lives in shared/, beside the project): %v", path, err)
	}
	out := runQuickstart(t, "-p", "data="+absPath(t, path))
	for _, re := range []string{
		`1010 questions, 896 with gold evidence`, `\| system=flat\(bm25\) k=10 \| 0\.400 \[0\.\d+, 0\.\d+\] \|`, `\(n=896\)`,
		`\| Temporal Reasoning \| flat-bm25 \| 131 \|`, `\| Information Extraction \| oracle \| 130 \|`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("quickstart output lacks %s", re)
		}
	}
	for _, task := range []string{"Logical Event Ordering", "Expert-Annotated Psychoanalysis"} {
		if strings.Contains(out, "| "+task+" |") {
			t.Errorf("%s has no gold evidence but has a recall row", task)
		}
	}
}
