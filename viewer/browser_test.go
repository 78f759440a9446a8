package viewer_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memlab/memlab/internal/browsertest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/runstore"
	"github.com/memlab/memlab/viewer"
)

// TestInChromium uses the viewer as a person would, in headless Chromium:
// the runs page lists the runs; a run's page shows its figures (images
// the browser loaded) and filters its questions by outcome and search; a
// question opens with its ranking and the passages given to the reader,
// and j goes to the next one under the filter; three runs ticked on the
// runs page compare, with each one's difference against the first and
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
		browsertest.Step{Click: "a[href='/run/" + f.k10 + "']", Text: true},                                                      // 2: a run
		browsertest.Step{Eval: "Array.from(document.querySelectorAll('img.figure')).map(i => i.complete ? i.naturalWidth : -1)"}, // 3
		shot("run.png"),
		browsertest.Step{Goto: run, Text: true}, // 5: another run
		browsertest.Step{Select: "select[name=outcome]", Value: "allany0"},                          // 6
		browsertest.Step{Click: "form.filters button, form.filters input[type=submit]", Text: true}, // 7: filtered
		browsertest.Step{Click: "tr.q a", Text: true},                                               // 8: its first question
		shot("question.png"),
		browsertest.Step{Press: "j", Text: true}, // 10: the next under the filter
		browsertest.Step{Goto: f.srv.URL + "/"},
		browsertest.Step{Check: "input[name=run][value='" + f.k1 + "']"},
		browsertest.Step{Check: "input[name=run][value='" + f.k5 + "']"},
		browsertest.Step{Check: "input[name=run][value='" + f.k10 + "']"},
		browsertest.Step{Click: "form[action='/compare'] button", Text: true}, // 15: compare
		shot("compare.png"),
		browsertest.Step{Goto: run + "?q=" + "zzzznotaword", Text: true}, // 17: a search that finds nothing
	)
	for _, w := range []string{"bm25 k=1", "bm25 k=10", "hostile", "running"} {
		if !strings.Contains(seen[0].Text, w) {
			t.Errorf("the runs page does not show %q:\n%s", w, seen[0].Text)
		}
	}
	if !strings.Contains(seen[2].Text, "Figures") || !strings.Contains(seen[2].Text, "95% percentile-bootstrap intervals") {
		t.Errorf("the run page (%s) shows no figures or intervals:\n%s", seen[2].URL, seen[2].Text)
	}
	var widths []int
	if err := json.Unmarshal([]byte(seen[3].Value), &widths); err != nil || len(widths) != 2 || widths[0] <= 0 || widths[1] <= 0 {
		t.Errorf("the run page's figures have natural widths %s (%v), want two images loaded", seen[3].Value, err)
	}
	all, filtered := strings.Count(seen[5].Text, "\n"), strings.Count(seen[7].Text, "\n")
	if !strings.Contains(seen[7].URL, "outcome=allany0") || filtered >= all {
		t.Errorf("filtering by All-Any = 0: at %s, %d lines (unfiltered %d)", seen[7].URL, filtered, all)
	}
	if !strings.Contains(seen[8].URL, "/q") || !strings.Contains(seen[8].Text, "rank") || !strings.Contains(seen[8].Text, "Context given to the reader") {
		t.Errorf("the question page (%s) shows no ranking or context:\n%s", seen[8].URL, seen[8].Text)
	}
	if seen[10].URL == seen[8].URL || !strings.Contains(seen[10].URL, "outcome=allany0") {
		t.Errorf("j went from %s to %s, want the next question under the filter", seen[8].URL, seen[10].URL)
	}
	cmp := seen[15]
	if !strings.Contains(cmp.URL, "/compare") || strings.Count(cmp.URL, "run=") != 3 || !strings.Contains(cmp.Text, "Compare 3 runs") ||
		strings.Count(cmp.Text, "McNemar exact") != 2 || !strings.Contains(cmp.Text, "a (baseline)") {
		t.Errorf("compare (%s) does not compare the three runs ticked with their tests:\n%s", cmp.URL, cmp.Text)
	}
	if strings.Contains(seen[17].Text, "evil") {
		t.Errorf("a search for a word in no question lists questions:\n%s", seen[17].Text)
	}
}

// TestLiveInChromium: the runs page and the page of a run in progress
// show a record written while they are open, without a reload (the URL
// stays, the page's content is fetched again).
func TestLiveInChromium(t *testing.T) {
	f := newFixture(t)
	ro, err := runstore.OpenReadOnly(f.path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	// The second record is written once the browser has the run's page.
	opened := make(chan struct{})
	var once sync.Once
	h := viewer.New(ro, viewer.Options{Refresh: -1})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.URL.Path == "/run/"+f.live {
			once.Do(func() { close(opened) })
		}
	}))
	defer srv.Close()
	go func() {
		select {
		case <-opened:
		case <-time.After(time.Minute):
			return
		}
		time.Sleep(500 * time.Millisecond)
		rec := record.Record{QuestionID: "second", CorpusID: "c1", K: 10}
		if err := f.writer.Put(context.Background(), f.live, 1, 1, rec); err != nil {
			t.Errorf("writing the second record: %v", err)
		}
	}()
	seen := browsertest.Session(t, 1280, 900,
		browsertest.Step{Goto: srv.URL + "/", Text: true},
		browsertest.Step{Goto: srv.URL + "/run/" + f.live, Text: true},
		browsertest.Step{Wait: 8000, Text: true},
	)
	if !strings.Contains(seen[0].Text, "live") || !strings.Contains(seen[0].Text, "1 / 2") {
		t.Errorf("the runs page does not show the live run at 1 / 2:\n%s", seen[0].Text)
	}
	if !strings.Contains(seen[1].Text, "updated live") || strings.Contains(seen[1].Text, "second") {
		t.Errorf("the page of a run in progress, before the second record, does not say it updates or shows the record:\n%s", seen[1].Text)
	}
	if seen[2].URL != seen[1].URL || !strings.Contains(seen[2].Text, "second") {
		t.Errorf("after the second record was written, the page (%s) does not show it:\n%s", seen[2].URL, seen[2].Text)
	}
}
