package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/llm/llmtest"
)

// TestCacheStatsWithoutACache: before the first model call there is no
// cache file; stats says so and exits 0 (before: "no cache at ...", exit 1).
func TestCacheStatsWithoutACache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none", "calls.db")
	code, out, stderr := memlab(t, "cache", "stats", "-path", path)
	if code != 0 || !strings.Contains(out, "no cache at "+path) {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 0 and a line saying there is no cache", code, out, stderr)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("cache stats created a cache")
	}
}

// modelRunEnv points the model roles at a fake server and the cache and
// run store into dir.
func modelRunEnv(t *testing.T, dir string) (cachePath, storePath string) {
	t.Helper()
	srv, err := llmtest.Start(llmtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	useFakeServer(t, srv)
	cachePath, storePath = filepath.Join(dir, "calls.db"), filepath.Join(dir, "runs.db")
	t.Setenv("MEMLAB_CACHE", cachePath)
	t.Setenv("MEMLAB_RUNS", storePath)
	return cachePath, storePath
}

// TestCorruptCacheFailsTheRunAndIsCleared: with pages of the model-call
// cache overwritten, memlab run exits 1 and says the cache file is
// corrupt, names it and suggests memlab cache clear (before: the questions
// that read a bad page failed one by one and the run exited 0); cache
// stats says the same; cache clear removes the file, and the next run
// succeeds.
func TestCorruptCacheFailsTheRunAndIsCleared(t *testing.T) {
	dir := t.TempDir()
	cachePath, _ := modelRunEnv(t, dir)
	out := filepath.Join(dir, "out")
	if code, _, stderr := memlab(t, "run", "testdata/model_run.go", "-o", out, "-quiet", "-no-store"); code != 0 {
		t.Fatalf("first run: exit %d:\n%s", code, stderr)
	}
	runtest.DamageMiddle(t, cachePath)
	code, stdout, stderr := memlab(t, "run", "testdata/model_run.go", "-o", out, "-quiet", "-no-store")
	if code != 1 {
		t.Errorf("run over a corrupt cache: exit %d, want 1; stdout:\n%s", code, stdout)
	}
	for _, want := range []string{"the model-call cache file " + cachePath + " is corrupt", "memlab cache clear -path " + cachePath} {
		if !strings.Contains(stderr, want) {
			t.Errorf("run stderr lacks %q:\n%s", want, stderr)
		}
	}
	code, _, stderr = memlab(t, "cache", "stats")
	if code != 1 || !strings.Contains(stderr, "is corrupt") || !strings.Contains(stderr, "memlab cache clear") {
		t.Errorf("cache stats of a corrupt cache: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr = memlab(t, "cache", "clear")
	if code != 0 || !strings.Contains(stdout, "was corrupt: removed it") {
		t.Errorf("cache clear of a corrupt cache: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, stdout, stderr := memlab(t, "run", "testdata/model_run.go", "-o", out, "-quiet", "-no-store"); code != 0 || !strings.Contains(stdout, "failed 0") {
		t.Errorf("run after the clear: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
}

// readOnlyMemlab runs memlab args as a process that sees dir as read-only
// media: for a user other than root, dir and its files lose their write
// permission; root, whom permissions do not stop, gets a read-only bind
// mount of dir in a mount namespace of the process's own (unshare), and
// the test is skipped when that is not allowed.
func readOnlyMemlab(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cmd *exec.Cmd
	if os.Geteuid() != 0 {
		lock := func(mode os.FileMode, fileMode os.FileMode) {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				os.Chmod(filepath.Join(dir, e.Name()), fileMode)
			}
			os.Chmod(dir, mode)
		}
		lock(0o555, 0o444)
		defer lock(0o755, 0o644)
		cmd = exec.Command(exe, args...)
	} else {
		const script = `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"`
		if out, err := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", dir, "true").CombinedOutput(); err != nil {
			t.Skipf("running as root, and no read-only bind mount can be made (unshare -m: %v: %s): nothing stands for read-only media", err, out)
		}
		cmd = exec.Command("unshare", append([]string{"-m", "--propagation", "private", "sh", "-c", script, "sh", dir, exe}, args...)...)
	}
	cmd.Env = append(os.Environ(), envAsMemlab+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestReadOnlyStoreAndCache: a run store and a cache on read-only media
// can still be read by runs list, runs show and cache stats (opened
// read-only), and what would write says "read-only" (before: "unable to
// open database file (14)" for all of them).
func TestReadOnlyStoreAndCache(t *testing.T) {
	if testing.Short() {
		t.Skip("starts memlab processes: skipped under -short")
	}
	dir := t.TempDir()
	cachePath, storePath := modelRunEnv(t, dir)
	out := t.TempDir()
	if code, _, stderr := memlab(t, "run", "testdata/model_run.go", "-o", out, "-quiet"); code != 0 {
		t.Fatalf("first run: exit %d:\n%s", code, stderr)
	}
	code, stdout, stderr := memlab(t, "runs", "list")
	id := regexp.MustCompile(`\| ([0-9a-f]{16}) \|`).FindStringSubmatch(stdout)
	if code != 0 || id == nil {
		t.Fatalf("runs list: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"runs", "list", "-store", storePath}, 0, id[1]},
		{[]string{"runs", "show", "-store", storePath, id[1]}, 0, "54 done, 0 failed, 54 questions"},
		{[]string{"runs", "export", "-store", storePath, id[1]}, 0, "question_id"},
		{[]string{"cache", "stats", "-path", cachePath}, 0, "entries"},
		{[]string{"cache", "clear", "-path", cachePath}, 1, "read-only"},
		{[]string{"run", "testdata/model_run.go", "-o", out, "-quiet", "-store", storePath}, 1, "read-only"},
	} {
		code, stdout, stderr := readOnlyMemlab(t, dir, c.args...)
		got := stdout
		if c.code != 0 {
			got = stderr
		}
		if code != c.code || !strings.Contains(got, c.want) {
			t.Errorf("memlab %s on read-only media: exit %d, want %d and %q in\nstdout:\n%s\nstderr:\n%s",
				strings.Join(c.args, " "), code, c.code, c.want, stdout, stderr)
		}
	}
}
