package main

import (
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/internal/pgtest"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/viewer"
)

// walkFor fails t for every file under dir holding any of secrets.
func walkFor(t *testing.T, dir string, secrets ...string) {
	t.Helper()
	n := 0
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		n++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("%q is in %s", s, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("no files under %s to check", dir)
	}
}

// TestURLCredentialsGoNowhere: a base URL with userinfo runs a model-backed
// notebook (reader and judge names in the run store and the manifest), and
// an unreachable one fails the endpoint check (its message on stderr and in
// the .md and .ipynb). The user name and password appear in no output, log,
// store, manifest or cache file; the host and path still do, so that two
// endpoints remain two run ids.
func TestURLCredentialsGoNowhere(t *testing.T) {
	const user, password = "sentinel-user-5e1c", "sk-SENTINEL-url-9d2f-never-persist"
	srv, err := llmtest.Start(llmtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	store := filepath.Join(dir, "runs.db")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("MEMLAB_CONFIG", "")
	t.Setenv("MEMLAB_CACHE", filepath.Join(dir, "cache", "calls.db"))
	withCreds := strings.Replace(srv.URL(), "://", "://"+user+":"+password+"@", 1)
	t.Setenv("OPENAI_BASE_URL", withCreds)

	var logs strings.Builder
	code, stdout, stderr := memlab(t, "run", "testdata/credentials.go", "-o", filepath.Join(dir, "ok"), "-store", store)
	logs.WriteString(stdout + stderr)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if srv.Stats().ByPath[llmtest.PathChat] == 0 {
		t.Fatal("the notebook made no model call: nothing was tested")
	}
	host := strings.TrimPrefix(srv.URL(), "http://")
	if !strings.Contains(stdout, "(http://***@"+host+")") {
		t.Errorf("the reader's version does not name the endpoint's host and path %s:\n%s", host, stdout)
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "ok", "credentials.manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(manifest), "http://***@"+host) {
		t.Errorf("the manifest does not name the endpoint's host and path %s", host)
	}

	// The endpoint check of an unreachable endpoint names its URL.
	t.Setenv("OPENAI_BASE_URL", "http://"+user+":"+password+"@127.0.0.1:1/v1")
	code, stdout, stderr = memlab(t, "run", "testdata/credentials.go", "-o", filepath.Join(dir, "dead"), "-store", store)
	logs.WriteString(stdout + stderr)
	if code != 1 || !strings.Contains(stderr, "endpoint check failed") || !strings.Contains(stderr, `endpoint "default" (http://***@127.0.0.1:1/v1): network`) {
		t.Errorf("unreachable endpoint: exit %d\n%s", code, stderr)
	}
	for _, s := range []string{user, password} {
		if strings.Contains(logs.String(), s) {
			t.Errorf("%q reached the printed output:\n%s", s, logs.String())
		}
	}
	walkFor(t, dir, user, password)
}

// TestConfigErrorKeepsTheKeySecret: a config file whose key line has a
// typo (":" for "=") stops the notebook with an error naming the file, the
// line and the setting; the key is in no output (stderr, .md, .ipynb).
func TestConfigErrorKeepsTheKeySecret(t *testing.T) {
	const sentinel = "sk-SENTINEL-config-71c4-never-print"
	dir := t.TempDir()
	conf := filepath.Join(dir, "models.conf")
	src := "[endpoint e]\nbase_url = http://127.0.0.1:1/v1\napi_key: " + sentinel + "\n[role judge]\nendpoint = e\nmodel = m\n"
	if err := os.WriteFile(conf, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MEMLAB_CONFIG", conf)
	t.Setenv("MEMLAB_CACHE", filepath.Join(dir, "cache", "calls.db"))
	out := filepath.Join(dir, "out")
	code, stdout, stderr := memlab(t, "run", "testdata/models.go", "-o", out, "-store", filepath.Join(dir, "runs.db"))
	if code != 1 || !strings.Contains(stderr, conf+`:3: setting "api_key": want api_key = value`) {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if strings.Contains(stdout+stderr, sentinel) {
		t.Errorf("the key reached the printed output:\n%s\n%s", stdout, stderr)
	}
	walkFor(t, out, sentinel)
}

// TestPostgresPasswordGoesNowhere: a run store given as a PostgreSQL URL
// with a password (the model-call cache follows it into the database)
// works, and the password reaches no printed line (run, runs list and
// show, cache stats, the errors of a wrong one), no output file or
// manifest, no row of the store or the cache, and no page of the viewer;
// the same store opens without it from PGPASSWORD.
func TestPostgresPasswordGoesNowhere(t *testing.T) {
	store, out, _, logs := pgStoreRun(t)
	u, err := url.Parse(store)
	if err != nil {
		t.Fatal(err)
	}
	password, ok := u.User.Password()
	if !ok || len(password) < 6 {
		t.Skip(pgtest.Env + " has no password (of 6 characters or more) to look for")
	}
	var printed strings.Builder
	printed.WriteString(logs)
	for _, args := range [][]string{
		{"runs", "list", "-store", store}, {"runs", "list", "-store", store, "-json"},
		{"cache", "stats", "-path", store}, {"cache", "stats", "-path", store, "-json"},
	} {
		code, stdout, stderr := memlab(t, args...)
		if code != 0 {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
		}
		printed.WriteString(stdout + stderr)
	}
	st, err := openRunStore(store, storeRead)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	infos, err := st.Runs()
	if err != nil || len(infos) != 1 {
		t.Fatalf("runs: %v %v", infos, err)
	}
	code, stdout, stderr := memlab(t, "runs", "show", "-store", store, "-json", infos[0].ID)
	if code != 0 {
		t.Errorf("runs show: exit %d\n%s", code, stderr)
	}
	printed.WriteString(stdout + stderr)
	web := httptest.NewServer(viewer.New(st, viewer.Options{Refresh: -1}))
	defer web.Close()
	for _, p := range []string{"/", "/run/" + infos[0].ID} {
		printed.WriteString(getPage(t, web, p))
	}

	// A wrong password, in the URL or from MEMLAB_RUNS: the error names
	// the URL without it.
	const wrong = "wrong-SENTINEL-pg-2f7a"
	bad := *u
	bad.User = url.UserPassword(u.User.Username(), wrong)
	code, stdout, stderr = memlab(t, "runs", "list", "-store", bad.String())
	if code != 1 || !strings.Contains(stderr, "password authentication failed") || !strings.Contains(stderr, "-store: ") {
		t.Errorf("a wrong password: exit %d\n%s", code, stderr)
	}
	t.Setenv("MEMLAB_RUNS", bad.String())
	code, stdout2, stderr2 := memlab(t, "runs", "list")
	if code != 1 || !strings.Contains(stderr2, "$MEMLAB_RUNS: ") {
		t.Errorf("a wrong password in MEMLAB_RUNS: exit %d\n%s", code, stderr2)
	}
	if all := stdout + stderr + stdout2 + stderr2; strings.Contains(all, wrong) {
		t.Errorf("the wrong password was printed:\n%s", all)
	}

	// Without the password in the URL, from PGPASSWORD.
	bare := *u
	bare.User = url.User(u.User.Username())
	t.Setenv("PGPASSWORD", password)
	code, stdout, stderr = memlab(t, "runs", "list", "-store", bare.String())
	if code != 0 || !strings.Contains(stdout, infos[0].ID) {
		t.Errorf("runs list with the password from PGPASSWORD: exit %d\n%s\n%s", code, stdout, stderr)
	}
	printed.WriteString(stdout + stderr)

	if strings.Contains(printed.String(), password) {
		t.Errorf("the store's password reached the printed output or a page:\n%s", printed.String())
	}
	walkFor(t, out, password)
	db := pgtest.Open(t, store)
	for _, table := range []string{"meta", "runs", "records", "failures", "cache_meta", "cache_entries"} {
		var rows int
		var text string
		err := db.QueryRow(`SELECT count(*), coalesce(string_agg(t::text, ' '), '') FROM `+table+` t`).Scan(&rows, &text)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(text, password) {
			t.Errorf("the store's password is in a row of %s", table)
		}
		if rows == 0 && table != "failures" {
			t.Errorf("%s has no rows: nothing was looked at", table)
		}
	}
}
