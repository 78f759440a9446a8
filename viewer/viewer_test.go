package viewer_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
	"github.com/memlab/memlab/viewer"
)

// evilAnswer is what the hostile record's answer and hits hold: a script
// tag, an HTML entity, a URL credential and a 20,000-character line.
var evilAnswer = "<script>alert(1)</script> &amp; see http://user:hunter2@example.com/x zanzibar " + strings.Repeat("y", 20000)

// fixture is a run store with three sample runs (flat BM25 at k=1, 5 and
// 10, offline) and a synthetic run holding a hostile record, opened
// read-only while the writer stays open.
type fixture struct {
	srv              *httptest.Server
	writer           *runstore.Store
	path             string
	data             *datasets.Dataset
	k1, k5, k10, bad string
	// live is the run in progress: its lease held, one of its two
	// records written.
	live string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "runs.db")
	st, err := runstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{writer: st, path: path, data: d}
	for _, k := range []int{1, 5, 10} {
		res, err := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: k,
			Label: fmt.Sprintf("bm25 k=%d", k)}, runs.Options{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		switch k {
		case 1:
			f.k1 = res.ID
		case 5:
			f.k5 = res.ID
		default:
			f.k10 = res.ID
		}
	}
	recs := []record.Record{hostile(), {QuestionID: "plain", CorpusID: "c1", Task: "t2", System: "flat", K: 10,
		Failure: "reader: timeout"}}
	f.bad = putRun(t, st, "hostile", recs)
	// A run in progress: its lease held, one of its two records written.
	live := record.Spec{Dataset: "synthetic", Fingerprint: "live", Questions: 2, QuestionsHash: "live", System: "flat", K: 10}
	lease, err := st.Begin(context.Background(), live, "live", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lease.Release(retrieval.Meter{}, 0) })
	if err := st.Put(context.Background(), live.ID(), 0, 1, record.Record{QuestionID: "first", CorpusID: "c1", K: 10}); err != nil {
		t.Fatal(err)
	}
	f.live = live.ID()
	ro, err := runstore.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	f.srv = httptest.NewServer(viewer.New(ro, viewer.Options{Refresh: -1, Datasets: []*datasets.Dataset{d}}))
	t.Cleanup(f.srv.Close)
	return f
}

func hostile() record.Record {
	return record.Record{QuestionID: "evil/q 1", CorpusID: "c1", Task: "t1", Dimension: "opinion", System: "flat", K: 10,
		Answer: evilAnswer, Choice: "A", Correct: "B",
		Retrieval: retrieval.RetrievalScore{K: 10, HasGold: true},
		Hits: []retrieval.Hit{{UnitID: "u<b>1", TraceIDs: []string{"t1"}, Score: 2.5, Text: evilAnswer, Kind: "chunk",
			Time: time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC)}},
		Scores: []record.Score{{Metric: judge.MetricKnowMeScore, Value: 1, Min: 0, Max: 5, Kind: record.KindLLMJudge,
			Judge: "knowme/memlab", Model: "m", Explanation: "<script>alert(1)</script> because",
			Raw: `{"score": 1, "why": "<script>alert(1)</script> raw reply"}`, Attempts: 2}},
		Latency: 1500 * time.Millisecond}
}

