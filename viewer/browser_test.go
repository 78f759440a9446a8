package viewer_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/internal/browsertest"
)

// TestInChromium uses the viewer as a person would, in headless Chromium:
// the runs page lists the runs; a run's page filters its questions by
// outcome and search; a question opens with its ranking, and j goes to the
// next one under the filter; two runs picked on the runs page compare, with
// the questions that flipped. MEMLAB_VIEWER_SHOTS=DIR also writes a
// screenshot of each page there (docs/viewer/ holds them).
func TestInChromium(t *testing.T) {
	f := newFixture(t)
	shots := os.Getenv("MEMLAB_VIEWER_SHOTS")
	shot := func(name string) browsertest.Step {
		if shots == "" {
			return browsertest.Step{}
		}
		return browsertest.Step{Shot: filepath.Join(shots, name)}
	}
	run := f.srv.URL + "/run/" + f.k1
	seen := browsertest.Session(t, 1280, 900,
		browsertest.Step{Goto: f.srv.URL + "/", Text: true}, // 0: the runs
		shot("runs.png"),
		browsertest.Step{Click: "a[href='/run/" + f.k1 + "']", Text: true}, // 2: a run
		shot("run.png"),
		browsertest.Step{Select: "select[name=outcome]", Value: "allany0"},
		browsertest.Step{Click: "form.filters button, form.filters input[type=submit]", Text: true}, // 5: filtered
		browsertest.Step{Click: "tr.q a", Text: true},                                               // 6: its first question
		shot("question.png"),
		browsertest.Step{Press: "j", Text: true}, // 8: the next under the filter
		browsertest.Step{Goto: f.srv.URL + "/"},
		browsertest.Step{Check: "input[name=a][value='" + f.k1 + "']"},
		browsertest.Step{Check: "input[name=b][value='" + f.k10 + "']"},
		browsertest.Step{Click: "form[action='/compare'] button, form[action='/compare'] input[type=submit]", Text: true}, // 12: compare
		shot("compare.png"),
		browsertest.Step{Goto: run + "?q=" + "zzzznotaword", Text: true}, // 14: a search that finds nothing
	)
	for _, w := range []string{"bm25 k=1", "bm25 k=10", "hostile", "running"} {
		if !strings.Contains(seen[0].Text, w) {
			t.Errorf("the runs page does not show %q:\n%s", w, seen[0].Text)
		}
	}
	all, filtered := strings.Count(seen[2].Text, "\n"), strings.Count(seen[5].Text, "\n")
	if !strings.Contains(seen[5].URL, "outcome=allany0") || filtered >= all {
		t.Errorf("filtering by All-Any = 0: at %s, %d lines (unfiltered %d)", seen[5].URL, filtered, all)
	}
	if !strings.Contains(seen[6].URL, "/q") || !strings.Contains(seen[6].Text, "rank") {
		t.Errorf("the question page (%s) shows no ranking:\n%s", seen[6].URL, seen[6].Text)
	}
	if seen[8].URL == seen[6].URL || !strings.Contains(seen[8].URL, "outcome=allany0") {
		t.Errorf("j went from %s to %s, want the next question under the filter", seen[6].URL, seen[8].URL)
	}
	if !strings.Contains(seen[12].URL, "/compare") || !strings.Contains(seen[12].Text, "McNemar") {
		t.Errorf("compare (%s) shows no test:\n%s", seen[12].URL, seen[12].Text)
	}
	if strings.Contains(seen[14].Text, "evil") {
		t.Errorf("a search for a word in no question lists questions:\n%s", seen[14].Text)
	}
}
