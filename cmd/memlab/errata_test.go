package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/kernel/notebook"
	"github.com/memlab/memlab/runstore"
)

const errataHeader = "corpus_id,question_id,action,field,value,reason\n"

// sampleErrata writes an errata file that excludes the sample's first
// question and patches the reference answer of its second, and returns the
// file and the two questions.
func sampleErrata(t *testing.T) (string, datasets.Question, datasets.Question) {
	t.Helper()
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	q0, q1 := d.Questions[0], d.Questions[1]
	p := filepath.Join(t.TempDir(), "fixes.csv")
	body := errataHeader +
		q0.CorpusID + "," + q0.ID + ",exclude,,,the gold evidence contradicts the answer\n" +
		q1.CorpusID + "," + q1.ID + ",patch,answer,\"A corrected, quoted reference.\",typo in the reference\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, q0, q1
}

func TestDatasetsErrataCommand(t *testing.T) {
	p, q0, q1 := sampleErrata(t)
	code, out, stderr := memlab(t, "datasets", "errata", "sample", p)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	want := "excluded " + q0.CorpusID + "/" + q0.ID + ": the gold evidence contradicts the answer\n" +
		"patched " + q1.CorpusID + "/" + q1.ID + ` answer = "A corrected, quoted reference.": typo in the reference` + "\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("output:\n%s\nwant it to start with:\n%s", out, want)
	}
	if !regexp.MustCompile(`sample: 54 questions, 53 after the errata; errata fixes\.csv sha256:[0-9a-f]{16} \(1 excluded, 1 patched\)\n$`).MatchString(out) {
		t.Errorf("no counts line:\n%s", out)
	}
}

func TestDatasetsErrataBadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	noReason := write("noreason.csv", errataHeader+",x,exclude,,,why\n,q01,exclude,,,\n")
	unknown := write("unknown.csv", errataHeader+",nope,exclude,,,why\n")
	fields := write("fields.csv", errataHeader+",q01,exclude,,why\n")
	cases := []struct {
		desc string
		args []string
		code int
		want []string
	}{
		{"no reason", []string{"datasets", "errata", "sample", noReason}, 1, []string{noReason + ":3:", "no reason"}},
		{"unknown question", []string{"datasets", "errata", "sample", unknown}, 1, []string{unknown + ":2:", `no question "nope"`}},
		{"wrong number of fields", []string{"datasets", "errata", "sample", fields}, 1, []string{fields + ":2:", "wrong number of fields"}},
		{"missing file", []string{"datasets", "errata", "sample", filepath.Join(dir, "none.csv")}, 1, []string{"none.csv"}},
		{"one argument", []string{"datasets", "errata", "sample"}, 2, []string{"ERRATA.csv"}},
	}
	for _, c := range cases {
		code, out, stderr := memlab(t, c.args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s", c.desc, code, c.code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.desc, w, stderr)
			}
		}
		if !strings.HasPrefix(stderr, "memlab datasets errata: ") {
			t.Errorf("%s: stderr does not name the command:\n%s", c.desc, stderr)
		}
		if out != "" {
			t.Errorf("%s: printed %q", c.desc, out)
		}
	}
}

