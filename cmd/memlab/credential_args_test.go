package main

import (
	"flag"
	"slices"
	"strings"
	"testing"
)

// TestCredentialArgumentWarned: an argument naming a URL with a password
// draws a warning that says where the credential belongs and shows the
// argument redacted; an argument without one draws none.
func TestCredentialArgumentWarned(t *testing.T) {
	offlineEnv(t)
	_, _, stderr := memlab(t, "runs", "list", "-store", "postgres://ann:s3cret@127.0.0.1:1/runs")
	if !strings.Contains(stderr, "holds a credential") || !strings.Contains(stderr, "$MEMLAB_RUNS") || !strings.Contains(stderr, "PGPASSWORD") {
		t.Errorf("no warning of the password in the arguments:\n%s", stderr)
	}
	if strings.Contains(stderr, "s3cret") {
		t.Errorf("the password is printed:\n%s", stderr)
	}
	// A store path that is no store is said redacted in the error too.
	if _, _, stderr := memlab(t, "runs", "list", "-store", "https://ghp_t0ken@api.example/v1"); strings.Contains(stderr, "t0ken") || !strings.Contains(stderr, "no run store at https://***@api.example/v1") {
		t.Errorf("the token is printed, or the error does not say what is missing:\n%s", stderr)
	}
	for _, c := range []struct {
		arg  string
		warn bool
	}{
		{"postgres://ann@127.0.0.1:1/runs", false},
		{"/tmp/runs.db", false},
		{"system=flat(bm25)", false},
		{"https://ghp_t0ken@api.example/v1", true},
		{"postgres://ann@127.0.0.1:1/runs?password=s3cret", true},
		{"OPENAI_BASE_URL=https://ann:s3cret@api.example/v1", true},
	} {
		var buf strings.Builder
		warnCredentialArgs([]string{"run", "nb.go", "-p", c.arg}, &buf)
		got := buf.String()
		if strings.Contains(got, "holds a credential") != c.warn || strings.Contains(got, "s3cret") || strings.Contains(got, "t0ken") {
			t.Errorf("%s: want a warning %t, got %q", c.arg, c.warn, got)
		}
	}
}

// TestWorkerGetsTheStoreInItsEnvironment: a worker process (memlab run,
// repl, kernel) gets the run store of -store in its environment, not in its
// arguments, which any user of the machine can read.
func TestWorkerGetsTheStoreInItsEnvironment(t *testing.T) {
	const url = "postgres://ann:s3cret@db.example/runs"
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	sf := addStoreFlags(fs)
	if err := fs.Parse([]string{"-store", url}); err != nil {
		t.Fatal(err)
	}
	for _, a := range workerArgs(sf, "/tmp/out", true, false) {
		if strings.Contains(a, "s3cret") || strings.Contains(a, "db.example") {
			t.Errorf("a worker argument names the store: %q", a)
		}
	}
	if env := workerEnv(sf); !slices.Equal(env, []string{"MEMLAB_RUNS=" + url}) {
		t.Errorf("worker environment %q, want the store as MEMLAB_RUNS", env)
	}
}