// putRun writes recs as a run labelled label and returns its id.
func putRun(t testing.TB, st *runstore.Store, label string, recs []record.Record) string {
	t.Helper()
	spec := record.Spec{Dataset: "synthetic", Fingerprint: label, Questions: len(recs), QuestionsHash: label, System: "flat", K: 10}
	ctx := context.Background()
	lease, err := st.Begin(ctx, spec, label, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if err := st.Put(ctx, spec.ID(), i, 1, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := lease.Release(retrieval.Meter{}, time.Second); err != nil {
		t.Fatal(err)
	}
	return spec.ID()
}

// get returns the body of GET path, failing unless the status is want.
func get(t testing.TB, srv *httptest.Server, path string, want int) string {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want {
		t.Fatalf("GET %s: status %d, want %d: %.500s", path, resp.StatusCode, want, b)
	}
	return string(b)
}

var questionRow = regexp.MustCompile(`<tr class="q">`)

func rows(body string) int { return len(questionRow.FindAllString(body, -1)) }

func TestRunsPage(t *testing.T) {
	f := newFixture(t)
	body := get(t, f.srv, "/", 200)
	for _, id := range []string{f.k1, f.k5, f.k10, f.bad} {
		if !strings.Contains(body, `href="/run/`+id+`"`) {
			t.Errorf("runs page has no link to run %s", id)
		}
	}
	for _, want := range []string{"bm25 k=1", "bm25 k=10", "complete", "1 failed", "54 / 54", "All-Any", `<input type="checkbox" name="run" value="` + f.k5 + `">`,
		`<td class="ok">running</td><td class="r">1 / 2</td>`} {
		if !strings.Contains(body, want) {
			t.Errorf("runs page lacks %q", want)
		}
	}
	if n := strings.Count(body, `<tr class="run">`); n != 5 {
		t.Errorf("runs page has %d runs, want 5", n)
	}
}

func TestRunPageFiltersSearchAndPages(t *testing.T) {
	f := newFixture(t)
	base := "/run/" + f.k1
	all := get(t, f.srv, base, 200)
	if n := rows(all); n != 54 {
		t.Fatalf("run page lists %d questions, want the sample's 54", n)
	}
	for _, want := range []string{"Recall-Flat", "By task", "By medium", "54 of 54 questions"} {
		if !strings.Contains(all, want) {
			t.Errorf("run page lacks %q", want)
		}
	}
	missed := get(t, f.srv, base+"?outcome=allany0", 200)
	hit := get(t, f.srv, base+"?outcome=allany1", 200)
	if m, h := rows(missed), rows(hit); m == 0 || h == 0 || m+h > 54 {
		t.Errorf("All-Any = 0 lists %d, = 1 lists %d questions: want both some and at most 54 together", m, h)
	}
	// A task filter keeps that task's questions only.
	task := regexp.MustCompile(`<option value="([^"]+)">`).FindStringSubmatch(all)
	if task == nil {
		t.Fatal("run page offers no task")
	}
	byTask := get(t, f.srv, base+"?task="+url.QueryEscape(task[1]), 200)
	if n := rows(byTask); n == 0 || n >= 54 {
		t.Errorf("task %q lists %d questions, want fewer than 54 and some", task[1], n)
	}
	// Sorting reorders without losing questions: by MRR descending, the
	// first row has the highest MRR; the column's header link sorts
	// ascending again.
	desc := get(t, f.srv, base+"?sort=mrr&desc=1", 200)
	if n := rows(desc); n != 54 {
		t.Errorf("sorted by MRR: %d questions, want 54", n)
	}
	mrr := regexp.MustCompile(`<tr class="q">(?:<td[^>]*>.*?</td>){7}<td class="r">([0-9.]+)</td>`)
	if m := mrr.FindAllStringSubmatch(strings.ReplaceAll(desc, "\n", ""), -1); len(m) < 2 || m[0][1] < m[len(m)-1][1] {
		t.Errorf("sorted by MRR descending: first and last MRR %v", m)
	}
	if !strings.Contains(desc, `href="/run/`+f.k1+`?sort=mrr#questions"`) {
		t.Error("the MRR header of a list sorted by MRR descending does not sort it ascending")
	}
	// Pagination: a page size of 20 over 54 questions makes 3 pages.
	ro, err := runstore.OpenReadOnly(f.path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	small := httptest.NewServer(viewer.New(ro, viewer.Options{PageSize: 20}))
	defer small.Close()
	p1, p2, p3 := get(t, small, base, 200), get(t, small, base+"?page=2", 200), get(t, small, base+"?page=3", 200)
	if rows(p1) != 20 || rows(p2) != 20 || rows(p3) != 14 {
		t.Errorf("pages hold %d, %d, %d questions, want 20, 20, 14", rows(p1), rows(p2), rows(p3))
	}
	if !strings.Contains(p2, `<td class="r">21</td>`) || !strings.Contains(p2, "page 2 of 3") {
		t.Error("page 2 does not start at question 21")
	}
	if !strings.Contains(p1, `id="nextpage"`) || strings.Contains(p3, `id="nextpage"`) {
		t.Error("next page link wrong on the first or last page")
	}
	get(t, small, base+"?page=x", 400)
	get(t, small, base+"?outcome=nonsense", 400)
}

func TestSearch(t *testing.T) {
	f := newFixture(t)
	body := get(t, f.srv, "/run/"+f.bad+"?q=ZANZIBAR", 200)
	if n := rows(body); n != 1 || !strings.Contains(body, "evil/q 1") {
		t.Errorf("searching zanzibar lists %d questions, want the hostile one", n)
	}
	if n := rows(get(t, f.srv, "/run/"+f.bad+"?q=nosuchwordanywhere", 200)); n != 0 {
		t.Errorf("searching an absent word lists %d questions", n)
	}
	if n := rows(get(t, f.srv, "/run/"+f.bad+"?outcome=failed", 200)); n != 1 {
		t.Errorf("failed lists %d questions, want 1", n)
	}
	if n := rows(get(t, f.srv, "/run/"+f.bad+"?outcome="+url.QueryEscape("judge<=2"), 200)); n != 1 {
		t.Errorf("judge<=2 lists %d questions, want 1", n)
	}
}

func TestEscaping(t *testing.T) {
	f := newFixture(t)
	pages := map[string]string{
		"runs":     "/",
		"run":      "/run/" + f.bad,
		"question": "/run/" + f.bad + "/q?" + url.Values{"c": {"c1"}, "qid": {"evil/q 1"}}.Encode(),
	}
	for name, path := range pages {
		body := get(t, f.srv, path, 200)
		if strings.Contains(body, "<script>alert") {
			t.Errorf("%s page holds a raw script tag", name)
		}
		if strings.Contains(body, "hunter2") {
			t.Errorf("%s page shows a URL credential", name)
		}
		if name == "runs" {
			continue
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s page does not show the script tag escaped", name)
		}
		if !strings.Contains(body, "&amp;amp;") {
			t.Errorf("%s page does not escape an entity", name)
		}
	}
	q := get(t, f.srv, pages["question"], 200)
	for _, want := range []string{strings.Repeat("y", 20000), "u&lt;b&gt;1", "2024-01-02 03:04", "knowme/memlab", "because",
		"A / B", "1.500 s", "not marked gold", "raw reply", "(2 calls)"} {
		if !strings.Contains(q, want) {
			t.Errorf("question page lacks %.60q", want)
		}
	}
}

func TestQuestionPageNavigation(t *testing.T) {
	f := newFixture(t)
	list := get(t, f.srv, "/run/"+f.k10+"?outcome=allany1", 200)
	links := regexp.MustCompile(`<a href="(/run/[^"]+/q\?[^"]+)">`).FindAllStringSubmatch(list, -1)
	if len(links) < 3 {
		t.Fatalf("only %d question links under All-Any = 1", len(links))
	}
	second := strings.ReplaceAll(links[1][1], "&amp;", "&")
	body := get(t, f.srv, second, 200)
	for _, want := range []string{`id="prev"`, `id="next"`, "question 2 of", "outcome=allany1", "Retrieved", `<tr class="hit">`, "Scores"} {
		if !strings.Contains(body, want) {
			t.Errorf("question page lacks %q", want)
		}
	}
	next := regexp.MustCompile(`id="next" href="([^"]+)"`).FindStringSubmatch(body)
	if next == nil || strings.ReplaceAll(next[1], "&amp;", "&") != strings.ReplaceAll(links[2][1], "&amp;", "&") {
		t.Errorf("next link %v is not the third question under the filter %s", next, links[2][1])
	}
	get(t, f.srv, "/run/"+f.k10+"/q?c=x&qid=nosuch", 404)
}

func TestCompare(t *testing.T) {
	f := newFixture(t)
	body := get(t, f.srv, "/compare?a="+f.k1+"&b="+f.k10, 200)
	m := regexp.MustCompile(`Wrong in a, right in b: (\d+)`).FindStringSubmatch(body)
	if m == nil || m[1] == "0" {
		t.Fatalf("k=1 -> k=10 fixes no question on All-Any: %v", m)
	}
	if n := strings.Count(body, `<tr class="flip">`); n == 0 {
		t.Errorf("no flip rows")
	}
	if !strings.Contains(body, "McNemar") {
		t.Error("the compare page lacks the paired test of All-Any")
	}
	link := regexp.MustCompile(`<a href="(/compare/q\?[^"]+)">`).FindStringSubmatch(body)
	if link == nil {
		t.Fatal("no link to a flipped question")
	}
	side := get(t, f.srv, strings.ReplaceAll(link[1], "&amp;", "&"), 200)
	if strings.Count(side, "<h3>Retrieved</h3>") != 2 {
		t.Error("the compare question page does not show both rankings")
	}
	get(t, f.srv, "/compare?a="+f.k1, 400)
	get(t, f.srv, "/compare?a="+f.k1+"&b="+f.k10+"&m=nosuchmetric", 400)
}

func TestUnknownRun(t *testing.T) {
	f := newFixture(t)
	body := get(t, f.srv, "/run/nosuchrun", 404)
	if !strings.Contains(body, `no run &#34;nosuchrun&#34;`) {
		t.Errorf("404 page does not say which run is missing: %.300s", body)
	}
	get(t, f.srv, "/compare?a=nosuchrun&b="+f.k1, 404)
	get(t, f.srv, "/nosuchpage", 404)
	css := get(t, f.srv, "/static/style.css", 200)
	if !strings.Contains(css, "table") {
		t.Error("stylesheet not served")
	}
}

// TestStoreWrittenWhileServed: a run another writer adds to the store
// while the viewer serves it shows up on the next request, and a record
// added to a run shows on its page.
func TestStoreWrittenWhileServed(t *testing.T) {
	f := newFixture(t)
	if n := strings.Count(get(t, f.srv, "/", 200), `<tr class="run">`); n != 5 {
		t.Fatalf("%d runs before the write, want 5", n)
	}
	late := hostile()
	late.QuestionID = "late one"
	id := putRun(t, f.writer, "late", []record.Record{late})
	body := get(t, f.srv, "/", 200)
	if n := strings.Count(body, `<tr class="run">`); n != 6 || !strings.Contains(body, id) {
		t.Errorf("%d runs after the write, want 6 with %s", n, id)
	}
	if !strings.Contains(get(t, f.srv, "/run/"+id, 200), "late one") {
		t.Error("the new run's page lacks its question")
	}
}

// TestGoldFromDataset: with the run's dataset loaded, a question page
// shows the question's text and gold evidence and marks the retrieved
// units holding gold traces; without it, it says the record has no gold
// ids.
func TestGoldFromDataset(t *testing.T) {
	f := newFixture(t)
	q := f.data.Questions[1]
	path := "/run/" + f.k10 + "/q?" + url.Values{"c": {q.CorpusID}, "qid": {q.ID}}.Encode()
	body := get(t, f.srv, path, 200)
	gold := q.GoldTraceIDs()
	if len(gold) == 0 {
		t.Fatalf("sample question %s has no gold", q.ID)
	}
	for _, want := range []string{"Gold evidence", `class="goldtrace"`, gold[0], "asked at"} {
		if !strings.Contains(body, want) {
			t.Errorf("question page lacks %q", want)
		}
	}
	if !strings.Contains(body, html.EscapeString(q.Text)) {
		t.Errorf("question page lacks the question's text %q", q.Text)
	}
	marked := strings.Count(body, `<tr class="hit gold">`)
	unmarked := strings.Count(body, `<tr class="hit">`)
	if marked == 0 || marked+unmarked != 10 {
		t.Errorf("%d of %d hits marked gold; want some of 10", marked, marked+unmarked)
	}
	// Without the dataset the page says why nothing is marked.
	ro, err := runstore.OpenReadOnly(f.path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	bare := httptest.NewServer(viewer.New(ro, viewer.Options{}))
	defer bare.Close()
	body = get(t, bare, path, 200)
	if strings.Contains(body, "hit gold") || !strings.Contains(body, "not marked gold") {
		t.Error("without the dataset, the page marks gold or does not say it cannot")
	}
	// The search covers the question's text when the dataset is loaded.
	word := strings.Fields(q.Text)[len(strings.Fields(q.Text))-1]
	if n := rows(get(t, f.srv, "/run/"+f.k10+"?q="+url.QueryEscape(strings.Trim(word, "?.,")), 200)); n == 0 {
		t.Errorf("searching %q (of the question's text) finds nothing", word)
	}
}

// TestRunsPageBudget: past its time budget the runs page leaves the means
// of the runs it has not read out, and each reload reads more.
func TestRunsPageBudget(t *testing.T) {
	f := newFixture(t)
	ro, err := runstore.OpenReadOnly(f.path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	srv := httptest.NewServer(viewer.New(ro, viewer.Options{MeansBudget: time.Nanosecond}))
	defer srv.Close()
	pending := regexp.MustCompile(`The means of (\d+) runs are not read yet`)
	for _, want := range []string{"4", "3", "2", "1"} {
		m := pending.FindStringSubmatch(get(t, srv, "/", 200))
		if m == nil || m[1] != want {
			t.Fatalf("pending runs %v, want %s", m, want)
		}
	}
	if strings.Contains(get(t, srv, "/", 200), `id="pending"`) {
		t.Error("every run read, the page still says some are pending")
	}
}