func TestQuickstartWithErrata(t *testing.T) {
	offlineEnv(t)
	p, q0, q1 := sampleErrata(t)
	store := filepath.Join(t.TempDir(), "runs.db")
	out := runQuickstart(t, "-p", "errata="+p, "-store", store, "-quiet")
	for _, re := range []string{
		// the log, then the errata's name, then the corrected counts
		regexp.QuoteMeta("excluded " + q0.CorpusID + "/" + q0.ID + ": the gold evidence contradicts the answer"),
		regexp.QuoteMeta("patched " + q1.CorpusID + "/" + q1.ID + ` answer = "A corrected, quoted reference.": typo in the reference`),
		`errata fixes\.csv sha256:[0-9a-f]{16} \(1 excluded, 1 patched\)`, `, 53 questions, `,
		// every table has one question fewer
		`\| system=flat\(bm25\) k=5 \| 0\.\d+ \[0\.\d+, [01]\.\d+\] \(n=53\) \|`, `\| system=oracle k=10 \| 1\.000 \[1\.000, 1\.000\] \(n=53\) \| 1\.000 `,
		`\| system=oracle k=10 \| 10 \| 53 \| 1\.000 \[1\.000, 1\.000\] \(n=53\) \|`,
		// raw and corrected side by side, per system at k = 10
		`### flat\(bm25\) k=10: raw and corrected`, `### oracle k=10: raw and corrected`,
		`\| metric \| raw mean \(n\) \| corrected mean \(n\) \| Δ \(corrected - raw\) \| excluded \| patched \| scores changed \|`,
		`\| Recall-Flat \| 0\.\d{3} \(n=54\) \| 0\.\d{3} \(n=53\) \| [+-]?\d\.\d{3} \| 1 \| 1 \| 0 \|`,
		`\| Token F1 \(proxy\) \| 0\.\d{3} \(n=54\) \| 0\.\d{3} \(n=53\) \| [+-]?\d\.\d{3} \| 1 \| 1 \| 1 \|`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("quickstart output lacks %s", re)
		}
	}
	st, err := runstore.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	infos, err := st.Runs()
	if err != nil {
		t.Fatal(err)
	}
	// Six corrected runs (two systems, three k) and the two raw ones at k = 10.
	corrected, raw := 0, 0
	for _, ri := range infos {
		switch {
		case strings.HasSuffix(ri.Spec.Errata, "(1 excluded, 1 patched)") && ri.Spec.Questions == 53 && ri.Questions == 53:
			corrected++
		case ri.Spec.Errata == "" && ri.Spec.Questions == 54 && ri.Spec.K == 10:
			raw++
		default:
			t.Errorf("run %s: errata %q, %d questions", ri.Label, ri.Spec.Errata, ri.Spec.Questions)
		}
	}
	if corrected != 6 || raw != 2 {
		t.Errorf("%d corrected and %d raw runs in the store, want 6 and 2", corrected, raw)
	}
}

// TestQuickstartWithoutErrataPrintsNothingNew checks that errata = "" adds
// no output: no log, no errata line, no raw-and-corrected table.
func TestQuickstartWithoutErrataPrintsNothingNew(t *testing.T) {
	offlineEnv(t)
	out := runQuickstart(t, "-no-store", "-quiet")
	for _, bad := range []string{"errata", "excluded ", "patched ", "raw and corrected", "raw mean"} {
		if strings.Contains(out, bad) {
			t.Errorf("quickstart without errata prints %q", bad)
		}
	}
}

// TestEveryNotebookTakesErrata checks that each notebook has the errata
// parameter and applies it (datasets.OpenWithErrata or WithErrata), and runs
// knowme_table1 with one.
func TestEveryNotebookTakesErrata(t *testing.T) {
	paths, err := filepath.Glob("../../notebooks/*.go")
	if err != nil || len(paths) < 9 {
		t.Fatalf("notebooks: %v %v", paths, err)
	}
	for _, p := range paths {
		nb, err := notebook.Parse(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := nb.ApplyParams(map[string]string{"errata": "fixes.csv"}); err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
		}
		src, _ := os.ReadFile(p)
		if !regexp.MustCompile(`datasets\.(Open)?WithErrata\(`).Match(src) {
			t.Errorf("%s does not apply its errata (datasets.OpenWithErrata or WithErrata)", filepath.Base(p))
		}
	}

	offlineEnv(t)
	fixes, q0, _ := sampleErrata(t)
	out, _ := runNotebook(t, "knowme_table1", "-p", "errata="+fixes)
	expect(t, "knowme_table1", out, regexp.QuoteMeta("excluded "+q0.CorpusID+"/"+q0.ID+": "), `sample \(clonemem\): 53 questions`)
}
