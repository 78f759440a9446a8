package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/sqlitedb"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

// runStore makes a run store with flat BM25 over the bundled sample at
// k=5 and k=10 and returns its path and the two results.
func runStore(t *testing.T) (string, *record.Result, *record.Result) {
	t.Helper()
	ds, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	flat, err := retrieval.NewFlat(ds, retrieval.BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "runs.db")
	st, err := runstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var res [2]*record.Result
	for i, k := range []int{5, 10} {
		cfg := runs.Config{System: flat, Reader: generate.NewExtractive(), K: k, Params: map[string]string{"seed": "7"}}
		if res[i], err = runs.Run(context.Background(), ds, cfg, runs.Options{Store: st, Quiet: true}); err != nil {
			t.Fatal(err)
		}
	}
	return path, res[0], res[1]
}

func TestRunsListShowDiff(t *testing.T) {
	path, a, b := runStore(t)

	code, out, stderr := memlab(t, "runs", "list", "-store", path)
	if code != 0 {
		t.Fatalf("runs list: exit %d: %s", code, stderr)
	}
	n := len(a.Records)
	for _, want := range []string{a.ID, b.ID, a.Label, b.Label, "| sample |", "| " + retrieval.NameFlat + " |", "| 5 |", "| 10 |",
		"2 runs in " + path, "| id | label | dataset | system | k |", record.CodeVersion()} {
		if !strings.Contains(out, want) {
			t.Errorf("runs list lacks %q:\n%s", want, out)
		}
	}
	if want := " " + strconv.Itoa(n) + " / 0 / " + strconv.Itoa(n) + " |"; !strings.Contains(out, want) {
		t.Errorf("runs list lacks done/failed/questions %q:\n%s", want, out)
	}

	code, out, stderr = memlab(t, "runs", "show", a.ID[:6], "-store", path) // a prefix, flags after
	if code != 0 {
		t.Fatalf("runs show: exit %d: %s", code, stderr)
	}
	sum := reports.Summarize("", a.Records)
	for _, want := range []string{"run " + a.ID + " (" + a.Label + ")", "fingerprint " + a.Spec.Fingerprint, "params:         seed=7",
		"k:              5", "system:         " + a.Spec.System, "identity:       " + a.Spec.IdentityJSON(), `"kind":"flat-bm25"`, "sessions:       1", "failure history: 0 failed attempts",
		"retrieval", "| all | " + a.System + " | 5 |", "| single_point_factual |", "Recall-Flat",
		"| " + analysis.Fmt(sum.Retrieval.RecallFlat, 3) + " |", "answers", "Token F1 (proxy)"} {
		if !strings.Contains(out, want) {
			t.Errorf("runs show lacks %q:\n%s", want, out)
		}
	}

	code, out, stderr = memlab(t, "runs", "show", "-store", path, a.Label) // a label
	if code != 0 || !strings.Contains(out, "run "+a.ID) {
		t.Errorf("runs show by label %q: exit %d: %s%s", a.Label, code, stderr, out)
	}

	code, out, stderr = memlab(t, "runs", "diff", "-store", path, a.ID, b.ID)
	if code != 0 {
		t.Fatalf("runs diff: exit %d: %s", code, stderr)
	}
	d := reports.Diff(a.Records, b.Records)
	var recall reports.MetricDiff
	for _, m := range d.Metrics {
		if m.Metric == "Recall-Flat" {
			recall = m
		}
	}
	for _, want := range []string{"A: " + a.ID, "B: " + b.ID, "| metric | mean A | mean B |",
		"| Recall-Flat | " + analysis.Fmt(recall.MeanA, 3) + " | " + analysis.Fmt(recall.MeanB, 3) + " | +",
		"changed questions, worst regressions first", d.Changed[0].QuestionID} {
		if !strings.Contains(out, want) {
			t.Errorf("runs diff lacks %q:\n%s", want, out)
		}
	}
	if len(d.Changed) > 20 && !strings.Contains(out, "(20 of ") {
		t.Errorf("runs diff does not say it cut the changed questions:\n%s", out)
	}
}

