package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/internal/pgtest"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/runstore"
	"github.com/memlab/memlab/viewer"
)

// getPage returns the body of path on srv, failing t unless it is 200.
func getPage(t *testing.T, srv *httptest.Server, path string) string {
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
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d: %.500s", path, resp.StatusCode, b)
	}
	return string(b)
}

// pgStoreRun runs the model-backed notebook testdata/credentials.go on a
// fake endpoint with the run store (and so the model-call cache) in a new
// PostgreSQL schema, and returns the store's URL, the output directory,
// the fake server and what the command printed.
func pgStoreRun(t *testing.T) (store, out string, srv *llmtest.Server, logs string) {
	t.Helper()
	store = pgtest.URL(t)
	srv, err := llmtest.Start(llmtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("MEMLAB_CONFIG", "")
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	t.Setenv("MEMLAB_CACHE", "") // the cache follows the store into PostgreSQL
	out = t.TempDir()
	code, stdout, stderr := memlab(t, "run", "testdata/credentials.go", "-o", out, "-store", store)
	if code != 0 {
		t.Fatalf("run -store postgres://...: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if srv.Stats().ByPath[llmtest.PathChat] == 0 {
		t.Fatal("the notebook made no model call: nothing was tested")
	}
	return store, out, srv, stdout + stderr
}

// TestPostgresStoreCommands: `memlab run -store postgres://...` keeps its
// run in PostgreSQL and its model calls in the same database (a second run
// calls no model); runs list, show and export, cache stats and the viewer
// read it there.
func TestPostgresStoreCommands(t *testing.T) {
	store, out, srv, logs := pgStoreRun(t)
	shown := runstore.RedactPath(store)
	if !strings.Contains(logs, "memlab view -store '"+shown+"'") {
		t.Errorf("run does not say how to view the runs of %s:\n%s", shown, logs)
	}
	manifest, err := os.ReadFile(filepath.Join(out, "credentials.manifest.json"))
	if err != nil {
		t.Fatalf("no manifest from the PostgreSQL store: %v", err)
	}

	code, stdout, stderr := memlab(t, "runs", "list", "-store", store, "-json")
	if code != 0 {
		t.Fatalf("runs list: exit %d\n%s", code, stderr)
	}
	var list struct {
		Store string `json:"store"`
		Runs  []struct {
			ID        string `json:"id"`
			Questions int    `json:"questions"`
			Done      int    `json:"done"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatalf("runs list -json: %v\n%s", err, stdout)
	}
	if len(list.Runs) != 1 || list.Runs[0].Done != list.Runs[0].Questions || list.Runs[0].Done == 0 {
		t.Fatalf("runs list: %s", stdout)
	}
	id := list.Runs[0].ID
	if !strings.Contains(string(manifest), id) {
		t.Errorf("the manifest does not name run %s", id)
	}
	code, stdout, stderr = memlab(t, "runs", "show", "-store", store, id[:8])
	if code != 0 || !strings.Contains(stdout, "run "+id) {
		t.Errorf("runs show: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = memlab(t, "runs", "diff", "-store", store, id, id)
	if code != 0 || !strings.Contains(stdout, id[:8]) {
		t.Errorf("runs diff: exit %d\n%s\n%s", code, stdout, stderr)
	}
	csv := filepath.Join(out, "export.csv")
	code, _, stderr = memlab(t, "runs", "export", "-store", store, "-o", csv, id)
	if b, err := os.ReadFile(csv); code != 0 || err != nil || strings.Count(string(b), "\n") != list.Runs[0].Questions+1 {
		t.Errorf("runs export: exit %d, %v\n%s", code, err, stderr)
	}

	// The model calls are in the store's database: a second run asks the
	// endpoint nothing new.
	var entries int
	if err := pgtest.Open(t, store).QueryRow(`SELECT count(*) FROM cache_entries`).Scan(&entries); err != nil || entries == 0 {
		t.Fatalf("%d entries in the store's cache_entries (%v): the cache did not follow the store", entries, err)
	}
	calls := srv.Stats().ByPath[llmtest.PathChat]
	if code, stdout, stderr := memlab(t, "run", "testdata/credentials.go", "-o", t.TempDir(), "-store", store); code != 0 {
		t.Fatalf("second run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if again := srv.Stats().ByPath[llmtest.PathChat]; again != calls {
		t.Errorf("the second run made %d chat calls: the PostgreSQL cache did not serve them", again-calls)
	}
	// A rejudge rewrites the records in the PostgreSQL store.
	code, stdout, stderr = memlab(t, "rejudge", "-store", store, "-data", "sample", "-name", "judge-pg", id)
	if code != 0 || !strings.Contains(stdout, "rejudged "+id) {
		t.Fatalf("rejudge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var rejudged int
	if err := pgtest.Open(t, store).QueryRow(`SELECT count(*) FROM records WHERE run_id = $1 AND data LIKE '%judge-pg%'`, id).Scan(&rejudged); err != nil ||
		rejudged != list.Runs[0].Questions {
		t.Errorf("%d records of %d carry the rejudge's verdict (%v)", rejudged, list.Runs[0].Questions, err)
	}
	code, stdout, stderr = memlab(t, "cache", "stats", "-path", store)
	if code != 0 || !strings.Contains(stdout, shown) || !strings.Contains(stdout, "entries") {
		t.Errorf("cache stats -path postgres://...: exit %d\n%s\n%s", code, stdout, stderr)
	}
	empty := pgtest.URL(t)
	if code, stdout, _ := memlab(t, "cache", "stats", "-path", empty); code != 0 || !strings.Contains(stdout, "no cache at") {
		t.Errorf("cache stats of a schema without a cache: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := memlab(t, "runs", "list", "-store", empty); code != 1 || !strings.Contains(stderr, "-store: ") || !strings.Contains(stderr, "no run store") {
		t.Errorf("runs list of a schema without a store: exit %d\n%s", code, stderr)
	}

	// memlab view's handler on the store opened as view opens it.
	st, err := openRunStore(store, storeRead)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	web := httptest.NewServer(viewer.New(st, viewer.Options{Refresh: -1}))
	defer web.Close()
	// (Pages name URLs as llm.RedactURLs does: without the user either.)
	if page := getPage(t, web, "/"); !strings.Contains(page, id) || !strings.Contains(page, html(llm.RedactURLs(shown))) {
		t.Errorf("the runs page does not show run %s of %s:\n%.2000s", id, shown, page)
	}
	if page := getPage(t, web, "/run/"+id); !strings.Contains(page, id) {
		t.Errorf("the run page does not show run %s:\n%.1000s", id, page)
	}
	recs, err := st.Records(id)
	if err != nil || len(recs) == 0 {
		t.Fatalf("records: %v", err)
	}
	q := recs[0]
	page := getPage(t, web, "/run/"+id+"/q?c="+url.QueryEscape(q.CorpusID)+"&qid="+url.QueryEscape(q.QuestionID))
	if !strings.Contains(page, html(q.QuestionID)) {
		t.Errorf("the question page does not show question %s:\n%.1000s", q.QuestionID, page)
	}
}

// html is s as html/template escapes it in text.
func html(s string) string {
	return strings.NewReplacer("&", "&amp;", "'", "&#39;", "<", "&lt;", ">", "&gt;", `"`, "&#34;").Replace(s)
}
