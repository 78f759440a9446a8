package viewer_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runstore"
	"github.com/memlab/memlab/viewer"
)

// tableRow is the cells of the first row of an HTML table whose first
// cell is first.
func tableRow(t *testing.T, body, first string) []string {
	t.Helper()
	m := regexp.MustCompile(`<tr><td>` + regexp.QuoteMeta(first) + `</td>(.*?)</tr>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no table row %q", first)
	}
	var cells []string
	for _, c := range regexp.MustCompile(`<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(m[1], -1) {
		cells = append(cells, c[1])
	}
	return cells
}

// ci is what the viewer shows of the mean of xs over the records idx: the
// percentile bootstrap of 2,000 resamples with seed 1, resampling personas
// when the values come from several.
func ci(xs []float64, corpus []string, idx []int) string {
	var x []float64
	var cl []string
	personas := map[string]bool{}
	for _, i := range idx {
		x, cl = append(x, xs[i]), append(cl, corpus[i])
		if !math.IsNaN(xs[i]) {
			personas[corpus[i]] = true
		}
	}
	iv := analysis.BootstrapMean(x, 0.95, 2000, 1)
	if len(personas) > 1 {
		iv = analysis.BootstrapMeanClustered(x, cl, 0.95, 2000, 1)
	}
	return analysis.FmtCI(iv.Estimate, iv.Lo, iv.Hi, 3)
}

// TestRunPageIntervals: the run page's summary and breakdowns show each
// mean with its 95% bootstrap interval (fixed seed: the same on every
// load of a fresh viewer), resampling whole personas where a table's
// questions come from several, and say so under each table.
func TestRunPageIntervals(t *testing.T) {
	f := newFixture(t)
	body := get(t, f.srv, "/run/"+f.k10, 200)
	recs, err := f.writer.Records(f.k10)
	if err != nil {
		t.Fatal(err)
	}
	cols := reports.ColumnsOf(recs)
	all := make([]int, len(recs))
	for i := range all {
		all[i] = i
	}
	if got, want := tableRow(t, body, "Recall-Flat")[0], ci(cols.RecallFlat, cols.CorpusID, all); got != want {
		t.Errorf("summary Recall-Flat %s, want %s (personas resampled)", got, want)
	}
	if got, want := tableRow(t, body, "MRR")[0], ci(cols.MRR, cols.CorpusID, all); got != want {
		t.Errorf("summary MRR %s, want %s", got, want)
	}
	if !strings.Contains(tableRow(t, body, "Choice accuracy")[1], ci(cols.Metric("Choice accuracy"), cols.CorpusID, all)) {
		t.Errorf("summary choice accuracy %v lacks its interval", tableRow(t, body, "Choice accuracy"))
	}
	// By task (questions of both personas) and by persona (one each).
	task := recs[0].Task
	var ofTask, ofPersona []int
	for i, r := range recs {
		if r.Task == task {
			ofTask = append(ofTask, i)
		}
		if r.CorpusID == "p02_zh" {
			ofPersona = append(ofPersona, i)
		}
	}
	if got, want := tableRow(t, body, task)[2], ci(cols.RecallFlat, cols.CorpusID, ofTask); got != want {
		t.Errorf("task %s Recall-Flat %s, want %s", task, got, want)
	}
	if got, want := tableRow(t, body, "p02_zh")[3], ci(cols.AllAny, cols.CorpusID, ofPersona); got != want {
		t.Errorf("persona p02_zh All-Any %s, want %s (questions resampled)", got, want)
	}
	for _, want := range []string{"95% percentile-bootstrap intervals (2000 resamples, seed 1)", "resampling whole personas",
		"resampling questions (each group&#39;s questions are of one persona)"} {
		if !strings.Contains(body, want) {
			t.Errorf("run page lacks %q under a table", want)
		}
	}
	if n := strings.Count(body, `<p class="muted note">Means with`) + strings.Count(body, `<p class="muted note">n: `); n < 6 {
		t.Errorf("%d tables say what their intervals are, want the 2 summary tables and 4 breakdowns", n)
	}
	// A fresh viewer shows the same intervals.
	ro, err := runstore.OpenReadOnly(f.path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	again := httptestServer(t, viewer.New(ro, viewer.Options{}))
	if b := get(t, again, "/run/"+f.k10, 200); tableRow(t, b, "Recall-Flat")[0] != tableRow(t, body, "Recall-Flat")[0] {
		t.Error("a fresh viewer shows another interval: the seed is not fixed")
	}
}

// TestFigures: a run page embeds its figures (retrieval by task, the
// answer's metric by task) as images it serves itself as PNG, of the
// figures' size; a run with nothing to draw has none, and an unknown
// figure is a 404.
func TestFigures(t *testing.T) {
	f := newFixture(t)
	body := get(t, f.srv, "/run/"+f.k10, 200)
	imgs := regexp.MustCompile(`<img class="figure" src="([^"]+)" alt="([^"]+)"`).FindAllStringSubmatch(body, -1)
	if len(imgs) != 2 || !strings.Contains(imgs[0][2], "Recall-Flat and All-Any") || !strings.Contains(imgs[1][2], "Choice accuracy") {
		t.Fatalf("run page figures %v, want retrieval and choice accuracy", imgs)
	}
	for _, img := range imgs {
		src := strings.ReplaceAll(img[1], "&amp;", "&")
		if !strings.HasPrefix(src, "/run/"+f.k10+"/fig/") {
			t.Errorf("figure %s is not served by the viewer", src)
		}
		resp, err := http.Get(f.srv.URL + src)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("GET %s: %d %s", src, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'self'") {
			t.Errorf("figure's CSP %q", csp)
		}
		cfg, err := png.DecodeConfig(&b)
		if err != nil || cfg.Width != 907 || cfg.Height != 510 {
			t.Errorf("figure %s: %d x %d (%v), want 907 x 510 (16 x 9 cm at 144 dpi)", src, cfg.Width, cfg.Height, err)
		}
	}
	// The hostile run has gold and an LLM judge: its answer figure is
	// the judge's.
	if b := get(t, f.srv, "/run/"+f.bad, 200); !strings.Contains(b, `alt="KnowMe`) {
		t.Error("the hostile run's answer figure is not its LLM judge's")
	}
	live := get(t, f.srv, "/run/"+f.live, 200)
	if strings.Contains(live, "<img") {
		t.Error("a run without gold or scores shows a figure")
	}
	get(t, f.srv, "/run/"+f.live+"/fig/retrieval.png", 404)
	get(t, f.srv, "/run/"+f.k10+"/fig/nosuch.png", 404)
	get(t, f.srv, "/run/nosuchrun/fig/retrieval.png", 404)
}

// TestQuestionStagesAndContext: a question page shows each stage's wall
// time (or says a record from before the stage times has none, never 0),
// and lists the passages given to the reader in order, with their dates,
// kinds, traces and gold marks.
func TestQuestionStagesAndContext(t *testing.T) {
	f := newFixture(t)
	q := f.data.Questions[1]
	body := get(t, f.srv, "/run/"+f.k10+"/q?"+url.Values{"c": {q.CorpusID}, "qid": {q.ID}}.Encode(), 200)
	stage := regexp.MustCompile(`<tr class="stage"><td>(\w+)</td><td class="r">([^<]+)</td>`)
	got := map[string]string{}
	for _, m := range stage.FindAllStringSubmatch(body, -1) {
		got[m[1]] = m[2]
	}
	for _, s := range []string{"retrieve", "read", "judge", "total"} {
		if !regexp.MustCompile(`^[0-9.]+ (ms|s)$`).MatchString(got[s]) {
			t.Errorf("stage %s: wall time %q, want a time", s, got[s])
		}
	}
	if strings.Contains(body, "not recorded") {
		t.Error("a record with stage times says they were not recorded")
	}
	recs, err := f.writer.Records(f.k10)
	if err != nil {
		t.Fatal(err)
	}
	var rec record.Record
	for _, r := range recs {
		if r.QuestionID == q.ID && r.CorpusID == q.CorpusID {
			rec = r
		}
	}
	passages := regexp.MustCompile(`<tr class="passage( gold)?"><td class="r">(\d+)</td><td>([^<]+)</td>`).FindAllStringSubmatch(body, -1)
	if len(passages) != len(rec.ContextIDs) || len(passages) != 10 {
		t.Fatalf("%d passages listed, want the record's %d context ids (10)", len(passages), len(rec.ContextIDs))
	}
	gold := 0
	for i, p := range passages {
		if p[2] != strconv.Itoa(i+1) || p[3] != rec.ContextIDs[i] {
			t.Errorf("passage %d: #%s %s, want #%d %s", i+1, p[2], p[3], i+1, rec.ContextIDs[i])
		}
		if p[1] != "" {
			gold++
		}
	}
	if hitsGold := strings.Count(body, `<tr class="hit gold">`); gold == 0 || gold != hitsGold {
		t.Errorf("%d passages marked gold, %d hits: want the same, some", gold, hitsGold)
	}
	if !strings.Contains(body, date(rec.Hits[0].Time)) {
		t.Errorf("the first passage's date %s is not shown", date(rec.Hits[0].Time))
	}

	// A record from before the stage times, with a context id among no
	// hit.
	old := hostile()
	old.ContextIDs = []string{"u<b>1", "gone"}
	id := putRun(t, f.writer, "old", []record.Record{old})
	body = get(t, f.srv, "/run/"+id+"/q?"+url.Values{"c": {"c1"}, "qid": {old.QuestionID}}.Encode(), 200)
	if n := strings.Count(body, `<td class="r">not recorded</td>`); n != 3 || !strings.Contains(body, "before memlab kept the time of each stage") {
		t.Errorf("%d stages say not recorded, want 3 and the note", n)
	}
	if !strings.Contains(body, `<tr class="stage"><td>total</td><td class="r">1.500 s</td>`) {
		t.Error("the total wall time of a record without stage times is not shown")
	}
	if !strings.Contains(body, `<td>u&lt;b&gt;1</td><td class="r">1</td>`) || !strings.Contains(body, `<td>gone</td><td colspan="5" class="muted">not among`) {
		t.Error("the context lists neither the hit of u<b>1 nor a missing passage")
	}
}

func date(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

// compareRows are the runs of a compare page: letter, run id, mean, Δ,
// test, p, p (Holm), pairs.
func compareRows(t *testing.T, body string) [][]string {
	t.Helper()
	var out [][]string
	cell := regexp.MustCompile(`<td[^>]*>(.*?)</td>`)
	for _, m := range regexp.MustCompile(`(?s)<tr class="crun">(.*?)</tr>`).FindAllStringSubmatch(body, -1) {
		var cells []string
		for _, c := range cell.FindAllStringSubmatch(strings.ReplaceAll(m[1], "\n", ""), -1) {
			cells = append(cells, c[1])
		}
		if len(cells) < 15 {
			t.Fatalf("compare row of %d cells: %q", len(cells), m[1])
		}
		out = append(out, []string{cells[0], cells[1], cells[9], cells[10], cells[11], cells[12], cells[13], cells[14]})
	}
	return out
}

// TestCompareSeveralRuns: three runs ticked compare on one metric: each
// run's mean with its interval, the paired difference of each against
// the first with its test and Holm-adjusted p, and the flips between the
// first and a chosen other run, each linking to both rankings.
func TestCompareSeveralRuns(t *testing.T) {
	f := newFixture(t)
	runs := url.Values{"run": {f.k1, f.k5, f.k10}}
	body := get(t, f.srv, "/compare?"+runs.Encode(), 200)
	rows := compareRows(t, body)
	if len(rows) != 3 || rows[0][0] != "a (baseline)" || rows[1][0] != "b" || rows[2][0] != "c" {
		t.Fatalf("compare rows %v, want a (baseline), b, c", rows)
	}
	recs, err := f.writer.Records(f.k10)
	if err != nil {
		t.Fatal(err)
	}
	cols := reports.ColumnsOf(recs)
	all := make([]int, len(recs))
	for i := range all {
		all[i] = i
	}
	if want := ci(cols.AllAny, cols.CorpusID, all) + " (n=54)"; rows[2][2] != want {
		t.Errorf("k=10's All-Any %s, want %s", rows[2][2], want)
	}
	// The viewer shows reports.Compare's figures over the three runs.
	var results []*record.Result
	for _, id := range []string{f.k1, f.k5, f.k10} {
		rs, err := f.writer.Records(id)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, &record.Result{ID: id, Label: id[:10], K: 1, Records: rs})
	}
	cmp, err := reports.Compare(results, reports.CompareOptions{Metrics: []string{"All-Any"}, Resamples: 2000, Seed: 1, ClusterByPersona: true})
	if err != nil {
		t.Fatal(err)
	}
	pv := func(p float64) string {
		if p < 0.001 {
			return "&lt; 0.001"
		}
		return fmt.Sprintf("%.3f", p)
	}
	var raw []float64
	for i, r := range rows[1:] {
		c := cmp.Cells[i+1]
		raw = append(raw, c.P)
		if !strings.HasPrefix(r[4], "McNemar exact (only a: ") {
			t.Errorf("run %s: test %q, want McNemar's with its discordant counts", r[0], r[4])
		}
		if d := html.UnescapeString(r[3]); !strings.HasPrefix(d, "+") || d != analysis.FmtDelta(c.Delta, 3) || r[7] != "54" {
			t.Errorf("run %s: Δ %s over %s pairs, want a gain of %.3f over 54", r[0], d, r[7], c.Delta)
		}
		if r[5] != pv(c.P) || r[6] != pv(c.PHolm) {
			t.Errorf("run %s: p %s, Holm %s; want %s and %s", r[0], r[5], r[6], pv(c.P), pv(c.PHolm))
		}
	}
	for i, adj := range analysis.Holm(raw) {
		if c := cmp.Cells[i+1]; c.PHolm != adj || adj < c.P {
			t.Errorf("Holm-adjusted p %v of %v, want %v, at least the raw p", c.PHolm, c.P, adj)
		}
	}
	// Flips: of b against a by default, of c when asked.
	if !strings.Contains(body, "Wrong in a, right in b:") {
		t.Error("the flips listed are not b's")
	}
	withC := get(t, f.srv, "/compare?"+runs.Encode()+"&flip="+f.k10, 200)
	m := regexp.MustCompile(`Wrong in a, right in c: (\d+)`).FindStringSubmatch(withC)
	if m == nil || m[1] == "0" {
		t.Fatalf("k=1 -> k=10 fixes no question: %v", m)
	}
	link := regexp.MustCompile(`<a href="(/compare/q\?[^"]+)">`).FindStringSubmatch(withC)
	if link == nil {
		t.Fatal("no link to a flipped question")
	}
	side := get(t, f.srv, strings.ReplaceAll(link[1], "&amp;", "&"), 200)
	if strings.Count(side, "<h3>Retrieved</h3>") != 2 || !strings.Contains(side, "bm25 k=1") || !strings.Contains(side, "bm25 k=10") {
		t.Error("the flipped question is not shown in a and c side by side")
	}
	back := regexp.MustCompile(`<a href="(/compare\?[^"]+)">back`).FindStringSubmatch(side)
	if back == nil || strings.Count(back[1], "run=") != 3 || !strings.Contains(back[1], "flip="+f.k10) {
		t.Errorf("the side-by-side page's way back %v is not the comparison of the three runs", back)
	}
	// Another baseline: c first.
	base := regexp.MustCompile(`<a href="([^"]+)">make baseline</a>`).FindAllStringSubmatch(body, -1)
	if len(base) != 2 {
		t.Fatalf("%d make-baseline links, want 2", len(base))
	}
	if rows := compareRows(t, get(t, f.srv, strings.ReplaceAll(base[1][1], "&amp;", "&"), 200)); rows[0][1] != `<a href="/run/`+f.k10+`">`+f.k10[:10]+`</a>` ||
		!strings.HasPrefix(html.UnescapeString(rows[1][3]), "-") {
		t.Errorf("with k=10 as baseline: rows %v, want k=10 first and k=1 below it", rows)
	}
	// Runs of other questions: no pair, no test.
	other := compareRows(t, get(t, f.srv, "/compare?"+url.Values{"run": {f.k1, f.bad}}.Encode(), 200))
	if other[1][7] != "0" || other[1][3] != "n/a" {
		t.Errorf("runs without a common question: %v, want 0 pairs and no difference", other[1])
	}
	get(t, f.srv, "/compare?run="+f.k1, 400)
	get(t, f.srv, "/compare?run="+f.k1+"&run="+f.k1, 400)
	get(t, f.srv, "/compare?"+runs.Encode()+"&m=nosuchmetric", 400)
	get(t, f.srv, "/compare?"+runs.Encode()+"&flip="+f.bad, 400)
	get(t, f.srv, "/compare?"+runs.Encode()+"&flip="+f.k1, 400)
	get(t, f.srv, "/compare?run="+f.k1+"&run=nosuchrun", 404)
}

// TestTenThousandRecordsPaginate: a run of 10,000 records in a SQLite
// run store lists 100 pages of 100, the first and last with the right
// questions, a filter's pages counted over its matches, and a page out of
// range is the last page (past the end) or a 400 (not a page number).
func TestTenThousandRecordsPaginate(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10,000 records to a run store: skipped under -short")
	}
	f := newFixture(t)
	recs := make([]record.Record, 10000)
	for i := range recs {
		recs[i] = record.Record{QuestionID: fmt.Sprintf("q%05d", i), CorpusID: "p", Task: []string{"t1", "t2", "t3"}[i%3], K: 10,
			Answer: "answer " + strconv.Itoa(i)}
	}
	id := putRun(t, f.writer, "big", recs)
	base := "/run/" + id
	first := get(t, f.srv, base, 200)
	if n := rows(first); n != 100 || !strings.Contains(first, "10000 of 10000 questions, page 1 of 100") {
		t.Fatalf("first page: %d rows, %q", n, regexp.MustCompile(`<p id="matched">[^<]*`).FindString(first))
	}
	ids := regexp.MustCompile(`<tr class="q"><td class="r">(\d+)</td><td><a href="[^"]+">(q\d+)</a>`)
	check := func(body string, from int) {
		t.Helper()
		m := ids.FindAllStringSubmatch(body, -1)
		if len(m) == 0 {
			t.Fatal("no rows")
		}
		for j, r := range m {
			if want := strconv.Itoa(from + j); r[1] != want || r[2] != fmt.Sprintf("q%05d", from+j-1) {
				t.Fatalf("row %d is #%s %s, want #%s q%05d", j, r[1], r[2], want, from+j-1)
			}
		}
	}
	check(first, 1)
	last := get(t, f.srv, base+"?page=100", 200)
	if n := rows(last); n != 100 || !strings.Contains(last, "page 100 of 100") || strings.Contains(last, `id="nextpage"`) ||
		!strings.Contains(last, `id="prevpage"`) {
		t.Errorf("last page: %d rows, links wrong or page count wrong", n)
	}
	check(last, 9901)
	// A filter: one task of three, 3,334 questions in 34 pages.
	t1 := get(t, f.srv, base+"?task=t1&page=34", 200)
	if n := rows(t1); n != 34 || !strings.Contains(t1, "3334 of 10000 questions, page 34 of 34") {
		t.Errorf("task t1, page 34: %d rows, %q", n, regexp.MustCompile(`<p id="matched">[^<]*`).FindString(t1))
	}
	// Past the end: the last page; not a page number: 400.
	if past := get(t, f.srv, base+"?page=101", 200); !strings.Contains(past, "page 100 of 100") || rows(past) != 100 {
		t.Error("page 101 of 100 is not the last page")
	}
	if past := get(t, f.srv, base+"?task=t1&page=999999", 200); !strings.Contains(past, "page 34 of 34") {
		t.Error("a filter's page past the end is not its last page")
	}
	for _, p := range []string{"0", "-1", "x", "1e3"} {
		get(t, f.srv, base+"?page="+p, 400)
	}
	if none := get(t, f.srv, base+"?q=nosuchwordanywhere&page=3", 200); rows(none) != 0 || !strings.Contains(none, "0 of 10000 questions, page 1 of 1") {
		t.Error("a filter matching nothing is not one empty page")
	}
}

// httptestServer serves h until the test ends.
func httptestServer(t *testing.T, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// TestCompareFollowsTheStore: a comparison is made again when one of its
// runs changes (a record written to a run in progress).
func TestCompareFollowsTheStore(t *testing.T) {
	f := newFixture(t)
	path := "/compare?" + url.Values{"run": {f.live, f.bad}}.Encode()
	if b := get(t, f.srv, path, 200); !strings.Contains(b, `<td class="r">1 / 2</td>`) {
		t.Fatal("the run in progress is not compared at 1 / 2")
	}
	get(t, f.srv, path, 200) // from the cache
	if err := f.writer.Put(context.Background(), f.live, 1, 1, record.Record{QuestionID: "second", CorpusID: "c1", K: 10}); err != nil {
		t.Fatal(err)
	}
	if b := get(t, f.srv, path, 200); !strings.Contains(b, `<td class="r">2 / 2</td>`) {
		t.Error("after a record was written, the comparison still shows the run at 1 / 2")
	}
}