func TestRunsExport(t *testing.T) {
	path, a, _ := runStore(t)
	code, out, stderr := memlab(t, "runs", "export", "-store", path, a.ID)
	if code != 0 {
		t.Fatalf("runs export: exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("export is not CSV: %v\n%s", err, out)
	}
	if len(rows) != len(a.Records)+1 || rows[0][0] != "run_id" || rows[0][1] != "question_id" || rows[1][0] != a.ID || rows[1][1] != a.Records[0].QuestionID {
		t.Errorf("CSV export: %d rows, header %q", len(rows), rows[0])
	}

	file := filepath.Join(t.TempDir(), "out.jsonl")
	code, out, stderr = memlab(t, "runs", "export", "-store", path, "-format", "jsonl", "-o", file, a.ID)
	if code != 0 {
		t.Fatalf("runs export -format jsonl: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, file) {
		t.Errorf("export -o does not name the file: %q", out)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	i := 0
	for sc.Scan() {
		r, err := record.Unmarshal(sc.Bytes())
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if i < len(a.Records) && r.QuestionID != a.Records[i].QuestionID {
			t.Errorf("line %d is %s, want %s", i+1, r.QuestionID, a.Records[i].QuestionID)
		}
		i++
	}
	if i != len(a.Records) {
		t.Errorf("%d JSONL lines, want %d", i, len(a.Records))
	}
}

func TestRunsErrors(t *testing.T) {
	path, a, _ := runStore(t)
	missing := filepath.Join(t.TempDir(), "runs.db")
	cases := []struct {
		desc string
		args []string
		code int
		want []string
	}{
		{"unknown run", []string{"runs", "show", "-store", path, "deadbeefdead"}, 1, []string{"memlab runs show:", `"deadbeefdead"`, path, "no such run"}},
		{"unknown run in diff", []string{"runs", "diff", "-store", path, a.ID, "nope"}, 1, []string{`"nope"`, path}},
		{"no store (list)", []string{"runs", "list", "-store", missing}, 1, []string{"no run store at " + missing}},
		{"no store (show)", []string{"runs", "show", "-store", missing, a.ID}, 1, []string{"no run store at " + missing}},
		{"no store (diff)", []string{"runs", "diff", "-store", missing, a.ID, a.ID}, 1, []string{"no run store at " + missing}},
		{"no store (export)", []string{"runs", "export", "-store", missing, a.ID}, 1, []string{"no run store at " + missing}},
		{"no subcommand", []string{"runs"}, 2, []string{"list, show, diff or export", "usage:"}},
		{"unknown subcommand", []string{"runs", "rm"}, 2, []string{`"rm"`}},
		{"show without run", []string{"runs", "show", "-store", path}, 2, []string{"one RUN"}},
		{"diff with one run", []string{"runs", "diff", "-store", path, a.ID}, 2, []string{"two runs"}},
		{"bad format", []string{"runs", "export", "-store", path, "-format", "xml", a.ID}, 2, []string{`"xml"`, "csv, jsonl, clonemem, knowme or locomo"}},
	}
	for _, c := range cases {
		code, _, stderr := memlab(t, c.args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d; stderr:\n%s", c.desc, code, c.code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.desc, w, stderr)
			}
		}
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("a reading command created %s (stat: %v)", missing, err)
	}

	// An empty store lists no runs.
	empty := filepath.Join(t.TempDir(), "empty.db")
	st, err := runstore.Open(empty)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, out, _ := memlab(t, "runs", "list", "-store", empty)
	if code != 0 || !strings.Contains(out, "no runs in") {
		t.Errorf("empty store: exit %d, %q", code, out)
	}
}

func TestRunsDiffFlips(t *testing.T) {
	path, a, b := runStore(t)
	flips, err := reports.Flips(a.Records, b.Records, "All-Any")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := memlab(t, "runs", "diff", "-store", path, "-flips", "All-Any", a.ID, b.ID)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, fmt.Sprintf("All-Any flipped on %d questions", len(flips))) {
		t.Errorf("output lacks the flip count %d:\n%s", len(flips), out)
	}
	if code, _, errOut := memlab(t, "runs", "diff", "-store", path, "-flips", "nope", a.ID, b.ID); code == 0 || !strings.Contains(errOut, "nope") {
		t.Errorf("unknown metric: exit %d, %s", code, errOut)
	}
}

// A store written before specs were redacted may hold a URL's credentials
// in a run's spec and name: runs list, show and export (to stdout and to a
// file) never print them, and keep the host.
func TestRunsCommandsNeverShowStoredCredentials(t *testing.T) {
	path, a, _ := runStore(t)
	const cred = "http://alice:SECRET-pw@10.0.0.5:8080/v1?token=SECRET-tok"
	db, _, err := sqlitedb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	// As an older memlab wrote it: the credential in the system's name and
	// a parameter of the spec.
	if _, err := db.Exec(`UPDATE runs SET system = system || ' ' || ?, spec = replace(spec, '"seed":"7"', '"seed":"7","server":"' || ? || '"') WHERE id = ?`,
		cred, cred, a.ID); err != nil {
		t.Fatal(err)
	}
	db.Close()
	exported := filepath.Join(t.TempDir(), "out.jsonl")
	for _, args := range [][]string{
		{"runs", "list", "-store", path},
		{"runs", "show", "-store", path, a.ID},
		{"runs", "export", "-store", path, "-format", "jsonl", a.ID},
		{"runs", "export", "-store", path, "-format", "csv", "-o", exported, a.ID},
	} {
		code, out, stderr := memlab(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if args[1] == "export" && strings.Contains(strings.Join(args, " "), "-o") {
			b, err := os.ReadFile(exported)
			if err != nil {
				t.Fatal(err)
			}
			out = string(b)
		}
		if strings.Contains(out+stderr, "SECRET") || strings.Contains(out+stderr, "alice") {
			t.Errorf("%v prints a stored credential:\n%s%s", args, out, stderr)
		}
		if args[1] == "show" && !strings.Contains(out, "10.0.0.5:8080") {
			t.Errorf("runs show lost the host:\n%s", out)
		}
	}
}
