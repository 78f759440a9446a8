package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/llm/llmtest"
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
