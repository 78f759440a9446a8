package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGridCommand: `memlab grid` with spec values that hold commas runs
// every point, compares them, says once what it skipped offline, writes
// the tidy table, and a rerun on the same store computes nothing.
func TestGridCommand(t *testing.T) {
	dir := t.TempDir()
	store, tidy := filepath.Join(dir, "runs.db"), filepath.Join(dir, "tidy.csv")
	args := []string{"grid", "-store", store, "-p", "system=flat(bm25,units=facts+raw,join=merge_raw),timeline,mem0", "-p", "k=5,10",
		"-metrics", "Recall-Flat,All-Any", "-tidy", tidy}
	var out, errb bytes.Buffer
	if code := realMain(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	o := out.String()
	for _, want := range []string{
		"| flat k=5 |", "| timeline k=10 |", "flat = `flat(bm25+facts,join=merge_raw", "(baseline)",
		"skipped 2 points: needs an extractor model",
	} {
		if !strings.Contains(o, want) {
			t.Errorf("output lacks %q:\n%s", want, o)
		}
	}
	if n := strings.Count(o, "skipped 2 points"); n != 1 {
		t.Errorf("the skip is said %d times, want once:\n%s", n, o)
	}
	f, err := os.Open(tidy)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if rows[0][0] != "system" || rows[0][1] != "k" || len(rows) < 4*54 {
		t.Fatalf("tidy table: header %v, %d rows", rows[0], len(rows))
	}

	// The rerun takes every record from the store.
	out.Reset()
	errb.Reset()
	if code := realMain(args[:len(args)-2], &out, &errb); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, errb.String())
	}
	// Each point's line says its 54 resumed (no rate of new work: nothing
	// was computed), and the grid's line the 216 of the 4 points.
	if got := errb.String(); len(regexp.MustCompile(`54/54 100% \S+ 54 resumed`).FindAllString(got, -1)) != 4 || !strings.Contains(got, "216/216 q (216 resumed)") ||
		strings.Contains(got, "q/s") {
		t.Errorf("rerun: want all 4 x 54 questions resumed, progress said:\n%s", got)
	}
}

// TestGridCommandErrors: a bad axis or spec names what is wrong.
func TestGridCommandErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"grid"}, "at least one -p"},
		{[]string{"grid", "-p", "system=flat(bm25"}, "not closed"},
		{[]string{"grid", "-p", "system=flatt", "-no-store"}, "flat"},
		{[]string{"grid", "-p", "colour=red", "-no-store"}, `axis "colour"`},
		{[]string{"grid", "-p", "k=5", "extra"}, "no positional argument"},
	} {
		var out, errb bytes.Buffer
		if code := realMain(c.args, &out, &errb); code == 0 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errb.String(), c.want)
		}
	}
}
